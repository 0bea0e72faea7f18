// Token counting moved to src/core/tokens.ts, a leaf every layer may use. This re-export keeps the
// loop's import working until it points at the leaf; nothing else should import it.
export { countRequestTokens, countTokens, MESSAGE_OVERHEAD_TOKENS, truncateToTokens, warmTokenizer } from '../tokens';

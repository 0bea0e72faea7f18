// Token estimates with a real BPE tokenizer, for prompts and for providers that report no usage.
// A leaf (it imports only types): the model, the verifier's report, the loop and the hosts all count with it.
// gpt-tokenizer: the o200k_base BPE in plain JS, measured here 3× faster to load and 2.5× faster to
// count than js-tiktoken, with identical counts.
import { ALL_SPECIAL_TOKENS, countTokens as countO200k, decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessage } from './types';

// Text from files and models may contain `<|endoftext|>` and the like: count it, never throw on it.
const OPTIONS = { allowedSpecial: ALL_SPECIAL_TOKENS } as const;

// Counting takes ~0.7 ms per KB, and a run counts the same files at every step: counts of texts
// worth remembering are kept, least recently used first out, within a bound on the text held.
const MEMO_MIN_CHARS = 200;
const MEMO_MAX_CHARS = 16 * 2 ** 20;
const memo = new Map<string, number>();
let memoChars = 0;

// BPE merges within one pre-token take time quadratic in its length: one 150 KB run of letters
// (a minified bundle, a base64 blob, a test's `'x'.repeat(n)`) took 40 s to count. A run of
// non-space characters longer than this is cut into pieces of at most this many characters, counted
// (and encoded) one by one: linear. The count errs high: within a token a cut on data (base64, hex,
// minified code), up to a quarter over on a run of one repeated pair (test/unit/model/tokens.test.ts).
const RUN_PIECE_CHARS = 256;

/**
 * `text` as consecutive pieces whose concatenation is `text`: unchanged unless it holds a run of
 * more than RUN_PIECE_CHARS non-space characters, which is cut (never inside a surrogate pair).
 */
export function tokenPieces(text: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Space, tab, CR, LF: a pre-token boundary for the tokenizer's own split.
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      run = 0;
      continue;
    }
    // A low surrogate stays with its high one.
    if (++run > RUN_PIECE_CHARS && !(c >= 0xdc00 && c <= 0xdfff)) {
      pieces.push(text.slice(from, i));
      from = i;
      run = 1;
    }
  }
  pieces.push(text.slice(from));
  return pieces;
}

function countPieces(text: string): number {
  const pieces = tokenPieces(text);
  return pieces.length === 1 ? countO200k(text, OPTIONS) : pieces.reduce((n, p) => n + countO200k(p, OPTIONS), 0);
}

function encodePieces(text: string): number[] {
  const pieces = tokenPieces(text);
  return pieces.length === 1 ? encode(text, OPTIONS) : pieces.flatMap((p) => encode(p, OPTIONS));
}

export function countTokens(text: string): number {
  if (text.length < MEMO_MIN_CHARS) return countO200k(text, OPTIONS);
  const hit = memo.get(text);
  if (hit !== undefined) {
    // Re-insert to keep the map in least-recently-used order.
    memo.delete(text);
    memo.set(text, hit);
    return hit;
  }
  const n = countPieces(text);
  if (text.length <= MEMO_MAX_CHARS / 4) {
    memo.set(text, n);
    memoChars += text.length;
    for (const k of memo.keys()) {
      if (memoChars <= MEMO_MAX_CHARS) break;
      memo.delete(k);
      memoChars -= k.length;
    }
  }
  return n;
}

/**
 * Builds the tokenizer's tables ahead of the first count (its chunk's load and tables: a few hundred
 * ms of CPU, seconds on a busy machine). Synchronous: never called while a check runs (loop/run.ts),
 * where it would hold back the killing of the check's strays.
 */
export function warmTokenizer(): void {
  countO200k('warm');
}

/** Per-message framing overhead of chat formats, so estimates err high rather than low. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** The estimated input of a request: every message's tokens plus its framing, the system prompt counted as a message. */
export function countRequestTokens(req: { system: string; messages: readonly ChatMessage[] }): number {
  return countTokens(req.system) + req.messages.reduce((n, m) => n + countTokens(m.content), 0) + (req.messages.length + 1) * MESSAGE_OVERHEAD_TOKENS;
}

/** The longest prefix of `text` within `maxTokens` tokens, marked when cut. */
export function truncateToTokens(text: string, maxTokens: number): string {
  const ids = encodePieces(text);
  if (ids.length <= maxTokens) return text;
  const note = `\n[… cut to fit the context budget]`;
  const keep = Math.max(0, maxTokens - countTokens(note));
  return decode(ids.slice(0, keep)) + note;
}

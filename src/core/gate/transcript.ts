// Token usage from an agent host's transcript, where the host writes it (Claude Code's JSONL: one
// line per message part, each assistant message's `usage` repeated on every part of the same id;
// Codex's rollout JSONL: one `token_usage_record` line per model response, its model in the
// `turn_context` line before it, `input_tokens` already counting `cached_input_tokens`; Gemini CLI's
// chat JSONL: one `"type":"gemini"` line per model response, rewritten whole under the same id as
// the response gains tool calls, its `tokens` the API's usageMetadata, `input` counting `cached`).
// The stop gate's token and cost ceilings read it; a host that writes none is said to be unknown.
import { readFileSync } from 'node:fs';
import type { ModelPrice } from '../settings';

export interface TranscriptUsage {
  /** Input (with cache reads and writes) and output tokens of every model call in the transcript. */
  tokensUsed: number;
  /** The last call's input: the next call carries at least as much. */
  lastInputTokens: number;
  /** Model calls counted. */
  calls: number;
  /** Money spent at `model.pricing`, when every call's model has a price; else null. */
  costUsed: number | null;
  /** The next call's least cost (its input at the last model's price), when priced. */
  nextCallMinCost: number | null;
}

interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

function n(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/** Reads the usage in a transcript file; null when it cannot be read or holds none. */
export function transcriptUsage(file: string, pricing: Record<string, ModelPrice> = {}): TranscriptUsage | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const byId = new Map<string, { usage: Usage; model: string | null }>();
  let anon = 0;
  let codexModel: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.includes('"usage"') && !line.includes('"turn_context"') && !line.includes('"tokens"')) continue;
    let o: {
      type?: unknown;
      id?: unknown;
      model?: unknown;
      tokens?: { input?: number; output?: number; thoughts?: number; tool?: number };
      payload?: { usage?: Usage; response_id?: unknown; model?: unknown };
      message?: { id?: unknown; usage?: Usage; model?: unknown; role?: unknown };
    };
    try {
      o = JSON.parse(line) as typeof o;
    } catch {
      // The host writes the transcript while the hook reads it: a torn last line is skipped.
      continue;
    }
    if (o.type === 'turn_context') {
      codexModel = typeof o.payload?.model === 'string' ? o.payload.model : codexModel;
      continue;
    }
    if (o.type === 'token_usage_record') {
      const u = o.payload?.usage;
      if (typeof u !== 'object' || u === null) continue;
      // OpenAI counts cached input inside input_tokens: no cache fields are added on top.
      const id = typeof o.payload?.response_id === 'string' ? o.payload.response_id : `anon-${anon++}`;
      byId.set(id, { usage: { input_tokens: u.input_tokens, output_tokens: u.output_tokens }, model: codexModel });
      continue;
    }
    if (o.type === 'gemini') {
      const t = o.tokens;
      if (typeof t !== 'object' || t === null) continue;
      // promptTokenCount already counts cached content; thinking and tool-use prompt tokens are billed on top.
      const id = typeof o.id === 'string' ? o.id : `anon-${anon++}`;
      byId.set(id, { usage: { input_tokens: n(t.input) + n(t.tool), output_tokens: n(t.output) + n(t.thoughts) }, model: typeof o.model === 'string' ? o.model : null });
      continue;
    }
    const m = o.message;
    if (!m || typeof m.usage !== 'object' || m.usage === null) continue;
    const id = typeof m.id === 'string' ? m.id : `anon-${anon++}`;
    // The last line of a message carries its final output count.
    byId.set(id, { usage: m.usage, model: typeof m.model === 'string' ? m.model : null });
  }
  if (byId.size === 0) return null;
  let tokensUsed = 0;
  let cost: number | null = 0;
  let lastInput = 0;
  let lastModel: string | null = null;
  for (const { usage: u, model } of byId.values()) {
    const input = n(u.input_tokens) + n(u.cache_creation_input_tokens) + n(u.cache_read_input_tokens);
    const output = n(u.output_tokens);
    tokensUsed += input + output;
    lastInput = input;
    lastModel = model;
    const price = model !== null ? pricing[model] : undefined;
    cost = cost !== null && price ? cost + (input * price.input + output * price.output) / 1e6 : null;
  }
  const lastPrice = lastModel !== null ? pricing[lastModel] : undefined;
  return { tokensUsed, lastInputTokens: lastInput, calls: byId.size, costUsed: cost, nextCallMinCost: lastPrice && cost !== null ? (lastInput * lastPrice.input) / 1e6 : null };
}

// Token usage from an agent host's transcript, where the host writes it (Claude Code's JSONL: one
// line per message part, each assistant message's `usage` repeated on every part of the same id;
// Codex's rollout JSONL: one `token_usage_record` line per model response, its model in the
// `turn_context` line before it, `input_tokens` already counting `cached_input_tokens`; Gemini CLI's
// chat JSONL: one `"type":"gemini"` line per model response, rewritten whole under the same id as
// the response gains tool calls, its `tokens` the API's usageMetadata, `input` counting `cached`).
// The stop gate's token and cost ceilings read it; a host that writes none is said to be unknown.
import { closeSync, constants as fsc, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
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

/** How much of a transcript is read, and until when: the hook must answer within the host's timeout. */
export interface TranscriptBounds {
  /** Bytes read at most; a larger file's usage is not known. */
  maxBytes?: number;
  /** Epoch ms after which reading stops and the usage is not known. */
  deadline?: number;
}

/** What reading a transcript gave: the usage, or why it is not known. */
export interface TranscriptRead {
  usage: TranscriptUsage | null;
  /** Why the file was not read (not a regular file, too large, too slow); absent when it was. */
  problem?: string;
}

export const TRANSCRIPT_MAX_BYTES = 512 * 1024 * 1024;
const CHUNK = 1024 * 1024;

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a directory';
  return 'not a regular file';
}

function cannot(file: string, e: unknown): TranscriptRead {
  return { usage: null, problem: `the transcript ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
}

/**
 * Reads the usage in a transcript the host names. The path comes from the host's input, so it is
 * read only when lstat says it is a regular file (a FIFO would block a read forever, a device never
 * ends), opened without blocking, at most `maxBytes`, in chunks checked against `deadline`; lines are
 * tallied as they come, so memory stays bounded by the longest line.
 */
export function readTranscriptUsage(file: string, pricing: Record<string, ModelPrice> = {}, bounds: TranscriptBounds = {}): TranscriptRead {
  const maxBytes = bounds.maxBytes ?? TRANSCRIPT_MAX_BYTES;
  let fd: number;
  try {
    const st = lstatSync(file);
    if (!st.isFile()) return { usage: null, problem: `the transcript ${file} is ${kindOf(st)}; it is not read` };
    if (st.size > maxBytes) return { usage: null, problem: `the transcript ${file} holds ${st.size} bytes, more than the ${maxBytes} read at most` };
    fd = openSync(file, fsc.O_RDONLY | (fsc.O_NONBLOCK ?? 0) | (fsc.O_NOFOLLOW ?? 0));
  } catch (e) {
    return cannot(file, e);
  }
  const tally = new Tally(pricing);
  try {
    // Swapped for something else between the lstat and the open: the open's own file decides.
    if (!fstatSync(fd).isFile()) return { usage: null, problem: `the transcript ${file} is not a regular file; it is not read` };
    const buf = Buffer.allocUnsafe(CHUNK);
    const utf8 = new StringDecoder('utf8');
    let rest = '';
    let total = 0;
    for (;;) {
      if (bounds.deadline !== undefined && Date.now() > bounds.deadline) return { usage: null, problem: `the transcript ${file} could not be read within the hook's time` };
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) return { usage: null, problem: `the transcript ${file} grew past the ${maxBytes} bytes read at most` };
      // The decoder keeps a character cut by a chunk's end for the next chunk.
      const lines = (rest + utf8.write(buf.subarray(0, n))).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) tally.line(l);
    }
    tally.line(rest + utf8.end());
  } catch (e) {
    return cannot(file, e);
  } finally {
    closeSync(fd);
  }
  return { usage: tally.result() };
}

/** Reads the usage in a transcript file; null when it cannot be read or holds none. */
export function transcriptUsage(file: string, pricing: Record<string, ModelPrice> = {}, bounds: TranscriptBounds = {}): TranscriptUsage | null {
  return readTranscriptUsage(file, pricing, bounds).usage;
}

/** The usage of a transcript's lines, tallied one line at a time. */
class Tally {
  private readonly byId = new Map<string, { usage: Usage; model: string | null }>();
  private anon = 0;
  private codexModel: string | null = null;

  constructor(private readonly pricing: Record<string, ModelPrice>) {}

  line(line: string): void {
    const byId = this.byId;
    if (!line.includes('"usage"') && !line.includes('"turn_context"') && !line.includes('"tokens"')) return;
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
      return;
    }
    if (o.type === 'turn_context') {
      this.codexModel = typeof o.payload?.model === 'string' ? o.payload.model : this.codexModel;
      return;
    }
    if (o.type === 'token_usage_record') {
      const u = o.payload?.usage;
      if (typeof u !== 'object' || u === null) return;
      // OpenAI counts cached input inside input_tokens: no cache fields are added on top.
      const id = typeof o.payload?.response_id === 'string' ? o.payload.response_id : `anon-${this.anon++}`;
      byId.set(id, { usage: { input_tokens: u.input_tokens, output_tokens: u.output_tokens }, model: this.codexModel });
      return;
    }
    if (o.type === 'gemini') {
      const t = o.tokens;
      if (typeof t !== 'object' || t === null) return;
      // promptTokenCount already counts cached content; thinking and tool-use prompt tokens are billed on top.
      const id = typeof o.id === 'string' ? o.id : `anon-${this.anon++}`;
      byId.set(id, { usage: { input_tokens: n(t.input) + n(t.tool), output_tokens: n(t.output) + n(t.thoughts) }, model: typeof o.model === 'string' ? o.model : null });
      return;
    }
    const m = o.message;
    if (!m || typeof m.usage !== 'object' || m.usage === null) return;
    const id = typeof m.id === 'string' ? m.id : `anon-${this.anon++}`;
    // The last line of a message carries its final output count.
    byId.set(id, { usage: m.usage, model: typeof m.model === 'string' ? m.model : null });
  }

  result(): TranscriptUsage | null {
    const byId = this.byId;
    const pricing = this.pricing;
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
  }

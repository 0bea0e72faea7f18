// Token estimates with a real BPE tokenizer, for prompts and for providers that report no usage.
import { getEncoding } from 'js-tiktoken';
import type { Tiktoken } from 'js-tiktoken';
import type { ChatMessage } from '../types';

let encoding: Tiktoken | undefined;

// The JS tokenizer takes ~3 ms per KB; a run counts the same files at every step.
const MEMO_MIN_CHARS = 2000;
const MEMO_MAX_ENTRIES = 256;
const memo = new Map<string, number>();

export function countTokens(text: string): number {
  if (text.length >= MEMO_MIN_CHARS) {
    const hit = memo.get(text);
    if (hit !== undefined) {
      // Re-insert to keep the map in least-recently-used order.
      memo.delete(text);
      memo.set(text, hit);
      return hit;
    }
  }
  encoding ??= getEncoding('o200k_base');
  const n = encoding.encode(text, 'all').length;
  if (text.length >= MEMO_MIN_CHARS) {
    memo.set(text, n);
    if (memo.size > MEMO_MAX_ENTRIES) memo.delete(memo.keys().next().value!);
  }
  return n;
}

/** Per-message framing overhead of chat formats, so estimates err high rather than low. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** The estimated input of a request: every message's tokens plus its framing, the system prompt counted as a message. */
export function countRequestTokens(req: { system: string; messages: readonly ChatMessage[] }): number {
  return countTokens(req.system) + req.messages.reduce((n, m) => n + countTokens(m.content), 0) + (req.messages.length + 1) * MESSAGE_OVERHEAD_TOKENS;
}

/** The longest prefix of `text` within `maxTokens` tokens, marked when cut. */
export function truncateToTokens(text: string, maxTokens: number): string {
  encoding ??= getEncoding('o200k_base');
  const ids = encoding.encode(text, 'all');
  if (ids.length <= maxTokens) return text;
  const note = `\n[… cut to fit the context budget]`;
  const keep = Math.max(0, maxTokens - countTokens(note));
  return encoding.decode(ids.slice(0, keep)) + note;
}

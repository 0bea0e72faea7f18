// Token estimates with a real BPE tokenizer, for prompts and for providers that report no usage.
import { getEncoding } from 'js-tiktoken';
import type { Tiktoken } from 'js-tiktoken';
import type { ChatMessage } from '../types';

let encoding: Tiktoken | undefined;

export function countTokens(text: string): number {
  encoding ??= getEncoding('o200k_base');
  return encoding.encode(text, 'all').length;
}

/** Per-message framing overhead of chat formats, so estimates err high rather than low. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** The estimated input of a request: every message's tokens plus its framing, the system prompt counted as a message. */
export function countRequestTokens(req: { system: string; messages: readonly ChatMessage[] }): number {
  return countTokens(req.system) + req.messages.reduce((n, m) => n + countTokens(m.content), 0) + (req.messages.length + 1) * MESSAGE_OVERHEAD_TOKENS;
}

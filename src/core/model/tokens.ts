// Token estimates with a real BPE tokenizer, for prompts and for providers that report no usage.
import { getEncoding } from 'js-tiktoken';
import type { Tiktoken } from 'js-tiktoken';

let encoding: Tiktoken | undefined;

export function countTokens(text: string): number {
  encoding ??= getEncoding('o200k_base');
  return encoding.encode(text, 'all').length;
}

/** Per-message framing overhead of chat formats, so estimates err high rather than low. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

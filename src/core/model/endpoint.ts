// Endpoints and keys: where a provider talks to, whether it needs a key, and keeping keys out of
// every message that could reach a log, a trace or a report.

import { isLoopbackUrl } from '../endpoints';

/** Host and path of a base URL, without credentials or query, for labels and messages. */
export function describeEndpoint(url: string): string {
  if (!URL.canParse(url)) return '(an unreadable URL)';
  const u = new URL(url);
  return `${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

const KEY_PATTERNS: RegExp[] = [
  // OpenAI, Anthropic, OpenRouter and most gateways issue `sk-...` keys.
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
];

/**
 * Removes the given secrets, and anything shaped like an API key, from a message. Used on every
 * provider error before it leaves the provider: servers echo keys back in their error bodies.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    // Very short strings are not keys, and replacing them would mangle ordinary text.
    if (s && s.length >= 6) out = out.split(s).join('[redacted]');
  }
  for (const p of KEY_PATTERNS) out = out.replace(p, '[redacted]');
  return out;
}

export interface KeyRequirement {
  /** The provider, for the message: `openai-compatible` or `anthropic`. */
  provider: string;
  baseUrl: string;
  apiKey: string | undefined;
  /** Where the key comes from, e.g. `set the OPENAI_API_KEY environment variable`. */
  keyHint: string;
}

/** Why a provider cannot be used without a key, or undefined when it can be. A loopback server needs none. */
export function missingKeyProblem(r: KeyRequirement): string | undefined {
  if (r.apiKey && r.apiKey.trim() !== '') return undefined;
  if (isLoopbackUrl(r.baseUrl)) return undefined;
  return `${r.provider} at ${describeEndpoint(r.baseUrl)} needs an API key and none is set: ${r.keyHint} (a server on this machine, e.g. http://127.0.0.1:11434/v1, needs none; set fixUntilGreen.model.baseUrl to use one)`;
}

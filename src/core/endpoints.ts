// Where a provider's requests go, named without loading a provider or an SDK: the shell (Set API Key,
// Choose Model…, the fix buttons) and the engine (the key rule, the providers) read the same answers.

/** The providers' default endpoints. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** True for localhost, 127.0.0.0/8 and ::1: a server on this machine, which needs no key. */
export function isLoopbackUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** The URL requests go to: the base URL, or the provider's public endpoint. */
export function effectiveBaseUrl(provider: string, baseUrl: string): string {
  if (baseUrl.trim() !== '') return baseUrl.trim();
  return provider === 'anthropic' ? ANTHROPIC_DEFAULT_BASE_URL : OPENAI_DEFAULT_BASE_URL;
}

/** `scheme://host:port` of a URL (the unit keys are trusted to), or the text itself when unreadable. */
export function endpointOrigin(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

// The models a server serves, from its own `/models` list, for a set-up that lets the user pick one
// instead of typing an id (Choose Model…). OpenAI-compatible servers (OpenAI, Ollama, LM Studio, vLLM,
// OpenRouter) answer `GET {baseUrl}/models`; Anthropic answers `GET {baseUrl}/v1/models`.
import { describeEndpoint, redactSecrets } from './endpoint';
import { ANTHROPIC_DEFAULT_BASE_URL, OPENAI_DEFAULT_BASE_URL } from '../endpoints';

export type ModelListing =
  | { ok: true; ids: string[] }
  /** `needsKey`: the server answered 401 or 403, so a key (another key) is what is missing. */
  | { ok: false; needsKey: boolean; reason: string };

const LIST_TIMEOUT_MS = 10_000;

/** The URL a provider lists its models at. */
export function modelsUrl(provider: 'openai-compatible' | 'anthropic', baseUrl: string): string {
  const base = (baseUrl.trim() || (provider === 'anthropic' ? ANTHROPIC_DEFAULT_BASE_URL : OPENAI_DEFAULT_BASE_URL)).replace(/\/+$/, '');
  return provider === 'anthropic' ? `${base.replace(/\/v1$/, '')}/v1/models` : `${base}/models`;
}

/** The ids of a `/models` answer (`{data: [{id}]}`, or Ollama's older `{models: [{name}]}`), sorted. */
export function modelIds(body: unknown): string[] {
  const b = body as { data?: unknown; models?: unknown } | null;
  const list = Array.isArray(b?.data) ? b.data : Array.isArray(b?.models) ? b.models : [];
  const ids = list.map((m) => (m && typeof m === 'object' ? ((m as { id?: unknown }).id ?? (m as { name?: unknown }).name) : undefined)).filter((x): x is string => typeof x === 'string' && x !== '');
  return [...new Set(ids)].sort((a, b) => a.localeCompare(b));
}

/** Asks the server for its models; never throws, and never puts the key in a reason. */
export async function listModels(provider: 'openai-compatible' | 'anthropic', baseUrl: string, apiKey: string | undefined, signal?: AbortSignal): Promise<ModelListing> {
  const url = modelsUrl(provider, baseUrl);
  const key = apiKey?.trim() ? apiKey.trim() : undefined;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key && provider === 'anthropic') Object.assign(headers, { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
  else if (key) headers.authorization = `Bearer ${key}`;
  const timeout = AbortSignal.timeout(LIST_TIMEOUT_MS);
  try {
    const res = await fetch(url, { headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    if (res.status === 401 || res.status === 403) return { ok: false, needsKey: true, reason: `${describeEndpoint(url)} answered ${res.status}${key ? ': the key was refused' : ': it needs an API key'}` };
    if (!res.ok) return { ok: false, needsKey: false, reason: `${describeEndpoint(url)} answered ${res.status}` };
    return { ok: true, ids: modelIds(await res.json()) };
  } catch (e) {
    const cause = (e as { cause?: { code?: unknown } }).cause?.code;
    const why = typeof cause === 'string' ? cause : e instanceof Error ? e.message : String(e);
    return { ok: false, needsKey: false, reason: redactSecrets(`could not reach ${describeEndpoint(url)} (${why})`, [key]) };
  }
}

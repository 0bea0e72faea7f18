// Turns an HTTP provider's failure into one of three things the loop understands: retry it
// (TransientProviderError), stop the run with a message that says what to fix (ProviderFatalError),
// or pass the abort through. Both SDKs (openai, @anthropic-ai/sdk) share this error shape.
import { describeEndpoint, redactSecrets } from './endpoint';
import { ProviderFatalError } from './provider';
import { TransientProviderError, parseRetryAfter } from './retry';

/** The error classes of one SDK; passed in so that `instanceof` is exact for each. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error & { status?: number | undefined; headers?: { get(name: string): string | null } | undefined };
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
}

export interface FaultContext {
  provider: 'openai-compatible' | 'anthropic';
  model: string;
  baseUrl: string;
  /** Where the key comes from, e.g. `set the OPENAI_API_KEY environment variable`. */
  keyHint: string;
  /** Every secret the request carried; removed from any text that leaves the provider. */
  secrets: readonly (string | undefined)[];
  timeoutMs: number;
}

/** The deepest `code` in an error's cause chain (ECONNRESET, ECONNREFUSED, UND_ERR_SOCKET, ...). */
function causeCode(e: unknown): string | undefined {
  let code: string | undefined;
  for (let c: unknown = e, depth = 0; c && typeof c === 'object' && depth < 8; c = (c as { cause?: unknown }).cause, depth++) {
    const v = (c as { code?: unknown }).code;
    if (typeof v === 'string') code = v;
  }
  return code;
}

/** The statuses a later attempt can succeed on: request timeout, conflict, rate limit, server faults. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Maps an SDK error to the error the provider throws. Anything unrecognized is returned as it is. */
export function classifyProviderError(e: unknown, sdk: SdkErrorClasses, ctx: FaultContext, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason : e;
  if (e instanceof sdk.APIUserAbortError) return e;
  const who = `${ctx.provider}:${ctx.model} at ${describeEndpoint(ctx.baseUrl)}`;
  const clean = (s: string): string => redactSecrets(s, ctx.secrets);
  if (e instanceof sdk.APIConnectionTimeoutError) {
    return new TransientProviderError(`no answer within the ${Math.round(ctx.timeoutMs / 1000)} s request timeout`);
  }
  if (e instanceof sdk.APIConnectionError) {
    const code = causeCode(e);
    return new TransientProviderError(`could not reach ${describeEndpoint(ctx.baseUrl)} (${code ?? clean(e.message)})`);
  }
  if (!(e instanceof sdk.APIError) || typeof e.status !== 'number') return e;
  const status = e.status;
  const said = clean(e.message);
  if (isRetryableStatus(status)) return new TransientProviderError(said, parseRetryAfter(e.headers));

  const idSetting = 'fixUntilGreen.model.id (CLI: --model)';
  const urlSetting = 'fixUntilGreen.model.baseUrl (CLI: --base-url)';
  switch (status) {
    case 401:
      // A server never given a key did not refuse one: it wants one.
      if (!ctx.secrets.some((k) => k !== undefined && k.trim() !== '')) return new ProviderFatalError(`${who} needs an API key and none was sent (${said}). Fix: ${ctx.keyHint}.`);
      return new ProviderFatalError(`${who} refused the API key (${said}). Fix: ${ctx.keyHint}.`);
    case 402:
      return new ProviderFatalError(`${who} refused the request for billing reasons (${said}). Fix: check the account's credit or plan, or use another key: ${ctx.keyHint}.`);
    case 403:
      return new ProviderFatalError(`${who} denied access (${said}). Fix: use a key that may use model "${ctx.model}" (${ctx.keyHint}), or choose another model in ${idSetting}.`);
    case 404:
      return new ProviderFatalError(
        `${who}: model "${ctx.model}" or the endpoint was not found (${said}). Fix: set ${idSetting} to a model this server serves, and check ${urlSetting}${ctx.provider === 'openai-compatible' ? ' (OpenAI-compatible base URLs usually end in /v1)' : ''}.`,
      );
    default: {
      const contextTooLong = /context|too long|too many tokens|maximum.*tokens|prompt is too long/i.test(said);
      const fix = contextTooLong
        ? 'Fix: lower fixUntilGreen.contextTokenBudget so that prompts fit the model\'s context window, or choose a model with a larger one.'
        : `Fix: check ${idSetting} and ${urlSetting}; the server does not accept this request.`;
      return new ProviderFatalError(`${who} rejected the request (${said}). ${fix}`);
    }
  }
}

/** The hint shown when transient faults outlast the retry policy. */
export const GIVE_UP_HINT =
  'The server is down, overloaded or rate-limiting: try again later, check that fixUntilGreen.model.baseUrl (CLI: --base-url) points at a running server, or raise fixUntilGreen.timeLimitSeconds.';

/** How long the reachability check waits for an answer. */
export const PREFLIGHT_TIMEOUT_MS = 10_000;

/**
 * The preflight's verdict on a failed model listing: a problem when the server could not be
 * reached at all; undefined when it answered anything, even an error status (auth and model faults
 * are the first call's to report, with their fix).
 */
export function unreachableProblem(e: unknown, sdk: SdkErrorClasses, ctx: Pick<FaultContext, 'provider' | 'model' | 'baseUrl'>): string | undefined {
  const where = describeEndpoint(ctx.baseUrl);
  if (e instanceof sdk.APIConnectionTimeoutError) {
    return `${ctx.provider}:${ctx.model}: ${where} did not answer within ${PREFLIGHT_TIMEOUT_MS / 1000} s; check that the server is running and fixUntilGreen.model.baseUrl (CLI: --base-url)`;
  }
  if (e instanceof sdk.APIConnectionError) {
    return `${ctx.provider}:${ctx.model}: cannot reach ${where} (${causeCode(e) ?? 'connection failed'}); check that the server is running and fixUntilGreen.model.baseUrl (CLI: --base-url)`;
  }
  return undefined;
}

/** What a provider's answer held, read by us rather than by the SDK, so that a fault can say what came back. */
export interface ProviderAnswer {
  status: number;
  /** The Content-Type header, or `no content-type`. */
  contentType: string;
  text: string;
  /** The parsed body; undefined when `text` is not JSON. */
  json: unknown;
}

const SNIPPET_CHARS = 200;

/**
 * The first ~200 characters of a body, fit for a message: secrets removed, control characters
 * and runs of whitespace folded to one space, so that an HTML page or a binary body stays one line.
 */
export function bodySnippet(text: string, secrets: readonly (string | undefined)[]): string {
  const flat = redactSecrets(text, secrets).replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();
  if (flat === '') return '(an empty body)';
  return flat.length > SNIPPET_CHARS ? `"${flat.slice(0, SNIPPET_CHARS)}…" (${text.length} characters)` : `"${flat}"`;
}

/** The hint shown when answers that are not the API's outlast the retry policy. */
export function notAnApiHint(ctx: Pick<FaultContext, 'provider'>): string {
  const v1 = ctx.provider === 'openai-compatible' ? ' (OpenAI-compatible base URLs usually end in /v1)' : '';
  return `The server does not answer like the ${ctx.provider} API: check that fixUntilGreen.model.baseUrl (CLI: --base-url) points at the API itself${v1}, not at a web page, a proxy's login or error page; or try again later.`;
}

/**
 * A 200 that is not a usable API answer (an HTML page, a cut-off or empty body, JSON without
 * the fields every answer has): the server's fault, not the model's, so it is retried like a
 * 5xx and, when it persists, ends the run with a message that says what the server sent.
 */
export function badAnswer(what: string, a: Pick<ProviderAnswer, 'status' | 'contentType' | 'text'>, ctx: Pick<FaultContext, 'provider' | 'secrets'>): TransientProviderError {
  return new TransientProviderError(`the server answered ${a.status} (${a.contentType}) ${what}: ${bodySnippet(a.text, ctx.secrets)}`, undefined, notAnApiHint(ctx), BAD_ANSWER_LIMIT);
}

/**
 * How often, and how patiently, an answer that is not the API's is retried: a proxy's page or a
 * misrouted base URL answers the same way every time, so the run says what came back within seconds
 * (three attempts, at most 2 s apart) instead of waiting out a 429's or a 5xx's backoff.
 */
export const BAD_ANSWER_LIMIT = { attempts: 3, maxDelayMs: 2000 } as const;

function abortError(signal: AbortSignal): unknown {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? 'aborted'));
}

/**
 * Reads a successful response's body ourselves (the SDKs hand back an HTML page as a string and
 * throw a bare TypeError when the connection breaks mid-body). A break, or no complete body within
 * the request timeout, is a TransientProviderError; an abort rejects with the signal's reason; a
 * body that is not JSON is a `badAnswer`.
 */
export async function readAnswer(response: Response, ctx: FaultContext, signal: AbortSignal): Promise<ProviderAnswer> {
  const status = response.status;
  const contentType = response.headers.get('content-type') ?? 'no content-type';
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let text: string;
  try {
    text = await Promise.race([
      response.text(),
      new Promise<never>((_, reject) => {
        // The SDK's timeout stops at the headers; a body that trickles forever must end too.
        timer = setTimeout(() => reject(new TransientProviderError(`no complete answer within the ${Math.round(ctx.timeoutMs / 1000)} s request timeout (the body stalled)`)), ctx.timeoutMs);
        onAbort = (): void => reject(abortError(signal));
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } catch (e) {
    // Stop reading whatever is still coming; the rejection of the cancel itself means nothing here.
    response.body?.cancel().catch((c: unknown) => c);
    if (signal.aborted) throw abortError(signal);
    if (e instanceof TransientProviderError) throw e;
    const code = causeCode(e);
    throw new TransientProviderError(`the connection broke while the answer was being read (${code ?? redactSecrets(e instanceof Error ? e.message : String(e), ctx.secrets)})`);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    // Whether HTML, a cut-off JSON document or nothing at all, the message shows which.
    throw badAnswer(text.trim() === '' ? 'with an empty body' : /json/i.test(contentType) ? 'with a body that is not complete JSON' : 'with a body that is not JSON', { status, contentType, text }, ctx);
  }
  return { status, contentType, text, json };
}

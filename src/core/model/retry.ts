// The one retry policy for every network provider: exponential backoff with jitter, Retry-After
// honoured, every wait cut short by the run's AbortSignal (cancel or time limit). SDK-internal
// retries are disabled so that this policy is the only one, and testable.
import type { RetryNotice } from '../types';
import { ProviderFatalError } from './provider';

export interface RetryPolicy {
  /** Total attempts, the first included. */
  attempts: number;
  /** The first backoff; each later one doubles, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited out: the call fails with a message saying so. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 6,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 300_000,
};

/** A fault worth retrying: 408/409/429/5xx, a reset or refused connection, a request timeout. */
export class TransientProviderError extends Error {
  constructor(
    message: string,
    /** How long the server asked us to wait (Retry-After), when it did. */
    readonly retryAfterMs?: number,
    /** What the user can do if this fault outlasts the policy, when it differs from the caller's hint. */
    readonly giveUpHint?: string,
    /**
     * A tighter bound for this kind of fault than the policy's: a server that answers, but not as
     * the API does, is rarely cured by waiting; its attempts end well inside any time limit.
     */
    readonly limit?: { attempts: number; maxDelayMs: number },
  ) {
    super(message);
    this.name = 'TransientProviderError';
  }
}

export type { RetryNotice };

export interface RetryOptions {
  signal: AbortSignal;
  policy?: Partial<RetryPolicy>;
  /** Names the endpoint in the final message, e.g. `openai-compatible:gpt-4o at api.openai.com/v1`. */
  describe: string;
  /** What the user can do when the faults outlast the policy. */
  giveUpHint?: string;
  onRetry?: (n: RetryNotice) => void;
  /** In [0, 1); injectable so that tests can pin the jitter. */
  random?: () => number;
  now?: () => number;
}

/**
 * Exponential backoff with "equal jitter": half of the step is fixed, half random, so waits grow
 * for sure while concurrent clients still spread out.
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date). Undefined when absent or unreadable. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const v = headers.get('retry-after');
  if (v === null || v.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? 'aborted'));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `fn` until it succeeds, throws something other than `TransientProviderError`, or the
 * policy runs out (then `ProviderFatalError` with the last fault and what to do).
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.policy };
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    if (opts.signal.aborted) throw abortReason(opts.signal);
    try {
      return await fn(attempt);
    } catch (e) {
      if (!(e instanceof TransientProviderError)) throw e;
      if (opts.signal.aborted) throw abortReason(opts.signal);
      const giveUp = e.giveUpHint ?? opts.giveUpHint;
      const hint = giveUp ? ` ${giveUp}` : '';
      if (e.retryAfterMs !== undefined && e.retryAfterMs > policy.maxRetryAfterMs) {
        throw new ProviderFatalError(
          `${opts.describe}: ${e.message}; the server asked to wait ${Math.ceil(e.retryAfterMs / 1000)} s before retrying, longer than the ${Math.round(policy.maxRetryAfterMs / 1000)} s a run waits.${hint}`,
        );
      }
      if (attempt >= Math.min(policy.attempts, e.limit?.attempts ?? Infinity)) {
        throw new ProviderFatalError(
          `${opts.describe}: still failing after ${attempt} attempts over ${Math.round((now() - started) / 1000)} s; last fault: ${e.message}.${hint}`,
        );
      }
      // Never earlier than the server asked; a little later, so that clients told the same instant spread out.
      const delayMs =
        e.retryAfterMs !== undefined
          ? e.retryAfterMs + Math.round(random() * Math.min(1000, e.retryAfterMs * 0.1))
          : backoffDelay(attempt, e.limit ? { ...policy, maxDelayMs: Math.min(policy.maxDelayMs, e.limit.maxDelayMs) } : policy, random);
      opts.onRetry?.({ attempt, delayMs, reason: e.message, ...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {}) });
      await abortableSleep(delayMs, opts.signal);
    }
  }
}

/**
 * A child signal for one request, unlinked when the request ends: the SDKs add an abort listener
 * per request, and a run's signal lives for many requests.
 */
export async function withChildSignal<T>(signal: AbortSignal, fn: (child: AbortSignal) => Promise<T>): Promise<T> {
  const child = new AbortController();
  const onAbort = (): void => child.abort(signal.reason);
  if (signal.aborted) child.abort(signal.reason);
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await fn(child.signal);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

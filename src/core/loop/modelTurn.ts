// A step's model turn: one call (the provider retries transient faults and reports each retry),
// its usage, and the reply's self-report. It returns what happened as a value; the run decides.
import type { ModelProvider } from '../model/provider';
import { ProviderReplyError } from '../model/provider';
import type { SelfReport } from '../policy/selfReport';
import { parseSelfReport } from '../policy/selfReport';
import type { RunEvent } from '../trace/events';
import type { RetryNotice, Usage } from '../types';
import { raceAbort } from './abort';

export interface ModelRequest {
  step: number;
  system: string;
  user: string;
  promptTokens: number;
  maxOutputTokens: number;
}

export type ModelTurn =
  | {
      ok: true;
      /** The reply's text; empty when the reply carried nothing usable (`replyError` says why). */
      text: string;
      usage: Usage;
      usageReported: boolean;
      /** Why the provider ended the reply, when it says (`stop`, `length`, ...): a cut-off reply is not applied. */
      stopReason?: string;
      /** A reply with nothing usable in it: a failed step that re-observes the unchanged state. */
      replyError?: ProviderReplyError;
      self: SelfReport;
      attempts: number;
      durationMs: number;
    }
  | { ok: false; error: unknown; message: string; attempts: number; durationMs: number };

export interface ModelTurnDeps {
  provider: ModelProvider;
  signal: AbortSignal;
  now: () => number;
  emit: (e: RunEvent) => void;
  /** True when the run is being interrupted (cancel, time limit): a reply fault is then no step. */
  interrupted: () => boolean;
}

export async function modelTurn(d: ModelTurnDeps, r: ModelRequest): Promise<ModelTurn> {
  const started = d.now();
  let retries = 0;
  const onRetry = (n: RetryNotice): void => {
    retries++;
    d.emit({ type: 'model-retry', step: r.step, attempt: n.attempt, delayMs: n.delayMs, reason: n.reason, ...(n.retryAfterMs !== undefined ? { retryAfterMs: n.retryAfterMs } : {}) });
  };
  try {
    const c = await raceAbort(
      d.provider.complete({ system: r.system, messages: [{ role: 'user', content: r.user }], maxOutputTokens: r.maxOutputTokens, signal: d.signal, onRetry }),
      d.signal,
    );
    // A provider may hand back anything; a missing text is an empty reply, which the header parser names.
    const text = typeof c.text === 'string' ? c.text : '';
    return {
      ok: true,
      text,
      usage: c.usage,
      usageReported: c.usageReported,
      ...(typeof c.finishReason === 'string' ? { stopReason: c.finishReason } : {}),
      self: parseSelfReport(text),
      attempts: retries + 1,
      durationMs: d.now() - started,
    };
  } catch (e) {
    if (e instanceof ProviderReplyError && !d.interrupted()) {
      return { ok: true, text: '', usage: e.usage, usageReported: e.usageReported, replyError: e, self: parseSelfReport(''), attempts: retries + 1, durationMs: d.now() - started };
    }
    return { ok: false, error: e, message: e instanceof Error ? e.message : String(e), attempts: retries + 1, durationMs: d.now() - started };
  }
}

/** The `model-call` trace event of a turn; `tokensUsed` is the run's total after the call. */
export function modelCallEvent(model: string, r: ModelRequest, t: ModelTurn, tokensUsed: number, money?: { cost: number | null; costUsed: number | null }): RunEvent {
  const self = t.ok && !t.replyError ? t.self : undefined;
  const reply = !t.ok ? null : t.replyError ? (t.replyError.partialText ?? null) : t.text;
  const error = !t.ok ? t.message : t.replyError ? `${t.replyError.problem}: ${t.replyError.message}` : null;
  return {
    type: 'model-call',
    step: r.step,
    model,
    promptTokens: r.promptTokens,
    maxOutputTokens: r.maxOutputTokens,
    usage: t.ok ? t.usage : null,
    usageReported: t.ok ? t.usageReported : false,
    durationMs: t.durationMs,
    tokensUsed,
    reply,
    status: self?.status ?? null,
    confidence: self?.confidence ?? null,
    postMortem: self?.postMortem ?? null,
    problems: self?.problems ?? [],
    error,
    attempts: t.attempts,
    prompt: { system: r.system, user: r.user },
    ...(money ? money : {}),
  };
}

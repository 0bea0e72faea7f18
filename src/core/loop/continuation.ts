// Continuing a run past a step-cap or token-ceiling stop: by the user (`Run.continue`) or by the
// front end's continuation hook before the stop. Either way the grant must add what ran out, and
// the trace records the stop it overrides.
import type { Decision } from '../policy/reasons';
import { CONTINUABLE } from '../policy/reasons';
import type { RunEvent, RunReport } from '../trace/events';
import type { RunAllowance } from './allowance';
import type { ContinuationHook, ContinueGrant } from './options';

/** A grant as whole, non-negative numbers. */
export function normalizeGrant(g: ContinueGrant | undefined): Required<ContinueGrant> {
  return { extraSteps: Math.max(0, Math.floor(g?.extraSteps ?? 0)), extraTokens: Math.max(0, Math.floor(g?.extraTokens ?? 0)) };
}

/** Whether a grant adds what ran out: one that does not would only fire the same stop again. */
export function grantAddsWhatRanOut(reason: Decision['reason'], g: Required<ContinueGrant>): boolean {
  return reason === 'step-cap' ? g.extraSteps > 0 : reason === 'token-ceiling' ? g.extraTokens > 0 : false;
}

/** The grant a run that stopped with `last` continues with; throws, saying why, when it cannot continue. */
export function continuationGrant(last: RunReport | undefined, extra: ContinueGrant): Required<ContinueGrant> {
  if (!last || !CONTINUABLE.includes(last.stopReason)) {
    throw new Error(`only a run stopped by step-cap or token-ceiling can continue${last ? `; this one stopped with ${last.stopReason}` : ''}`);
  }
  const grant = normalizeGrant(extra);
  if (!grantAddsWhatRanOut(last.stopReason, grant)) {
    throw new Error(`a run stopped by ${last.stopReason} needs ${last.stopReason === 'step-cap' ? 'extraSteps' : 'extraTokens'} > 0 to continue`);
  }
  return grant;
}

/**
 * Asks the continuation hook about a continuable stop: a grant that adds what ran out extends the
 * run, and the event saying so (the stop it overrides, and why) is returned; undefined: the run stops.
 */
export async function hookOverride(hook: ContinuationHook | undefined, stop: Decision, allowance: RunAllowance, elapsedMs: number): Promise<RunEvent | undefined> {
  if (!hook || !CONTINUABLE.includes(stop.reason)) return undefined;
  const grant = normalizeGrant(await hook(stop, allowance.continuation(elapsedMs)));
  if (!grantAddsWhatRanOut(stop.reason, grant)) return undefined;
  const { reason, detail, evidence } = stop;
  return extend(allowance, grant, { type: 'decision', step: allowance.stepsDone, reason, detail, ...(evidence ? { evidence } : {}) }, 'overridden by the continuation hook');
}

/** Adds a grant's budget to the run; the event records the stop it overrides, and why. */
export function extend(allowance: RunAllowance, grant: Required<ContinueGrant>, stop: Extract<RunEvent, { type: 'decision' }>, why: string): RunEvent {
  allowance.grant(grant);
  const added = `+${grant.extraSteps} step(s), +${grant.extraTokens} token(s)`;
  const detail = stop.detail === '' ? `${why}: ${added}; now ${allowance.maxSteps} steps and ${allowance.tokenCeiling} tokens` : `${stop.detail}; ${why}: ${added}`;
  return { ...stop, detail, overridden: true, grant };
}

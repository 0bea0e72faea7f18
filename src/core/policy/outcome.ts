// The outcome of a stopped run (DESIGN §3.2), the best state, and what the workspace holds afterwards.
import type { OnStop } from '../settings';
import type { Failure } from '../types';
import type { Outcome } from './reasons';

/** A failure's identity for comparing states: `(check, file, id)`, never the message. */
export function failureId(f: Failure): string {
  return JSON.stringify([f.check, f.file ?? '', f.id ?? ''] as const);
}

export function failureIds(failures: readonly Failure[]): Set<string> {
  return new Set(failures.map(failureId));
}

export interface StateSummary {
  step: number;
  green: boolean;
  failures: readonly Failure[];
}

/** True when `candidate` is strictly better than `best`: green, or fewer failures. Ties keep the earlier. */
export function isBetter(candidate: StateSummary, best: StateSummary): boolean {
  if (candidate.green !== best.green) return candidate.green;
  return candidate.failures.length < best.failures.length;
}

export interface OutcomeInput {
  green: boolean;
  initial: StateSummary;
  best: StateSummary;
  /** Every state a step produced, kept or rolled back. */
  observed: readonly StateSummary[];
}

export interface OutcomeDecision {
  outcome: Outcome;
  /** Why, with the counts. */
  why: string;
}

/**
 * `fixed`: green. `partial`: some state had fewer failures than step 0. `uncertain`: none had fewer,
 * but some step fixed a failure of step 0 while breaking another (the hypotheses compete).
 * `punt`: nothing of step 0 was ever fixed.
 */
export function decideOutcome(i: OutcomeInput): OutcomeDecision {
  const n0 = i.initial.failures.length;
  if (i.green) return { outcome: 'fixed', why: `every check passes; ${n0} failure(s) at step 0` };
  const nb = i.best.failures.length;
  if (nb < n0) return { outcome: 'partial', why: `step ${i.best.step} had ${nb} failure(s), fewer than the ${n0} at step 0` };
  const initialIds = [...failureIds(i.initial.failures)];
  const mover = i.observed.find((o) => {
    const ids = failureIds(o.failures);
    return initialIds.some((k) => !ids.has(k));
  });
  if (mover) {
    return {
      outcome: 'uncertain',
      why: `no step had fewer than the ${n0} failure(s) of step 0, but step ${mover.step} fixed some of them while others failed (${mover.failures.length} failure(s))`,
    };
  }
  return { outcome: 'punt', why: `no step fixed any of the ${n0} failure(s) of step 0` };
}

export type RestoreTarget = 'current' | 'best' | 'initial';

/** What the workspace holds after the stop: green keeps the result; a punt always restores the original bytes. */
export function restoreTarget(outcome: Outcome, onStop: OnStop): RestoreTarget {
  if (outcome === 'fixed') return 'current';
  if (outcome === 'punt') return 'initial';
  if (onStop === 'revert') return 'initial';
  if (onStop === 'keep-last') return 'current';
  return 'best';
}

/** Failures of step 0 that the final state no longer has, and the final state's failures. */
export function fixedAndRemaining(initial: readonly Failure[], final: readonly Failure[]): { fixed: Failure[]; remaining: Failure[] } {
  const finalIds = failureIds(final);
  const seen = new Set<string>();
  const fixed: Failure[] = [];
  for (const f of initial) {
    const k = failureId(f);
    if (finalIds.has(k) || seen.has(k)) continue;
    seen.add(k);
    fixed.push(f);
  }
  return { fixed, remaining: [...final] };
}

/** The post-mortems' hypotheses, distinct, oldest first, each with the step that put it forward. */
export function competingHypotheses(postMortems: readonly { step: number; text: string }[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of postMortems) {
    const key = p.text.trim().toLowerCase();
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(`step ${p.step}: ${p.text}`);
  }
  return out;
}

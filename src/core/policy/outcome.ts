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
  /**
   * Set when a check's output was cut where its failures are not all listed (verify/cut.ts):
   * `failures` is a part; `count` the true count the tools' summaries gave, undefined when one gave none.
   */
  cut?: { count: number | undefined };
}

/**
 * The count a state is compared by: its failures, or the tools' own count of a list cut short;
 * undefined when unknown. A part is never compared as a count: no progress, regression or best state from it.
 */
export function failureCount(s: StateSummary): number | undefined {
  if (s.green) return 0;
  return s.cut ? s.cut.count : s.failures.length;
}

/** A count for a sentence: the number, or what stands for it when the output was cut without one. */
export function countText(s: StateSummary): string {
  const n = failureCount(s);
  return n !== undefined ? String(n) : `at least ${s.failures.length} (output cut, no count)`;
}

/** True when `candidate` is strictly better than `best`: green, or fewer failures by known counts. Ties keep the earlier. */
export function isBetter(candidate: StateSummary, best: StateSummary): boolean {
  if (candidate.green !== best.green) return candidate.green;
  const c = failureCount(candidate);
  const b = failureCount(best);
  return c !== undefined && b !== undefined && c < b;
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
  const t0 = countText(i.initial);
  if (i.green) return { outcome: 'fixed', why: `every check passes; ${t0} failure(s) at step 0` };
  const n0 = failureCount(i.initial);
  const nb = failureCount(i.best);
  if (nb !== undefined && n0 !== undefined && nb < n0) return { outcome: 'partial', why: `step ${i.best.step} had ${nb} failure(s), fewer than the ${n0} at step 0` };
  // Which failures a step fixed is only known between whole lists: a failure missing from a cut list may only have been cut.
  const initialIds = [...failureIds(i.initial.failures)];
  const mover = i.initial.cut
    ? undefined
    : i.observed.find((o) => {
        if (o.cut) return false;
        const ids = failureIds(o.failures);
        return initialIds.some((k) => !ids.has(k));
      });
  if (mover) {
    return {
      outcome: 'uncertain',
      why: `no step had fewer than the ${t0} failure(s) of step 0, but step ${mover.step} fixed some of them while others failed (${mover.failures.length} failure(s))`,
    };
  }
  if (i.initial.cut || i.observed.some((o) => o.cut && o.cut.count === undefined)) {
    return { outcome: 'uncertain', why: `no step had fewer than the ${t0} failure(s) of step 0 by a known count: a check's output was cut at the output limit, so which failures a step fixed is not known` };
  }
  return { outcome: 'punt', why: `no step fixed any of the ${t0} failure(s) of step 0` };
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
export function fixedAndRemaining(initial: readonly Failure[], final: readonly Failure[], finalListsAll = true): { fixed: Failure[]; remaining: Failure[] } {
  // A failure missing from a list cut short may only have been cut: none is called fixed from it.
  if (!finalListsAll) return { fixed: [], remaining: [...final] };
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

// What one task × variant pair measured, computed from the run's report, its trace and the final
// verdict (held-out tests restored). Pure functions of those values, so a record is the same whatever
// machine or shard produced it.
import type { Outcome, StopReason } from '../policy/reasons';
import type { RunReport, TimedEvent } from '../trace/events';
import type { Verdict } from './verdicts';

export type FinalBytes = 'exact' | 'different';

export interface PairRecord {
  plan: string;
  task: string;
  variant: string;
  commit: string;
  stopReason: StopReason;
  outcome: Outcome;
  detail: string;
  /** The loop stopped green (on the checks it saw). */
  green: boolean;
  /** The project's full checks, held-out tests restored, pass on what the run left. */
  greenFull: boolean;
  /** Green in the loop while a held-out test fails (the final verdict names it). */
  overfit: boolean;
  heldOut: number;
  steps: number;
  stepsToGreen: number | null;
  tokensIn: number;
  tokensOut: number;
  /** In the unit of `model.pricing`; null when the variant's model has no price. */
  money: number | null;
  wallMs: number;
  /** The step whose failure identity had been seen before (the first repeat), or null. */
  firstRepeatStep: number | null;
  /** Tokens of the model calls after the first repeat: spent going round in circles. */
  tokensAfterFirstRepeat: number;
  /** Edits to protected (test) files the critics refused. */
  protectedDenied: number;
  /** Edits to the files that define the checks the critics refused. */
  verifierDenied: number;
  /** Protected or verifier files the run left changed (should stay 0). */
  protectedMade: string[];
  /** Files the run left changed that the reference fix did not change. */
  outsideReference: string[];
  /** With greenFull: the final bytes are the reference fix's (`exact`) or another passing fix (`different`). */
  finalBytes: FinalBytes | null;
  finalFailures: number;
  tracePath: string | null;
  at: string;
}

export interface TraceFigures {
  tokensIn: number;
  tokensOut: number;
  firstRepeatStep: number | null;
  tokensAfterFirstRepeat: number;
  protectedDenied: number;
  verifierDenied: number;
}

export function traceFigures(events: readonly TimedEvent[]): TraceFigures {
  let tokensIn = 0;
  let tokensOut = 0;
  const seen = new Set<string>();
  let firstRepeatStep: number | null = null;
  let after = 0;
  let protectedDenied = 0;
  let verifierDenied = 0;
  for (const e of events) {
    // The state each step ended in (a step whose edit did not apply re-observes the unchanged one, and
    // has no verify event of its own): step 0's verification, then every step's record.
    const state = e.type === 'verify' && e.reason === 'initial' ? { step: 0, hash: e.failureHash, green: e.green } : e.type === 'step-end' ? { step: e.step, hash: e.record.failureHash, green: e.record.failureCount === 0 } : undefined;
    if (state && !state.green && firstRepeatStep === null) {
      if (seen.has(state.hash)) firstRepeatStep = state.step;
      seen.add(state.hash);
    } else if (e.type === 'model-call' && e.usage) {
      tokensIn += e.usage.input;
      tokensOut += e.usage.output;
      if (firstRepeatStep !== null && e.step > firstRepeatStep) after += e.usage.input + e.usage.output;
    } else if (e.type === 'critic' && e.verdict.verdict !== 'continue') {
      if (e.verdict.critic === 'protected-paths') protectedDenied++;
      if (e.verdict.critic === 'verifier-integrity') verifierDenied++;
    }
  }
  return { tokensIn, tokensOut, firstRepeatStep, tokensAfterFirstRepeat: after, protectedDenied, verifierDenied };
}

export interface PairFacts {
  plan: string;
  task: string;
  variant: string;
  commit: string;
  report: RunReport;
  events: readonly TimedEvent[];
  final: Verdict;
  heldOut: number;
  /** The final verdict fails a held-out test. */
  heldOutFailing: boolean;
  wallMs: number;
  /** Files the run left changed against the broken state. */
  changed: string[];
  protectedChanged: string[];
  referenceFiles: readonly string[];
  /** Every reference file holds the commit's bytes. */
  referenceBytesMatch: boolean;
}

export function pairRecord(f: PairFacts): PairRecord {
  const t = traceFigures(f.events);
  const green = f.report.stopReason === 'green';
  const outsideReference = f.changed.filter((p) => !f.referenceFiles.includes(p)).sort();
  return {
    plan: f.plan,
    task: f.task,
    variant: f.variant,
    commit: f.commit,
    stopReason: f.report.stopReason,
    outcome: f.report.outcome,
    detail: f.report.detail,
    green,
    greenFull: f.final.green,
    overfit: green && f.heldOutFailing,
    heldOut: f.heldOut,
    steps: f.report.steps.length,
    stepsToGreen: green ? f.report.steps.length : null,
    tokensIn: t.tokensIn,
    tokensOut: t.tokensOut,
    money: f.report.costUsed ?? null,
    wallMs: f.wallMs,
    firstRepeatStep: t.firstRepeatStep,
    tokensAfterFirstRepeat: t.tokensAfterFirstRepeat,
    protectedDenied: t.protectedDenied,
    verifierDenied: t.verifierDenied,
    protectedMade: [...f.protectedChanged].sort(),
    outsideReference,
    finalBytes: f.final.green ? (f.referenceBytesMatch && outsideReference.length === 0 ? 'exact' : 'different') : null,
    finalFailures: f.final.failureCount,
    tracePath: f.report.tracePath || null,
    at: new Date().toISOString(),
  };
}

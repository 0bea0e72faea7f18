// The pure part of settling a step and a run: the step's record, what the policy is asked after
// the step, and the final report. Values in, values out.
import type { BudgetEntry } from '../policy/budget';
import { BUDGET_FLOOR } from '../policy/budget';
import { competingHypotheses, fixedAndRemaining } from '../policy/outcome';
import type { OutcomeDecision } from '../policy/outcome';
import type { StepState } from '../policy/policy';
import type { Decision } from '../policy/reasons';
import type { Settings } from '../settings';
import type { RunReport, StepRecord } from '../trace/events';
import { cutNotes, listsEveryFailure } from '../verify/cut';
import type { EditTurn } from './editTurn';
import type { ModelTurn } from './modelTurn';
import type { ResultTurn } from './resultTurn';
import type { Observed } from './state';
import { summarizeChecks } from './state';

export interface StepFacts {
  step: number;
  previous: Observed;
  call: Extract<ModelTurn, { ok: true }> & { model?: string; cost?: number | null };
  edit: EditTurn;
  result: ResultTurn | undefined;
  snapshotDir: string | null;
  durationMs: number;
}

/** What the step leaves: the state, whether it was rolled back, a critic's stop, and why. */
export function stepLeaves(f: Pick<StepFacts, 'previous' | 'edit' | 'result'>): {
  final: Observed;
  rolledBack: 'previous' | 'best' | null;
  criticStop: EditTurn['criticStop'];
  error: string | null;
} {
  const { previous, edit, result } = f;
  return {
    final: result?.final ?? previous,
    rolledBack: result ? result.rolledBack : edit.refused ? 'previous' : null,
    criticStop: result ? result.criticStop : edit.criticStop,
    error: result?.error ?? edit.error,
  };
}

export function stepRecord(f: StepFacts, budget: BudgetEntry | null): StepRecord {
  const { final, rolledBack, error } = stepLeaves(f);
  const { verify } = final;
  const self = f.call.self;
  return {
    index: f.step,
    failureHash: verify.failureHash,
    failureCount: verify.failures.length,
    applied: f.edit.applied && !rolledBack,
    tokens: f.call.usage.input + f.call.usage.output,
    postMortem: self.postMortem ?? null,
    status: self.status ?? null,
    confidence: self.confidence ?? null,
    files: f.edit.result?.files ?? [],
    checks: summarizeChecks(verify),
    critics: [...f.edit.verdicts, ...(f.result?.verdicts ?? [])],
    feedback: error,
    durationMs: f.durationMs,
    snapshotDir: f.snapshotDir,
    ...(f.call.model !== undefined ? { model: f.call.model } : {}),
    cost: f.call.cost ?? null,
    rolledBack,
    budgetBalance: budget?.balance ?? null,
    selfReportProblems: self.problems,
  };
}

/** What the post-step criteria see. */
export function stepState(f: StepFacts, o: { cancelled: boolean; seen: StepState['seen']; settings: Settings; budget: BudgetEntry | null }): StepState {
  const { final, criticStop } = stepLeaves(f);
  const { verify } = final;
  return {
    cancelled: o.cancelled,
    step: f.step,
    green: verify.green,
    failureHash: verify.failureHash,
    failureCount: verify.failures.length,
    seen: o.seen,
    stallThreshold: o.settings.stallThreshold,
    criticStop: criticStop ? { critic: criticStop.critic, reason: criticStop.reason } : null,
    budgetBalance: o.budget?.balance ?? null,
    budgetFloor: BUDGET_FLOOR,
    confidence: f.call.self.confidence ?? null,
    escalateBelowConfidence: o.settings.escalateBelowConfidence,
    status: f.call.self.status ?? null,
  };
}

export interface ReportFacts {
  runId: string;
  decision: Decision;
  judged: OutcomeDecision;
  steps: readonly StepRecord[];
  tokensUsed: number;
  elapsedMs: number;
  /** Undefined when the run stopped before step 0 was verified. */
  initial: Observed | undefined;
  final: Observed | undefined;
  bestStep: number;
  postMortems: readonly { step: number; text: string }[];
  tracePath: string;
  limits: RunReport['limits'];
  costUsed: number | null;
  escalations: RunReport['escalations'];
  held?: RunReport['held'];
}

export function runReport(f: ReportFacts): RunReport {
  const initialFailures = f.initial?.verify.failures ?? [];
  const { fixed, remaining } = fixedAndRemaining(initialFailures, f.final?.verify.failures ?? initialFailures, f.final ? listsEveryFailure(f.final.verify) : true);
  const cut = [...new Set([...(f.initial ? cutNotes(f.initial.verify.checks).map((n) => `step 0: ${n}`) : []), ...(f.final && f.final !== f.initial ? cutNotes(f.final.verify.checks).map((n) => `final: ${n}`) : [])])];
  const { reason, detail, alsoFired } = f.decision;
  return {
    runId: f.runId,
    stopReason: reason,
    outcome: f.judged.outcome,
    detail,
    steps: [...f.steps],
    tokensUsed: f.tokensUsed,
    elapsedMs: f.elapsedMs,
    initialFailureCount: initialFailures.length,
    remainingFailures: remaining,
    fixedFailures: fixed,
    bestStep: f.bestStep,
    hypotheses: f.judged.outcome === 'uncertain' ? competingHypotheses(f.postMortems) : [],
    outcomeWhy: f.judged.why,
    ...(alsoFired ? { alsoFired } : {}),
    tracePath: f.tracePath,
    limits: f.limits,
    costUsed: f.costUsed,
    escalations: [...(f.escalations ?? [])],
    ...(f.held ? { held: f.held } : {}),
    ...(cut.length > 0 ? { outputCut: cut } : {}),
  };
}

// The one view of a run the status bar, the panel and the diagnostics are drawn from. It is built
// only from the loop's events (data flows one way: loop → events → UI) and is plain JSON, so the
// panel can keep it across reloads and the extension can persist the last result per folder.
// No `vscode` import: the webview bundle and the unit tests use it too.
import type { FileSummary } from '../../core/edit/apply';
import type { Outcome, StopReason } from '../../core/policy/reasons';
import type { CheckSummary, CriticVerdict, HeldState, RunReport, StepRecord, TimedEvent } from '../../core/trace/events';
import type { EscalationFacts } from './explain';
import { explainEscalation } from './explain';
import { namesOf } from '../../core/modelName';
import { stopBadge } from './stepWords';
import type { Failure, ParserId } from '../../core/types';
import type { ReviewState } from './reviewState';
import type { HookSessionView } from './sessionTypes';
import type { Problem } from './fixActions';

export type RunStatus = 'idle' | 'running' | 'stopped';

export interface Limits {
  maxSteps: number;
  tokenCeiling: number;
  timeLimitSeconds: number;
  /** 0 or absent: no cost ceiling. */
  costCeiling?: number;
}

export interface StepView {
  index: number;
  applied: boolean;
  files: FileSummary[];
  checks: CheckSummary[];
  failureCount: number;
  failureHash: string;
  postMortem: string | null;
  tokens: number;
  critics: CriticVerdict[];
  feedback: string | null;
  status: string | null;
  confidence: number | null;
  durationMs: number;
  /** Holds `before/` and `after/` copies of the files the step changed; null when it changed none. */
  snapshotDir: string | null;
  /** A critic rolled the step's edit back: to the state before it, or to the best state. */
  rolledBack: 'previous' | 'best' | null;
  /** The step whose state a rollback restored. */
  restoredToStep: number | null;
  /** Why the edit was not applied, as the edit event said it (the hunk, the file, the reason); absent in states saved before. */
  editErrors?: string[];
  /** The model that made the step (its label); absent in states saved before escalation existed. */
  model?: string | null;
  /** What the step's call cost, when its model has a price. */
  cost?: number | null;
}

export interface RunState {
  /** Absolute path of the workspace folder the run belongs to. */
  folder: string;
  folderName: string;
  status: RunStatus;
  runId: string | null;
  runDir: string | null;
  tracePath: string | null;
  /** The run's model (its label, the public name); `modelNames` says how a person names it. */
  model: string | null;
  /** How a person names each model of the run, by label (core/modelName.ts); absent in states saved before. */
  modelNames?: Record<string, string>;
  instruction: string | null;
  /** What the loop is doing now, for the progress notification and the panel. */
  phase: string;
  /** The step in progress while running; the last step done once stopped. */
  step: number;
  limits: Limits;
  tokensUsed: number;
  /** Epoch ms of the run's start (a continuation keeps it: the engine's clock runs from there). */
  startedAt: number;
  elapsedMs: number;
  failuresPerStep: { step: number; count: number }[];
  steps: StepView[];
  stopReason: StopReason | null;
  outcome: Outcome | null;
  detail: string | null;
  bestStep: number | null;
  initialFailureCount: number | null;
  remainingFailures: Failure[];
  /** Set when the user reverted the run's files after it stopped. */
  reverted: 'run' | 'best' | null;
  /** Critic verdicts seen for the step in progress, attached to its row when it ends. */
  pendingCritics: CriticVerdict[];
  /** The step a rollback in the step in progress restored, attached to its row when it ends. */
  pendingRestore: number | null;
  /** The edit event's errors in the step in progress, attached to its row when it ends. */
  pendingEditErrors?: string[];
  /** Money spent; null when no model of the run has a price (absent in states saved before). */
  costUsed?: number | null;
  /** Models that made calls without a price (e.g. `vscode-lm:…`): their calls are not in `costUsed`. */
  unpriced?: string[];
  /** Each time the run went on with the next model of `model.escalation`. */
  escalations?: EscalationFacts[];
  /** What the workspace holds after the stop (the report's); absent in states saved before. */
  held?: HeldState | null;
  /** The run-wide review of a finished run's changed files; null while running or when nothing changed. */
  review?: ReviewState | null;
  /** The parser of each check by name (the Problems panel leaves TypeScript's own errors to VS Code). */
  checkParsers?: Record<string, ParserId>;
  /** A check-only pass (Run Checks) after the run: newer than the run's stop, so it leads the panel. */
  checked?: { at: number; green: boolean; failureCount: number } | null;
  /** What Continue would add (the folder's settings: one more run's steps and tokens), set by the panel's host when it can continue. */
  continueAdds?: { steps: number; tokens: number } | null;
  /** Why the last start in this window was refused, with the notification's fixes (issue 40); cleared by the next start. */
  refused?: Problem | null;
  /** Set when the state is an agent host's session gated by our hooks, not a run of ours (sessionState.ts). */
  session?: HookSessionView | null;
}

/** The parsers the checks of a verify event (or a check pass) used, added to what is known. */
export function withParsers(known: RunState['checkParsers'], checks: readonly { name: string; parser?: ParserId }[]): Record<string, ParserId> {
  const out = { ...(known ?? {}) };
  for (const c of checks) if (c.parser) out[c.name] = c.parser;
  return out;
}

/** Failures kept in the state: enough for the Problems panel, small enough to persist. */
export const MAX_KEPT_FAILURES = 500;

export function idleState(folder: string, folderName: string, limits: Limits): RunState {
  return {
    folder,
    folderName,
    status: 'idle',
    runId: null,
    runDir: null,
    tracePath: null,
    model: null,
    instruction: null,
    phase: '',
    step: 0,
    limits,
    tokensUsed: 0,
    startedAt: 0,
    elapsedMs: 0,
    failuresPerStep: [],
    steps: [],
    stopReason: null,
    outcome: null,
    detail: null,
    bestStep: null,
    initialFailureCount: null,
    remainingFailures: [],
    reverted: null,
    pendingCritics: [],
    pendingRestore: null,
    pendingEditErrors: [],
    costUsed: null,
    unpriced: [],
    escalations: [],
    held: null,
    review: null,
  };
}

function stepView(r: StepRecord, critics: CriticVerdict[], restoredToStep: number | null, editErrors: string[] = []): StepView {
  return {
    index: r.index,
    applied: r.applied,
    files: r.files,
    checks: r.checks,
    failureCount: r.failureCount,
    failureHash: r.failureHash,
    postMortem: r.postMortem,
    tokens: r.tokens,
    critics: r.critics.length > 0 ? r.critics : critics,
    feedback: r.feedback,
    status: r.status,
    confidence: r.confidence,
    durationMs: r.durationMs,
    snapshotDir: r.snapshotDir,
    model: r.model ?? null,
    cost: r.cost ?? null,
    rolledBack: r.rolledBack ?? null,
    restoredToStep: r.rolledBack ? restoredToStep : null,
    editErrors,
  };
}

function setCount(list: RunState['failuresPerStep'], step: number, count: number): RunState['failuresPerStep'] {
  const out = list.filter((p) => p.step !== step);
  out.push({ step, count });
  return out.sort((a, b) => a.step - b.step);
}

function applyReport(s: RunState, r: RunReport): RunState {
  return {
    ...s,
    status: 'stopped',
    runId: r.runId,
    tracePath: r.tracePath,
    phase: '',
    step: r.steps.length > 0 ? r.steps[r.steps.length - 1]!.index : 0,
    limits: r.limits,
    tokensUsed: r.tokensUsed,
    elapsedMs: r.elapsedMs,
    steps: r.steps.map((x) => {
      const seen = s.steps.find((v) => v.index === x.index);
      return stepView(x, seen?.critics ?? [], seen?.restoredToStep ?? null, seen?.editErrors ?? []);
    }),
    stopReason: r.stopReason,
    outcome: r.outcome,
    detail: r.detail,
    bestStep: r.bestStep,
    initialFailureCount: r.initialFailureCount,
    remainingFailures: r.remainingFailures.slice(0, MAX_KEPT_FAILURES),
    pendingCritics: [],
    costUsed: r.costUsed !== undefined ? r.costUsed : (s.costUsed ?? null),
    escalations: r.escalations ? r.escalations.map(escalationFacts) : (s.escalations ?? []),
    held: r.held ?? null,
  };
}

function escalationFacts(e: EscalationFacts): EscalationFacts {
  return { step: e.step, reason: e.reason, from: e.from, to: e.to };
}

/** What a retry wait looks like in the progress: the fault, then how long until the next attempt. */
export function retryPhase(e: { attempt: number; delayMs: number; reason: string }): string {
  const reason = e.reason.split('\n')[0]!;
  const short = reason.length > 80 ? `${reason.slice(0, 79)}…` : reason;
  return `model call failed (${short}); retrying in ${Math.max(1, Math.round(e.delayMs / 1000))} s (attempt ${e.attempt + 1})`;
}

/** Folds one loop event into the state. Pure: returns a new object, never mutates. */
export function reduceRunState(s: RunState, e: TimedEvent, now: number = Date.parse(e.ts)): RunState {
  switch (e.type) {
    case 'run-start':
      return {
        ...idleState(s.folder, s.folderName, e.limits),
        status: 'running',
        runId: e.runId,
        tracePath: s.tracePath,
        runDir: s.runDir,
        model: e.model,
        modelNames: namesOf([e.model, ...(e.ladder ?? [])], e.names),
        instruction: e.instruction,
        phase: 'checking the workspace',
        costUsed: e.priced ? 0 : null,
        startedAt: Number.isFinite(now) ? now : Date.now(),
      };
    case 'verify': {
      // What comes next is the engine's to say (model-call-start, decision): the phase tells only what happened.
      const phase = e.green ? 'checks pass' : `${e.failureCount} failure${e.failureCount === 1 ? '' : 's'}`;
      return {
        ...s,
        failuresPerStep: setCount(s.failuresPerStep, e.step, e.failureCount),
        remainingFailures: e.failures.slice(0, MAX_KEPT_FAILURES),
        initialFailureCount: e.step === 0 && e.reason === 'initial' ? e.failureCount : s.initialFailureCount,
        checkParsers: withParsers(s.checkParsers, e.checks),
        phase: `step ${e.step}: ${phase}`,
      };
    }
    case 'model-call-start':
      return { ...s, step: e.step, phase: `step ${e.step}: asking the model for step ${e.step} (${e.promptTokens.toLocaleString('en-US')} prompt tokens)` };
    case 'model-retry':
      return { ...s, step: e.step, phase: `step ${e.step}: ${retryPhase(e)}` };
    case 'model-call': {
      const unpriced = s.unpriced ?? [];
      return {
        ...s,
        step: e.step,
        tokensUsed: e.tokensUsed,
        ...(e.costUsed !== undefined ? { costUsed: e.costUsed } : {}),
        ...(e.cost === null && e.usage && !unpriced.includes(e.model) ? { unpriced: [...unpriced, e.model] } : {}),
        phase: e.error ? `step ${e.step}: model call failed` : `step ${e.step}: applying the edit and verifying`,
      };
    }
    case 'escalated':
      return { ...s, model: e.to, escalations: [...(s.escalations ?? []), escalationFacts(e)], phase: explainEscalation(e, s.modelNames) };
    case 'edit':
      if (e.rolledBack) return { ...s, step: e.step, pendingRestore: e.restoredToStep ?? null, phase: `step ${e.step}: rolled back to step ${e.restoredToStep ?? '?'}` };
      return { ...s, step: e.step, pendingEditErrors: e.applied ? [] : e.errors, phase: e.applied ? `step ${e.step}: verifying` : `step ${e.step}: edit not applied` };
    case 'critic':
      return { ...s, pendingCritics: [...s.pendingCritics, e.verdict] };
    case 'step-end':
      return {
        ...s,
        step: e.step,
        tokensUsed: e.tokensUsed,
        elapsedMs: e.elapsedMs,
        ...(e.costUsed !== undefined ? { costUsed: e.costUsed } : {}),
        steps: [...s.steps.filter((x) => x.index !== e.record.index), stepView(e.record, s.pendingCritics, s.pendingRestore, s.pendingEditErrors ?? [])].sort((a, b) => a.index - b.index),
        failuresPerStep: setCount(s.failuresPerStep, e.step, e.record.failureCount),
        pendingCritics: [],
        pendingRestore: null,
        pendingEditErrors: [],
        phase: `step ${e.step}: done, ${e.record.failureCount} failure${e.record.failureCount === 1 ? '' : 's'}`,
      };
    case 'decision':
      // The badge's words ("stopping: steps used up"), not the reason id: the progress toast shows it.
      return { ...s, phase: `stopping: ${stopBadge(e.reason)}` };
    case 'run-end':
      return applyReport(s, e.report);
    case 'self-report':
    case 'budget':
      // Shown in the step row through the step's record; nothing else to fold.
      return s;
    case 'hook':
      // An agent host's hook session (issue 30) is folded by sessionState.ts, from its own trace.
      return s;
  }
}

/** Where a continuation starts: from the state the stop kept, which is not always the last step's. */
export function continuingPhase(s: RunState): string {
  const h = s.held;
  const from = !h || h.step >= s.step ? '' : h.step === 0 ? ' from where the run started (the original files)' : ` from step ${h.step} (${h.target === 'initial' ? 'the original files' : 'the best step'}), where the files are`;
  return `step ${s.step}: continuing${from}`;
}

/** The state as a continuation starts: running again, with the extended limits. */
export function continuing(s: RunState, limits: Limits, now: number): RunState {
  return {
    ...s,
    status: 'running',
    limits,
    stopReason: null,
    outcome: null,
    detail: null,
    reverted: null,
    review: null,
    checked: null,
    phase: continuingPhase(s),
    // The engine's clock does not count the pause between the stop and Continue, and neither does
    // the live figure: it goes on from the stop's elapsed time, never back.
    startedAt: now - s.elapsedMs,
  };
}

/** Elapsed ms of the run at `now`: live while running, the report's figure once stopped. */
export function elapsedAt(s: RunState, now: number): number {
  return s.status === 'running' && s.startedAt > 0 ? Math.max(s.elapsedMs, now - s.startedAt) : s.elapsedMs;
}

export function canContinue(s: RunState): boolean {
  return s.status === 'stopped' && (s.stopReason === 'step-cap' || s.stopReason === 'token-ceiling');
}

export function canRevert(s: RunState): boolean {
  // A hook session's checkpoint holds what the agent's edit tools wrote (`revert --session`).
  return s.status === 'stopped' && s.runDir !== null && (s.steps.some((x) => x.applied) || (s.session?.touched.length ?? 0) > 0);
}

/**
 * Revert to best changes something: not when the files already hold the best step's state (a green
 * run whose best step is its last, or a revert to best already done); again after a Revert run.
 */
export function canRevertToBest(s: RunState): boolean {
  if (!canRevert(s) || s.bestStep === null || s.session) return false;
  if (s.reverted === 'run') return true;
  if (s.reverted === 'best') return false;
  const last = s.steps.length > 0 ? s.steps[s.steps.length - 1]!.index : 0;
  return s.bestStep !== (s.held?.step ?? last);
}

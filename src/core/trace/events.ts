// The run's events: what the loop emits and what the trace records, one JSON object per line.
import type { BudgetEntry } from '../policy/budget';
import type { CriticVerdict } from '../policy/critics';
import type { Decision, Evidence, Outcome, StopReason } from '../policy/reasons';
import type { ModelStatus } from '../policy/selfReport';
import type { FileSummary } from '../edit/apply';
import type { CheckMode, Failure, ParserId, Usage } from '../types';

export interface CheckSummary {
  name: string;
  exitCode: number | null;
  durationMs: number;
  failureCount: number;
  timedOut: boolean;
  /** Whether this verification ran the check warm, targeted or full (`stagedChecks`). */
  mode?: CheckMode;
  /** Of `failureCount`, the failures carried over from an earlier run because not re-run now. */
  carried?: number;
  /** What a staged run covered, or why the check ran in full (e.g. the warm type checker's fallback). */
  note?: string;
  /** The parser that read the check's output (the extension leaves TypeScript's own errors to VS Code). */
  parser?: ParserId;
  /** Its run failed only for a tool not installed: `not installed: karma-jasmine (examples/app test)`; not counted (verify/notInstalled.ts). */
  notInstalled?: string;
  /** Its output passed the output limit (`outputLimitKb`) and was cut: the head and the tail were kept. */
  outputCut?: boolean;
  /** The failures listed are only those of the part kept: `failureCount` is no count to compare (verify/cut.ts). */
  incomplete?: boolean;
  /** The failure count the tool's own summary gave, when the list was cut short. */
  reportedFailures?: number;
}

/** One model step as the report, the CLI's JSON and the panel show it. */
export interface StepRecord {
  index: number;
  failureHash: string;
  failureCount: number;
  applied: boolean;
  /** Tokens this step's call used (input + output). */
  tokens: number;
  postMortem: string | null;
  status: ModelStatus | null;
  confidence: number | null;
  files: FileSummary[];
  checks: CheckSummary[];
  critics: CriticVerdict[];
  /** Why the edit was not applied or was rolled back, when it was. */
  feedback: string | null;
  /** Set when a critic's retry rolled the edit back: to the state before the step, or the best state. */
  rolledBack?: 'previous' | 'best' | null;
  /** The confidence budget's balance after the step, when the budget is on. */
  budgetBalance?: number | null;
  /** What could not be read of the reply's STATUS / CONFIDENCE / POSTMORTEM header. */
  selfReportProblems?: string[];
  durationMs: number;
  /** Directory holding `before/` and `after/` copies of the files this step changed. */
  snapshotDir: string | null;
  /** The label of the model that made this step (the ladder's rung it was on). */
  model?: string;
  /** What this step's call cost, when its model has a price. */
  cost?: number | null;
}

/** The run went on with the next model of the ladder instead of stopping (DESIGN §3, Escalation). */
export interface Escalation {
  /** The step after which the stop fired; the next model's first step is `step + 1`. */
  step: number;
  /** The stop that fired: `stalled`, `low-confidence`, `unreachable` or `budget-depleted`. */
  reason: StopReason;
  detail: string;
  evidence?: Evidence;
  /** The model that stopped and the one that takes over (provider labels). */
  from: string;
  to: string;
  /** The rung taken over: 1 for the first model of `model.escalation`. */
  rung: number;
  /** How many models of `model.escalation` there are. */
  rungs: number;
}

/**
 * What the workspace holds after a stop: the state of step `step`, chosen as `onStop` and the
 * outcome say (`initial`: the original files; `best`: the step with the fewest failures; `current`:
 * what the last step left).
 */
export interface HeldState {
  step: number;
  target: 'initial' | 'best' | 'current';
}

export interface RunReport {
  runId: string;
  stopReason: StopReason;
  outcome: Outcome;
  detail: string;
  steps: StepRecord[];
  tokensUsed: number;
  elapsedMs: number;
  initialFailureCount: number;
  remainingFailures: Failure[];
  fixedFailures: Failure[];
  bestStep: number;
  /** For `uncertain`: the competing hypotheses the post-mortems put forward. */
  hypotheses: string[];
  /** Why the outcome is what it is, with the counts. */
  outcomeWhy?: string;
  /** Later criteria that fired together with the stop reason and lost to it in the fixed order. */
  alsoFired?: StopReason[];
  tracePath: string;
  limits: { maxSteps: number; tokenCeiling: number; timeLimitSeconds: number; costCeiling?: number };
  /** Money spent, in the unit of `model.pricing`; null when no model of the run has a price. */
  costUsed?: number | null;
  /** Each time the run went on with the next model of the ladder, in order. */
  escalations?: Escalation[];
  /** What the workspace holds after the stop; absent before any check ran and when a restore met a conflict. */
  held?: HeldState;
  /**
   * One sentence per check of the first or the final state whose output was cut at the output limit
   * with its failures not all listed: those lists are only parts, and no count was compared from them.
   */
  outputCut?: string[];
}

/** What the launcher's preflight found before the run (core/launch.ts), as the run's `run-start` says it. */
export interface PreflightFound {
  /** Who started the run: `cli`, `mcp`, `vscode`, `vscode-tool`, `vscode-chat`, `evals`, `hook`. */
  frontEnd: string;
  /** The checks were discovered (none configured), and what discovery said. */
  discovered: boolean;
  notes: string[];
  /** Interrupted runs whose files the run started over anyway (the CLI's `--ignore-interrupted`). */
  ignoredInterrupted: string[];
}

export type RunEvent =
  | { type: 'run-start'; step: 0; runId: string; root: string; model: string; instruction: string | null; checks: { name: string; command: string }[]; limits: RunReport['limits']; settings: Record<string, unknown>; ladder?: string[]; names?: Record<string, string>; priced?: boolean; frontEnd?: string; preflight?: PreflightFound }
  | { type: 'verify'; step: number; green: boolean; failureHash: string; failureCount: number; failures: Failure[]; flaky: Failure[]; checks: CheckSummary[]; durationMs: number; reason: 'initial' | 'step' | 'rollback' }
  /** A model call starts: the pre-call gates passed and the prompt is on its way (DESIGN: the UI follows events only). */
  | { type: 'model-call-start'; step: number; model: string; promptTokens: number; maxOutputTokens: number }
  | { type: 'model-call'; step: number; model: string; promptTokens: number; maxOutputTokens: number; usage: Usage | null; usageReported: boolean; durationMs: number; tokensUsed: number; reply: string | null; status: ModelStatus | null; confidence: number | null; postMortem: string | null; problems: string[]; error: string | null; attempts?: number; prompt?: { system: string; user: string }; cost?: number | null; costUsed?: number | null }
  /** A model call's attempt failed with a fault worth retrying; the provider waits `delayMs`, then tries again. */
  | { type: 'model-retry'; step: number; attempt: number; delayMs: number; reason: string; retryAfterMs?: number }
  | { type: 'edit'; step: number; applied: boolean; files: FileSummary[]; errors: string[]; rolledBack?: boolean; restoredToStep?: number }
  | { type: 'critic'; step: number; phase: 'proposal' | 'result'; verdict: CriticVerdict }
  | {
      type: 'self-report';
      step: number;
      status: ModelStatus | null;
      confidence: number | null;
      postMortem: string | null;
      problems: string[];
      /** For STATUS done or blocked: whether the verifier agreed (done: green; blocked: not green). */
      agreed: boolean | null;
      /** What the loop did with the report, e.g. a `done` rejected because failures remain. */
      note: string | null;
      /** The post-mortems kept for the next prompt (the last 3), oldest first. */
      postMortems: { step: number; text: string }[];
    }
  | ({ type: 'budget'; step: number; floor: number } & BudgetEntry)
  | {
      type: 'decision';
      step: number;
      reason: StopReason;
      detail: string;
      evidence?: Evidence;
      alsoFired?: StopReason[];
      /** True when a continuation hook or `continue()` overrode this stop and the run went on. */
      overridden?: boolean;
      /** The budget the override added. */
      grant?: { extraSteps: number; extraTokens: number };
    }
  | ({ type: 'escalated' } & Escalation)
  | { type: 'step-end'; step: number; record: StepRecord; tokensUsed: number; elapsedMs: number; costUsed?: number | null }
  | { type: 'run-end'; step: number; report: RunReport }
  /**
   * An agent host's hook call in a hook session (front end `hook:<host>`, issue 30): the gate's
   * answer at the agent's stop (`block` sends it back to work, `allow` lets it stop) or before an edit
   * tool writes (`deny`, `allow`), with the reason the agent or the user was given. `worker`: the
   * folder's hook worker answered the stop (its pid, the calls it answered before, whether its
   * checks' engine was kept warm from an earlier call); absent when the hook's own process did.
   */
  | { type: 'hook'; step: number; host: string; event: 'stop' | 'pre-tool' | 'post-tool'; hostEvent: string; answer: 'block' | 'allow' | 'deny'; reason: string; files?: string[]; sessionId: string | null; worker?: { pid: number; calls: number; warm: boolean } };

export type TimedEvent = RunEvent & { ts: string };

export type { CriticVerdict, Decision };

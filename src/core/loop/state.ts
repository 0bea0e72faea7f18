// The values a run's turns pass each other: an observed state of the workspace and what restoring
// one achieved.
import { mkdirSync } from 'node:fs';
import { writeFileAtomic } from '../atomicWrite';
import * as path from 'node:path';
import type { ApplyResult } from '../edit/apply';
import { CriticFault } from '../policy/critics';
import type { StateSummary } from '../policy/outcome';
import type { Decision } from '../policy/reasons';
import type { CheckSummary, RunEvent, RunReport } from '../trace/events';
import type { RunOptions } from './options';
import type { VerifyResult } from '../types';
import { comparableFailureCount, listsEveryFailure } from '../verify/cut';

/** Path → bytes (null: absent) of every file the run has touched, in one state. */
export type FileState = Map<string, Uint8Array | null>;

export interface Observed {
  step: number;
  verify: VerifyResult;
  /** Content of every file the run has touched, in this state. */
  files: FileState;
}

/** Thrown inside a run to end it with a decision (a cancel, the time limit, a fault, a conflict). */
export class StopSignal extends Error {
  constructor(readonly decision: Decision) {
    super(decision.detail);
  }
}

/** The stop a fault inside a run comes to: its own decision, a critic's fault, the cancel or time limit it met, else an error. */
export function decisionFor(e: unknown, interrupted: () => Decision | undefined, logError: (msg: string) => void): Decision {
  if (e instanceof StopSignal) return e.decision;
  if (e instanceof CriticFault) return { reason: 'error', detail: e.message, evidence: { critic: e.critic } };
  const stop = interrupted();
  if (stop) return stop;
  const msg = e instanceof Error ? e.message : String(e);
  logError(msg);
  return { reason: 'error', detail: msg };
}

/** What a restore did; `conflict` when some file could not be brought back (the user's bytes kept). */
export interface RestoreOutcome {
  changed: number;
  conflict?: Decision;
}

export function summary(o: Observed): StateSummary {
  return stateSummary(o.step, o.verify);
}

/** What the policy compares of a verification: a list cut short carries the tools' own count (verify/cut.ts). */
export function stateSummary(step: number, v: VerifyResult): StateSummary {
  return { step, green: v.green, failures: v.failures, ...(listsEveryFailure(v) ? {} : { cut: { count: comparableFailureCount(v) } }) };
}

export function summarizeChecks(v: VerifyResult): CheckSummary[] {
  return v.checks.map((c) => {
    const carried = c.failures.filter((f) => f.carried).length;
    const staged = { ...(c.mode ? { mode: c.mode } : {}), ...(carried > 0 ? { carried } : {}), ...(c.stagedNote !== undefined ? { note: c.stagedNote } : {}) };
    const cut = { ...(c.truncated ? { outputCut: true } : {}), ...(c.incomplete ? { incomplete: true, ...(c.incomplete.reported !== undefined ? { reportedFailures: c.incomplete.reported } : {}) } : {}) };
    const missing = c.notInstalled !== undefined ? { notInstalled: c.notInstalled.note } : {};
    return { name: c.name, exitCode: c.exitCode, durationMs: c.durationMs, failureCount: c.failures.length, timedOut: c.timedOut, ...(c.parser ? { parser: c.parser } : {}), ...staged, ...cut, ...missing };
  });
}

/** The `verify` trace event of a state the checks observed. */
export function verifyEvent(step: number, v: VerifyResult, reason: 'initial' | 'step' | 'rollback'): RunEvent {
  return { type: 'verify', step, green: v.green, failureHash: v.failureHash, failureCount: v.failures.length, failures: v.failures, flaky: v.flaky, checks: summarizeChecks(v), durationMs: v.durationMs, reason };
}

/** Keeps `before/` and `after/` copies of the files a step changed, for the step's diff. */
export function saveSnapshot(runDir: string, step: number, r: ApplyResult): string {
  const dir = path.join(runDir, 'steps', String(step));
  for (const c of r.changes) {
    const before = r.before.get(c.path);
    for (const [side, bytes] of [['before', before ?? null], ['after', c.content]] as const) {
      const file = path.join(dir, side, ...c.path.split('/'));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileAtomic(file, bytes ?? new Uint8Array(), { durable: false });
    }
  }
  return dir;
}

/** The `run-start` trace event: what the run was given (never a key: settings hold none). */
export function runStartEvent(runId: string, o: Pick<RunOptions, 'workspace' | 'provider' | 'instruction' | 'settings' | 'escalation' | 'price' | 'preflight'>, limits: RunReport['limits']): RunEvent {
  const s = o.settings;
  const ladder = (o.escalation ?? []).map((r) => r.provider.label);
  // The names the providers gave their models (a VS Code chat model's), for the sentences a person reads.
  const names = Object.fromEntries([o.provider, ...(o.escalation ?? []).map((r) => r.provider)].filter((p) => p.name && p.name !== p.label).map((p) => [p.label, p.name!]));
  const priced = (o.price ?? null) !== null || (o.escalation ?? []).some((r) => r.price !== null);
  return {
    type: 'run-start',
    step: 0,
    runId,
    root: o.workspace.root,
    model: o.provider.label,
    instruction: o.instruction ?? null,
    checks: s.checks.map((c) => ({ name: c.name, command: c.command })),
    limits,
    settings: { ...s, model: { provider: s.model.provider, id: s.model.id, baseUrl: s.model.baseUrl, escalation: s.model.escalation, pricing: s.model.pricing } },
    ...(ladder.length > 0 ? { ladder } : {}),
    ...(Object.keys(names).length > 0 ? { names } : {}),
    priced,
    ...(o.preflight ? { preflight: o.preflight } : {}),
  };
}

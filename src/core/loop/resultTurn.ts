// A step's result turn: verify what the edit left, let the result critics judge it, and roll it
// back (to the state before the step, or the best state) when one asks for a retry. A rollback
// that cannot put every byte back is a value that stops the run; nothing of the user's is touched.
import type { ApplyResult } from '../edit/apply';
import type { CriticsResult, CriticVerdict, StepOutcome } from '../policy/critics';
import type { Decision } from '../policy/reasons';
import type { RunEvent } from '../trace/events';
import type { VerifyResult } from '../types';
import type { EditTurn } from './editTurn';
import { proposedFiles } from './editTurn';
import type { Observed, RestoreOutcome } from './state';
import { saveSnapshot, stateSummary } from './state';

export interface ResultTurn {
  /** The state the checks observed right after the edit, kept or not. */
  stepped: Observed;
  /** The state the step leaves: `stepped`, or the state rolled back to. */
  final: Observed;
  verdicts: CriticVerdict[];
  criticStop?: CriticVerdict;
  rolledBack: 'previous' | 'best' | null;
  /** Why it was rolled back, in the words the model and the step record get. */
  error: string | null;
  /** The rollback could not restore every file: the run must stop. */
  conflict?: Decision;
}

export interface ResultTurnDeps {
  verify: () => Promise<VerifyResult>;
  review: (r: StepOutcome) => Promise<CriticsResult>;
  restore: (target: Observed) => Promise<RestoreOutcome>;
  emit: (e: RunEvent) => void;
  /** Every state the checks observed is recorded, kept or rolled back, before any critic sees it. */
  observed: (o: Observed) => void;
  /** The state the run considers best before this step. */
  best: () => Observed;
}

export async function resultTurn(d: ResultTurnDeps, step: number, previous: Observed, written: ApplyResult): Promise<ResultTurn> {
  const files = new Map(previous.files);
  for (const c of written.changes) files.set(c.path, c.content);
  const verify = await d.verify();
  const stepped: Observed = { step, verify, files };
  d.observed(stepped);
  const review = await d.review({ ...stateSummary(step, verify), failureHash: verify.failureHash, files: proposedFiles(written) });
  if (review.stop) return { stepped, final: stepped, verdicts: review.verdicts, criticStop: review.stop, rolledBack: null, error: null };
  if (review.verdict !== 'retry') return { stepped, final: stepped, verdicts: review.verdicts, rolledBack: null, error: null };

  const target = review.rollbackTo === 'best' ? d.best() : previous;
  const restored = await d.restore(target);
  const why = review.retries.map((r) => `${r.critic}: ${r.reason}`).join('\n');
  const error = `Your edit at step ${step} was rolled back to the state of step ${target.step}: ${why}`;
  d.emit({ type: 'edit', step, applied: false, files: written.files, errors: [error], rolledBack: true, restoredToStep: target.step });
  const final: Observed = { step: target.step, verify: target.verify, files: target.files };
  return {
    stepped,
    final,
    verdicts: review.verdicts,
    rolledBack: review.rollbackTo,
    error,
    ...(restored.conflict ? { conflict: restored.conflict } : {}),
  };
}

/**
 * After the edit turn: a written edit's files are remembered for the prompts, saved as the step's
 * snapshot (before and after), then checked and judged; nothing written, nothing to check.
 */
export async function checkWritten(d: ResultTurnDeps & { runDir: string; edited: Set<string> }, step: number, previous: Observed, edit: EditTurn): Promise<{ result?: ResultTurn; snapshotDir: string | null }> {
  if (!edit.applied || !edit.result) return { snapshotDir: null };
  for (const c of edit.result.changes) d.edited.add(c.path);
  const snapshotDir = saveSnapshot(d.runDir, step, edit.result);
  return { result: await resultTurn(d, step, previous, edit.result), snapshotDir };
}

// Output cut at the output limit: the failures parsed from the part kept are not the run's failures.
// A state whose list is cut short is never compared as a count unless the runners' own summaries say
// the count (./parsers/summary); the report, the trace and the panel say the output was cut.
import type { CheckResult, Failure, ParserId, VerifyResult } from '../types';
import { reportedFailureCount } from './parsers/summary';

/** A check's failure list cut short (CheckResult.incomplete). */
export interface Incomplete {
  /** The count the tool's own summary gave; absent when the part kept has none. */
  reported?: number;
}

/**
 * Whether the failures parsed from a run's output are only some of its failures, and what the tool
 * said their count is. Whole when the text read was not cut, when the check passed, or when the
 * summary's count is no more than the failures parsed (every failure was in the part kept).
 */
export function incompleteList(parser: ParserId, read: { text: string; cut: boolean; exitCode: number | null; timedOut: boolean }, failures: readonly Failure[]): Incomplete | undefined {
  if (!read.cut) return undefined;
  if (!read.timedOut && read.exitCode === 0 && failures.length === 0) return undefined;
  // A stopped run printed no summary of its own; a count found is a chained tool's, not this run's.
  const reported = read.timedOut ? undefined : reportedFailureCount(parser, read.text);
  if (reported !== undefined && failures.length >= reported) return undefined;
  return reported !== undefined ? { reported } : {};
}

/**
 * The failure count a state is compared by (progress, regression, the best state, the budget's
 * novelty): its failures, with a cut check counted by its tool's own summary; undefined when a cut
 * check's tool said no count, so that no comparison is made from a part.
 */
export function comparableFailureCount(v: Pick<VerifyResult, 'green' | 'failures' | 'checks'>): number | undefined {
  if (v.green) return 0;
  let n = v.failures.length;
  for (const c of v.checks) {
    if (!c.incomplete) continue;
    if (c.incomplete.reported === undefined) return undefined;
    n += Math.max(0, c.incomplete.reported - c.failures.length);
  }
  return n;
}

/** Whether every failure of the state is listed (no check's list was cut short). */
export function listsEveryFailure(v: Pick<VerifyResult, 'checks'>): boolean {
  return !v.checks.some((c) => c.incomplete);
}

/** One sentence per check whose output was cut: for the report, the gate's answer and the CLI. */
export function cutNotes(checks: readonly Pick<CheckResult, 'name' | 'truncated' | 'incomplete' | 'failures'>[]): string[] {
  return checks
    .filter((c) => c.incomplete)
    .map((c) => {
      const listed = c.failures.length;
      const count = c.incomplete!.reported !== undefined ? `its own summary counts ${c.incomplete!.reported} failure(s); ${listed} are listed, from the part kept` : `${listed} failure(s) are listed, from the part kept; it printed no count of its own there`;
      return `The output of check "${c.name}" passed the output limit (outputLimitKb) and was cut: ${count}.`;
    });
}

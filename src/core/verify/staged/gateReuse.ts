// Which passed staged runs the green gate takes as the check's full run (issue 31), and why, in the
// words the trace and the panel show. Green is still only ever decided by full checks; these runs
// are full checks on the bytes the gate judges (the same verification, no edit in between):
// - a warm type check: the warm checker re-reads every file of the program and answers with tsc's
//   own diagnostics for the whole program, as the command prints them (./programs/warmTscWorker.cjs);
// - a test run that was the command itself, the narrowed selection having covered every test file.
// A test that passed in that run after failing before is not run again: a re-run of a passing test
// could only call it flaky, never turn a green into a failure.
import type { CheckResult } from '../../types';

/** Why the gate takes this passed staged run as the full check, or undefined when it must run the check. */
export function gateReuse(staged: CheckResult): string | undefined {
  if (staged.cancelled || staged.timedOut || staged.exitCode !== 0 || staged.failures.length > 0) return undefined;
  if (staged.mode === 'warm' && staged.parser === 'tsc') {
    return 'the gate reused this run as the full type check: tsc\'s own diagnostics for the whole program, on the bytes it judges';
  }
  if (staged.mode === 'full') return 'the gate reused this run: it was the check\'s full run, on the bytes it judges';
  return undefined;
}

// What one run of a check gave, and what its runs say together: shared by the verifier and the
// staged checks (which run the same check narrowed).
import type { CheckMode, CheckResult, CheckSpec, Failure, ParserId } from '../../types';
import type { PassedTests } from '../parsers/passed';
import type { Incomplete } from '../cut';
import type { RunCommandResult } from '../runner';

export interface Attempt {
  r: RunCommandResult;
  failures: Failure[];
  /** The tests its output names as passed (test runners only). */
  passed?: PassedTests;
  /** Set when its output was cut where its failures are not all listed (../cut.ts). */
  incomplete?: Incomplete;
  /** Set when it failed because a tool it launches is not installed (../notInstalled.ts). */
  notInstalled?: { tools: string[]; note: string };
  /** Set when the warm linter answered it (./warmEslint): said in the check's note. */
  warm?: string;
}

/** A run that passed: exit 0 and no failure, or one whose only trouble is a tool not installed. */
export function ranClean(a: Attempt): boolean {
  return a.failures.length === 0 && (a.r.exitCode === 0 || a.notInstalled !== undefined);
}

/** The runs of one check, told apart into what counts, what was flaky and the run shown. */
export interface Confirmed {
  attempts: Attempt[];
  counted: Failure[];
  flaky: Failure[];
  shown: Attempt;
}

/** A test's failure reproduces when the same test fails again, even if a random value in its message moved. */
export function looseKey(f: Failure): string {
  return JSON.stringify([f.check, f.file ?? '', f.id ?? '']);
}

/** The check's result from its confirmed runs; `carried` are failures of what was not re-run. */
export function checkResult(spec: CheckSpec, parser: ParserId, c: Confirmed, mode: CheckMode, extra: { carried?: Failure[]; note?: string; exitCode?: number | null } = {}): CheckResult {
  const r = c.shown.r;
  const carried = extra.carried ?? [];
  const note = [extra.note, c.shown.warm].filter((n) => n !== undefined && n !== '').join('; ');
  return {
    name: spec.name,
    command: spec.command,
    exitCode: extra.exitCode !== undefined ? extra.exitCode : r.timedOut ? null : r.exitCode,
    durationMs: c.attempts.reduce((n, a) => n + a.r.durationMs, 0),
    timedOut: r.timedOut,
    cancelled: c.attempts.some((a) => a.r.cancelled),
    output: r.output,
    truncated: r.truncated,
    // Failures carried from an earlier run join a cut list: its tool's count is then not the check's.
    ...(c.shown.incomplete ? { incomplete: carried.length > 0 ? {} : c.shown.incomplete } : {}),
    failures: [...c.counted, ...carried.map((f) => ({ ...f, carried: true }))],
    flaky: c.flaky,
    parser,
    runs: c.attempts.length,
    runDurationsMs: c.attempts.map((a) => a.r.durationMs),
    mode,
    ...(extra.note !== undefined || note !== '' ? { stagedNote: note } : {}),
    ...(c.shown.notInstalled !== undefined ? { notInstalled: c.shown.notInstalled } : {}),
    ...passedOf(c),
    ...(c.attempts.some((a) => a.r.strays.length > 0) ? { strays: [...new Set(c.attempts.flatMap((a) => a.r.strays))] } : {}),
  };
}

/** A full run's result with why it was full first, then how it ran (a warm linter, a pre-started runner). */
export function withReason(r: CheckResult, full: string): CheckResult {
  return { ...r, stagedNote: r.stagedNote !== undefined ? `${full}; ${r.stagedNote}` : full };
}

/** The shown run's passing tests, none of them a test that counts as failing or flaky. */
function passedOf(c: Confirmed): Pick<CheckResult, 'passed' | 'passedCapped'> {
  const p = c.shown.passed;
  if (!p || p.tests.length === 0) return {};
  const failing = new Set([...c.counted, ...c.flaky].map((f) => f.id));
  const tests = p.tests.filter((t) => !failing.has(t.id));
  return tests.length > 0 ? { passed: tests, ...(p.capped ? { passedCapped: true } : {}) } : {};
}

/** One run that needed no process (nothing to re-run): its result is what is carried. */
export function noRun(): Attempt {
  return { r: { exitCode: 0, signal: null, output: '', truncated: false, timedOut: false, cancelled: false, durationMs: 0, pid: undefined, strays: [] }, failures: [] };
}

/**
 * Flake confirmation by a targeted re-run (DESIGN §4 Flakes): only the tests whose result changed
 * from `before` were re-run (`reruns`). A newly failing test counts when it failed in every re-run;
 * one that passed on a re-run is flaky. A test that passed now after failing before, and fails on
 * its re-run, is flaky too (as a whole re-run would say). A re-run that failed without naming a test
 * proves nothing: then every failure of the first run counts.
 */
export function confirmTargeted(first: Attempt, reruns: readonly Attempt[], before: readonly Failure[]): Confirmed {
  const attempts = [first, ...reruns];
  const beforeKeys = new Set(before.map(looseKey));
  const inconclusive = reruns.some((a) => a.r.timedOut || a.r.spawnError !== undefined || (a.r.exitCode !== 0 && a.failures.length === 0));
  if (reruns.length === 0 || inconclusive) return { attempts, counted: first.failures, flaky: [], shown: first };
  const reproduced = (f: Failure): boolean => reruns.every((a) => a.failures.some((g) => looseKey(g) === looseKey(f)));
  const counted = first.failures.filter((f) => beforeKeys.has(looseKey(f)) || reproduced(f));
  const countedKeys = new Set(counted.map(looseKey));
  const flaky: Failure[] = [];
  const flakyKeys = new Set<string>();
  for (const f of [...first.failures, ...reruns.flatMap((a) => a.failures)]) {
    const k = looseKey(f);
    if (countedKeys.has(k) || flakyKeys.has(k)) continue;
    flakyKeys.add(k);
    flaky.push(f);
  }
  const passed = reruns.find((a) => a.r.exitCode === 0 && a.failures.length === 0);
  const shown = counted.length === 0 && first.failures.length > 0 && passed ? passed : first;
  return { attempts, counted, flaky, shown };
}

/** What the whole runs of one check say together (the verifier's `runCheck`): failures in every run count, the others are flaky. */
export function confirm(attempts: Attempt[]): Confirmed {
  const [first, ...reruns] = attempts;
  if (reruns.length === 0) return { attempts, counted: first!.failures, flaky: [], shown: first! };
  let counted = first!.failures.filter((f) => reruns.every((a) => a.failures.some((g) => looseKey(g) === looseKey(f))));
  const passed = attempts.find(ranClean);
  if (counted.length === 0 && !passed) counted = first!.failures;
  const countedKeys = new Set(counted.map(looseKey));
  const flaky: Failure[] = [];
  const flakyKeys = new Set<string>();
  for (const a of attempts) {
    for (const f of a.failures) {
      const k = looseKey(f);
      if (countedKeys.has(k) || flakyKeys.has(k)) continue;
      flakyKeys.add(k);
      flaky.push(f);
    }
  }
  // The run shown (exit code, output) is the first, unless nothing counts: then a run that passed.
  const shown = counted.length === 0 && passed ? passed : first!;
  return { attempts, counted, flaky, shown };
}

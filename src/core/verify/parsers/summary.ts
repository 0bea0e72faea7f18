// What a tool's own closing summary says it found: the true failure count of a run whose output was
// cut at the output limit, where the failures parsed from the part kept are only some of them. The
// summary comes last, so the tail kept holds it. Counted in the parsers' unit: failing tests for test
// runners (their suites or files when no test failed: a file that does not load), errors for type
// checkers and linters (ESLint's warnings only when no error: see ./eslint).
import stripAnsi from 'strip-ansi';
import type { ParserId } from '../../types';

/** Every whole number `re` captures in its first group, summed; undefined when `re` finds nothing. */
function sum(text: string, re: RegExp): number | undefined {
  const all = [...text.matchAll(re)];
  return all.length === 0 ? undefined : all.reduce((n, m) => n + Number(m[1] ?? 0), 0);
}

/** A summary's failed count where its line is found (`Tests  3 failed | 2 passed`), else 0 for a line without `failed`. */
function failedOn(text: string, line: RegExp, failed: RegExp): number | undefined {
  const lines = [...text.matchAll(line)].map((m) => m[0]);
  if (lines.length === 0) return undefined;
  return lines.reduce((n, l) => n + Number(failed.exec(l)?.[1] ?? 0), 0);
}

/** Tests failed, else (no test failed, yet files or suites did: one that did not load) those. */
function testsElseFiles(tests: number | undefined, files: number | undefined): number | undefined {
  if (tests !== undefined && tests > 0) return tests;
  if (files !== undefined && files > 0) return files;
  return tests ?? files;
}

const READERS: Partial<Record<ParserId, (t: string) => number | undefined>> = {
  // `      Tests  138 failed | 324 passed (462)` and `Test Files  12 failed | 3 passed (15)`.
  vitest: (t) => testsElseFiles(failedOn(t, /^\s*Tests\s+\d.*$/gm, /(\d+) failed/), failedOn(t, /^\s*Test Files\s+\d.*$/gm, /(\d+) failed/)),
  // `Tests:       138 failed, 324 passed, 462 total` and `Test Suites: 2 failed, ...`.
  jest: (t) => testsElseFiles(failedOn(t, /^Tests:\s.*$/gm, /(\d+) failed/), failedOn(t, /^Test Suites:\s.*$/gm, /(\d+) failed/)),
  // `  138 failing`, or only `  324 passing` when none failed.
  mocha: (t) => sum(t, /^\s*(\d+) failing\s*$/gm) ?? (/^\s*\d+ passing\b/m.test(t) ? 0 : undefined),
  // node:test's `# fail 138` (TAP) or `ℹ fail 138` (spec).
  'node-test': (t) => sum(t, /^[ℹ#] fail (\d+)\s*$/gm),
  // TAP producers' `# fail 138` (tape, classic node-tap).
  tap: (t) => sum(t, /^# fail\s+(\d+)\s*$/gm),
  // `Found 138 errors in 12 files.` / `Found 1 error.`; tsc prints nothing when there is none.
  tsc: (t) => sum(t, /^Found (\d+) errors?\b/gm),
  // stylish's `✖ 140 problems (138 errors, 2 warnings)`: errors, else the warnings that failed it.
  eslint: (t) => {
    const m = [...t.matchAll(/^✖ \d+ problems? \((\d+) errors?, (\d+) warnings?\)/gm)];
    if (m.length === 0) return undefined;
    const errors = m.reduce((n, x) => n + Number(x[1]), 0);
    return errors > 0 ? errors : m.reduce((n, x) => n + Number(x[2]), 0);
  },
  // `Found 138 errors.`
  biome: (t) => sum(t, /^Found (\d+) errors?\.?\s*$/gm) ?? (/^Checked \d+ files?\b/m.test(t) ? 0 : undefined),
  // `Found 2 warnings and 138 errors.`
  oxlint: (t) => sum(t, /^Found \d+ warnings? and (\d+) errors?\.?\s*$/gm),
};

/**
 * The failure count the tool's own summary gives, or undefined when it printed none that this knows
 * (a generic check, a summary lost with the output, a reporter that prints no count).
 */
export function reportedFailureCount(parser: ParserId, output: string): number | undefined {
  return READERS[parser]?.(stripAnsi(output));
}

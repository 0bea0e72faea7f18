// Held-out tests: part of a task's failing tests is withheld from the loop and restored for the final
// verdict. A run that ends green while a held-out test fails has fixed only what it saw: overfit.
// Two splits, both deterministic (SHA-256 of the commit and the test's identity, the first half in
// that order held out, at least one left visible), so every machine and every rerun of the same plan
// holds out the same tests:
// - by file, when the failures are spread over two or more test files: the held-out files are not in
//   the copy while the loop runs, so no check of the loop sees them (nor the model reads them);
// - by test name, when they all live in one file (the common case): the file stays (the visible tests
//   need it), and the loop's verifier drops the held-out tests' failures by identity (check, file,
//   title: the same identity the runner's parser gives them), so they are not in the loop's view and
//   do not stop it from going green (withhold.ts). The final verdict runs the full checks unfiltered.
import { createHash } from 'node:crypto';

/** A test by the identity the runner's parser gives its failure: the check, the file, the full title. */
export interface TestRef {
  check: string;
  file: string;
  id: string;
}

export interface Holdout {
  /** `file`: whole test files withheld; `test`: tests withheld by name inside their file. */
  by: 'file' | 'test';
  /** What is withheld, for the report: the files, or `file › title` per test. */
  heldOut: string[];
  /** What the loop sees, in the same words. */
  visible: string[];
  /** With `by: 'test'`: the withheld tests, by identity. */
  tests?: TestRef[];
  /** How the split was made, for the report. */
  how: string;
}

export type HoldoutMode = 'auto' | 'on' | 'off';

export const HOLDOUT_RULE = 'by file: the failing test files ordered by SHA-256 of "<commit>:<path>", the first half (rounded down) held out, at least one left visible';
export const HOLDOUT_TEST_RULE = 'by test name within one file: the failing tests ordered by SHA-256 of "<commit>:<file>:<title>", the first half (rounded down) held out, at least one left visible; their failures are filtered out of the loop\'s checks by identity';

export function testLabel(t: TestRef): string {
  return `${t.file} › ${t.id}`;
}

function byHash<T>(commit: string, items: readonly T[], key: (x: T) => string): { held: T[]; visible: T[] } {
  const h = (x: T): string => createHash('sha256').update(`${commit}:${key(x)}`).digest('hex');
  const ordered = [...items].sort((a, b) => (h(a) < h(b) ? -1 : h(a) > h(b) ? 1 : 0));
  const n = Math.floor(ordered.length / 2);
  return { held: ordered.slice(0, n), visible: ordered.slice(n) };
}

/**
 * The split of a task's failing tests, or null when there is nothing to split (one failing test, or
 * holdout off). `failingTests` are the broken state's failing tests by identity (test runners only).
 */
export function splitHoldout(commit: string, failingTestFiles: readonly string[], mode: HoldoutMode, failingTests: readonly TestRef[] = []): Holdout | null {
  if (mode === 'off') return null;
  const files = [...new Set(failingTestFiles)];
  if (files.length >= 2) {
    const { held, visible } = byHash(commit, files, (f) => f);
    const heldOut = held.sort();
    return { by: 'file', heldOut, visible: visible.sort(), how: `${heldOut.length} of ${files.length} failing test files held out (${HOLDOUT_RULE})` };
  }
  // One failing file: split its failing tests by name (a test named twice, e.g. in two checks, once).
  const seen = new Map<string, TestRef>();
  for (const t of failingTests) if (files.includes(t.file) && !seen.has(`${t.file}\0${t.id}`)) seen.set(`${t.file}\0${t.id}`, t);
  const tests = [...seen.values()];
  if (tests.length < 2) return null;
  const { held, visible } = byHash(commit, tests, (t) => `${t.file}:${t.id}`);
  const order = (a: TestRef, b: TestRef): number => testLabel(a).localeCompare(testLabel(b));
  held.sort(order);
  // Every check's failure of a held-out test is withheld (the same title may fail in two test checks).
  const heldKeys = new Set(held.map((t) => `${t.file}\0${t.id}`));
  const all = failingTests.filter((t) => heldKeys.has(`${t.file}\0${t.id}`));
  return { by: 'test', heldOut: held.map(testLabel), visible: visible.sort(order).map(testLabel), tests: all, how: `${held.length} of ${tests.length} failing tests in ${files[0]} held out (${HOLDOUT_TEST_RULE})` };
}

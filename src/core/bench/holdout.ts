// Held-out tests: part of a task's failing test files is withheld from the loop (the file is not in
// its copy while it runs, so no check of the loop sees it) and put back for the final verdict. A run
// that ends green while a held-out test fails has fixed only what it saw: overfit. The split is by
// file, deterministic (SHA-256 of the commit and the path, the lower half held out), so every machine
// and every rerun of the same plan holds out the same files.
import { createHash } from 'node:crypto';

export interface Holdout {
  /** Test files withheld from the loop, restored for the final verdict. */
  heldOut: string[];
  /** Failing test files the loop sees. */
  visible: string[];
  /** How the split was made, for the report. */
  how: string;
}

export type HoldoutMode = 'auto' | 'on' | 'off';

export const HOLDOUT_RULE = 'by file: the failing test files ordered by SHA-256 of "<commit>:<path>", the first half (rounded down) held out, at least one left visible';

export function splitHoldout(commit: string, failingTestFiles: readonly string[], mode: HoldoutMode): Holdout | null {
  if (mode === 'off') return null;
  const files = [...new Set(failingTestFiles)];
  // One failing file cannot be split by file: the loop would see no failing test at all.
  if (files.length < 2) return null;
  const key = (f: string): string => createHash('sha256').update(`${commit}:${f}`).digest('hex');
  const ordered = files.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const n = Math.floor(ordered.length / 2);
  const heldOut = ordered.slice(0, n).sort();
  const visible = ordered.slice(n).sort();
  return { heldOut, visible, how: `${heldOut.length} of ${files.length} failing test files held out (${HOLDOUT_RULE})` };
}

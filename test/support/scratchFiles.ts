// What the staged-test suites do with a scratch project's files: a path in it, the `.ran` log its
// test files append their names to (read and cleared), and an edit that must find what it replaces.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export interface ScratchFiles {
  file(rel: string): string;
  /** The test files loaded since the last call, in order, and the log cleared. */
  ran(): string[];
  /** Replaces `from` by `to` in `rel`; fails when `rel` does not hold `from`. */
  edit(rel: string, from: string, to: string): void;
}

/** The helpers over the project `project()` names at the time of each call (a suite's scratch changes per test). */
export function scratchFiles(project: () => string): ScratchFiles {
  const file = (rel: string): string => path.join(project(), rel);
  return {
    file,
    ran: () => {
      const log = file('.ran');
      const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
      rmSync(log, { force: true });
      return lines;
    },
    edit: (rel, from, to) => {
      const text = readFileSync(file(rel), 'utf8');
      assert.ok(text.includes(from), `${rel} holds ${from}`);
      writeFileSync(file(rel), text.replace(from, to));
    },
  };
}

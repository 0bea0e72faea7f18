// The built-in `oracle` variant: each task's reference fix, replayed as the model's one reply (the
// commit's own unified diff of its non-test files, as git writes it) through the whole loop: parse,
// critics, apply, the checks. Every kept task must go green with it, so a user can trust the task list
// (and the verdicts on their project) before paying for a model.
import { writeFileSync } from 'node:fs';
import type { ReplayScript } from '../model/replay';
import { git } from './git';
import type { BenchTask } from './tasks';

export const ORACLE = 'oracle';

export async function oracleReply(root: string, task: BenchTask): Promise<string> {
  const diff = await git(root, ['diff', '--no-color', '--no-ext-diff', '--full-index', task.parent, task.commit, '--', ...task.referenceFiles]);
  return ['STATUS: done', 'CONFIDENCE: 1', `POSTMORTEM: the reference fix of ${task.id} (${task.subject})`, '', '```diff', diff.trimEnd(), '```', ''].join('\n');
}

/** Writes the oracle's replay script for `task` to `file`. */
export async function writeOracleScript(root: string, task: BenchTask, file: string): Promise<void> {
  const script: ReplayScript = { responses: [{ text: await oracleReply(root, task) }] };
  writeFileSync(file, JSON.stringify(script, null, 1));
}

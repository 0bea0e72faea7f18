// The proof that the bench left the user's folder alone: a hash of what `git status` sees (porcelain
// v2, which names every changed, staged and untracked file with its modes and object ids) and of the
// index file's bytes, taken before and after. `--no-optional-locks` keeps `git status` itself from
// refreshing the index, which would change the very bytes being proven.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { git } from './git';

export interface TreeProof {
  status: string;
  index: string;
}

export async function treeProof(root: string): Promise<TreeProof> {
  const gitDir = (await git(root, ['rev-parse', '--absolute-git-dir'])).trim();
  const indexFile = path.join(gitDir, 'index');
  const index = createHash('sha256').update(existsSync(indexFile) ? readFileSync(indexFile) : Buffer.alloc(0)).digest('hex');
  const status = createHash('sha256').update(await git(root, ['status', '--porcelain=v2', '--untracked-files=all', '--ignored=no'])).digest('hex');
  return { status, index };
}

export function sameProof(a: TreeProof, b: TreeProof): boolean {
  return a.status === b.status && a.index === b.index;
}

/** One line for the end of a bench: what was compared and whether it held. */
export function proofLine(before: TreeProof, after: TreeProof): string {
  const held = sameProof(before, after);
  return `${held ? 'untouched' : 'CHANGED'}: git status --porcelain=v2 ${before.status.slice(0, 12)} → ${after.status.slice(0, 12)}, index ${before.index.slice(0, 12)} → ${after.index.slice(0, 12)}`;
}

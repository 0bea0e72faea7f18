// The run-wide review (like Copilot agent mode's): the files a finished run left changed, each with
// the user's decision: keep it, or undo it back to its original bytes. Built from the run's
// checkpoint (the originals) and the disk (what the run left); the originals are copied beside the
// run as `review/before/<path>`, so the diff's left side is one of our read-only snapshot documents.
// Undo itself is core's restoreState, which never overwrites a file changed since the run wrote it.
// No `vscode` import: the controller and the unit tests use it.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Checkpoint } from '../core/edit/checkpoint';
import type { Workspace } from '../core/edit/workspace';
import { snapshotFile } from './runFiles';
import type { ReviewFile, ReviewState } from './common/reviewState';

export function reviewDir(runDir: string): string {
  return path.join(runDir, 'review');
}

function same(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

/**
 * The files the run left different from their originals, in path order. A file the user already
 * decided on stays listed with that decision (an undone file equals its original again); a file
 * that no longer differs and was never decided on is not the run's change any more.
 */
export async function buildReview(runDir: string, checkpoint: Checkpoint, workspace: Workspace, previous?: ReviewState | null): Promise<ReviewState> {
  const dir = reviewDir(runDir);
  const decided = new Map((previous?.files ?? []).filter((f) => f.decision !== 'pending').map((f) => [f.path, f]));
  const files: ReviewFile[] = [];
  for (const rel of [...checkpoint.touched].sort()) {
    const original = (await checkpoint.original(rel)) ?? null;
    let disk: Uint8Array | null;
    try {
      disk = (await workspace.read(rel)) ?? null;
    } catch {
      // A file turned into a folder or a device: the run's change is not something a diff can show.
      disk = null;
    }
    const prior = decided.get(rel);
    if (same(original, disk) && !prior) continue;
    if (original !== null) {
      const file = snapshotFile(dir, 'before', rel);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, original);
    }
    const kind = original === null ? 'added' : disk === null ? 'deleted' : 'modified';
    files.push({ path: rel, kind: prior?.kind ?? kind, decision: prior?.decision ?? 'pending' });
  }
  return { dir, files };
}

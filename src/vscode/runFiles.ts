// The file contents a finished run can be taken back to: its originals (Revert run) or its best
// step (Revert to best). Read from the run's checkpoint and step snapshots; no `vscode` import.
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Checkpoint } from '../core/edit/checkpoint';
import type { FileChange } from '../core/edit/workspace';
import type { StepView } from './runState';

export function checkpointDir(runDir: string): string {
  return path.join(runDir, 'checkpoint');
}

async function loadCheckpoint(runDir: string): Promise<Checkpoint> {
  const cp = await Checkpoint.load(checkpointDir(runDir));
  if (!cp) throw new Error(`the run's checkpoint is missing (${checkpointDir(runDir)}); nothing to restore`);
  return cp;
}

/** Every file the run touched, with its original bytes (null: it did not exist). */
export async function originalContents(runDir: string): Promise<FileChange[]> {
  return (await loadCheckpoint(runDir)).revertChanges();
}

export function snapshotFile(snapshotDir: string, side: 'before' | 'after', rel: string): string {
  return path.join(snapshotDir, side, ...rel.split('/'));
}

/**
 * The contents of every touched file in the state after step `best`: the originals, overlaid with
 * what each applied step up to `best` wrote, in order. Step 0 is the original state.
 */
export async function bestContents(runDir: string, steps: readonly StepView[], best: number): Promise<FileChange[]> {
  const files = new Map<string, Uint8Array | null>();
  for (const c of await originalContents(runDir)) files.set(c.path, c.content);
  for (const s of [...steps].sort((a, b) => a.index - b.index)) {
    if (s.index > best || !s.applied || !s.snapshotDir) continue;
    for (const f of s.files) {
      if (f.kind === 'delete') {
        files.set(f.path, null);
        continue;
      }
      const file = snapshotFile(s.snapshotDir, 'after', f.path);
      if (!existsSync(file)) throw new Error(`step ${s.index}'s snapshot of ${f.path} is missing (${file})`);
      files.set(f.path, await fs.readFile(file));
    }
  }
  return [...files].map(([p, content]) => ({ path: p, content }));
}

/** Keeps only the changes whose target differs from what is on disk now. */
export async function pendingChanges(changes: readonly FileChange[], read: (rel: string) => Promise<Uint8Array | undefined>): Promise<FileChange[]> {
  const out: FileChange[] = [];
  for (const c of changes) {
    const disk = await read(c.path);
    if (c.content === null ? disk !== undefined : disk === undefined || !Buffer.from(disk).equals(Buffer.from(c.content))) out.push(c);
  }
  return out;
}

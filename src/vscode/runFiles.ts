// Where a finished run's files are, and what its best step held (for Revert to best), read from the
// run's checkpoint and step snapshots. The writing itself is core's restoreState / revertRun, which
// leave alone any file changed since the run wrote it. No `vscode` import.
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Checkpoint } from '../core/edit/checkpoint';
import { storedPathForm } from '../core/edit/storedPath';
import type { FileChange } from '../core/edit/workspace';
import type { StepView } from './common/runState';

export function checkpointDir(runDir: string): string {
  return path.join(runDir, 'checkpoint');
}

export async function loadCheckpoint(runDir: string): Promise<Checkpoint> {
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
 * The contents (null: absent) of every touched file in the state after step `best`, replayed from the originals:
 * an applied step lays its `after/` snapshot over the state before it; a step a critic rolled back
 * leaves the state before it, or the state of the step it restored. Step 0 is the original state.
 */
export async function bestContents(runDir: string, steps: readonly StepView[], best: number): Promise<Map<string, Uint8Array | null>> {
  let files = new Map<string, Uint8Array | null>();
  for (const c of await originalContents(runDir)) files.set(c.path, c.content);
  const states = new Map<number, Map<string, Uint8Array | null>>([[0, files]]);
  for (const s of [...steps].sort((a, b) => a.index - b.index)) {
    if (s.index > best) break;
    if (s.rolledBack === 'best' && typeof s.restoredToStep === 'number') {
      const restored = states.get(s.restoredToStep);
      if (!restored) throw new Error(`step ${s.index} restored step ${s.restoredToStep}, whose state is unknown`);
      files = restored;
    } else if (s.applied && s.snapshotDir && !s.rolledBack) {
      files = new Map(files);
      for (const f of s.files) {
        // Read back from the trace: a path of another form, or a snapshot outside the run's folder, is not ours.
        const form = storedPathForm(f.path);
        if (form !== undefined) throw new Error(`step ${s.index}: ${form}; refused (was the run's trace edited?)`);
        const rel = path.relative(path.resolve(runDir), path.resolve(s.snapshotDir));
        if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`step ${s.index}'s snapshot folder ${s.snapshotDir} is not inside the run's folder ${runDir}; refused`);
        if (f.kind === 'delete') {
          files.set(f.path, null);
          continue;
        }
        const file = snapshotFile(s.snapshotDir, 'after', f.path);
        if (!existsSync(file)) throw new Error(`step ${s.index}'s snapshot of ${f.path} is missing (${file})`);
        files.set(f.path, await fs.readFile(file));
      }
    }
    states.set(s.index, files);
  }
  return files;
}

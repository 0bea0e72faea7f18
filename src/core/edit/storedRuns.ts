// The runs stored under a folder's storage, read from their checkpoints' manifests alone: the CLI's
// revert lists them, and a window offers an interrupted one at start-up without loading the code
// that writes or restores (checkpoint.ts, restore.ts).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Manifest } from './checkpointManifest';
import { readManifest } from './checkpointManifest';

export interface StoredRun {
  runId: string;
  /** The checkpoint directory. */
  dir: string;
  root: string;
  createdAt: string;
  finished: boolean;
  reverted: boolean;
  touched: string[];
}

export interface StoredRuns {
  /** Newest first. */
  runs: StoredRun[];
  /** Checkpoints that could not be read: reported, never silently dropped. */
  unreadable: { dir: string; reason: string }[];
}

/** Every run with a checkpoint under `<storageDir>/runs/`. */
export async function listCheckpoints(storageDir: string): Promise<StoredRuns> {
  const root = path.join(storageDir, 'runs');
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { runs: [], unreadable: [] };
    throw e;
  }
  const out: StoredRuns = { runs: [], unreadable: [] };
  for (const name of names) {
    const dir = path.join(root, name, 'checkpoint');
    let cp: Manifest | undefined;
    try {
      cp = await readManifest(dir);
    } catch (e) {
      out.unreadable.push({ dir, reason: (e as Error).message });
      continue;
    }
    if (!cp) continue;
    out.runs.push({ runId: cp.runId, dir, root: cp.root, createdAt: cp.createdAt, finished: cp.finished, reverted: cp.reverted, touched: cp.entries.map((e) => e.path) });
  }
  out.runs.sort((a, b) => (a.createdAt === b.createdAt ? b.runId.localeCompare(a.runId) : b.createdAt.localeCompare(a.createdAt)));
  return out;
}

/** Runs that never finished (a crash, a kill, a reload mid-run) and touched files: offer to restore them. */
export async function findInterruptedRuns(storageDir: string): Promise<StoredRun[]> {
  return (await listCheckpoints(storageDir)).runs.filter((r) => !r.finished && !r.reverted && r.touched.length > 0);
}

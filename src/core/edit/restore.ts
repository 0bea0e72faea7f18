// Bringing touched files back to a known state: the run's originals (revert run), a step's state
// (revert to best), or what an interrupted run left behind. Files someone else changed are left
// alone and reported, never overwritten; files the run never wrote are never touched.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RevertAction, RevertConflict } from './checkpoint';
import { Checkpoint } from './checkpoint';
import type { FileTracker } from './tracker';
import { contentHash } from './tracker';
import type { FileChange, Workspace } from './workspace';

export interface RestoreReport {
  actions: RevertAction[];
  conflicts: RevertConflict[];
  unchanged: string[];
}

export interface RestoreOptions {
  workspace: Workspace;
  checkpoint: Checkpoint;
  tracker?: FileTracker;
}

async function write(opts: RestoreOptions, changes: FileChange[]): Promise<void> {
  if (changes.length === 0) return;
  await opts.checkpoint.beginWrite(opts.workspace, changes);
  try {
    await opts.workspace.apply(changes);
  } catch (e) {
    await opts.checkpoint.endWrite(false);
    throw e;
  }
  await opts.checkpoint.endWrite(true);
  opts.tracker?.noteWritten(changes);
}

/**
 * Brings every file the run touched to `target` (path → bytes, or null for absent); a touched file
 * the target does not name goes back to its original. A file whose disk content is not what the
 * run last read or wrote is left as it is and reported.
 */
export async function restoreState(target: ReadonlyMap<string, Uint8Array | null>, opts: RestoreOptions): Promise<RestoreReport> {
  const report: RestoreReport = { actions: [], conflicts: [], unchanged: [] };
  const changes: FileChange[] = [];
  const paths = [...new Set([...opts.checkpoint.touched, ...target.keys()])];
  for (const rel of paths) {
    if (!opts.checkpoint.has(rel) && !opts.tracker?.knows(rel)) {
      // Never written by the run and never looked at: not the run's to change.
      report.conflicts.push({ path: rel, reason: `${rel} was never written by this run; left as it is`, originalAt: null });
      continue;
    }
    if (await opts.workspace.hasUnsavedChanges?.(rel)) {
      report.conflicts.push({ path: rel, reason: `${rel} has unsaved changes in an editor; left as it is`, originalAt: null });
      continue;
    }
    const want = target.has(rel) ? target.get(rel)! : ((await opts.checkpoint.original(rel)) ?? null);
    const disk = (await opts.workspace.read(rel)) ?? null;
    const known = opts.tracker?.lastKnown(rel);
    const ours = known !== undefined ? known === contentHash(disk) : await opts.checkpoint.owns(rel, disk ?? undefined);
    if (!ours) {
      report.conflicts.push({ path: rel, reason: `${rel} changed outside the run; left as the user has it`, originalAt: null });
      continue;
    }
    if (contentHash(disk) === contentHash(want)) {
      report.unchanged.push(rel);
      continue;
    }
    const mode = want !== null && disk === null ? opts.checkpoint.originalMode(rel) : undefined;
    changes.push({ path: rel, content: want, ...(mode !== undefined ? { mode } : {}) });
    report.actions.push({ path: rel, action: want === null ? 'removed' : disk === null ? 'recreated' : 'restored' });
  }
  await write(opts, changes);
  return report;
}

/**
 * Restores every file the run touched to its original bytes and mode (removing files it created,
 * recreating files it deleted), except files changed since the run wrote them. Works from the
 * checkpoint alone, so it also serves a run that crashed or was killed mid-write.
 */
export async function revertRun(opts: RestoreOptions): Promise<RestoreReport> {
  const plan = await opts.checkpoint.planRevert(opts.workspace);
  await write(opts, plan.changes);
  if (plan.conflicts.length === 0) await opts.checkpoint.markReverted();
  return { actions: plan.actions, conflicts: plan.conflicts, unchanged: plan.unchanged };
}

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
    let cp: Checkpoint | undefined;
    try {
      cp = await Checkpoint.load(dir);
    } catch (e) {
      out.unreadable.push({ dir, reason: (e as Error).message });
      continue;
    }
    if (!cp) continue;
    out.runs.push({ runId: cp.runId, dir, root: cp.root, createdAt: cp.createdAt, finished: cp.finished, reverted: cp.reverted, touched: cp.touched });
  }
  out.runs.sort((a, b) => (a.createdAt === b.createdAt ? b.runId.localeCompare(a.runId) : b.createdAt.localeCompare(a.createdAt)));
  return out;
}

/** Runs that never finished (a crash, a kill, a reload mid-run) and touched files: offer to restore them. */
export async function findInterruptedRuns(storageDir: string): Promise<StoredRun[]> {
  return (await listCheckpoints(storageDir)).runs.filter((r) => !r.finished && !r.reverted && r.touched.length > 0);
}

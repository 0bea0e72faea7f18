// Bringing touched files back to a known state: the run's originals (revert run), a step's state
// (revert to best), or what an interrupted run left behind. Files someone else changed are left
// alone and reported, never overwritten; files the run never wrote are never touched.
import type { Checkpoint, RevertAction, RevertConflict } from './checkpoint';
import type { FileTracker } from './tracker';
import { contentHash } from './tracker';
import type { FileChange, Workspace } from './workspace';
import { CHANGED_ON_DISK, oneLine, WriteError } from './workspace';
import { recordFailedWrite } from './failedWrite';

export interface RestoreReport {
  actions: RevertAction[];
  conflicts: RevertConflict[];
  unchanged: string[];
}

export interface RestoreOptions {
  workspace: Workspace;
  checkpoint: Checkpoint;
  tracker?: FileTracker;
  /** Only these paths are brought to the target (a review's per-file undo); the run's other files are left as they are. */
  only?: readonly string[];
}

/**
 * Writes `changes`, each guarded by the content it was checked against (`expect`): a file that
 * changed since, or cannot be written, is left as it is and reported, and the rest are still
 * written. Returns the paths not written.
 */
async function writeGuarded(opts: RestoreOptions, changes: FileChange[], conflict: (rel: string, reason: string) => Promise<void>): Promise<Set<string>> {
  const skipped = new Set<string>();
  let todo = changes;
  while (todo.length > 0) {
    try {
      // Inside the try: a checkpoint that cannot be written (a full disk) leaves every file alone, reported.
      await opts.checkpoint.beginWrite(opts.workspace, todo);
      await opts.workspace.apply(todo);
    } catch (e) {
      const failed = e instanceof WriteError ? e.path : undefined;
      const unrestored = await recordFailedWrite(e, opts, 'pass');
      // The batch was put back: retry without the file that failed (another cause: give up on all).
      const drop = failed !== undefined && todo.some((c) => c.path === failed) ? [failed, ...unrestored.map((u) => u.path)] : todo.map((c) => c.path);
      const why = e instanceof WriteError && e.code === CHANGED_ON_DISK ? 'changed on disk while it was being restored; left as the user has it' : `could not be restored: ${oneLine(e)}`;
      for (const rel of new Set(drop)) {
        skipped.add(rel);
        await conflict(rel, rel === failed || failed === undefined ? `${rel} ${why}` : `${rel} could not be put back after a failed restore write; left as it is`);
      }
      todo = todo.filter((c) => !skipped.has(c.path));
      continue;
    }
    await opts.checkpoint.endWrite(true);
    opts.tracker?.noteWritten(todo);
    break;
  }
  // Folders the run created and that are empty now go too: the tree is as it was. One the
  // checkpoint names outside the folder is refused and reported; the others still go.
  const dirs = await opts.checkpoint.removeCreatedDirs(opts.workspace);
  for (const r of dirs.refused) await conflict(r.path, `folder ${r.reason}`);
  return skipped;
}

/**
 * Brings every file the run touched to `target` (path → bytes, or null for absent); a touched file
 * the target does not name goes back to its original. A file whose disk content is neither its
 * original nor what the run last wrote is left as it is and reported, with the run's version kept
 * in the checkpoint (`runVersionAt`); so is one changed between the check and the write.
 */
export async function restoreState(target: ReadonlyMap<string, Uint8Array | null>, opts: RestoreOptions): Promise<RestoreReport> {
  const report: RestoreReport = { actions: [], conflicts: [], unchanged: [] };
  const changes: FileChange[] = [];
  const cp = opts.checkpoint;
  const conflict = async (rel: string, reason: string): Promise<void> => {
    const originalAt = cp.has(rel) ? cp.originalAt(rel) : null;
    report.conflicts.push({ path: rel, reason, originalAt, runVersionAt: cp.has(rel) ? await cp.keepRunVersion(rel) : null });
  };
  const paths = opts.only ? [...new Set(opts.only)] : [...new Set([...cp.touched, ...target.keys()])];
  for (const rel of paths) {
    // Read back from the storage: it must still name a place inside the folder (storedPath.ts).
    const refused = cp.refusal(rel, opts.workspace.root);
    if (refused !== undefined) {
      report.conflicts.push({ path: String(rel), reason: refused, originalAt: cp.has(rel) ? cp.originalAt(rel) : null, runVersionAt: null });
      continue;
    }
    if (!cp.has(rel) && !opts.tracker?.knows(rel)) {
      // Never written by the run and never looked at: not the run's to change.
      await conflict(rel, `${rel} was never written by this run; left as it is`);
      continue;
    }
    if (await opts.workspace.hasUnsavedChanges?.(rel)) {
      await conflict(rel, `${rel} has unsaved changes in an editor; left as it is`);
      continue;
    }
    const want = target.has(rel) ? target.get(rel)! : ((await cp.original(rel)) ?? null);
    let disk: Uint8Array | null;
    try {
      disk = (await opts.workspace.read(rel)) ?? null;
    } catch (e) {
      await conflict(rel, `${rel} cannot be read (${oneLine(e)}); left as it is`);
      continue;
    }
    // The run's own bytes only: its original, or what it last wrote. What the run merely read
    // (the tracker) does not count: a user's save the prompt happened to see is still the user's.
    const ours = cp.has(rel) ? await cp.owns(rel, disk ?? undefined) : opts.tracker?.lastKnown(rel) === contentHash(disk);
    // A file the run wrote that is gone now (a check deleted it) is recreated: that overwrites
    // nothing of anyone's. A file changed, not deleted, behind the run's back stays a conflict.
    const goneOfOurs = disk === null && want !== null && cp.has(rel);
    if (!ours && !goneOfOurs) {
      await conflict(rel, `${rel} changed outside the run; left as the user has it`);
      continue;
    }
    if (contentHash(disk) === contentHash(want)) {
      report.unchanged.push(rel);
      continue;
    }
    const mode = want !== null && disk === null ? cp.originalMode(rel) : undefined;
    changes.push({ path: rel, content: want, expect: contentHash(disk), ...(mode !== undefined ? { mode } : {}) });
    report.actions.push({ path: rel, action: want === null ? 'removed' : disk === null ? 'recreated' : 'restored' });
  }
  const skipped = await writeGuarded(opts, changes, conflict);
  report.actions = report.actions.filter((a) => !skipped.has(a.path));
  return report;
}

/**
 * Restores every file the run touched to its original bytes and mode (removing files it created,
 * recreating files it deleted, removing folders it created once empty), except files changed since
 * the run wrote them. Works from the checkpoint alone, so it also serves a run that crashed or was
 * killed mid-write.
 */
export async function revertRun(opts: RestoreOptions): Promise<RestoreReport> {
  const cp = opts.checkpoint;
  const plan = await cp.planRevert(opts.workspace);
  const conflicts = [...plan.conflicts];
  const skipped = await writeGuarded(opts, plan.changes, async (rel, reason) => {
    conflicts.push({ path: rel, reason, originalAt: cp.originalAt(rel), runVersionAt: await cp.keepRunVersion(rel) });
  });
  if (conflicts.length === 0) await cp.markReverted();
  return { actions: plan.actions.filter((a) => !skipped.has(a.path)), conflicts, unchanged: plan.unchanged };
}

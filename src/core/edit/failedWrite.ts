// What a batch write that failed leaves behind, recorded the same way by the run's edits (apply.ts)
// and by the restores (restore.ts). The workspace rolls a failed batch back as far as it can; a file
// it could not put back holds bytes the run wrote. Those bytes go into the checkpoint's write log
// (so a later revert can tell them apart from a user's) and into the tracker (they are the run's doing).
import type { Checkpoint } from './checkpoint';
import type { FileTracker } from './tracker';
import type { Workspace } from './workspace';
import { WriteError } from './workspace';

export interface FailedWriteRecord {
  workspace: Workspace;
  checkpoint?: Checkpoint;
  tracker?: FileTracker;
}

/** A file's bytes now, or null when it is gone or cannot be read (the checkpoint records it absent). */
async function readOrNull(ws: Workspace, rel: string): Promise<Uint8Array | null> {
  try {
    return (await ws.read(rel)) ?? null;
  } catch {
    return null;
  }
}

/**
 * Records what the failed batch `e` left on disk and returns the files it could not put back.
 * `checkpointFault`: whether a checkpoint that cannot record it is thrown (an edit: the step stops)
 * or passed over (a restore: it goes on with the other files and reports this one).
 */
export async function recordFailedWrite(e: unknown, o: FailedWriteRecord, checkpointFault: 'throw' | 'pass'): Promise<WriteError['notRestored']> {
  const unrestored = e instanceof WriteError ? e.notRestored : [];
  const left = new Map<string, Uint8Array | null>();
  for (const u of unrestored) left.set(u.path, await readOrNull(o.workspace, u.path));
  if (o.checkpoint) {
    const ended = o.checkpoint.endWrite(false, left);
    await (checkpointFault === 'throw' ? ended : ended.catch(() => undefined));
  }
  o.tracker?.noteWritten([...left].map(([p, content]) => ({ path: p, content })));
  return unrestored;
}

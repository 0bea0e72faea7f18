// What Revert, Undo, Keep and the review need of a finished or interrupted run: its checkpoint, the
// core's restores and the best step's contents. Loaded with the engine (FolderEngine.restoring), not
// at a window's start-up: it writes files, and start-up only lists the runs (core/edit/storedRuns.ts).
// No `vscode` import.
import { Checkpoint } from '../core/edit/checkpoint';
import { restoreState, revertRun } from '../core/edit/restore';
import { bestContents, loadCheckpoint } from './runFiles';

export interface Restoring {
  /** The checkpoint of the run in `runDir`; an error when it is missing. */
  loadCheckpoint: typeof loadCheckpoint;
  /** The checkpoint in the checkpoint folder `dir` (a stored run's `dir`); undefined when it is gone. */
  checkpointAt(dir: string): Promise<Checkpoint | undefined>;
  restoreState: typeof restoreState;
  revertRun: typeof revertRun;
  bestContents: typeof bestContents;
}

export const restoring: Restoring = { loadCheckpoint, checkpointAt: (dir) => Checkpoint.load(dir), restoreState, revertRun, bestContents };

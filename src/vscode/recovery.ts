// After a reload or a crash mid-run, the next activation finds the run's unfinished checkpoint and
// offers to put the original bytes back (Revert) or keep what the run wrote (Keep).
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Checkpoint } from '../core/edit/checkpoint';
import type { Logger } from '../core/types';
import { folderStorageDir } from './folders';
import { checkpointDir, pendingChanges } from './runFiles';
import { VscodeWorkspace } from './vscodeWorkspace';

export interface Interrupted {
  folder: vscode.WorkspaceFolder;
  runId: string;
  runDir: string;
  checkpoint: Checkpoint;
}

/** Unfinished checkpoints of runs in `folder` that touched at least one file. */
export async function findInterrupted(storageRoot: string, folder: vscode.WorkspaceFolder): Promise<Interrupted[]> {
  const runs = path.join(folderStorageDir(storageRoot, folder.uri.fsPath), 'runs');
  if (!existsSync(runs)) return [];
  const out: Interrupted[] = [];
  for (const runId of (await fs.readdir(runs)).sort()) {
    const runDir = path.join(runs, runId);
    const cp = await Checkpoint.load(checkpointDir(runDir));
    if (cp && !cp.finished && cp.touched.length > 0) out.push({ folder, runId, runDir, checkpoint: cp });
  }
  return out;
}

export const REVERT = 'Revert';
export const KEEP = 'Keep';

/** Asks once per interrupted run; no answer (dismissed) asks again on the next activation. */
export async function offerRecovery(storageRoot: string | undefined, logger: Logger, onReverted: (folder: string) => void): Promise<void> {
  if (!storageRoot) return;
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    for (const run of await findInterrupted(storageRoot, folder)) {
      const files = run.checkpoint.touched;
      const list = files.slice(0, 5).join(', ') + (files.length > 5 ? `, and ${files.length - 5} more` : '');
      logger.warn(`run ${run.runId} in ${folder.name} was interrupted; it had changed ${list}`);
      const pick = await vscode.window.showWarningMessage(
        `Fix Until Green: a run in ${folder.name} was interrupted (window reloaded or closed) after changing ${list}. Revert those files to their original bytes, or keep the changes?`,
        REVERT,
        KEEP,
      );
      if (pick === REVERT) {
        const ws = new VscodeWorkspace(folder.uri.fsPath, logger, 'Fix Until Green: revert interrupted run');
        const changes = await pendingChanges(await run.checkpoint.revertChanges(), (rel) => ws.read(rel));
        await ws.apply(changes);
        await run.checkpoint.markFinished();
        logger.info(`reverted ${changes.length} file(s) of interrupted run ${run.runId}`);
        onReverted(folder.uri.fsPath);
        void vscode.window.showInformationMessage(`Fix Until Green: restored ${files.length} file(s) in ${folder.name} to their original bytes.`);
      } else if (pick === KEEP) {
        await run.checkpoint.markFinished();
        logger.info(`kept the changes of interrupted run ${run.runId}`);
      }
    }
  }
}

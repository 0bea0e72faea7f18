// After a reload or a crash mid-run, the next activation finds the run's unfinished checkpoint and
// offers to put the original bytes back (Revert) or keep what the run wrote (Keep).
import * as vscode from 'vscode';
import { Checkpoint } from '../core/edit/checkpoint';
import { findInterruptedRuns, revertRun } from '../core/edit/restore';
import type { Logger } from '../core/types';
import { folderStorageDir } from './folders';
import { VscodeWorkspace } from './vscodeWorkspace';

export const REVERT = 'Revert';
export const KEEP = 'Keep';

/** Asks once per interrupted run; no answer (dismissed) asks again on the next activation. */
export async function offerRecovery(storageRoot: string | undefined, logger: Logger, onReverted: (folder: string) => void): Promise<void> {
  if (!storageRoot) return;
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    for (const run of await findInterruptedRuns(folderStorageDir(storageRoot, folder.uri.fsPath))) {
      const checkpoint = await Checkpoint.load(run.dir);
      if (!checkpoint) continue;
      const files = run.touched;
      const list = files.slice(0, 5).join(', ') + (files.length > 5 ? `, and ${files.length - 5} more` : '');
      logger.warn(`run ${run.runId} in ${folder.name} was interrupted; it had changed ${list}`);
      const pick = await vscode.window.showWarningMessage(
        `Fix Until Green: a run in ${folder.name} was interrupted (window reloaded or closed) after changing ${list}. Revert those files to their original bytes, or keep the changes?`,
        REVERT,
        KEEP,
      );
      if (pick === REVERT) {
        const report = await revertRun({ workspace: new VscodeWorkspace(folder.uri.fsPath, logger, 'Fix Until Green: revert interrupted run'), checkpoint });
        logger.info(`interrupted run ${run.runId}: restored ${report.actions.length} file(s), ${report.unchanged.length} already original, ${report.conflicts.length} left alone`);
        for (const c of report.conflicts) logger.warn(c.reason);
        onReverted(folder.uri.fsPath);
        const done = `Fix Until Green: restored ${report.actions.length} file(s) in ${folder.name} to their original bytes`;
        if (report.conflicts.length === 0) void vscode.window.showInformationMessage(`${done}.`);
        else void vscode.window.showWarningMessage(`${done}; left alone: ${report.conflicts.map((c) => c.reason).join('; ')}`);
      } else if (pick === KEEP) {
        await checkpoint.markFinished();
        logger.info(`kept the changes of interrupted run ${run.runId}`);
      }
    }
  }
}

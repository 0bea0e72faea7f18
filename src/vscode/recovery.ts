// After a reload or a crash mid-run, the next activation finds the run's unfinished checkpoint and
// offers to put the original bytes back (Revert) or keep what the run wrote (Keep).
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import type { RunController } from './controller';
import type { RunControllers } from './runControllers';
import { plural } from './common/chatWords';
import { restoredSentence } from './common/confirmWords';

export const REVERT = 'Revert';
export const KEEP = 'Keep';

/**
 * Offers Revert or Keep for every interrupted run of the controller's folder; the controller does
 * the writing. True when none is left pending (a dismissed question leaves its run pending, asked
 * again next time).
 */
export async function resolveInterrupted(c: RunController, logger: Logger): Promise<boolean> {
  let pending = 0;
  for (const run of await c.interruptedRuns()) {
    const files = run.touched;
    const list = files.slice(0, 5).join(', ') + (files.length > 5 ? `, and ${files.length - 5} more` : '');
    logger.warn(`run ${run.runId} in ${c.folderName} was interrupted; it had changed ${list}`);
    const pick = await vscode.window.showWarningMessage(
      `Fix Until Green: a run in ${c.folderName} was interrupted (window reloaded or closed) after changing ${list}. Put ${files.length === 1 ? 'it back to what it was' : 'them back to what they were'} before the run, or keep the changes?`,
      REVERT,
      KEEP,
    );
    if (pick === REVERT) {
      const report = await c.revertInterrupted(run);
      logger.info(`interrupted run ${run.runId}: restored ${plural(report.actions.length, 'file')}, ${report.unchanged.length} already original, ${report.conflicts.length} left alone`);
      for (const x of report.conflicts) logger.warn(x.reason);
      const done = `Fix Until Green: in ${c.folderName}, ${restoredSentence(report.actions.map((a) => a.path), 'run')}`;
      if (report.conflicts.length === 0) void vscode.window.showInformationMessage(`${done}.`);
      else void vscode.window.showWarningMessage(`${done}; left alone: ${report.conflicts.map((x) => x.reason).join('; ')}`);
    } else if (pick === KEEP) {
      await c.keepInterrupted(run);
      logger.info(`kept the changes of interrupted run ${run.runId}`);
    } else {
      pending++;
    }
  }
  return pending === 0;
}

/** At activation: asks about the interrupted runs of every folder. */
export async function offerRecovery(controllers: RunControllers, hasStorage: boolean, logger: Logger): Promise<void> {
  if (!hasStorage) return;
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    await resolveInterrupted(controllers.get(folder.uri.fsPath, folder.name), logger);
  }
}

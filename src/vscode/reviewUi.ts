// The review's actions as the user sees them, shared by the palette command and the panel's
// buttons: a file's diff (its original as a read-only snapshot document against the file on disk),
// Keep, and Undo, which says by name which file it left alone because the user changed it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import type { RunController } from './controller';
import type { ReviewFile, ReviewState } from './common/reviewState';
import { pendingFiles } from './common/reviewState';
import { ask } from './askModal';
import { undoAllQuestion } from './common/confirmWords';
import { snapshotUri } from './snapshotDocs';

function sides(c: RunController, review: ReviewState, f: ReviewFile): { original: vscode.Uri; now: vscode.Uri } {
  const original = snapshotUri({ dir: review.dir, side: 'before', rel: f.path });
  // A deleted file has nothing on disk: the empty `after` side of the review stands for it.
  const now = f.kind === 'deleted' ? snapshotUri({ dir: review.dir, side: 'after', rel: f.path }) : vscode.Uri.file(path.join(c.folder, ...f.path.split('/')));
  return { original, now };
}

/**
 * One file's diff (original ↔ now), or every pending file of the review in VS Code's multi-file
 * diff. `column`: where the one-file diff opens (the panel asks for a column beside itself, so its
 * Keep and Undo stay in view next to the diff).
 */
export async function openReviewDiff(c: RunController, file?: string, column?: vscode.ViewColumn): Promise<void> {
  const review = c.state.review;
  if (!review) throw new Error(`the last run in ${c.folderName} left no changed files to review`);
  if (file !== undefined) {
    const f = review.files.find((x) => x.path === file);
    if (!f) throw new Error(`${file} is not a file the run changed`);
    const { original, now } = sides(c, review, f);
    await vscode.commands.executeCommand('vscode.diff', original, now, `${f.path} (original ↔ now)`, { preview: true, ...(column !== undefined ? { viewColumn: column } : {}) });
    return;
  }
  const files = review.files.filter((x) => x.decision === 'pending');
  if (files.length === 0) {
    void vscode.window.showInformationMessage(`Fix Until Green: every change of the last run in ${c.folderName} is reviewed.`);
    return;
  }
  await vscode.commands.executeCommand(
    'vscode.changes',
    `Fix Until Green: review (${files.length} file${files.length === 1 ? '' : 's'})`,
    files.map((f) => {
      const { original, now } = sides(c, review, f);
      return [vscode.Uri.file(path.join(c.folder, ...f.path.split('/'))), original, now];
    }),
  );
}

export function keepReviewed(c: RunController, file?: string): void {
  c.keepFiles(file === undefined ? undefined : [file]);
}

/** Undoes one file or every pending one; a file the user changed since is left alone and named. */
export async function undoReviewed(c: RunController, logger: Logger, file?: string): Promise<void> {
  // Undo all of several files asks first (one file's Undo is that row's own button).
  const all = file === undefined ? undoAllQuestion(pendingFiles(c.state.review)) : null;
  if (all && !(await ask(all))) return;
  const report = await c.undoFiles(file === undefined ? undefined : [file]);
  logger.info(`review in ${c.folderName}: undid ${report.actions.map((a) => a.path).join(', ') || 'nothing'}; ${report.conflicts.length} left alone`);
  // The remaining failures described the files before the undo: the checks say what they are now.
  if (report.actions.length > 0) void vscode.commands.executeCommand('fixUntilGreen.runChecks', c.folder);
  if (report.conflicts.length === 0) return;
  for (const x of report.conflicts) logger.warn(x.reason);
  const names = report.conflicts.map((x) => x.path).join(', ');
  void vscode.window.showWarningMessage(
    `Fix Until Green: not undone: ${names}. ${report.conflicts.length === 1 ? 'It was' : 'They were'} changed after the run wrote ${report.conflicts.length === 1 ? 'it' : 'them'}, so your version is kept.`,
  );
}

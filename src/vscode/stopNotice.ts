// What a run's stop tells the user in a notification: green with Show Panel; a fault with its fix as
// a button; any other stop with the sentence a newcomer reads and the next moves (Review Changes,
// Continue, Show Panel). The engine's detail goes to the log.
import * as vscode from 'vscode';
import type { RunReport } from '../core/trace/events';
import type { Logger } from '../core/types';
import type { RunController } from './controller';
import { explainStop, stopMessage } from './common/explain';
import type { Problem } from './common/fixActions';
import { explainError } from './common/fixActions';
import { pendingFiles } from './common/reviewState';
import { canContinue } from './common/runState';
import { continueLabel, runTotals } from './common/stepWords';

export interface NoticeDeps {
  logger: Logger;
  showPanel(): void;
  /** Shows a fault with its fixes (and `extra` buttons) as buttons; the button picked. */
  offerFix(p: Problem, extra: string[]): Promise<string | undefined>;
  /** ` (folder)` when the workspace has several folders, else empty. */
  where: string;
  /** What Continue adds: the steps and tokens of one run, from the folder's settings. */
  extra: { steps: number; tokens: number };
}

export function announceStop(ctl: RunController, r: RunReport, x: NoticeDeps): void {
  const steps = `${r.steps.length} step${r.steps.length === 1 ? '' : 's'}`;
  const tokens = `${r.tokensUsed.toLocaleString('en-US')} tokens`;
  x.logger.info(`run ${r.runId} in ${ctl.folderName} stopped: ${r.stopReason} (${r.outcome}) after ${steps}, ${tokens}: ${r.detail}`);
  const show = 'Show Panel';
  const review = 'Review Changes';
  const pending = pendingFiles(ctl.state.review).length > 0;
  if (r.stopReason === 'green') {
    // Green with files waiting for Keep or Undo: the review is the next move, offered first.
    // With prices set, what the run cost beside its tokens (issue 40).
    void vscode.window.showInformationMessage(`Fix Until Green: green in ${ctl.folderName} after ${runTotals(r)}.`, ...(pending ? [review] : []), show).then((p) => {
      if (p === show) x.showPanel();
      if (p === review) void vscode.commands.executeCommand('fixUntilGreen.review', ctl.folder);
    });
    return;
  }
  if (r.stopReason === 'error' || r.stopReason === 'preflight-failed') {
    // A fault: the error icon, a short sentence, and the fix as a button.
    void x.offerFix(explainError(r.detail, ctl.state.modelNames), [show]).then((p) => {
      if (p === show) x.showPanel();
    });
    return;
  }
  // What the workspace holds comes with the sentence, and the next moves as buttons: look at the
  // changes (keep or undo each file), give the run more budget, or open the panel.
  // Continue says what it adds (one more budget of the settings' size), never doubling it unasked.
  const more = continueLabel(r.stopReason, x.extra);
  const buttons = [...(pending ? [review] : []), ...(canContinue(ctl.state) ? [more] : []), show];
  // The sentence a newcomer reads; the engine's detail (hashes, thresholds) is in the log and the panel.
  void vscode.window.showWarningMessage(`Fix Until Green${x.where}: ${stopMessage(explainStop({ ...r, held: ctl.state.held ?? null, ...(ctl.state.modelNames ? { modelNames: ctl.state.modelNames } : {}) }))}`, ...buttons).then((p) => {
    if (p === show) x.showPanel();
    if (p === review) void vscode.commands.executeCommand('fixUntilGreen.review', ctl.folder);
    // VS Code cannot close a notification: a stop's toast may still be on screen when the panel's
    // Continue already resumed the run. Its button then only shows that run.
    if (p === more && ctl.running) x.showPanel();
    else if (p === more) void vscode.commands.executeCommand('fixUntilGreen.continue', ctl.folder);
  });
}

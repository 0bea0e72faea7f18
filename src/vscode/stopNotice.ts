// What a run's stop tells the user in a notification: green with Show Panel; a fault with its fix as
// a button; any other stop with the sentence a newcomer reads and the next moves (Review Changes,
// Continue, Show Panel). The engine's detail goes to the log.
import * as vscode from 'vscode';
import type { RunReport } from '../core/trace/events';
import type { Logger } from '../core/types';
import type { RunController } from './controller';
import { explainStop, stopMessage } from './explain';
import type { Problem } from './fixActions';
import { explainError } from './fixActions';
import { pendingFiles } from './reviewState';
import { canContinue } from './runState';

export interface NoticeDeps {
  logger: Logger;
  showPanel(): void;
  /** Shows a fault with its fixes (and `extra` buttons) as buttons; the button picked. */
  offerFix(p: Problem, extra: string[]): Promise<string | undefined>;
  /** ` (folder)` when the workspace has several folders, else empty. */
  where: string;
}

export function announceStop(ctl: RunController, r: RunReport, x: NoticeDeps): void {
  const steps = `${r.steps.length} step${r.steps.length === 1 ? '' : 's'}`;
  const tokens = `${r.tokensUsed.toLocaleString('en-US')} tokens`;
  x.logger.info(`run ${r.runId} in ${ctl.folderName} stopped: ${r.stopReason} (${r.outcome}) after ${steps}, ${tokens}: ${r.detail}`);
  const show = 'Show Panel';
  if (r.stopReason === 'green') {
    void vscode.window.showInformationMessage(`Fix Until Green: green in ${ctl.folderName} after ${steps} (${tokens}).`, show).then((p) => {
      if (p === show) x.showPanel();
    });
    return;
  }
  if (r.stopReason === 'error' || r.stopReason === 'preflight-failed') {
    // A fault: the error icon, a short sentence, and the fix as a button.
    void x.offerFix(explainError(r.detail), [show]).then((p) => {
      if (p === show) x.showPanel();
    });
    return;
  }
  // What the workspace holds comes with the sentence, and the next moves as buttons: look at the
  // changes (keep or undo each file), give the run more budget, or open the panel.
  const review = 'Review Changes';
  const buttons = [...(pendingFiles(ctl.state.review).length > 0 ? [review] : []), ...(canContinue(ctl.state) ? ['Continue'] : []), show];
  // The sentence a newcomer reads; the engine's detail (hashes, thresholds) is in the log and the panel.
  void vscode.window.showWarningMessage(`Fix Until Green${x.where}: ${stopMessage(explainStop({ ...r, held: ctl.state.held ?? null }))}`, ...buttons).then((p) => {
    if (p === show) x.showPanel();
    if (p === review) void vscode.commands.executeCommand('fixUntilGreen.review', ctl.folder);
    // VS Code cannot close a notification: a stop's toast may still be on screen when the panel's
    // Continue already resumed the run. Its button then only shows that run.
    if (p === 'Continue' && ctl.running) x.showPanel();
    else if (p === 'Continue') void vscode.commands.executeCommand('fixUntilGreen.continue', ctl.folder);
  });
}

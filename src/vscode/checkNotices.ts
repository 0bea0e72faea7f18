// What a check pass (Run Checks, the check after Revert to Best Step) and a restore (Revert Run,
// Revert to Best Step) tell the user: a cancellable progress notification over the checks, then one
// line with what was found or written, and, loudly, what a restore left alone because someone else
// changed it.
import * as vscode from 'vscode';
import type { RestoreReport } from '../core/edit/restore';
import type { Settings } from '../core/settings';
import type { Logger, VerifyResult } from '../core/types';
import type { RunController } from './controller';
import { plural } from './common/chatWords';

/** One check pass (no model) of the controller's folder under a cancellable progress notification. */
export async function verifyWithProgress(c: RunController, settings: Settings, title: string, logger: Logger): Promise<VerifyResult> {
  const v = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Fix Until Green: ${title} in ${c.folderName}`,
      cancellable: true,
    },
    (_p, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled')));
      return c.verify(settings, abort.signal).finally(() => sub.dispose());
    },
  );
  logger.info(`checks in ${c.folderName}: ${v.green ? 'green' : `${plural(v.failures.length, 'failure')}`} (${v.checks.map((x) => `${x.name} exit ${x.exitCode}`).join(', ')})`);
  return v;
}

/** Run Checks' answer: all pass, or the failures per check with Show Problems. */
export async function announceChecks(c: RunController, v: VerifyResult): Promise<void> {
  const show = 'Show Problems';
  if (v.checks.some((x) => x.cancelled)) {
    void vscode.window.showInformationMessage(`Fix Until Green: the checks in ${c.folderName} were cancelled; Problems keeps what the last check found.`);
    return;
  }
  if (v.green) {
    void vscode.window.showInformationMessage(`Fix Until Green: ${v.checks.length === 1 ? 'the one check passes' : `all ${v.checks.length} checks pass`} in ${c.folderName}.`);
    return;
  }
  const per = v.checks.filter((x) => x.failures.length > 0 || x.exitCode !== 0).map((x) => `${x.name}: ${x.failures.length}`);
  const p = await vscode.window.showWarningMessage(`Fix Until Green: ${plural(v.failures.length, 'failure')} in ${c.folderName} (${per.join(', ')}).`, show);
  if (p === show) await vscode.commands.executeCommand('workbench.actions.view.problems');
}

/** Says what a restore wrote (`head`: confirmWords.ts `restoredSentence`) and, loudly, what it left alone because someone else changed it. */
export function announceRestore(logger: Logger, what: string, r: RestoreReport, head: string): void {
  logger.info(`${what}: ${head}; ${r.unchanged.length} already there; ${r.conflicts.length} left alone`);
  for (const x of r.conflicts) logger.warn(x.reason);
  // With a button VS Code draws the toast whole; a bare one-line toast cut the sentence at its width
  // ("restored src/cart.ts to what it was before the …", issue 40 walk).
  const show = 'Show Panel';
  const said =
    r.conflicts.length === 0
      ? vscode.window.showInformationMessage(`Fix Until Green: ${head}.`, show)
      : vscode.window.showWarningMessage(`Fix Until Green: ${head}; left alone: ${r.conflicts.map((x) => x.reason).join('; ')}`, show);
  void said.then((p) => (p === show ? vscode.commands.executeCommand('fixUntilGreen.showPanel') : undefined));
}

// A run under a cancellable progress notification that shows its step and phase (derived from the
// run state, as every surface is); cancelling it stops the run.
import * as vscode from 'vscode';
import type { RunReport } from '../core/trace/events';
import type { RunController } from './controller';
import { progressMessage } from './common/meterView';

export function withRunProgress(ctl: RunController, work: () => Promise<RunReport>): Thenable<RunReport> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Fix Until Green (${ctl.folderName})`, cancellable: true },
    async (progress, token) => {
      const cancel = token.onCancellationRequested(() => ctl.stop());
      let last = '';
      const sub = ctl.onDidChange((s) => {
        const msg = progressMessage(s);
        if (msg !== last) progress.report({ message: msg });
        last = msg;
      });
      try {
        return await work();
      } finally {
        sub.dispose();
        cancel.dispose();
      }
    },
  );
}

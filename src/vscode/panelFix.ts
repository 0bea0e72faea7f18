// The panel's buttons for a refused start's fixes (issue 40): a webview names no action itself, so it
// sends the folder and the fix's index in that folder's refusal, and the fix runs as the
// notification's button would run it.
import * as vscode from 'vscode';
import type { RunController } from './controller';
import type { RunControllers } from './runControllers';
import { PANEL_FIX_COMMAND } from './common/commandIds';
import type { FixAction } from './common/fixActions';

export function registerPanelFix(controllers: RunControllers, fix: (a: FixAction, c: RunController) => Promise<void>): vscode.Disposable {
  return vscode.commands.registerCommand(PANEL_FIX_COMMAND, async (folder: unknown, index: unknown) => {
    const c = typeof folder === 'string' ? controllers.find(folder) : undefined;
    const action = typeof index === 'number' ? c?.state.refused?.actions[index] : undefined;
    if (c && action) await fix(action, c);
  });
}

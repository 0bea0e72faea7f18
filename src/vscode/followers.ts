// Keeps the controllers in step with VS Code: workspace folders added or removed, the folder of the
// active editor (what the meter and the panel show), and settings changes (the idle meter's limits).
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import type { RunControllers } from './runControllers';
import { readSettings, watchSettings } from './settings';

export function followWorkspaceFolders(controllers: RunControllers): vscode.Disposable {
  for (const f of vscode.workspace.workspaceFolders ?? []) if (f.uri.scheme === 'file') controllers.get(f.uri.fsPath, f.name);
  return vscode.workspace.onDidChangeWorkspaceFolders((e) => {
    for (const f of e.added) if (f.uri.scheme === 'file') controllers.get(f.uri.fsPath, f.name);
    for (const f of e.removed) controllers.remove(f.uri.fsPath);
  });
}

/** The meter follows the active editor's folder, except away from a run in progress elsewhere. */
export function followActiveEditor(controllers: RunControllers): vscode.Disposable {
  return vscode.window.onDidChangeActiveTextEditor((e) => {
    const f = e ? vscode.workspace.getWorkspaceFolder(e.document.uri) : undefined;
    if (f && !controllers.running().some((c) => c.folder !== f.uri.fsPath)) controllers.setActive(f.uri.fsPath);
  });
}

/** Settings are read afresh by every run; here they only refresh the limits an idle meter shows. */
export function followSettings(controllers: RunControllers, logger: Logger): vscode.Disposable {
  return watchSettings(() => {
    for (const c of controllers.all()) {
      const r = readSettings(vscode.Uri.file(c.folder));
      if (r.ok) {
        const s = r.settings;
        c.setIdleLimits({ maxSteps: s.maxSteps, tokenCeiling: s.tokenCeiling, timeLimitSeconds: s.timeLimitSeconds });
        logger.info(`settings of ${c.folderName}: maxSteps ${s.maxSteps}, tokenCeiling ${s.tokenCeiling}, timeLimitSeconds ${s.timeLimitSeconds}, model ${s.model.provider}${s.model.id ? `:${s.model.id}` : ''}; the next run uses them`);
      } else logger.warn(`settings of ${c.folderName}: ${r.message}`);
    }
  });
}

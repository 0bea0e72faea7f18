// The one typed reader of `fixUntilGreen.*` for a workspace folder, over core's validateSettings.
import * as vscode from 'vscode';
import type { SettingsAnswer } from '../core/launch';
import type { Settings, SettingsIssue } from '../core/settings';
import type { Problem } from './common/fixActions';
import { validateSettings } from '../core/settings';
import { explicitValues, folderScopedKeys, SETTINGS_SECTION } from './common/settingKeys';

export type SettingsRead = { ok: true; settings: Settings } | { ok: false; issues: SettingsIssue[]; message: string };

export function readSettings(folder: vscode.Uri): SettingsRead {
  const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder);
  const r = validateSettings(explicitValues((key) => cfg.inspect(key)));
  if (r.ok) return r;
  return { ok: false, issues: r.issues, message: r.issues.map((i) => i.message).join('; ') };
}

/** The settings the workspace or the folder chose for `folder`, not the user (see folderScopedKeys). */
export function folderChosenSettings(folder: vscode.Uri): string[] {
  const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION, folder);
  return folderScopedKeys((key) => cfg.inspect(key));
}

/**
 * The folder's settings as the launcher asks for them (core/launch.ts): read afresh, and when one is
 * wrong, its sentence with the button that opens it.
 */
export function settingsSource(folder: vscode.Uri): () => SettingsAnswer<Problem> {
  return () => {
    const read = readSettings(folder);
    if (read.ok) return read;
    const first = read.issues[0]?.setting.replace(/\[\d+\].*$/, '') ?? SETTINGS_SECTION;
    return { ok: false, problems: [read.message], detail: { message: read.message, actions: [{ kind: 'openSetting', setting: first }] } };
  };
}

/** Tells the user which setting is wrong, with a button that opens it in the settings UI. */
export async function reportInvalidSettings(read: Extract<SettingsRead, { ok: false }>, what: string): Promise<void> {
  const first = read.issues[0]?.setting.replace(/\[\d+\].*$/, '') ?? SETTINGS_SECTION;
  const open = 'Open Settings';
  const pick = await vscode.window.showErrorMessage(`Fix Until Green: ${what}: ${read.message}`, open);
  if (pick === open) await vscode.commands.executeCommand('workbench.action.openSettings', first);
}

/**
 * Calls `onChange` now and whenever a `fixUntilGreen.*` setting changes: one handler does both the
 * initial setup and the updates.
 */
export function watchSettings(onChange: (e?: vscode.ConfigurationChangeEvent) => void): vscode.Disposable {
  onChange();
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SETTINGS_SECTION)) onChange(e);
  });
}

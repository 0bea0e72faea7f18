// Which workspace folder a command acts on, and where that folder's runs are stored.
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { folderQuestion } from './common/folderWords';
import { MANAGE_TRUST, MANAGE_TRUST_COMMAND } from './common/trustWords';

/** The active editor's folder; else the only folder; else the user picks. Undefined: none or dismissed. */
export async function chooseFolder(purpose: string, prefer?: (f: vscode.WorkspaceFolder) => boolean): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 0) {
    void vscode.window.showWarningMessage('Fix Until Green needs a folder: open the project folder first (File > Open Folder).');
    return undefined;
  }
  const editor = vscode.window.activeTextEditor;
  const own = editor ? vscode.workspace.getWorkspaceFolder(editor.document.uri) : undefined;
  if (own && own.uri.scheme === 'file' && (!prefer || prefer(own))) return own;
  const candidates = prefer ? folders.filter(prefer) : folders;
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0) return undefined;
  const picked = await vscode.window.showQuickPick(
    candidates.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })),
    folderQuestion(purpose, candidates.length, 'no-editor'),
  );
  return picked?.folder;
}

/** One directory per folder under the extension's workspace storage: runs, checkpoints, traces. */
export function folderStorageDir(storageRoot: string, folder: string): string {
  const id = createHash('sha256').update(path.resolve(folder)).digest('hex').slice(0, 12);
  return path.join(storageRoot, `${path.basename(folder) || 'root'}-${id}`);
}

/** A refusal for want of trust (common/trustWords.ts `untrustedSentence`), with the button that gives it. */
export async function showUntrusted(sentence: string): Promise<void> {
  if ((await vscode.window.showWarningMessage(sentence, MANAGE_TRUST)) === MANAGE_TRUST) await vscode.commands.executeCommand(MANAGE_TRUST_COMMAND);
}

// "Fix Until Green: Gate Agent Mode…" (issue 30): installs the stop hook VS Code's agent mode reads
// (`.github/hooks/fix-until-green.vscode.json`) and those of the other agent hosts the project shows
// signs of. Trusted workspaces only: the hook runs the workspace's checks. It runs the extension's
// own CLI with the editor's Node and keeps its sessions in this folder's extension storage.
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import { GATE_AGENT_MODE_COMMAND } from './commandIds';
import { chooseFolder, folderStorageDir } from './folders';
import { loadEngine } from './shellEngine';

export interface GateAgentModeDeps {
  extensionUri: vscode.Uri;
  /** The extension's workspace storage; undefined without a workspace. */
  storageRoot: string | undefined;
  logger: Logger;
}

async function gateAgentMode(deps: GateAgentModeDeps): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage("Fix Until Green's agent hook runs this workspace's checks: it needs a trusted workspace.");
    return;
  }
  const folder = await chooseFolder('Gate Agent Mode');
  if (!folder) return;
  const root = folder.uri.fsPath;
  const engine = await loadEngine(deps.logger);
  const picked = await vscode.window.showQuickPick(
    engine.agentHostsFound(root, os.homedir(), existsSync).map((h) => ({ label: h.label, description: h.found ?? '', picked: h.found !== null, host: h.host })),
    { canPickMany: true, placeHolder: 'Agents that may stop only when your checks pass' },
  );
  if (!picked?.length) return;
  // Electron runs as Node with ELECTRON_RUN_AS_NODE.
  const cli = `ELECTRON_RUN_AS_NODE=1 "${process.execPath}" "${vscode.Uri.joinPath(deps.extensionUri, 'dist', 'cli.js').fsPath}"`;
  const args = deps.storageRoot ? `--storage "${folderStorageDir(deps.storageRoot, root)}"` : undefined;
  const files = picked.map((p) => engine.applyHooksFile('install', p.host, 'project', root, os.homedir(), { cli, timeoutSeconds: 300, loopLimit: 12, ...(args ? { args } : {}) }).file);
  deps.logger.info(`gate agent mode: hooks in ${files.join(', ')}`);
  const choice = await vscode.window.showInformationMessage(`Fix Until Green gates ${picked.map((p) => p.label).join(', ')}: a stop is sent back while your checks fail.`, 'Open');
  if (choice) for (const f of files) await vscode.window.showTextDocument(vscode.Uri.file(f), { preview: false });
}

export function registerGateAgentMode(deps: GateAgentModeDeps): vscode.Disposable {
  return vscode.commands.registerCommand(GATE_AGENT_MODE_COMMAND, () =>
    gateAgentMode(deps).catch((e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      deps.logger.error(`${GATE_AGENT_MODE_COMMAND}: ${message}`);
      void vscode.window.showErrorMessage(`Fix Until Green: ${message}`);
    }),
  );
}

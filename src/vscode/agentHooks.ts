// Gate Agent Mode…'s work once a trusted folder is chosen (the shell's side: gateAgentMode.ts): the
// agent hosts to gate, picked, and their hook files written. In the engine bundle: rarely used, and
// the hosts' hook files are the core's (core/gate/hookInstall.ts).
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import { agentHostsFound, applyHooksFile } from '../core/gate/hookInstall';
import { hookInstallRecordDir } from '../core/home';

export interface AgentHooksDeps {
  extensionUri: vscode.Uri;
  /** This folder's extension storage; undefined without a workspace storage. */
  storageDir: string | undefined;
  logger: Logger;
}

/** Offers the agent hosts found in `root` (and the user's home), installs the hooks of those picked. */
export async function installAgentHooks(root: string, deps: AgentHooksDeps): Promise<void> {
  const picked = await vscode.window.showQuickPick(
    agentHostsFound(root, os.homedir(), existsSync).map((h) => ({ label: h.label, description: h.found ?? '', picked: h.found !== null, host: h.host })),
    { canPickMany: true, placeHolder: 'Agents that may stop only when your checks pass' },
  );
  if (!picked?.length) return;
  // Electron runs as Node with ELECTRON_RUN_AS_NODE.
  const cli = `ELECTRON_RUN_AS_NODE=1 "${process.execPath}" "${vscode.Uri.joinPath(deps.extensionUri, 'dist', 'cli.js').fsPath}"`;
  const args = deps.storageDir ? `--storage "${deps.storageDir}"` : undefined;
  const files = picked.map((p) => applyHooksFile('install', p.host, 'project', root, os.homedir(), { cli, timeoutSeconds: 300, loopLimit: 12, recordDir: hookInstallRecordDir(), ...(args ? { args } : {}) }).file);
  deps.logger.info(`gate agent mode: hooks in ${files.join(', ')}`);
  const choice = await vscode.window.showInformationMessage(`Fix Until Green gates ${picked.map((p) => p.label).join(', ')}: a stop is sent back while your checks fail.`, 'Open');
  if (choice) for (const f of files) await vscode.window.showTextDocument(vscode.Uri.file(f), { preview: false });
}

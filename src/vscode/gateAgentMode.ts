// "Fix Until Green: Gate Agent Mode…" (issue 30): installs the stop hook VS Code's agent mode reads
// (`.github/hooks/fix-until-green.vscode.json`) and those of the other agent hosts the project shows
// signs of. Trusted workspaces only: the hook runs the workspace's checks. It runs the extension's
// own CLI with the editor's Node and keeps its sessions in this folder's extension storage.
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import { GATE_AGENT_MODE_COMMAND } from './common/commandIds';
import { chooseFolder, folderStorageDir, showUntrusted } from './folders';
import { untrustedSentence } from './common/trustWords';
import { loadEngine } from './shellEngine';

export interface GateAgentModeDeps {
  extensionUri: vscode.Uri;
  /** The extension's workspace storage; undefined without a workspace. */
  storageRoot: string | undefined;
  logger: Logger;
}

async function gateAgentMode(deps: GateAgentModeDeps): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void showUntrusted(untrustedSentence("Fix Until Green's agent hook runs this workspace's checks"));
    return;
  }
  const folder = await chooseFolder('Gate Agent Mode');
  if (!folder) return;
  const root = folder.uri.fsPath;
  // The hosts' pick and their hook files are the engine bundle's (agentHooks.ts): rarely used.
  const engine = await loadEngine(deps.logger);
  await engine.installAgentHooks(root, { extensionUri: deps.extensionUri, storageDir: deps.storageRoot ? folderStorageDir(deps.storageRoot, root) : undefined, logger: deps.logger });
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

// Offers the CLI's MCP server (`fix-until-green mcp`) to VS Code's own MCP support, so an MCP client
// in VS Code finds it without a hand-written `.vscode/mcp.json` entry. It runs the bundled CLI with
// the editor's own Node (`process.execPath`; in desktop VS Code that is Electron, which runs as Node
// with ELECTRON_RUN_AS_NODE) in the first workspace folder; the tools' `folder` input names others.
import * as vscode from 'vscode';

export const MCP_PROVIDER_ID = 'fixUntilGreen.mcp';

export function mcpServerDefinitions(extensionUri: vscode.Uri): vscode.McpStdioServerDefinition[] {
  const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.scheme === 'file');
  if (!folder) return [];
  const cli = vscode.Uri.joinPath(extensionUri, 'dist', 'cli.js').fsPath;
  const def = new vscode.McpStdioServerDefinition('Fix Until Green', process.execPath, [cli, 'mcp', '--cwd', folder.uri.fsPath], { ELECTRON_RUN_AS_NODE: '1' });
  def.cwd = folder.uri;
  return [def];
}

/** Registers the provider; the set changes with the workspace folders. */
export function registerMcpDefinitions(extensionUri: vscode.Uri): vscode.Disposable[] {
  const changed = new vscode.EventEmitter<void>();
  return [
    changed,
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => mcpServerDefinitions(extensionUri),
    }),
  ];
}

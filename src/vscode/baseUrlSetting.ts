// Set Base URL as a refusal's fix: asks for the URL and writes it in the scope the provider is set in,
// so the pair stays together (Choose Model… writes them all there).
import * as vscode from 'vscode';

type AskBaseUrl = (current: string, provider: 'openai-compatible' | 'anthropic') => Promise<string | undefined>;

/** What was stored, in words ("the base URL is … (workspace settings)"), or undefined when the user cancelled. */
export async function storeBaseUrl(folder: string, ask: AskBaseUrl): Promise<string | undefined> {
  const cfg = vscode.workspace.getConfiguration('fixUntilGreen', vscode.Uri.file(folder));
  const url = await ask(cfg.get<string>('model.baseUrl') ?? '', cfg.get<'openai-compatible' | 'anthropic'>('model.provider') ?? 'openai-compatible');
  if (url === undefined) return undefined;
  const where = cfg.inspect<string>('model.provider');
  const target = where?.workspaceFolderValue !== undefined ? vscode.ConfigurationTarget.WorkspaceFolder : where?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await cfg.update('model.baseUrl', url || undefined, target);
  return `the base URL is ${url || 'the default'} (${target === vscode.ConfigurationTarget.Global ? 'User settings' : 'workspace settings'})`;
}

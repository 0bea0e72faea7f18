// Choose Model… (a fix the no-model and model-error stops offer): the chat models VS Code has, and the
// other providers, as a quick pick; the choice goes to the folder's workspace settings.
import * as vscode from 'vscode';

/** The chat models VS Code has, and the other providers; the choice is written to the workspace settings. */
export async function chooseModel(folder: string): Promise<void> {
  type Item = vscode.QuickPickItem & { provider: string; id?: string };
  const models = await vscode.lm.selectChatModels();
  const items: Item[] = [
    ...models.map((m): Item => ({ label: m.name, description: `${m.vendor} · ${m.id}`, detail: "Through VS Code's Language Model API", provider: 'vscode-lm', id: m.id })),
    { label: 'OpenAI-compatible server…', description: 'openai-compatible', detail: 'OpenAI, Ollama, LM Studio, vLLM: then set the model id and base URL', provider: 'openai-compatible' },
    { label: 'Anthropic…', description: 'anthropic', detail: 'Claude models with an API key: then set the model id', provider: 'anthropic' },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Fix Until Green: Choose Model',
    placeHolder: models.length === 0 ? 'No chat model is installed in VS Code: choose a provider' : 'Which model should propose the edits?',
  });
  if (!picked) return;
  const cfg = vscode.workspace.getConfiguration('fixUntilGreen', vscode.Uri.file(folder));
  await cfg.update('model.provider', picked.provider, vscode.ConfigurationTarget.Workspace);
  if (picked.id !== undefined) {
    await cfg.update('model.id', picked.id, vscode.ConfigurationTarget.Workspace);
    void vscode.window.showInformationMessage(`Fix Until Green: the runs in this workspace use ${picked.label}.`);
    return;
  }
  await vscode.commands.executeCommand('workbench.action.openSettings', 'fixUntilGreen.model');
}

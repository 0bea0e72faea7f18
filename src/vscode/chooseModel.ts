// Choose Model… (the palette's command, and a fix the no-model and missing-key stops offer): a guided
// set-up in quick inputs, as Copilot's Manage Models… and Continue's Add model are: the provider, the
// server's base URL, the model picked from the server's own /models list, and a key only when the
// server asks for one. Every field goes to one scope (the folder's workspace settings), and the last
// message says which.
import * as vscode from 'vscode';
import { effectiveBaseUrl, endpointOrigin } from '../core/endpoints';

import { listModels } from '../core/model/modelList';
import type { ModelChoice, SetupProvider } from './common/modelSetup';
import { baseUrlProblem, keyAsked, keyPrompt, savedSentence, scopeName } from './common/modelSetup';
import type { ApiKeys } from './secrets';

const TITLE = 'Fix Until Green: Choose Model';

type ProviderItem = vscode.QuickPickItem & { provider: SetupProvider; id?: string };

async function pickProvider(): Promise<ProviderItem | undefined> {
  const models = await vscode.lm.selectChatModels();
  const items: ProviderItem[] = [
    ...models.map((m): ProviderItem => ({ label: m.name, description: `${m.vendor} · ${m.id}`, detail: "Through VS Code's Language Model API", provider: 'vscode-lm', id: m.id })),
    { label: 'OpenAI-compatible server', description: 'openai-compatible', detail: 'Ollama, LM Studio, vLLM, OpenRouter, OpenAI: its base URL, then a model it serves', provider: 'openai-compatible' },
    { label: 'Anthropic', description: 'anthropic', detail: 'Claude models with an API key', provider: 'anthropic' },
  ];
  return vscode.window.showQuickPick(items, {
    title: `${TITLE}: provider`,
    placeHolder: models.length === 0 ? 'No chat model is installed in VS Code: choose a provider' : 'Which model should propose the edits?',
    ignoreFocusOut: true,
  });
}

/** The base URL step; the current value is offered, empty means the provider's default. */
export async function askBaseUrl(current: string, provider: SetupProvider): Promise<string | undefined> {
  const typed = await vscode.window.showInputBox({
    title: `${TITLE}: base URL`,
    prompt: provider === 'anthropic' ? 'Leave empty for api.anthropic.com.' : "The server's OpenAI-compatible address, usually ending in /v1. Leave empty for api.openai.com.",
    placeHolder: provider === 'anthropic' ? 'https://api.anthropic.com' : 'http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:1234/v1 (LM Studio)',
    value: current,
    ignoreFocusOut: true,
    validateInput: (t) => baseUrlProblem(t),
  });
  return typed?.trim();
}

/** The key step; `why` is the server's answer that made it ask (a 401 from its /models), said first. */
async function askKey(host: string, why?: string): Promise<string | undefined> {
  const key = await vscode.window.showInputBox({
    title: `${TITLE}: API key for ${host}`,
    prompt: keyPrompt(why),
    password: true,
    ignoreFocusOut: true,
    validateInput: (t) => (t.trim() === '' ? 'Type the key, or press Escape to stop' : undefined),
  });
  return key?.trim();
}

/** The model step: the server's own list, or an id typed when it has none to offer. */
async function pickModelId(ids: readonly string[], current: string, why: string | undefined): Promise<string | undefined> {
  if (ids.length > 0) {
    type Item = vscode.QuickPickItem & { id?: string };
    const items: Item[] = [...ids.map((id): Item => ({ label: id, id, ...(id === current ? { description: 'current' } : {}) })), { label: 'Another model id…', detail: 'Type an id the server did not list' }];
    const picked = await vscode.window.showQuickPick(items, { title: `${TITLE}: model`, placeHolder: `The server serves ${ids.length} model${ids.length === 1 ? '' : 's'}`, ignoreFocusOut: true });
    if (!picked) return undefined;
    if (picked.id !== undefined) return picked.id;
  }
  const typed = await vscode.window.showInputBox({
    title: `${TITLE}: model id`,
    prompt: why ? `The server listed no models (${why}): type the model id.` : 'The model id, as the server names it.',
    value: current,
    ignoreFocusOut: true,
    validateInput: (t) => (t.trim() === '' ? 'A model id is needed' : undefined),
  });
  return typed?.trim();
}

/**
 * The guided set-up; returns the choice written (and the button of `offer` picked on the message
 * that says where), or undefined when the user stopped. `folder` is the workspace folder whose
 * settings receive it.
 */
export async function chooseModel(folder: string, keys: ApiKeys, offer: readonly string[] = []): Promise<{ choice: ModelChoice; picked?: string } | undefined> {
  const uri = vscode.Uri.file(folder);
  const cfg = vscode.workspace.getConfiguration('fixUntilGreen', uri);
  const picked = await pickProvider();
  if (!picked) return undefined;
  let choice: ModelChoice;
  if (picked.provider === 'vscode-lm') {
    choice = { provider: 'vscode-lm', id: picked.id ?? '', baseUrl: '' };
  } else {
    const provider = picked.provider as 'openai-compatible' | 'anthropic';
    const baseUrl = await askBaseUrl(cfg.get<string>('model.provider') === provider ? (cfg.get<string>('model.baseUrl') ?? '') : '', provider);
    if (baseUrl === undefined) return undefined;
    // The endpoint the user typed here is their own choice: its origin is confirmed for this folder (the key rule, core/model/keyTrust).
    const origin = endpointOrigin(effectiveBaseUrl(provider, baseUrl));
    await keys.confirm(folder, origin);
    let key = await keys.get(provider, origin);
    if (keyAsked(baseUrl, provider, Boolean(key))) {
      key = await askKey(baseUrl ? new URL(baseUrl).host : provider === 'anthropic' ? 'api.anthropic.com' : 'api.openai.com');
      if (key === undefined) return undefined;
    }
    let listing = await listModels(provider, baseUrl, key);
    if (!listing.ok && listing.needsKey) {
      // A server on this machine that wants a key after all: ask once.
      key = await askKey(baseUrl ? new URL(baseUrl).host : provider === 'anthropic' ? 'api.anthropic.com' : 'api.openai.com', listing.reason);
      if (key === undefined) return undefined;
      listing = await listModels(provider, baseUrl, key);
    }
    const id = await pickModelId(listing.ok ? listing.ids : [], cfg.get<string>('model.id') ?? '', listing.ok ? undefined : listing.reason);
    if (id === undefined) return undefined;
    if (key !== undefined && key !== (await keys.get(provider, origin))) await keys.store(provider, origin, key);
    choice = { provider, id, baseUrl };
  }
  // One scope for every field: a single folder's workspace settings, or the folder's own in a multi-root workspace.
  const multiRoot = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  const target = multiRoot ? vscode.ConfigurationTarget.WorkspaceFolder : vscode.ConfigurationTarget.Workspace;
  await cfg.update('model.provider', choice.provider, target);
  await cfg.update('model.id', choice.id || undefined, target);
  await cfg.update('model.baseUrl', choice.baseUrl || undefined, target);
  const name = vscode.workspace.getWorkspaceFolder(uri)?.name ?? folder;
  const said = vscode.window.showInformationMessage(savedSentence(choice, scopeName(multiRoot, name), picked.provider === 'vscode-lm' ? picked.label : undefined), ...offer);
  if (offer.length === 0) return { choice };
  const after = await said;
  return after === undefined ? { choice } : { choice, picked: after };
}

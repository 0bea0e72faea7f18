// API keys live in VS Code's SecretStorage only: never in settings, logs or traces.
import * as vscode from 'vscode';
import type { ProviderId } from '../core/settings';

/** Providers that take a key. */
export const KEYED_PROVIDERS = ['openai-compatible', 'anthropic'] as const satisfies readonly ProviderId[];
export type KeyedProvider = (typeof KEYED_PROVIDERS)[number];

export function secretKey(provider: KeyedProvider): string {
  return `fixUntilGreen.apiKey.${provider}`;
}

export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  get(provider: KeyedProvider): Thenable<string | undefined> {
    return this.secrets.get(secretKey(provider));
  }

  /** The `fixUntilGreen.setApiKey` command: pick the provider, type the key (masked). */
  async promptAndStore(preselect?: ProviderId): Promise<boolean> {
    const items = KEYED_PROVIDERS.map((p) => ({ label: p, description: p === preselect ? 'current provider' : '' }));
    // The provider the settings name comes first, so Enter picks it.
    items.sort((a, b) => Number(b.label === preselect) - Number(a.label === preselect));
    const picked = await vscode.window.showQuickPick(items, { title: 'Fix Until Green: Set API Key', placeHolder: 'Which provider is the key for?' });
    if (!picked) return false;
    const provider = picked.label as KeyedProvider;
    const key = await vscode.window.showInputBox({
      title: `Fix Until Green: API key for ${provider}`,
      prompt: 'Stored in VS Code\'s secret storage. Leave empty and press Enter to remove the stored key.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return false;
    if (key.trim() === '') {
      await this.secrets.delete(secretKey(provider));
      void vscode.window.showInformationMessage(`Fix Until Green: removed the ${provider} API key.`);
    } else {
      await this.secrets.store(secretKey(provider), key.trim());
      void vscode.window.showInformationMessage(`Fix Until Green: stored the ${provider} API key in secret storage.`);
    }
    return true;
  }
}

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

  store(provider: KeyedProvider, key: string): Thenable<void> {
    return this.secrets.store(secretKey(provider), key.trim());
  }

  /**
   * The `fixUntilGreen.setApiKey` command: pick the provider, type the key (masked). `offer`: buttons
   * on the confirmation (e.g. Run again after a run stopped for the key); the one picked is returned.
   */
  async promptAndStore(preselect?: ProviderId, offer: readonly string[] = []): Promise<{ stored: boolean; picked?: string }> {
    const items = KEYED_PROVIDERS.map((p) => ({ label: p, description: p === preselect ? 'current provider' : '' }));
    // The provider the settings name comes first, so Enter picks it.
    items.sort((a, b) => Number(b.label === preselect) - Number(a.label === preselect));
    const picked = await vscode.window.showQuickPick(items, { title: 'Fix Until Green: Set API Key', placeHolder: 'Which provider is the key for?' });
    if (!picked) return { stored: false };
    const provider = picked.label as KeyedProvider;
    const key = await vscode.window.showInputBox({
      title: `Fix Until Green: API key for ${provider}`,
      prompt: 'Stored in VS Code\'s secret storage. Leave empty and press Enter to remove the stored key.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return { stored: false };
    if (key.trim() === '') {
      await this.secrets.delete(secretKey(provider));
      void vscode.window.showInformationMessage(`Fix Until Green: removed the ${provider} API key.`);
      return { stored: false };
    }
    await this.store(provider, key);
    const confirmed = vscode.window.showInformationMessage(`Fix Until Green: stored the ${provider} API key in secret storage.`, ...offer);
    if (offer.length === 0) return { stored: true };
    const after = await confirmed;
    return after === undefined ? { stored: true } : { stored: true, picked: after };
  }
}

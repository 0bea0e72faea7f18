// API keys live in VS Code's SecretStorage only: never in settings, logs or traces.
import * as vscode from 'vscode';
import { effectiveBaseUrl, endpointOrigin } from '../core/endpoints';

import type { ProviderId } from '../core/settings';

/** A provider's public endpoint's origin. */
export function defaultOrigin(provider: KeyedProvider): string {
  return endpointOrigin(effectiveBaseUrl(provider, ''));
}

/** Providers that take a key. */
export const KEYED_PROVIDERS = ['openai-compatible', 'anthropic'] as const satisfies readonly ProviderId[];
export type KeyedProvider = (typeof KEYED_PROVIDERS)[number];

function isKeyed(p: string | undefined): p is KeyedProvider {
  return (KEYED_PROVIDERS as readonly string[]).includes(p ?? '');
}

/** The slot of a key saved before keys were kept per endpoint origin. */
export function secretKey(provider: KeyedProvider): string {
  return `fixUntilGreen.apiKey.${provider}`;
}

/** A key's slot: per provider and endpoint origin, so a key saved for one host is never sent to another. */
export function originSecretKey(provider: KeyedProvider, origin: string): string {
  return `fixUntilGreen.apiKey.${provider}@${origin}`;
}

const CONFIRMED = 'fixUntilGreen.confirmedEndpoints';

export class ApiKeys {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    /** Where the owner's per-folder endpoint confirmations are remembered: outside the workspace. */
    private readonly memory?: vscode.Memento,
  ) {}

  /**
   * The key for `provider` at `origin`. A key saved before keys were per origin goes to the first
   * origin it is asked for (always one the owner named or confirmed: core/model/keyTrust decides
   * before this is asked), and is moved to that origin's slot: it never serves a second host.
   */
  async get(provider: KeyedProvider, origin: string): Promise<string | undefined> {
    const own = await this.secrets.get(originSecretKey(provider, origin));
    if (own !== undefined) return own;
    const legacy = await this.secrets.get(secretKey(provider));
    if (legacy === undefined) return undefined;
    await this.secrets.store(originSecretKey(provider, origin), legacy);
    await this.secrets.delete(secretKey(provider));
    return legacy;
  }

  /** Stores `key` for `provider` at `origin` (Choose Model… and Set API Key): sent to that origin only. */
  store(provider: KeyedProvider, origin: string, key: string): Thenable<void> {
    return this.secrets.store(originSecretKey(provider, origin), key.trim());
  }

  /** Whether the owner saved a key for exactly this origin (Set API Key names the origin): their own choice of endpoint. */
  async hasOwn(provider: KeyedProvider, origin: string): Promise<boolean> {
    return (await this.secrets.get(originSecretKey(provider, origin))) !== undefined;
  }

  /** Whether a key would be sent: one is saved for this origin, or a legacy one not yet bound to any. */
  async has(provider: KeyedProvider, origin: string): Promise<boolean> {
    return (await this.secrets.get(originSecretKey(provider, origin))) !== undefined || (await this.secrets.get(secretKey(provider))) !== undefined;
  }

  /** Endpoint origins the owner confirmed for `folder` (the key rule's one-time confirmation). */
  confirmed(folder: string): string[] {
    const all = this.memory?.get<Record<string, string[]>>(CONFIRMED) ?? {};
    return all[folder] ?? [];
  }

  async confirm(folder: string, origin: string): Promise<void> {
    if (!this.memory) return;
    const all = { ...(this.memory.get<Record<string, string[]>>(CONFIRMED) ?? {}) };
    all[folder] = [...new Set([...(all[folder] ?? []), origin])];
    await this.memory.update(CONFIRMED, all);
  }

  /**
   * The `fixUntilGreen.setApiKey` command: pick the provider, type the key (masked); stored for `origin`
   * of that provider. `offer`: buttons on the confirmation (e.g. Run again after a run stopped for the
   * key); the one picked is returned.
   */
  async promptAndStore(preselect?: ProviderId, originOf: (provider: KeyedProvider) => string = defaultOrigin, offer: readonly string[] = [], known = false): Promise<{ stored: boolean; picked?: string }> {
    const provider = known && isKeyed(preselect) ? preselect : await this.pickProvider(preselect);
    if (!provider) return { stored: false };
    const key = await vscode.window.showInputBox({
      title: `Fix Until Green: API key for ${provider} at ${originOf(provider)}`,
      prompt: 'Stored in VS Code\'s secret storage. Leave empty and press Enter to remove the stored key.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return { stored: false };
    const origin = originOf(provider);
    if (key.trim() === '') {
      await this.secrets.delete(originSecretKey(provider, origin));
      await this.secrets.delete(secretKey(provider));
      void vscode.window.showInformationMessage(`Fix Until Green: removed the ${provider} API key for ${origin}.`);
      return { stored: false };
    }
    await this.store(provider, origin, key);
    const confirmed = vscode.window.showInformationMessage(`Fix Until Green: stored the ${provider} API key for ${origin} in secret storage; it is sent there only.`, ...offer);
    if (offer.length === 0) return { stored: true };
    const after = await confirmed;
    return after === undefined ? { stored: true } : { stored: true, picked: after };
  }

  /** Which provider the key is for, asked: the one the settings name first, so Enter picks it. */
  private async pickProvider(preselect: ProviderId | undefined): Promise<KeyedProvider | undefined> {
    const items = KEYED_PROVIDERS.map((p) => ({ label: p, description: p === preselect ? 'current provider' : '' }));
    items.sort((a, b) => Number(b.label === preselect) - Number(a.label === preselect));
    // Kept open when the focus moves (a webview taking it back as the palette closes), as the key box is.
    const picked = await vscode.window.showQuickPick(items, { title: 'Fix Until Green: Set API Key', placeHolder: 'Which provider is the key for?', ignoreFocusOut: true });
    return picked?.label as KeyedProvider | undefined;
  }
}

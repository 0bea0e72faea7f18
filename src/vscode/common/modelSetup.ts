// The words and checks of Choose Model…'s guided set-up (chooseModel.ts), apart from the quick
// inputs that show them: no `vscode` import, unit-tested.
import { effectiveBaseUrl, isLoopbackUrl } from '../../core/endpoints';
import { modelOn } from '../../core/modelName';

export type SetupProvider = 'vscode-lm' | 'openai-compatible' | 'anthropic';

/** What the set-up writes: one scope, every field of the model together. */
export interface ModelChoice {
  provider: SetupProvider;
  id: string;
  /** '' for the provider's default endpoint (and for vscode-lm). */
  baseUrl: string;
}

/** Why a typed base URL cannot be used, or undefined (empty is allowed: the provider's default). */
export function baseUrlProblem(text: string): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (!URL.canParse(t)) return 'Not a URL: type it whole, e.g. http://127.0.0.1:11434/v1';
  const u = new URL(t);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'The base URL starts with http:// or https://';
  return undefined;
}

/** A server on this machine needs no key; a remote one does unless one is stored. */
export function keyAsked(baseUrl: string, provider: SetupProvider, stored: boolean): boolean {
  if (provider === 'vscode-lm' || stored) return false;
  return baseUrl.trim() === '' || !isLoopbackUrl(baseUrl.trim());
}

/** Where the choice was written, in the words of VS Code's Settings editor tabs. */
export function scopeName(multiRoot: boolean, folderName: string): string {
  return multiRoot ? `the folder settings of ${folderName} (${folderName}/.vscode/settings.json)` : "this workspace's settings (.vscode/settings.json)";
}

/** The sentence that ends the set-up: what runs now, and where it was saved. */
export function savedSentence(c: ModelChoice, where: string, modelLabel?: string): string {
  // As every sentence names a model (core/modelName.ts): a chat model by VS Code's name, another on its server.
  const label = `${c.provider}:${c.id}`;
  const model = modelOn(label, c.provider === 'vscode-lm' ? undefined : effectiveBaseUrl(c.provider, c.baseUrl), modelLabel ? { [label]: modelLabel } : undefined);
  return `Fix Until Green runs with ${model}: saved to ${where}.`;
}

/**
 * The key box's prompt: why it asks when a server's answer made it ask (a server on this machine
 * that answered 401 was asked no key first, and a box out of nowhere reads as a fault), then where
 * the key goes.
 */
export function keyPrompt(why?: string): string {
  const where = "Stored in VS Code's secret storage, never in settings.";
  return why ? `Asked because ${why}. The key is ${where.charAt(0).toLowerCase()}${where.slice(1)}` : where;
}

// Creates the run's model provider: `vscode-lm` here, every other provider through the core's
// factory, with the key from SecretStorage. Problems are worded for VS Code (settings and commands).
import type { ModelProvider } from '../core/model/provider';
import { createProvider, ProviderConfigError, VSCODE_KEY_HINT } from '../core/model/factory';
import type { Settings } from '../core/settings';
import type { Logger } from '../core/types';
import type { ApiKeys } from './secrets';
import { describeAvailableModels, selectLanguageModel, VscodeLmProvider } from './lmProvider';

export type ProviderChoice = { ok: true; provider: ModelProvider } | { ok: false; problem: string };

/** VS Code's wording of a provider that cannot be built: the settings and commands that fix it. */
export function providerProblem(e: ProviderConfigError): string {
  switch (e.code) {
    case 'no-replay-file':
      return 'fixUntilGreen.model.id is empty: name the replay script file, relative to the workspace folder';
    case 'no-model-id':
      return `fixUntilGreen.model.id is empty: name the ${e.provider} model to use`;
    case 'unknown-provider':
      return `fixUntilGreen.model.provider "${e.provider}" is not available in this version of the extension`;
    case 'host-provider':
    case 'bad-replay-file':
    case 'no-api-key':
      // In settings terms already; the key hint given was VS Code's (Set API Key).
      return e.message;
  }
}

export async function createModelProvider(settings: Settings, folder: string, keys: ApiKeys, logger: Logger): Promise<ProviderChoice> {
  const { provider, id } = settings.model;
  if (provider === 'vscode-lm') {
    const model = await selectLanguageModel(id);
    if (!model) {
      return {
        ok: false,
        problem: `no chat model${id ? ` matching "${id}"` : ''} is available through VS Code's Language Model API (available: ${await describeAvailableModels()}); install a chat model provider or set fixUntilGreen.model.provider`,
      };
    }
    return { ok: true, provider: new VscodeLmProvider(model) };
  }
  try {
    const keyed = provider === 'openai-compatible' || provider === 'anthropic';
    // Keys come from SecretStorage only; the extension host's environment is not consulted.
    const apiKey = keyed ? ((await keys.get(provider)) ?? '') : undefined;
    return { ok: true, provider: createProvider(settings.model, { root: folder, keyHint: VSCODE_KEY_HINT, logger, ...(apiKey !== undefined ? { apiKey } : {}) }) };
  } catch (e) {
    if (e instanceof ProviderConfigError) return { ok: false, problem: providerProblem(e) };
    return { ok: false, problem: e instanceof Error ? e.message : String(e) };
  }
}

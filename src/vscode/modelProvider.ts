// Creates the run's model provider: `vscode-lm` here, every other provider through the shared
// factory the CLI uses, with the key from SecretStorage.
import type { ModelProvider } from '../core/model/provider';
import type { Settings } from '../core/settings';
import type { Logger } from '../core/types';
import { createProvider } from '../cli/providers';
import { VSCODE_KEY_HINT } from '../core/model/factory';
import type { ApiKeys } from './secrets';
import { describeAvailableModels, selectLanguageModel, VscodeLmProvider } from './lmProvider';

export type ProviderChoice = { ok: true; provider: ModelProvider } | { ok: false; problem: string };

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
    const apiKey = keyed ? await keys.get(provider) : undefined;
    return {
      ok: true,
      provider: createProvider(settings, folder, {
        logger,
        // Keys come from SecretStorage only; the extension host's environment is not consulted.
        ...(keyed ? { apiKey: apiKey ?? '', keyHint: VSCODE_KEY_HINT } : {}),
      }),
    };
  } catch (e) {
    return { ok: false, problem: e instanceof Error ? e.message : String(e) };
  }
}

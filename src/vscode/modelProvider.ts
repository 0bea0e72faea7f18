// Creates the run's model provider: `vscode-lm` here, every other provider through the core's
// factory, with the key from SecretStorage. Problems are worded for VS Code (settings and commands).
import type { ModelProvider } from '../core/model/provider';
import { createProvider, ProviderConfigError, VSCODE_KEY_HINT } from '../core/model/factory';
import type { Problem } from './fixActions';
import { noChatModel, providerFix } from './fixActions';
import { providerProblem } from './providerProblem';
import type { Settings } from '../core/settings';
import type { Logger } from '../core/types';
import type { ApiKeys } from './secrets';
import { describeAvailableModels, selectLanguageModel, VscodeLmProvider } from './lmProvider';

/** A failure carries the problem in words (the run's preflight detail) and as a sentence with buttons. */
export type ProviderChoice = { ok: true; provider: ModelProvider } | { ok: false; problem: string; fix: Problem };

export async function createModelProvider(settings: Settings, folder: string, keys: ApiKeys, logger: Logger): Promise<ProviderChoice> {
  const { provider, id } = settings.model;
  if (provider === 'vscode-lm') {
    const model = await selectLanguageModel(id);
    if (!model) {
      // The sentence stays short; the models there are go to the log.
      logger.info(`vscode-lm: no chat model${id ? ` matching "${id}"` : ''}; available: ${await describeAvailableModels()}`);
      const fix = noChatModel(id);
      return { ok: false, problem: fix.message, fix };
    }
    return { ok: true, provider: new VscodeLmProvider(model) };
  }
  try {
    const keyed = provider === 'openai-compatible' || provider === 'anthropic';
    // Keys come from SecretStorage only; the extension host's environment is not consulted.
    const apiKey = keyed ? ((await keys.get(provider)) ?? '') : undefined;
    return { ok: true, provider: createProvider(settings.model, { root: folder, keyHint: VSCODE_KEY_HINT, logger, ...(apiKey !== undefined ? { apiKey } : {}) }) };
  } catch (e) {
    if (e instanceof ProviderConfigError) {
      const problem = providerProblem(e);
      return { ok: false, problem, fix: { message: problem, actions: providerFix(e) } };
    }
    const problem = e instanceof Error ? e.message : String(e);
    return { ok: false, problem, fix: { message: problem, actions: [] } };
  }
}

// Creates the run's model providers: `vscode-lm` here, every other provider through the core's
// factory, with the key from SecretStorage. The run's own model and each model of its escalation
// ladder are built the same way. Problems are worded for VS Code (settings and commands).
import type { ModelProvider } from '../core/model/provider';
import { createProvider, ProviderConfigError, VSCODE_KEY_HINT } from '../core/model/factory';
import type { ModelAnswer } from '../core/launch';
import { modelName } from '../core/model/pricing';
import type { Problem } from './fixActions';
import { ladderFix, missingKey, noChatModel, providerFix } from './fixActions';
import { providerProblem } from './providerProblem';
import type { ModelSettings } from '../core/settings';
import type { Logger } from '../core/types';
import type { ApiKeys } from './secrets';
import { describeAvailableModels, selectLanguageModel, VscodeLmProvider } from './lmProvider';

/** A failure carries the problem in words (the run's preflight detail) and as a sentence with buttons. */
export type ProviderChoice = { ok: true; provider: ModelProvider } | { ok: false; problem: string; fix: Problem };

export async function createModelProvider(model: ModelSettings, folder: string, keys: ApiKeys, logger: Logger): Promise<ProviderChoice> {
  const { provider, id } = model;
  if (provider === 'vscode-lm') {
    const lm = await selectLanguageModel(id);
    if (!lm) {
      // The sentence stays short; the models there are go to the log.
      logger.info(`vscode-lm: no chat model${id ? ` matching "${id}"` : ''}; available: ${await describeAvailableModels()}`);
      const fix = noChatModel(id);
      return { ok: false, problem: fix.message, fix };
    }
    return { ok: true, provider: new VscodeLmProvider(lm) };
  }
  try {
    const keyed = provider === 'openai-compatible' || provider === 'anthropic';
    // Keys come from SecretStorage only (one per provider); the extension host's environment is not consulted.
    const apiKey = keyed ? ((await keys.get(provider)) ?? '') : undefined;
    return { ok: true, provider: createProvider(model, { root: folder, keyHint: VSCODE_KEY_HINT, logger, ...(apiKey !== undefined ? { apiKey } : {}) }) };
  } catch (e) {
    if (e instanceof ProviderConfigError) {
      const problem = providerProblem(e);
      // The key's sentence names the host it is for (and a missing base URL), not the command's id.
      const fix = e.code === 'no-api-key' ? missingKey(provider, model.baseUrl) : { message: problem, actions: providerFix(e) };
      return { ok: false, problem, fix };
    }
    const problem = e instanceof Error ? e.message : String(e);
    return { ok: false, problem, fix: { message: problem, actions: [] } };
  }
}

/**
 * The launcher's model port (core/launch.ts) in VS Code: the `rung`-th model (0: the run's own;
 * i: `model.escalation[i - 1]`, named by its rung), its problem with its fix buttons attached.
 */
export function vscodeModelPort(folder: string, keys: ApiKeys, logger: Logger): (m: ModelSettings, rung: number) => Promise<ModelAnswer<Problem>> {
  return async (m, rung) => {
    const c = await createModelProvider(m, folder, keys, logger);
    if (c.ok) return c;
    logger.warn(`model: ${c.problem}`);
    if (rung === 0) return { ok: false, problem: c.problem, detail: c.fix };
    const problem = `fixUntilGreen.model.escalation[${rung - 1}] (${modelName(m)}): ${c.problem}`;
    return { ok: false, problem, detail: { message: problem, actions: ladderFix(c.fix.actions) } };
  };
}

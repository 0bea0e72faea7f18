// Creates the run's model providers: `vscode-lm` here, every other provider through the core's
// factory, with the key from SecretStorage. The run's own model and each model of its escalation
// ladder are built the same way. Problems are worded for VS Code (settings and commands).
import type { ModelProvider } from '../core/model/provider';
import { effectiveBaseUrl, endpointOrigin } from '../core/endpoints';
import { createProvider, ProviderConfigError, VSCODE_KEY_HINT } from '../core/model/factory';
import type { KeyAnswer, ModelAnswer } from '../core/launch';
import { modelName } from '../core/model/pricing';
import type { Problem } from './common/fixActions';
import { ladderFix, missingKey, noChatModel, providerFix } from './common/fixActions';
import { providerProblem } from './common/providerProblem';
import { endpointProblem } from './common/refusals';
import type { ModelSettings, Settings } from '../core/settings';
import type { Logger } from '../core/types';
import type { ApiKeys } from './secrets';
import type { KeyedEndpoint } from '../core/model/keyTrust';
import { decideKeyTrust } from '../core/model/keyTrust';
import * as vscode from 'vscode';
import { folderChosenSettings } from './settings';
import { describeAvailableModels, selectLanguageModel, VscodeLmProvider } from './lmProvider';

/** A failure carries the problem in words (the run's preflight detail) and as a sentence with buttons. */
export type ProviderChoice = { ok: true; provider: ModelProvider } | { ok: false; problem: string; fix: Problem };

export async function createModelProvider(model: ModelSettings, folder: string, keys: ApiKeys, logger: Logger, withheld = false): Promise<ProviderChoice> {
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
    // Keys come from SecretStorage only (one per provider and endpoint origin); the extension host's
    // environment is not consulted. A folder-chosen server on this machine is sent none.
    const apiKey = keyed && !withheld ? ((await keys.get(provider, endpointOrigin(effectiveBaseUrl(provider, model.baseUrl)))) ?? '') : undefined;
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
 * The launcher's key port (core/launch.ts) in VS Code, the key rule of core/model/keyTrust: an
 * endpoint the workspace or folder settings chose is refused the user's key until the user confirms
 * it once for this folder (remembered outside the workspace), with the "Trust <origin> for this
 * folder" button; a folder-chosen loopback server is sent no key. `ownModel` false: the run's own
 * model is the chat's (`@fix`), only the escalation rungs are judged.
 */
export function vscodeKeyPort(folder: string, keys: ApiKeys, fromFolder: () => readonly string[] = () => folderChosenSettings(vscode.Uri.file(folder))): (settings: Settings, ownModel: boolean) => Promise<KeyAnswer<Problem>> {
  return (settings, ownModel) => keyTrustAnswer(settings, folder, keys, fromFolder(), ownModel);
}

/** The key rule's answer for `settings` in `folder`, with the confirm button attached to a refusal. */
export async function keyTrustAnswer(settings: Settings, folder: string, keys: ApiKeys, fromFolder: readonly string[], ownModel = true): Promise<KeyAnswer<Problem>> {
  const keyedAt = async (m: ModelSettings): Promise<boolean> =>
    (m.provider === 'openai-compatible' || m.provider === 'anthropic') && (await keys.has(m.provider, endpointOrigin(effectiveBaseUrl(m.provider, m.baseUrl))));
  const chose = (k: string): boolean => fromFolder.includes(k);
  const endpoints: KeyedEndpoint[] = [];
  if (ownModel) {
    endpoints.push({ setting: 'fixUntilGreen.model', provider: settings.model.provider, baseUrl: settings.model.baseUrl, keyed: await keyedAt(settings.model), fromFolder: (['provider', 'baseUrl'] as const).filter((f) => chose(`model.${f}`)) });
  }
  for (const [i, m] of settings.model.escalation.entries()) {
    endpoints.push({ setting: `fixUntilGreen.model.escalation[${i}]`, provider: m.provider, baseUrl: m.baseUrl, keyed: await keyedAt(m), fromFolder: chose('model.escalation') ? ['provider', 'baseUrl'] : [] });
  }
  // A key the owner saved for exactly an endpoint's origin (Set API Key names it) is the owner
  // sending it there; a key saved before keys were per origin is what this rule guards.
  const own: string[] = [];
  for (const e of endpoints) {
    const origin = endpointOrigin(effectiveBaseUrl(e.provider, e.baseUrl));
    if ((e.provider === 'openai-compatible' || e.provider === 'anthropic') && (await keys.hasOwn(e.provider, origin))) own.push(origin);
  }
  const d = decideKeyTrust({
    endpoints,
    file: `${folder}/.vscode/settings.json (or the workspace file)`,
    confirmed: [...keys.confirmed(folder), ...own],
    howToConfirm: (_e, url) => `press "Trust ${endpointOrigin(url)} for this folder" (remembered outside the folder), or set the same value in your user settings`,
  });
  if (d.ok) return { ok: true, withhold: d.withhold };
  return { ok: false, refusal: d.refusal, detail: endpointProblem(d.refusal, folder) };
}

/**
 * The launcher's model port (core/launch.ts) in VS Code: the `rung`-th model (0: the run's own;
 * i: `model.escalation[i - 1]`, named by its rung), its problem with its fix buttons attached;
 * `withholdKey`: the key port sends it no key (a folder-chosen server on this machine).
 */
export function vscodeModelPort(folder: string, keys: ApiKeys, logger: Logger): (m: ModelSettings, rung: number, withholdKey: boolean) => Promise<ModelAnswer<Problem>> {
  return async (m, rung, withholdKey) => {
    const c = await createModelProvider(m, folder, keys, logger, withholdKey);
    if (c.ok) return c;
    logger.warn(`model: ${c.problem}`);
    if (rung === 0) return { ok: false, problem: c.problem, detail: c.fix };
    const problem = `fixUntilGreen.model.escalation[${rung - 1}] (${modelName(m)}): ${c.problem}`;
    return { ok: false, problem, detail: { message: problem, actions: ladderFix(c.fix.actions) } };
  };
}

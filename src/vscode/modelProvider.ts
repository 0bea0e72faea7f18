// Creates the run's model providers: `vscode-lm` here, every other provider through the core's
// factory, with the key from SecretStorage. The run's own model and each model of its escalation
// ladder are built the same way. Problems are worded for VS Code (settings and commands).
import type { ModelProvider } from '../core/model/provider';
import { createProvider, ProviderConfigError, VSCODE_KEY_HINT } from '../core/model/factory';
import { modelName, unpricedProblems } from '../core/model/pricing';
import type { Problem } from './fixActions';
import { ladderFix, noChatModel, providerFix, settingFix } from './fixActions';
import { providerProblem } from './providerProblem';
import type { ModelSettings, Settings } from '../core/settings';
import type { Logger } from '../core/types';
import type { ApiKeys } from './secrets';
import type { KeyedEndpoint } from '../core/model/keyTrust';
import { decideKeyTrust, effectiveBaseUrl, endpointOrigin } from '../core/model/keyTrust';
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
      return { ok: false, problem, fix: { message: problem, actions: providerFix(e) } };
    }
    const problem = e instanceof Error ? e.message : String(e);
    return { ok: false, problem, fix: { message: problem, actions: [] } };
  }
}

/** The run's model and each of `model.escalation`'s, built; a rung's problem names the rung. */
export interface Ladder {
  main: ProviderChoice;
  rungs: ProviderChoice[];
}

/**
 * The key rule (core/model/keyTrust) in VS Code: an endpoint the workspace or folder settings chose
 * is refused the user's key until the user confirms it once for this folder (remembered outside the
 * workspace); undefined when every keyed endpoint is trusted, with the ones to send no key.
 */
export async function keyTrustProblem(settings: Settings, folder: string, keys: ApiKeys, fromFolder: readonly string[]): Promise<{ refused?: ProviderChoice & { ok: false }; withhold: Set<string> }> {
  const keyedAt = async (m: ModelSettings): Promise<boolean> =>
    (m.provider === 'openai-compatible' || m.provider === 'anthropic') && (await keys.has(m.provider, endpointOrigin(effectiveBaseUrl(m.provider, m.baseUrl))));
  const chose = (k: string): boolean => fromFolder.includes(k);
  const endpoints: KeyedEndpoint[] = [
    { setting: 'fixUntilGreen.model', provider: settings.model.provider, baseUrl: settings.model.baseUrl, keyed: await keyedAt(settings.model), fromFolder: (['provider', 'baseUrl'] as const).filter((f) => chose(`model.${f}`)) },
  ];
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
  if (d.ok) return { withhold: new Set(d.withhold) };
  const fix: Problem = { message: d.refusal.message, actions: [{ kind: 'confirmEndpoint', folder, origin: d.refusal.origin }, { kind: 'openSetting', setting: d.refusal.setting.replace(/\[\d+\]$/, '') }] };
  return { refused: { ok: false, problem: d.refusal.message, fix }, withhold: new Set() };
}

export async function createLadder(settings: Settings, folder: string, keys: ApiKeys, logger: Logger): Promise<Ladder> {
  const trust = await keyTrustProblem(settings, folder, keys, folderChosenSettings(vscode.Uri.file(folder)));
  // Refused before any request: the run stops at preflight with the refusal and its confirm button.
  if (trust.refused) return { main: trust.refused, rungs: [] };
  const main = await createModelProvider(settings.model, folder, keys, logger, trust.withhold.has('fixUntilGreen.model'));
  const rungs: ProviderChoice[] = [];
  for (const [i, m] of settings.model.escalation.entries()) {
    const c = await createModelProvider(m, folder, keys, logger, trust.withhold.has(`fixUntilGreen.model.escalation[${i}]`));
    if (c.ok) rungs.push(c);
    else {
      const problem = `fixUntilGreen.model.escalation[${i}] (${modelName(m)}): ${c.problem}`;
      rungs.push({ ok: false, problem, fix: { message: problem, actions: ladderFix(c.fix.actions) } });
    }
  }
  return { main, rungs };
}

/** The first thing about the models that stops a run: the run's own, a rung, a missing price. */
export function ladderProblem(l: Ladder, settings: Settings): Problem | undefined {
  if (!l.main.ok) return l.main.fix;
  for (const r of l.rungs) if (!r.ok) return r.fix;
  const unpriced = unpricedProblems(settings.model, settings.costCeiling);
  return unpriced.length > 0 ? settingFix(unpriced[0]!, 'model.pricing') : undefined;
}

// Builds the model provider a `--model` value names, through the core's factory. Keys come from the
// environment only; what cannot be built is said in the CLI's own terms (its flags).
import type { KeyedEndpoint } from '../core/model/keyTrust';
import { decideKeyTrust, folderSettingNotices, settingValues } from '../core/model/keyTrust';
import type { KeyAnswer, ModelAnswer } from '../core/launch';
import type { ModelProvider } from '../core/model/provider';
import { createProvider, KEY_ENV, ProviderConfigError } from '../core/model/factory';
import type { ModelSettings, Settings } from '../core/settings';
import type { Logger } from '../core/types';
import { UsageError } from './errors';

export interface ModelSpec {
  provider: Settings['model']['provider'];
  id: string;
}

const MODEL_FORMS = 'replay:FILE, openai-compatible:ID or anthropic:ID';

export function parseModelSpec(value: string, flag = '--model'): ModelSpec {
  const m = /^(replay|openai-compatible|anthropic):(.+)$/.exec(value);
  if (!m) {
    throw new UsageError(`${flag}: "${value}" is not one of replay:FILE, openai-compatible:ID, anthropic:ID`);
  }
  return { provider: m[1] as ModelSpec['provider'], id: m[2]! };
}

/** Retries and other provider warnings go to stderr, so that `--json` output stays one object on stdout. */
const stderrLogger: Logger = {
  info: () => undefined,
  debug: () => undefined,
  warn: (m) => process.stderr.write(`fix-until-green: ${m}\n`),
  error: (m) => process.stderr.write(`fix-until-green: ${m}\n`),
};

export interface ProviderEnv {
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Models (by setting, see keyTrust) sent no key: the folder chose a server on this machine. */
  withhold?: ReadonlySet<string>;
}

/**
 * The launcher's key port (core/launch.ts, the key rule of core/model/keyTrust) for the CLI and the
 * MCP server: `folder()` says which settings the folder's .vscode/settings.json chose, not a flag
 * (workspaceSettings.folderSettingKeys). A folder-chosen endpoint that would get the environment's
 * key is refused before any model is built or any request, naming the file, the setting, the host and
 * the flag that confirms it; a folder-chosen loopback server is sent none. On a pass, the notices are
 * the run's first lines: the money and gate settings the folder's file set.
 */
export function cliKeyPort(folder: () => { file: string; keys: readonly string[] }, env: NodeJS.ProcessEnv = process.env): (settings: Settings, ownModel: boolean) => KeyAnswer<never> {
  return (settings, ownModel) => {
    const from = folder();
    const keyOf = (provider: string): boolean => (provider === 'openai-compatible' || provider === 'anthropic') && (env[KEY_ENV[provider]] ?? '').trim() !== '';
    const chose = (k: string): boolean => from.keys.includes(k);
    const m = settings.model;
    const endpoints: KeyedEndpoint[] = [
      ...(ownModel ? [{ setting: 'fixUntilGreen.model', provider: m.provider, baseUrl: m.baseUrl, keyed: keyOf(m.provider), fromFolder: (['provider', 'baseUrl'] as const).filter((f) => chose(`model.${f}`)) }] : []),
      ...m.escalation.map((r, i): KeyedEndpoint => ({ setting: `fixUntilGreen.model.escalation[${i}]`, provider: r.provider, baseUrl: r.baseUrl, keyed: keyOf(r.provider), fromFolder: chose('model.escalation') ? ['provider', 'baseUrl'] : [] })),
    ];
    const d = decideKeyTrust({
      endpoints,
      file: from.file,
      howToConfirm: (e, url) =>
        e.setting.includes('[')
          ? `name the ladder yourself with --escalate ${e.provider}:ID (a rung of --model's provider goes to --base-url)`
          : e.fromFolder.includes('baseUrl')
            ? `name the same URL yourself: --base-url ${url}`
            : `name the model yourself: --model ${e.provider}:${m.id || 'ID'}`,
    });
    if (!d.ok) return { ok: false, refusal: d.refusal };
    return { ok: true, withhold: d.withhold, notices: folderSettingNotices(from.file, from.keys, settingValues(settings)) };
  };
}

/** The CLI's wording of a provider that cannot be built: in its flags, where a flag can fix it. */
export function providerUsageError(e: ProviderConfigError): UsageError {
  switch (e.code) {
    case 'no-replay-file':
      return new UsageError('--model replay:FILE needs a file');
    case 'no-model-id':
      return new UsageError(`fixUntilGreen.model.id is empty: name the ${e.provider} model to use (CLI: --model ${e.provider}:ID)`);
    case 'host-provider':
      return new UsageError(`the ${e.provider} provider runs only inside VS Code; pass --model ${MODEL_FORMS}`);
    case 'unknown-provider':
      return new UsageError(`--model ${e.provider}: this provider is not available in this build of the CLI`);
    case 'bad-replay-file':
    case 'no-api-key':
      // Already in the CLI's terms: the file's path, and the key hint the CLI gave (its environment variable).
      return new UsageError(e.message);
  }
}

/** The provider `settings.model` names, with the key from the environment. @throws UsageError */
export function createCliProvider(settings: Settings, cwd: string, opts: ProviderEnv = {}): ModelProvider {
  return createCliModel(settings.model, cwd, opts, opts.withhold?.has('fixUntilGreen.model') === true);
}

/**
 * The launcher's model port (core/launch.ts) for the CLI's front ends: each model with its provider's
 * key from the environment; a model that cannot be built is named by its rung (`--escalate` or
 * `fixUntilGreen.model.escalation[i]`). `noModel`: what the front end says when the settings name
 * VS Code's chat models for the run's own model (`run`: pass --model; the MCP server: start it with one).
 */
export function cliModelPort(cwd: string, noModel: string, opts: ProviderEnv = {}): (m: ModelSettings, rung: number, settings: Settings, withholdKey: boolean) => ModelAnswer<never> {
  return (m, rung, _settings, withholdKey) => {
    if (m.provider === 'vscode-lm') return { ok: false, problem: rung === 0 ? noModel : `fixUntilGreen.model.escalation[${rung - 1}]: the vscode-lm provider runs only inside VS Code; use --escalate ${MODEL_FORMS}` };
    try {
      return { ok: true, provider: createCliModel(m, cwd, opts, withholdKey) };
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      return { ok: false, problem: rung === 0 ? e.message : `escalation model ${rung} (${m.provider}:${m.id}): ${e.message}` };
    }
  };
}

function createCliModel(model: ModelSettings, cwd: string, opts: ProviderEnv, withheld: boolean): ModelProvider {
  const { provider } = model;
  const env = opts.env ?? process.env;
  const keyed = provider === 'openai-compatible' || provider === 'anthropic';
  const apiKey = keyed && !withheld ? env[KEY_ENV[provider]] : undefined;
  try {
    return createProvider(model, {
      root: cwd,
      keyHint: keyed ? `set the ${KEY_ENV[provider]} environment variable to a valid key` : '',
      logger: opts.logger ?? stderrLogger,
      ...(apiKey !== undefined ? { apiKey } : {}),
    });
  } catch (e) {
    if (e instanceof ProviderConfigError) throw providerUsageError(e);
    throw e;
  }
}

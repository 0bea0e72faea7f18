// Builds the model provider a `--model` value names, through the core's factory. Keys come from the
// environment only; what cannot be built is said in the CLI's own terms (its flags).
import type { KeyedEndpoint } from '../core/model/keyTrust';
import { decideKeyTrust } from '../core/model/keyTrust';
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
 * The key rule (core/model/keyTrust) for the CLI and the MCP server: `folderKeys` are the settings
 * the folder's .vscode/settings.json chose (workspaceSettings.folderSettingKeys). Returns the models
 * to send no key; a folder-chosen endpoint that would get a key is refused before any request.
 * @throws UsageError (preflight) naming the file, the setting, the host and the flag that confirms it
 */
export function keyTrust(settings: Settings, folder: { file: string; keys: readonly string[] }, env: NodeJS.ProcessEnv = process.env): Set<string> {
  const keyOf = (provider: string): boolean => (provider === 'openai-compatible' || provider === 'anthropic') && (env[KEY_ENV[provider]] ?? '').trim() !== '';
  const chose = (k: string): boolean => folder.keys.includes(k);
  const m = settings.model;
  const endpoints: KeyedEndpoint[] = [
    { setting: 'fixUntilGreen.model', provider: m.provider, baseUrl: m.baseUrl, keyed: keyOf(m.provider), fromFolder: (['provider', 'baseUrl'] as const).filter((f) => chose(`model.${f}`)) },
    ...m.escalation.map((r, i): KeyedEndpoint => ({ setting: `fixUntilGreen.model.escalation[${i}]`, provider: r.provider, baseUrl: r.baseUrl, keyed: keyOf(r.provider), fromFolder: chose('model.escalation') ? ['provider', 'baseUrl'] : [] })),
  ];
  const d = decideKeyTrust({
    endpoints,
    file: folder.file,
    howToConfirm: (e, url) =>
      e.setting.includes('[')
        ? `name the ladder yourself with --escalate ${e.provider}:ID (a rung of --model's provider goes to --base-url)`
        : e.fromFolder.includes('baseUrl')
          ? `name the same URL yourself: --base-url ${url}`
          : `name the model yourself: --model ${e.provider}:${m.id || 'ID'}`,
  });
  if (!d.ok) throw new UsageError(d.refusal.message, 'preflight', { keyRefused: { file: d.refusal.file, setting: d.refusal.setting, host: d.refusal.host } });
  return new Set(d.withhold);
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
 * The models of `settings.model.escalation`, each with its provider's key from the environment.
 * @throws UsageError naming the rung (`--escalate` or `fixUntilGreen.model.escalation[i]`)
 */
export function createCliLadder(settings: Settings, cwd: string, opts: ProviderEnv = {}): ModelProvider[] {
  return settings.model.escalation.map((m, i) => {
    if (m.provider === 'vscode-lm') throw new UsageError(`fixUntilGreen.model.escalation[${i}]: the vscode-lm provider runs only inside VS Code; use --escalate ${MODEL_FORMS}`);
    try {
      return createCliModel(m, cwd, opts, opts.withhold?.has(`fixUntilGreen.model.escalation[${i}]`) === true);
    } catch (e) {
      if (e instanceof UsageError) throw new UsageError(`escalation model ${i + 1} (${m.provider}:${m.id}): ${e.message}`);
      throw e;
    }
  });
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

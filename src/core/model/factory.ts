// Provider creation from `fixUntilGreen.model.*`, for every front end: the CLI (key from the
// environment), VS Code (key from SecretStorage) and the evals (replay scripts). What cannot be built
// is a ProviderConfigError with a code and the setting at fault, so each front end words it its own
// way (the CLI in its flags, VS Code in its settings and commands) instead of passing on another's.
import * as path from 'node:path';
import { ANTHROPIC_DEFAULT_BASE_URL, OPENAI_DEFAULT_BASE_URL } from '../endpoints';
import { registerSecret } from '../secrets';
import type { ModelSettings } from '../settings';
import type { Logger } from '../types';
import { AnthropicProvider } from './anthropic';
import { missingKeyProblem } from './endpoint';
import { OpenAICompatibleProvider } from './openaiCompatible';
import type { ModelProvider } from './provider';
import { loadReplayScript, ReplayFileError, ReplayProvider } from './replay';
import type { RetryNotice, RetryPolicy } from './retry';

/** What a VS Code user does to set a key; the CLI names its environment variable instead. */
export const VSCODE_KEY_HINT = 'run the command "Fix Until Green: Set API Key" (fixUntilGreen.setApiKey)';

/** The environment variable the CLI reads each network provider's key from. */
export const KEY_ENV: Readonly<Record<'openai-compatible' | 'anthropic', string>> = {
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/**
 * Why the model settings cannot make a provider:
 * - `no-replay-file`: provider `replay` with an empty `model.id` (the script file);
 * - `bad-replay-file`: the script cannot be read or is not a replay script;
 * - `no-model-id`: a network provider with an empty `model.id`;
 * - `no-api-key`: a remote endpoint and no key;
 * - `host-provider`: a provider only a host makes (`vscode-lm`, inside VS Code);
 * - `unknown-provider`: a provider id this build does not know.
 */
export type ProviderConfigCode = 'no-replay-file' | 'bad-replay-file' | 'no-model-id' | 'no-api-key' | 'host-provider' | 'unknown-provider';

/** The setting at fault; `apiKey` is the key, which lives outside the settings. */
export type ProviderConfigField = 'model.provider' | 'model.id' | 'model.baseUrl' | 'apiKey';

/**
 * The model settings cannot make a provider. `message` is worded in the settings' terms
 * (`fixUntilGreen.model.id …`), never a front end's; `code`, `field` and `provider` let a front end
 * say it its own way.
 */
export class ProviderConfigError extends Error {
  constructor(
    readonly code: ProviderConfigCode,
    readonly field: ProviderConfigField,
    readonly provider: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderConfigError';
  }
}

export interface HttpProviderInput {
  model: Pick<ModelSettings, 'id' | 'baseUrl'> & { provider: 'openai-compatible' | 'anthropic' };
  apiKey?: string;
  /** Where the key comes from, for messages: e.g. VSCODE_KEY_HINT, or `set the OPENAI_API_KEY environment variable`. */
  keyHint: string;
  logger?: Logger;
  onRetry?: (n: RetryNotice) => void;
  retry?: Partial<RetryPolicy>;
  requestTimeoutMs?: number;
}

export function defaultBaseUrl(provider: 'openai-compatible' | 'anthropic'): string {
  return provider === 'anthropic' ? ANTHROPIC_DEFAULT_BASE_URL : OPENAI_DEFAULT_BASE_URL;
}

export function createHttpProvider(i: HttpProviderInput): ModelProvider {
  const { provider, id } = i.model;
  if (!id.trim()) throw new ProviderConfigError('no-model-id', 'model.id', provider, `fixUntilGreen.model.id is empty: name the ${provider} model to use`);
  const baseUrl = i.model.baseUrl.trim() || defaultBaseUrl(provider);
  const apiKey = i.apiKey?.trim() || undefined;
  // Wherever the key came from (SecretStorage, the environment), it is kept out of checks, and its
  // value out of every output, trace and log, from now on.
  registerSecret(apiKey);
  const problem = missingKeyProblem({ provider, baseUrl, apiKey, keyHint: i.keyHint });
  if (problem) throw new ProviderConfigError('no-api-key', 'apiKey', provider, problem);
  const opts = {
    model: id,
    baseUrl,
    keyHint: i.keyHint,
    ...(apiKey ? { apiKey } : {}),
    ...(i.logger ? { logger: i.logger } : {}),
    ...(i.onRetry ? { onRetry: i.onRetry } : {}),
    ...(i.retry ? { retry: i.retry } : {}),
    ...(i.requestTimeoutMs ? { requestTimeoutMs: i.requestTimeoutMs } : {}),
  };
  return provider === 'anthropic' ? new AnthropicProvider(opts) : new OpenAICompatibleProvider(opts);
}

/** What a front end brings to provider creation besides the settings. */
export interface ProviderSetup {
  /** The workspace folder: a relative replay file is resolved against it. */
  root: string;
  /** The key of a network provider, from wherever the front end keeps keys; the core never reads the environment. */
  apiKey?: string;
  /** How the user sets the key, for messages (e.g. VSCODE_KEY_HINT, or `set the OPENAI_API_KEY environment variable …`). */
  keyHint: string;
  /** Retries and other provider warnings. */
  logger?: Logger;
  /** The label of a replay provider (default `replay:<file name>`). */
  replayLabel?: string;
}

/**
 * Builds the provider `model` names: `replay`, `openai-compatible` or `anthropic`. A host's own
 * provider (`vscode-lm`) is the host's to build: asked for here it is a `host-provider` error.
 * @throws ProviderConfigError when the settings cannot make one.
 */
export function createProvider(model: ModelSettings, setup: ProviderSetup): ModelProvider {
  const { provider, id, baseUrl } = model;
  switch (provider) {
    case 'replay': {
      if (!id.trim()) throw new ProviderConfigError('no-replay-file', 'model.id', provider, 'fixUntilGreen.model.id is empty: name the replay script file (relative to the workspace folder)');
      const file = path.resolve(setup.root, id);
      try {
        return new ReplayProvider(loadReplayScript(file), setup.replayLabel ?? `replay:${path.basename(file)}`);
      } catch (e) {
        if (e instanceof ReplayFileError) throw new ProviderConfigError('bad-replay-file', 'model.id', provider, e.message);
        throw e;
      }
    }
    case 'openai-compatible':
    case 'anthropic':
      return createHttpProvider({
        model: { provider, id, baseUrl },
        keyHint: setup.keyHint,
        ...(setup.apiKey !== undefined ? { apiKey: setup.apiKey } : {}),
        ...(setup.logger ? { logger: setup.logger } : {}),
      });
    case 'vscode-lm':
      throw new ProviderConfigError('host-provider', 'model.provider', provider, 'the vscode-lm provider (VS Code\'s Language Model API) runs only inside VS Code');
    default:
      throw new ProviderConfigError('unknown-provider', 'model.provider', String(provider), `fixUntilGreen.model.provider "${String(provider)}" is not a provider this build knows`);
  }
}

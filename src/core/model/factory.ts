// One way to build a network provider from `fixUntilGreen.model.*` and a key, for the CLI (key from
// the environment) and VS Code (key from SecretStorage) alike.
import { registerSecret } from '../secrets';
import type { ModelSettings } from '../settings';
import type { Logger } from '../types';
import { ANTHROPIC_DEFAULT_BASE_URL, AnthropicProvider } from './anthropic';
import { missingKeyProblem } from './endpoint';
import { OPENAI_DEFAULT_BASE_URL, OpenAICompatibleProvider } from './openaiCompatible';
import type { ModelProvider } from './provider';
import type { RetryNotice, RetryPolicy } from './retry';

/** What a VS Code user does to set a key; the CLI names its environment variable instead. */
export const VSCODE_KEY_HINT = 'run the command "Fix Until Green: Set API Key" (fixUntilGreen.setApiKey)';

/** The environment variable the CLI reads each network provider's key from. */
export const KEY_ENV: Readonly<Record<'openai-compatible' | 'anthropic', string>> = {
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** The model settings cannot make a provider (no model id, no key for a remote server). */
export class ProviderConfigError extends Error {
  constructor(message: string) {
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
  if (!id.trim()) throw new ProviderConfigError(`fixUntilGreen.model.id is empty: name the ${provider} model to use (CLI: --model ${provider}:ID)`);
  const baseUrl = i.model.baseUrl.trim() || defaultBaseUrl(provider);
  const apiKey = i.apiKey?.trim() || undefined;
  // Wherever the key came from (SecretStorage, the environment), it is kept out of checks, and its
  // value out of every output, trace and log, from now on.
  registerSecret(apiKey);
  const problem = missingKeyProblem({ provider, baseUrl, apiKey, keyHint: i.keyHint });
  if (problem) throw new ProviderConfigError(problem);
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

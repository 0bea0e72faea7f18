// Builds the model provider a `--model` value names. Keys come from the environment only.
import * as path from 'node:path';
import { AnthropicProvider } from '../core/model/anthropic';
import { missingKeyProblem } from '../core/model/endpoint';
import { OPENAI_DEFAULT_BASE_URL, OpenAICompatibleProvider } from '../core/model/openaiCompatible';
import type { ModelProvider } from '../core/model/provider';
import { loadReplayScript, ReplayFileError, ReplayProvider } from '../core/model/replay';
import type { Settings } from '../core/settings';
import type { Logger } from '../core/types';
import { UsageError } from './errors';

export interface ModelSpec {
  provider: Settings['model']['provider'];
  id: string;
}

export function parseModelSpec(value: string): ModelSpec {
  const m = /^(replay|openai-compatible|anthropic):(.+)$/.exec(value);
  if (!m) {
    throw new UsageError(`--model: "${value}" is not one of replay:FILE, openai-compatible:ID, anthropic:ID`);
  }
  return { provider: m[1] as ModelSpec['provider'], id: m[2]! };
}

/** The environment variable each network provider reads its key from. */
export const KEY_ENV: Readonly<Record<'openai-compatible' | 'anthropic', string>> = {
  'openai-compatible': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

export interface ProviderEnv {
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** A key from elsewhere (VS Code's SecretStorage); when given, the environment is not read. */
  apiKey?: string;
  /** How the user sets the key, for the missing-key message (default: the environment variable). */
  keyHint?: string;
}

export function createProvider(settings: Settings, cwd: string, opts: ProviderEnv = {}): ModelProvider {
  const { provider, id, baseUrl } = settings.model;
  const env = opts.env ?? process.env;
  switch (provider) {
    case 'replay': {
      if (!id) throw new UsageError('--model replay:FILE needs a file');
      const file = path.resolve(cwd, id);
      try {
        return new ReplayProvider(loadReplayScript(file), `replay:${path.basename(file)}`);
      } catch (e) {
        if (e instanceof ReplayFileError) throw new UsageError(e.message);
        throw e;
      }
    }
    case 'openai-compatible':
    case 'anthropic': {
      if (!id.trim()) throw new UsageError(`--model ${provider}:ID needs a model id (or set fixUntilGreen.model.id)`);
      const envName = KEY_ENV[provider];
      const apiKey = (opts.apiKey !== undefined ? opts.apiKey : env[envName])?.trim() || undefined;
      const keyHint = opts.keyHint ?? `set the ${envName} environment variable to a valid key`;
      const url = baseUrl || (provider === 'anthropic' ? 'https://api.anthropic.com' : OPENAI_DEFAULT_BASE_URL);
      const problem = missingKeyProblem({ provider, baseUrl: url, apiKey, keyHint });
      if (problem) throw new UsageError(problem);
      const common = { model: id, baseUrl: url, keyHint, ...(apiKey ? { apiKey } : {}), ...(opts.logger ? { logger: opts.logger } : {}) };
      return provider === 'anthropic' ? new AnthropicProvider(common) : new OpenAICompatibleProvider(common);
    }
    case 'vscode-lm':
      throw new UsageError('the vscode-lm provider runs only inside VS Code; pass --model replay:FILE, openai-compatible:ID or anthropic:ID');
    default:
      throw new UsageError(`--model ${String(provider)}: this provider is not available in this build of the CLI`);
  }
}

// Builds the model provider a `--model` value names. Keys come from the environment only.
import * as path from 'node:path';
import { KEY_ENV, ProviderConfigError, createHttpProvider } from '../core/model/factory';
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
      const envName = KEY_ENV[provider];
      const logger = opts.logger ?? stderrLogger;
      const apiKey = (opts.apiKey !== undefined ? opts.apiKey : env[envName])?.trim() || undefined;
      try {
        return createHttpProvider({
          model: { provider, id, baseUrl },
          keyHint: opts.keyHint ?? `set the ${envName} environment variable to a valid key`,
          logger,
          ...(apiKey ? { apiKey } : {}),
        });
      } catch (e) {
        if (e instanceof ProviderConfigError) throw new UsageError(e.message);
        throw e;
      }
    }
    case 'vscode-lm':
      throw new UsageError('the vscode-lm provider runs only inside VS Code; pass --model replay:FILE, openai-compatible:ID or anthropic:ID');
    default:
      throw new UsageError(`--model ${String(provider)}: this provider is not available in this build of the CLI`);
  }
}

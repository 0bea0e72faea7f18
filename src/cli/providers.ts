// Builds the model provider a `--model` value names.
import * as path from 'node:path';
import type { ModelProvider } from '../core/model/provider';
import { loadReplayScript, ReplayFileError, ReplayProvider } from '../core/model/replay';
import type { Settings } from '../core/settings';
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

export function createProvider(settings: Settings, cwd: string): ModelProvider {
  const { provider, id } = settings.model;
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
    case 'vscode-lm':
      throw new UsageError('the vscode-lm provider runs only inside VS Code; pass --model replay:FILE, openai-compatible:ID or anthropic:ID');
    default:
      throw new UsageError(`--model ${provider}: this provider is not available in this build of the CLI`);
  }
}

// The `replay` provider: scripted replies from a file (DESIGN §8), for tests, demos and evals.
import type { Completion, CompletionRequest, Usage } from '../types';
import type { ModelProvider } from './provider';
import { ProviderFatalError } from './provider';
import { countTokens } from '../tokens';
import { readRegularFileSync } from '../fileText';

export interface ReplayResponse {
  text: string;
  usage?: Usage;
  /** Why the scripted reply ended, as a provider reports it (`length`: cut off at the output limit). */
  finishReason?: string;
}

export interface ReplayScript {
  responses: ReplayResponse[];
}

export class ReplayFileError extends Error {}

export function parseReplayScript(json: string, source: string): ReplayScript {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (e) {
    throw new ReplayFileError(`replay file ${source} is not valid JSON: ${(e as Error).message}`);
  }
  const responses = (data as { responses?: unknown })?.responses;
  if (!Array.isArray(responses)) throw new ReplayFileError(`replay file ${source} must be {"responses": [...]}`);
  responses.forEach((r: unknown, i: number) => {
    const o = r as Record<string, unknown> | null;
    if (typeof o !== 'object' || o === null || typeof o.text !== 'string') {
      throw new ReplayFileError(`replay file ${source}: responses[${i}] must have a string "text"`);
    }
    if (o.finishReason !== undefined && (typeof o.finishReason !== 'string' || o.finishReason === '')) {
      throw new ReplayFileError(`replay file ${source}: responses[${i}].finishReason must be a non-empty string (e.g. "stop", "length")`);
    }
    if (o.usage !== undefined) {
      const u = o.usage as Record<string, unknown>;
      if (typeof u !== 'object' || u === null || !Number.isInteger(u.input) || !Number.isInteger(u.output) || (u.input as number) < 0 || (u.output as number) < 0) {
        throw new ReplayFileError(`replay file ${source}: responses[${i}].usage must be {"input": N, "output": N} with whole numbers`);
      }
    }
  });
  return { responses: responses as ReplayResponse[] };
}

export function loadReplayScript(file: string): ReplayScript {
  let text: string;
  try {
    text = readRegularFileSync(file);
  } catch (e) {
    throw new ReplayFileError(`replay file ${file} cannot be read: ${(e as Error).message}`);
  }
  return parseReplayScript(text, file);
}

export class ReplayProvider implements ModelProvider {
  readonly label: string;
  private next = 0;
  /** Every request seen, for tests that check what the loop asked. */
  readonly requests: CompletionRequest[] = [];

  constructor(private readonly script: ReplayScript, label = 'replay') {
    this.label = label;
  }

  get used(): number {
    return this.next;
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    if (req.signal.aborted) throw req.signal.reason instanceof Error ? req.signal.reason : new Error('aborted');
    this.requests.push(req);
    const r = this.script.responses[this.next];
    if (!r) {
      throw new ProviderFatalError(`replay script ended: it has ${this.script.responses.length} response(s) and step ${this.next + 1} asked for another`);
    }
    this.next++;
    const finish = r.finishReason !== undefined ? { finishReason: r.finishReason } : {};
    if (r.usage) {
      // A real model never writes past the output limit it was given.
      return { text: r.text, usage: { input: r.usage.input, output: Math.min(r.usage.output, req.maxOutputTokens) }, usageReported: true, ...finish };
    }
    const input = countTokens(req.system) + req.messages.reduce((n, m) => n + countTokens(m.content), 0);
    return { text: r.text, usage: { input, output: Math.min(countTokens(r.text), req.maxOutputTokens) }, usageReported: false, ...finish };
  }
}

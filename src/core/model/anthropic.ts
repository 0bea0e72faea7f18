// The `anthropic` provider: Anthropic's Messages API through the official SDK, its own retries off.
import type Anthropic from '@anthropic-ai/sdk';
import { ANTHROPIC_DEFAULT_BASE_URL } from '../endpoints';
import type { Message } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ChatMessage, Completion, CompletionRequest, Logger, Usage } from '../types';
import { silentLogger } from '../types';
import { describeEndpoint, redactSecrets } from './endpoint';
import type { FaultContext, ProviderAnswer } from './httpFaults';
import { GIVE_UP_HINT, PREFLIGHT_TIMEOUT_MS, badAnswer, classifyProviderError, readAnswer, unreachableProblem } from './httpFaults';
import type { ModelProvider } from './provider';
import { anthropicSdk } from './sdks/anthropic';
import { ProviderReplyError } from './provider';
import type { RetryNotice, RetryPolicy } from './retry';
import { withChildSignal, withRetry } from './retry';
import { countRequestTokens, countTokens } from '../tokens';

const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;

export interface AnthropicOptions {
  model: string;
  /** Default: Anthropic's API. A trailing `/v1` is dropped (the SDK adds it). */
  baseUrl?: string;
  apiKey?: string;
  /** Where the key comes from, for messages. */
  keyHint: string;
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  onRetry?: (n: RetryNotice) => void;
  random?: () => number;
  logger?: Logger;
}

function usageOf(m: Partial<Message> | undefined): Usage | undefined {
  const u = m?.usage;
  if (!u || typeof u.input_tokens !== 'number' || typeof u.output_tokens !== 'number') return undefined;
  // Cached prompt tokens are still tokens of this call's input.
  const input = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
  return { input, output: u.output_tokens };
}

export class AnthropicProvider implements ModelProvider {
  readonly label: string;
  private readonly client: Anthropic;
  private readonly baseUrl: string;
  private readonly ctx: FaultContext;
  private readonly logger: Logger;

  constructor(private readonly opts: AnthropicOptions) {
    this.baseUrl = ((opts.baseUrl && opts.baseUrl.trim()) || ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    this.label = `anthropic:${opts.model}`;
    this.logger = opts.logger ?? silentLogger;
    const timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.ctx = { provider: 'anthropic', model: opts.model, baseUrl: this.baseUrl, keyHint: opts.keyHint, secrets: [opts.apiKey], timeoutMs };
    this.client = new (anthropicSdk())({
      // Servers on this machine ignore the key, but the SDK insists on one.
      apiKey: opts.apiKey && opts.apiKey.trim() !== '' ? opts.apiKey : 'no-key',
      // Only the key the run was given: no token, profile or base URL picked up from the environment.
      authToken: null,
      baseURL: this.baseUrl,
      maxRetries: 0,
      timeout: timeoutMs,
    });
  }

  private retrying<T>(signal: AbortSignal, fn: () => Promise<T>, onRetry?: (n: RetryNotice) => void): Promise<T> {
    return withRetry(fn, {
      signal,
      ...(this.opts.retry ? { policy: this.opts.retry } : {}),
      describe: `${this.label} at ${describeEndpoint(this.baseUrl)}`,
      giveUpHint: GIVE_UP_HINT,
      onRetry: (n) => {
        this.logger.warn(`${this.label}: attempt ${n.attempt} failed (${n.reason}); retrying in ${n.delayMs} ms`);
        this.opts.onRetry?.(n);
        onRetry?.(n);
      },
      ...(this.opts.random ? { random: this.opts.random } : {}),
    });
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    return this.retrying(req.signal, async () => {
      let answer: ProviderAnswer;
      try {
        // The raw response, read here: the SDK would hand an HTML page back as a string.
        answer = await withChildSignal(req.signal, async (signal) =>
          readAnswer(
            await this.client.messages
              .create(
                {
                  model: this.opts.model,
                  max_tokens: req.maxOutputTokens,
                  system: req.system,
                  messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
                },
                { signal },
              )
              .asResponse(),
            this.ctx,
            signal,
          ),
        );
      } catch (e) {
        throw classifyProviderError(e, anthropicSdk(), this.ctx, req.signal);
      }
      return this.read(answer, req);
    }, req.onRetry);
  }

  /** Lists the server's models once, only to learn whether the server answers at all. */
  async preflight(signal: AbortSignal): Promise<string[]> {
    try {
      await withChildSignal(signal, (child) => this.client.models.list(undefined, { signal: child, timeout: PREFLIGHT_TIMEOUT_MS }));
      return [];
    } catch (e) {
      if (signal.aborted) throw e;
      const problem = unreachableProblem(e, anthropicSdk(), this.ctx);
      if (problem) return [problem];
      // It answered (perhaps 401 or 404: not every server lists models); the first call reports those.
      this.logger.debug(`${this.label}: listing models failed (${redactSecrets(e instanceof Error ? e.message : String(e), this.ctx.secrets)}); the server answers, so the run goes on`);
      return [];
    }
  }

  /** Anthropic's own count of the request's input, so that the loop's gate needs no tokenizer margin. */
  async countInputTokens(req: { system: string; messages: ChatMessage[] }, signal: AbortSignal): Promise<number> {
    return this.retrying(signal, async () => {
      try {
        const answer = await withChildSignal(signal, async (child) =>
          readAnswer(
            await this.client.messages
              .countTokens({ model: this.opts.model, system: req.system, messages: req.messages.map((m) => ({ role: m.role, content: m.content })) }, { signal: child })
              .asResponse(),
            this.ctx,
            child,
          ),
        );
        const n = (answer.json as { input_tokens?: unknown } | null)?.input_tokens;
        if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw badAnswer('without an input_tokens count', answer, this.ctx);
        return n;
      } catch (e) {
        throw classifyProviderError(e, anthropicSdk(), this.ctx, signal);
      }
    });
  }

  /**
   * An answer that is not a message with content blocks is the server's fault (retried); a
   * message with no usable text is the model's, a ProviderReplyError carrying what it cost.
   */
  private read(answer: ProviderAnswer, req: CompletionRequest): Completion {
    const res = (typeof answer.json === 'object' && answer.json !== null ? answer.json : {}) as Partial<Message>;
    if (!Array.isArray(res.content)) throw badAnswer('without content blocks', answer, this.ctx);
    // An empty content list is a finished turn only with a stop reason; without one nothing was said at all.
    if (res.content.length === 0 && !res.stop_reason) throw badAnswer('without content or a stop reason', answer, this.ctx);
    const reported = usageOf(res);
    const blocks = res.content;
    const texts = blocks.filter((b): b is Extract<typeof b, { type: 'text' }> => b.type === 'text').map((b) => b.text);
    const text = texts.length > 0 ? texts.join('') : null;
    const usage: Usage = reported ?? { input: countRequestTokens(req), output: Math.min(req.maxOutputTokens, text ? countTokens(text) : 0) };
    const usageReported = reported !== undefined;
    const fail = (problem: ProviderReplyError['problem'], msg: string): never => {
      throw new ProviderReplyError(problem, msg, usage, usageReported, text);
    };
    if (res.stop_reason === 'max_tokens') fail('truncated', `the reply was cut off at the output limit of ${req.maxOutputTokens} tokens before it was complete`);
    if (res.stop_reason === 'model_context_window_exceeded') fail('truncated', 'the reply was cut off: the prompt and reply filled the model\'s context window');
    if (res.stop_reason === 'refusal') fail('not-text', 'the model refused to answer');
    if (text === null || text.trim() === '') {
      if (blocks.some((b) => b.type !== 'text')) fail('not-text', `the model answered with ${[...new Set(blocks.map((b) => b.type))].join(', ')} blocks instead of text`);
      fail('empty', 'the model returned an empty reply');
    }
    return { text: text!, usage, usageReported, ...(res.stop_reason ? { finishReason: res.stop_reason } : {}) };
  }
}

// The `openai-compatible` provider: any server speaking OpenAI's chat-completions API (OpenAI,
// Ollama, LM Studio, vLLM, OpenRouter), through the official SDK with its own retries off.
import type OpenAI from 'openai';
import { OPENAI_DEFAULT_BASE_URL } from '../endpoints';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { Completion, CompletionRequest, Logger, Usage } from '../types';
import { silentLogger } from '../types';
import { describeEndpoint, redactSecrets } from './endpoint';
import type { FaultContext, ProviderAnswer } from './httpFaults';
import { GIVE_UP_HINT, PREFLIGHT_TIMEOUT_MS, badAnswer, classifyProviderError, readAnswer, unreachableProblem } from './httpFaults';
import type { ModelProvider } from './provider';
import { openaiSdk } from './sdks/openai';
import { ProviderReplyError } from './provider';
import type { RetryNotice, RetryPolicy } from './retry';
import { withChildSignal, withRetry } from './retry';
import { countRequestTokens, countTokens } from '../tokens';

/** How long one request may take before it counts as a (retryable) timeout. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;

export interface OpenAICompatibleOptions {
  model: string;
  /** Default: OpenAI's own API. */
  baseUrl?: string;
  /** Not needed for a loopback server. Never logged, traced or put in a message. */
  apiKey?: string;
  /** Where the key comes from, for messages: e.g. `set the OPENAI_API_KEY environment variable`. */
  keyHint: string;
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  onRetry?: (n: RetryNotice) => void;
  random?: () => number;
  logger?: Logger;
}

type TokenParam = 'max_tokens' | 'max_completion_tokens';

/** The usage a response reported, if it reported a usable one. */
function reportedUsage(res: Partial<ChatCompletion> | undefined): Usage | undefined {
  const u = res?.usage;
  if (!u || typeof u.prompt_tokens !== 'number' || typeof u.completion_tokens !== 'number') return undefined;
  if (!(u.prompt_tokens >= 0) || !(u.completion_tokens >= 0)) return undefined;
  return { input: u.prompt_tokens, output: u.completion_tokens };
}

export class OpenAICompatibleProvider implements ModelProvider {
  readonly label: string;
  private readonly client: OpenAI;
  private readonly baseUrl: string;
  private readonly ctx: FaultContext;
  private readonly logger: Logger;
  // OpenAI's own API wants max_completion_tokens (its reasoning models refuse max_tokens); most
  // other servers know only max_tokens. A 400 naming the parameter switches it once.
  private tokenParam: TokenParam;
  private switchedOnce = false;

  constructor(private readonly opts: OpenAICompatibleOptions) {
    this.baseUrl = (opts.baseUrl && opts.baseUrl.trim()) || OPENAI_DEFAULT_BASE_URL;
    this.label = `openai-compatible:${opts.model}`;
    this.logger = opts.logger ?? silentLogger;
    const timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.ctx = { provider: 'openai-compatible', model: opts.model, baseUrl: this.baseUrl, keyHint: opts.keyHint, secrets: [opts.apiKey], timeoutMs };
    this.tokenParam = /(^|\.)openai\.com$/i.test(safeHost(this.baseUrl)) ? 'max_completion_tokens' : 'max_tokens';
    this.client = new (openaiSdk())({
      // Servers on this machine ignore the key, but the SDK insists on one.
      apiKey: opts.apiKey && opts.apiKey.trim() !== '' ? opts.apiKey : 'no-key',
      baseURL: this.baseUrl,
      maxRetries: 0,
      timeout: timeoutMs,
      // The SDK reads organization and project from the environment; a run uses only what it was given.
      organization: null,
      project: null,
    });
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    return withRetry(() => this.attempt(req), {
      signal: req.signal,
      ...(this.opts.retry ? { policy: this.opts.retry } : {}),
      describe: `${this.label} at ${describeEndpoint(this.baseUrl)}`,
      giveUpHint: GIVE_UP_HINT,
      onRetry: (n) => {
        this.logger.warn(`${this.label}: attempt ${n.attempt} failed (${n.reason}); retrying in ${n.delayMs} ms`);
        this.opts.onRetry?.(n);
        req.onRetry?.(n);
      },
      ...(this.opts.random ? { random: this.opts.random } : {}),
    });
  }

  /** Lists the server's models once, only to learn whether the server answers at all. */
  async preflight(signal: AbortSignal): Promise<string[]> {
    try {
      await withChildSignal(signal, (child) => this.client.models.list({ signal: child, timeout: PREFLIGHT_TIMEOUT_MS }));
      return [];
    } catch (e) {
      if (signal.aborted) throw e;
      const problem = unreachableProblem(e, openaiSdk(), this.ctx);
      if (problem) return [problem];
      // It answered (perhaps 401 or 404: not every server lists models); the first call reports those.
      this.logger.debug(`${this.label}: listing models failed (${redactSecrets(e instanceof Error ? e.message : String(e), this.ctx.secrets)}); the server answers, so the run goes on`);
      return [];
    }
  }

  private async attempt(req: CompletionRequest): Promise<Completion> {
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.opts.model,
      messages: [{ role: 'system', content: req.system }, ...req.messages.map((m) => ({ role: m.role, content: m.content }))],
      [this.tokenParam]: req.maxOutputTokens,
    };
    let answer: ProviderAnswer;
    try {
      // The raw response, read here: the SDK would hand an HTML page back as a string.
      answer = await withChildSignal(req.signal, async (signal) => readAnswer(await this.client.chat.completions.create(body, { signal }).asResponse(), this.ctx, signal));
    } catch (e) {
      if (this.switchTokenParam(e)) return this.attempt(req);
      throw classifyProviderError(e, openaiSdk(), this.ctx, req.signal);
    }
    return this.read(answer, req);
  }

  private switchTokenParam(e: unknown): boolean {
    if (!(e instanceof openaiSdk().BadRequestError)) return false;
    const sent = this.tokenParam;
    const other: TokenParam = sent === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
    const names = e.param === sent || (e.message.includes(sent) && /unsupported|not supported|unrecognized|unknown|extra/i.test(e.message));
    if (!names || this.switchedOnce) return false;
    this.switchedOnce = true;
    this.tokenParam = other;
    this.logger.info(`${this.label}: the server refused ${sent}; sending ${other} from now on`);
    return true;
  }

  /**
   * An answer without a message in its first choice is the server's fault (retried); a message
   * with no usable text is the model's, a ProviderReplyError carrying what it cost.
   */
  private read(answer: ProviderAnswer, req: CompletionRequest): Completion {
    const res = (typeof answer.json === 'object' && answer.json !== null ? answer.json : {}) as Partial<ChatCompletion>;
    const choice = Array.isArray(res.choices) ? res.choices[0] : undefined;
    const message = choice?.message;
    if (!choice || typeof message !== 'object' || message === null) {
      throw badAnswer(Array.isArray(res.choices) ? 'without a message in its choices' : 'without choices', answer, this.ctx);
    }
    const reported = reportedUsage(res);
    const content = typeof message?.content === 'string' ? message.content : null;
    const finish = choice?.finish_reason ?? undefined;
    const usage: Usage = reported ?? { input: countRequestTokens(req), output: Math.min(req.maxOutputTokens, content ? countTokens(content) : 0) };
    const usageReported = reported !== undefined;
    const fail = (problem: ProviderReplyError['problem'], msg: string): never => {
      throw new ProviderReplyError(problem, msg, usage, usageReported, content);
    };
    if (finish === 'length') {
      fail('truncated', `the reply was cut off at the output limit of ${req.maxOutputTokens} tokens before it was complete${content ? '' : ' (no text at all: a reasoning model may have spent the limit thinking)'}`);
    }
    if (finish === 'content_filter') fail('filtered', 'the provider\'s content filter withheld the reply');
    if (content === null || content.trim() === '') {
      if (message?.tool_calls && message.tool_calls.length > 0) fail('not-text', 'the model answered with a tool call instead of text');
      if (typeof message?.refusal === 'string' && message.refusal) fail('not-text', `the model refused: ${message.refusal.slice(0, 300)}`);
      fail('empty', 'the model returned an empty reply');
    }
    return { text: content!, usage, usageReported, ...(finish ? { finishReason: finish } : {}) };
  }
}

function safeHost(url: string): string {
  return URL.canParse(url) ? new URL(url).hostname : '';
}

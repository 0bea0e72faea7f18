import type { ChatMessage, Completion, CompletionRequest, Usage } from '../types';

/** The model port. Providers never decide anything about the run; they only answer. */
export interface ModelProvider {
  /** A label for traces and reports, e.g. `replay:demo.json`. Never contains a key. */
  readonly label: string;
  /** What a person calls the model when it is not the label's id: the name VS Code gives a chat model (core/modelName.ts). */
  readonly name?: string;
  /**
   * Answers one request. Throws `ProviderFatalError` for faults retrying cannot cure (auth, model
   * not found, bad request, transient faults that outlasted the retry policy, among them 200
   * answers that are not the API's: HTML, cut-off JSON, no choices), `ProviderReplyError`
   * for an answer that carries no usable text (the step fails, the run goes on), and the abort
   * reason when `req.signal` aborts.
   */
  complete(req: CompletionRequest): Promise<Completion>;
  /**
   * The provider's own count of a request's input tokens, when it has one (Anthropic's count
   * endpoint, VS Code's `countTokens`). The loop's pre-call gate then needs no tokenizer margin.
   */
  countInputTokens?(req: { system: string; messages: ChatMessage[] }, signal: AbortSignal): Promise<number>;
  /**
   * Problems that make the model unusable before the run spends anything: the server cannot be
   * reached at all. Costs no tokens. Auth and model faults are left to the first call.
   */
  preflight?(signal: AbortSignal): Promise<string[]>;
}

/** A fault the loop cannot recover from by retrying (auth refused, model not found, script ended). */
export class ProviderFatalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderFatalError';
  }
}

/**
 * Why an answer was unusable: no text at all, cut off by the output limit, something other than
 * text (a tool call, a refusal), withheld by a content filter. (`malformed` is kept for callers
 * that name it; a body that is not the API's answer is a transient fault of the server, not a reply.)
 */
export type ReplyProblem = 'empty' | 'truncated' | 'not-text' | 'filtered' | 'malformed';

/**
 * The provider answered, but with nothing the loop can apply. The loop records a failed step
 * (the unchanged state is observed again) and tells the model why in the next prompt. The tokens
 * the answer cost are carried so the budget still counts them.
 */
export class ProviderReplyError extends Error {
  constructor(
    readonly problem: ReplyProblem,
    message: string,
    readonly usage: Usage,
    readonly usageReported: boolean,
    /** Whatever text came back (e.g. the cut-off part of a truncated reply), for the trace. */
    readonly partialText: string | null = null,
  ) {
    super(message);
    this.name = 'ProviderReplyError';
  }
}

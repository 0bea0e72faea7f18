// What the run may still spend: steps and tokens against their limits, which a continuation may
// raise. The policy's gates read it; the loop only counts.
import type { GateState } from '../policy/policy';
import type { Settings } from '../settings';
import type { RunReport } from '../trace/events';
import type { ContinuationState, ContinueGrant } from './options';

/** The largest output a single call may ask for; the ceiling may clamp it lower. */
export const MAX_OUTPUT_TOKENS = 8192;
/** A call with room for fewer output tokens than this is not worth making. */
export const MIN_OUTPUT_TOKENS = 256;

export class RunAllowance {
  maxSteps: number;
  tokenCeiling: number;
  tokensUsed = 0;
  stepsDone = 0;

  constructor(private readonly settings: Pick<Settings, 'maxSteps' | 'tokenCeiling' | 'timeLimitSeconds'>) {
    this.maxSteps = settings.maxSteps;
    this.tokenCeiling = settings.tokenCeiling;
  }

  grant(g: Required<ContinueGrant>): void {
    this.maxSteps += g.extraSteps;
    this.tokenCeiling += g.extraTokens;
  }

  /** The next call's output limit: what the ceiling leaves after the prompt, at most MAX_OUTPUT_TOKENS. */
  outputLimit(promptTokens: number): number {
    return Math.min(MAX_OUTPUT_TOKENS, this.tokenCeiling - this.tokensUsed - promptTokens);
  }

  gate(cancelled: boolean, elapsedMs: number, timeLimitMs: number, promptTokens: number): GateState {
    return {
      cancelled,
      elapsedMs,
      timeLimitMs,
      stepsDone: this.stepsDone,
      maxSteps: this.maxSteps,
      tokensUsed: this.tokensUsed,
      tokenCeiling: this.tokenCeiling,
      nextCallMinTokens: promptTokens + MIN_OUTPUT_TOKENS,
      nextPromptTokens: promptTokens,
    };
  }

  continuation(elapsedMs: number): ContinuationState {
    return { stepsDone: this.stepsDone, maxSteps: this.maxSteps, tokensUsed: this.tokensUsed, tokenCeiling: this.tokenCeiling, elapsedMs };
  }

  limits(): RunReport['limits'] {
    return { maxSteps: this.maxSteps, tokenCeiling: this.tokenCeiling, timeLimitSeconds: this.settings.timeLimitSeconds };
  }
}

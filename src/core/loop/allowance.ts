// What the run may still spend: steps, tokens and money against their limits, which a continuation
// may raise (steps and tokens). The policy's gates read it; the loop only counts. Every limit is the
// whole run's: an escalation to another model changes the price of the next call, never the limits.
import type { GateState } from '../policy/policy';
import { money } from '../policy/policy';
import type { ModelPrice, Settings } from '../settings';
import type { RunReport } from '../trace/events';
import type { Usage } from '../types';
import type { ContinuationState, ContinueGrant } from './options';

/** The largest output a single call may ask for; the ceiling may clamp it lower. */
export const MAX_OUTPUT_TOKENS = 8192;
/** A call with room for fewer output tokens than this is not worth making. */
export const MIN_OUTPUT_TOKENS = 256;

/** What `usage` costs at `price` (per million tokens). */
export function costOf(usage: Usage, price: ModelPrice): number {
  return money((usage.input * price.input + usage.output * price.output) / 1e6);
}

export class RunAllowance {
  maxSteps: number;
  tokenCeiling: number;
  tokensUsed = 0;
  stepsDone = 0;
  /** Money spent by calls to priced models. */
  costUsed = 0;
  /** Whether any model of the run has a price: without one, no money figure is shown. */
  readonly priced: boolean;
  /** The price of the model the next call goes to; null when it has none. */
  price: ModelPrice | null;

  constructor(
    private readonly settings: Pick<Settings, 'maxSteps' | 'tokenCeiling' | 'timeLimitSeconds' | 'costCeiling'>,
    prices: readonly (ModelPrice | null)[] = [],
  ) {
    this.maxSteps = settings.maxSteps;
    this.tokenCeiling = settings.tokenCeiling;
    this.price = prices[0] ?? null;
    this.priced = prices.some((p) => p !== null);
  }

  grant(g: Required<ContinueGrant>): void {
    this.maxSteps += g.extraSteps;
    this.tokenCeiling += g.extraTokens;
  }

  /**
   * The next call's output limit: what the token ceiling leaves after the prompt, and what the cost
   * ceiling leaves after the prompt's price, at most MAX_OUTPUT_TOKENS.
   */
  outputLimit(promptTokens: number): number {
    const byTokens = this.tokenCeiling - this.tokensUsed - promptTokens;
    return Math.min(MAX_OUTPUT_TOKENS, byTokens, this.outputByCost(promptTokens));
  }

  private outputByCost(promptTokens: number): number {
    const p = this.price;
    if (this.settings.costCeiling <= 0 || !p || p.output <= 0) return Infinity;
    const left = money(this.settings.costCeiling - this.costUsed - (promptTokens * p.input) / 1e6);
    return Math.floor((left * 1e6) / p.output);
  }

  /** Counts a call's usage: its tokens, and its money when its model has a price. Returns the call's cost. */
  charge(usage: Usage): number | null {
    this.tokensUsed += usage.input + usage.output;
    if (!this.price) return null;
    const cost = costOf(usage, this.price);
    this.costUsed = money(this.costUsed + cost);
    return cost;
  }

  /** A call's cost and the run's money so far, for its event; the total is null while no model has a price. */
  money(cost: number | null): { cost: number | null; costUsed: number | null } {
    return { cost, costUsed: this.priced ? this.costUsed : null };
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
      costUsed: this.costUsed,
      costCeiling: this.settings.costCeiling,
      nextCallMinCost: this.price ? costOf({ input: promptTokens, output: MIN_OUTPUT_TOKENS }, this.price) : null,
    };
  }

  continuation(elapsedMs: number): ContinuationState {
    return { stepsDone: this.stepsDone, maxSteps: this.maxSteps, tokensUsed: this.tokensUsed, tokenCeiling: this.tokenCeiling, elapsedMs };
  }

  limits(): RunReport['limits'] {
    return { maxSteps: this.maxSteps, tokenCeiling: this.tokenCeiling, timeLimitSeconds: this.settings.timeLimitSeconds, costCeiling: this.settings.costCeiling };
  }
}

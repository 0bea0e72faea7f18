// How many tokens the next call's input may come to, for the pre-call gate and the output clamp.
// Our tokenizer is not the provider's: the provider may count more than we estimate, and the
// token ceiling must hold against what it reports. So the gate reserves a margin, and learns the
// provider's ratio from the usage it reports.

/** Before any reported usage: how far above our estimate a provider's count may be (tokenizers differ). */
export const UNCALIBRATED_FACTOR = 1.5;
/** Before any reported usage, when the provider counted the input itself: its count is close, not exact. */
export const COUNTED_FACTOR = 1.05;
/** Headroom over the highest reported/estimated ratio seen so far, for prompts that tokenize differently. */
export const CALIBRATION_HEADROOM = 1.05;
/** Fixed tokens added to every allowance: chat framing the estimate cannot see. */
export const MARGIN_TOKENS = 16;

export type EstimateSource = 'tokenizer' | 'provider';

export interface InputAllowance {
  /** Our estimate of the input (tokenizer), or the provider's own count. */
  estimate: number;
  source: EstimateSource;
  /** The most the input may come to: what the gate and the output clamp use. */
  allowance: number;
  /** The factor the allowance used. */
  factor: number;
}

export class InputGauge {
  /** Highest reported/estimated input ratio seen, per estimate source. */
  private readonly ratios = new Map<EstimateSource, number>();

  allowance(estimate: number, source: EstimateSource): InputAllowance {
    const seen = this.ratios.get(source);
    const factor = seen === undefined ? (source === 'provider' ? COUNTED_FACTOR : UNCALIBRATED_FACTOR) : Math.max(1, seen) * CALIBRATION_HEADROOM;
    return { estimate, source, factor, allowance: Math.ceil(estimate * factor) + MARGIN_TOKENS };
  }

  /** Learns from a call whose usage the provider reported. */
  observe(a: Pick<InputAllowance, 'estimate' | 'source'>, reportedInput: number): void {
    if (!(a.estimate > 0) || !(reportedInput >= 0)) return;
    const ratio = reportedInput / a.estimate;
    this.ratios.set(a.source, Math.max(this.ratios.get(a.source) ?? 0, ratio));
  }

  /** The highest ratio seen for a source, for the trace. */
  ratio(source: EstimateSource): number | undefined {
    return this.ratios.get(source);
  }
}

// Public stop reason ids (DESIGN §3) and run outcomes (§3.2). Keep these strings exactly.

export const STOP_REASONS = [
  'green',
  'stalled',
  'step-cap',
  'token-ceiling',
  'cost-ceiling',
  'time-limit',
  'cancelled',
  'critic-stop',
  'budget-depleted',
  'low-confidence',
  'unreachable',
  'preflight-failed',
  'error',
] as const;

export type StopReason = (typeof STOP_REASONS)[number];

export type Outcome = 'fixed' | 'partial' | 'uncertain' | 'punt';

export const OUTCOMES: readonly Outcome[] = ['fixed', 'partial', 'uncertain', 'punt'];

/** Structured evidence behind a decision, for the trace and for tests; `detail` says the same in words. */
export type Evidence = Record<string, string | number | boolean | null | readonly (string | number)[]>;

export interface Decision {
  reason: StopReason;
  /** The evidence in words: counts, hashes, limits. */
  detail: string;
  evidence?: Evidence;
  /** Later criteria in the fixed order that fired at the same time and lost to this one. */
  alsoFired?: StopReason[];
}

/** Reasons after which the same run may be resumed with a larger budget. */
export const CONTINUABLE: readonly StopReason[] = ['step-cap', 'token-ceiling'];

export function isStopReason(v: unknown): v is StopReason {
  return typeof v === 'string' && (STOP_REASONS as readonly string[]).includes(v);
}

// Public stop reason ids (DESIGN §3) and run outcomes (§3.2). Keep these strings exactly.

export const STOP_REASONS = [
  'green',
  'stalled',
  'step-cap',
  'token-ceiling',
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

export interface Decision {
  reason: StopReason;
  /** The evidence: counts, hashes, limits. */
  detail: string;
}

/** Reasons after which the same run may be resumed with a larger budget. */
export const CONTINUABLE: readonly StopReason[] = ['step-cap', 'token-ceiling'];

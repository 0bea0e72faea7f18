// The confidence budget (DESIGN §3.1): a balance that each step spends and each newly seen failure
// state earns back, in proportion to how new it is. Off by default.
import type { ConfidenceBudgetSettings } from '../settings';

export const BUDGET_START = 1.0;
/** At or below this balance the run stops with `budget-depleted`. */
export const BUDGET_FLOOR = 0.05;

export type Novelty = 0 | 0.5 | 1;

export interface BudgetEntry {
  step: number;
  novelty: Novelty;
  spent: number;
  earned: number;
  balance: number;
}

/**
 * 1 for a state never seen with fewer failures than the best so far, 0.5 for a never-seen state
 * otherwise, 0 for a state seen before. `seenBefore` and `bestFailureCount` describe the run
 * before this step's state is added; counts are policy/outcome's `failureCount` (undefined: not known).
 */
export function novelty(seenBefore: boolean, failureCount: number | undefined, bestFailureCount: number | undefined): Novelty {
  if (seenBefore) return 0;
  // A count unknown (output cut without the tool's own count) is never "fewer".
  return failureCount !== undefined && bestFailureCount !== undefined && failureCount < bestFailureCount ? 1 : 0.5;
}

// Sums of decimal fractions drift (1 - 0.08 * 12 is not 0.04 in binary); balances are kept to 1e-9
// so the floor comparison says what the arithmetic on paper says.
function round(n: number): number {
  return Math.round(n * 1e9) / 1e9;
}

export class ConfidenceBudget {
  private current = BUDGET_START;
  private readonly history: BudgetEntry[] = [];

  constructor(private readonly settings: ConfidenceBudgetSettings) {}

  get enabled(): boolean {
    return this.settings.enabled;
  }

  get balance(): number {
    return this.current;
  }

  get entries(): readonly BudgetEntry[] {
    return this.history;
  }

  /** Spends one step's cost and earns the state's novelty gain; returns the entry for the trace. */
  step(step: number, n: Novelty): BudgetEntry {
    const spent = this.settings.stepCost;
    const earned = round(this.settings.noveltyGain * n);
    this.current = round(this.current - spent + earned);
    const e: BudgetEntry = { step, novelty: n, spent, earned, balance: this.current };
    this.history.push(e);
    return e;
  }
}

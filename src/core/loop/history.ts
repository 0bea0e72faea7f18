// What the run has observed so far: step 0, the current and the best state, when each failure
// identity was seen (for stalled), every state the checks observed, and the confidence budget.
import type { BudgetEntry } from '../policy/budget';
import { ConfidenceBudget, novelty } from '../policy/budget';
import type { OutcomeDecision } from '../policy/outcome';
import { decideOutcome, failureCount, isBetter } from '../policy/outcome';
import type { ConfidenceBudgetSettings } from '../settings';
import type { Observed } from './state';
import { summary } from './state';

export class RunHistory {
  private initialState: Observed | undefined;
  private currentState: Observed | undefined;
  private bestState: Observed | undefined;
  /** Steps at which each failure identity was observed (step 0 included). */
  readonly seen = new Map<string, number[]>();
  /** Every state a step's checks observed, kept or rolled back. */
  readonly observed: Observed[] = [];
  private budget: ConfidenceBudget;
  /** The first step the stall count looks at: 0, or the step a new model of the ladder took over at. */
  private stallFrom = 0;

  constructor(private readonly budgetSettings: ConfidenceBudgetSettings) {
    this.budget = new ConfidenceBudget(budgetSettings);
  }

  /**
   * The observations `stalled` counts: those since the current model took over (that model's "step
   * 0" is the state it was handed). `seen` keeps the whole run's.
   */
  get stallSeen(): ReadonlyMap<string, readonly number[]> {
    if (this.stallFrom === 0) return this.seen;
    const out = new Map<string, number[]>();
    for (const [hash, at] of this.seen) {
      const since = at.filter((s) => s >= this.stallFrom);
      if (since.length > 0) out.set(hash, since);
    }
    return out;
  }

  /**
   * A new model takes over after `step`: the stall count restarts from the state it is handed (the
   * same identity may be retried by a stronger model), and the confidence budget starts full again.
   */
  handOver(step: number): void {
    this.stallFrom = step;
    this.budget = new ConfidenceBudget(this.budgetSettings);
  }

  get started(): boolean {
    return this.initialState !== undefined;
  }

  get initial(): Observed {
    return this.initialState!;
  }

  get current(): Observed {
    return this.currentState!;
  }

  get best(): Observed {
    return this.bestState!;
  }

  /** The states a run's report compares: none before step 0 was verified. */
  get reported(): { initial: Observed | undefined; final: Observed | undefined; bestStep: number } {
    return this.started ? { initial: this.initial, final: this.current, bestStep: this.best.step } : { initial: undefined, final: undefined, bestStep: 0 };
  }

  begin(o: Observed): void {
    this.initialState = this.currentState = this.bestState = o;
    this.note(o.step, o.verify.failureHash);
  }

  /** The workspace now holds `o` (after a restore at the stop). */
  moveTo(o: Observed): void {
    this.currentState = o;
  }

  /**
   * Records the state a step leaves. A rolled-back step is never the best; it still counts toward
   * stalled. Returns the budget's entry when the confidence budget is on.
   */
  settle(o: Observed, rolledBack: boolean): BudgetEntry | null {
    const seenBefore = this.seen.has(o.verify.failureHash);
    const bestBefore = this.best;
    this.currentState = o;
    if (!rolledBack && isBetter(summary(o), summary(bestBefore))) this.bestState = o;
    this.note(o.step, o.verify.failureHash);
    if (!this.budget.enabled) return null;
    return this.budget.step(o.step, novelty(seenBefore, failureCount(summary(o)), failureCount(summary(bestBefore))));
  }

  outcome(green: boolean): OutcomeDecision {
    if (!this.started) return { outcome: 'punt', why: 'the run stopped before step 0 was verified; nothing was changed' };
    return decideOutcome({ green, initial: summary(this.initial), best: summary(this.best), observed: this.observed.map(summary) });
  }

  private note(step: number, hash: string): void {
    const at = this.seen.get(hash) ?? [];
    at.push(step);
    this.seen.set(hash, at);
  }
}

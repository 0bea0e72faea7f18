// The run's model ladder (DESIGN §3): the run's own model, then `model.escalation`'s in order. The
// current rung is the model the next call goes to; each climb is an escalation as the trace records it.
import type { ModelProvider } from '../model/provider';
import type { Decision } from '../policy/reasons';
import type { ModelPrice } from '../settings';
import type { Escalation } from '../trace/events';
import type { LadderRung } from './options';

export class ModelLadder {
  private rung = 0;
  readonly escalations: Escalation[] = [];

  constructor(readonly rungs: readonly LadderRung[]) {}

  /** The model the next call goes to. */
  get provider(): ModelProvider {
    return this.rungs[this.rung]!.provider;
  }

  get price(): ModelPrice | null {
    return this.rungs[this.rung]!.price;
  }

  /** How many models are left above the current one. */
  get left(): number {
    return this.rungs.length - 1 - this.rung;
  }

  /**
   * Every model's own preflight, in order, up to the first with problems: each must be usable before
   * the run spends anything (a rung found broken halfway would end the run where it should escalate).
   */
  async preflight(signal: AbortSignal): Promise<string[]> {
    for (const { provider } of this.rungs) {
      const problems = provider.preflight ? await provider.preflight(signal) : [];
      if (problems.length > 0) return problems;
    }
    return [];
  }

  /** Hands the run to the next model after `stop` at `step`: the escalation, recorded. */
  climb(step: number, stop: Decision): Escalation {
    const from = this.provider.label;
    this.rung++;
    const e: Escalation = { step, reason: stop.reason, detail: stop.detail, ...(stop.evidence ? { evidence: stop.evidence } : {}), from, to: this.provider.label, rung: this.rung, rungs: this.rungs.length - 1 };
    this.escalations.push(e);
    return e;
  }
}

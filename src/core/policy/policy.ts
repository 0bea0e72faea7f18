// Stop criteria as pure functions of observable loop state, checked in one fixed order (DESIGN §3).
// Every criterion sees the whole state and answers on its own; the order alone decides which wins,
// so two criteria firing at once always resolve the same way.
import type { ModelStatus } from './selfReport';
import type { Decision, StopReason } from './reasons';

export interface GateState {
  cancelled: boolean;
  elapsedMs: number;
  timeLimitMs: number;
  stepsDone: number;
  maxSteps: number;
  tokensUsed: number;
  tokenCeiling: number;
  /** Tokens the next call needs at least: the prompt plus the minimum useful output. */
  nextCallMinTokens: number;
  nextPromptTokens: number;
  /** Money spent so far by calls to priced models. */
  costUsed: number;
  /** 0 turns the cost gate off. */
  costCeiling: number;
  /** What the next call costs at least (its prompt and the minimum useful output); null when its model has no price. */
  nextCallMinCost: number | null;
}

export interface CriticStop {
  critic: string;
  reason: string;
}

export interface StepState {
  cancelled: boolean;
  step: number;
  green: boolean;
  failureHash: string;
  failureCount: number;
  /** Steps at which each failure identity was observed (step 0 included). */
  seen: ReadonlyMap<string, readonly number[]>;
  stallThreshold: number;
  /** The first critic that answered `stop` in this step, if any. */
  criticStop: CriticStop | null;
  /** The confidence budget's balance after this step; null when the budget is off. */
  budgetBalance: number | null;
  budgetFloor: number;
  /** The model's CONFIDENCE for this step, when it gave a readable one. */
  confidence: number | null;
  /** 0 turns the criterion off. */
  escalateBelowConfidence: number;
  status: ModelStatus | null;
}

type Criterion<S> = (s: S) => Omit<Decision, 'alsoFired'> | undefined;

export type GateReason = 'cancelled' | 'time-limit' | 'step-cap' | 'token-ceiling' | 'cost-ceiling';
export type StepReason = 'cancelled' | 'critic-stop' | 'green' | 'stalled' | 'budget-depleted' | 'low-confidence' | 'unreachable';

/** Before every model call, in this order. */
export const GATE_ORDER: readonly GateReason[] = ['cancelled', 'time-limit', 'step-cap', 'token-ceiling', 'cost-ceiling'];
/** After every step, in this order. */
export const STEP_ORDER: readonly StepReason[] = ['cancelled', 'critic-stop', 'green', 'stalled', 'budget-depleted', 'low-confidence', 'unreachable'];

const gateCriteria: Record<GateReason, Criterion<GateState>> = {
  cancelled: (s) => (s.cancelled ? { reason: 'cancelled', detail: `stopped by the user after ${s.stepsDone} step(s)`, evidence: { stepsDone: s.stepsDone } } : undefined),
  'time-limit': (s) =>
    s.elapsedMs >= s.timeLimitMs
      ? {
          reason: 'time-limit',
          detail: `${Math.round(s.elapsedMs / 1000)} s elapsed of the ${Math.round(s.timeLimitMs / 1000)} s limit`,
          evidence: { elapsedMs: s.elapsedMs, timeLimitMs: s.timeLimitMs },
        }
      : undefined,
  'step-cap': (s) =>
    s.stepsDone >= s.maxSteps
      ? { reason: 'step-cap', detail: `${s.stepsDone} of ${s.maxSteps} steps done and the checks are not green`, evidence: { stepsDone: s.stepsDone, maxSteps: s.maxSteps } }
      : undefined,
  'token-ceiling': (s) => {
    const remaining = s.tokenCeiling - s.tokensUsed;
    if (s.nextCallMinTokens <= remaining) return undefined;
    return {
      reason: 'token-ceiling',
      detail: `the next call needs at least ${s.nextCallMinTokens} tokens (prompt ${s.nextPromptTokens} + minimum output ${s.nextCallMinTokens - s.nextPromptTokens}) but only ${remaining} of ${s.tokenCeiling} remain (${s.tokensUsed} used)`,
      evidence: { nextCallMinTokens: s.nextCallMinTokens, nextPromptTokens: s.nextPromptTokens, tokensUsed: s.tokensUsed, tokenCeiling: s.tokenCeiling, remaining },
    };
  },
  'cost-ceiling': (s) => {
    if (s.costCeiling <= 0 || s.nextCallMinCost === null) return undefined;
    const remaining = money(s.costCeiling - s.costUsed);
    if (s.nextCallMinCost <= remaining) return undefined;
    return {
      reason: 'cost-ceiling',
      detail: `the next call could cost ${fmtMoney(s.nextCallMinCost)} (prompt ${s.nextPromptTokens} tokens + minimum output) but only ${fmtMoney(remaining)} of the cost ceiling ${fmtMoney(s.costCeiling)} remain (${fmtMoney(s.costUsed)} spent)`,
      evidence: { nextCallMinCost: s.nextCallMinCost, nextPromptTokens: s.nextPromptTokens, costUsed: s.costUsed, costCeiling: s.costCeiling, remaining },
    };
  },
};

/** Sums of prices drift in binary; money is kept to 1e-9 of the unit so comparisons say what paper says. */
export function money(n: number): number {
  return Math.round(n * 1e9) / 1e9;
}

/** Money in a few significant digits: 0.0123, 1.25, 12.5. */
export function fmtMoney(n: number): string {
  if (n === 0) return '0';
  return n >= 1 ? String(Math.round(n * 100) / 100) : String(Number(n.toPrecision(3)));
}

function fmt(n: number): string {
  return String(Math.round(n * 1000) / 1000);
}

const stepCriteria: Record<StepReason, Criterion<StepState>> = {
  cancelled: (s) => (s.cancelled ? { reason: 'cancelled', detail: `stopped by the user during step ${s.step}`, evidence: { step: s.step } } : undefined),
  'critic-stop': (s) =>
    s.criticStop
      ? { reason: 'critic-stop', detail: `critic ${s.criticStop.critic} said stop at step ${s.step}: ${s.criticStop.reason}`, evidence: { critic: s.criticStop.critic, step: s.step } }
      : undefined,
  green: (s) => (s.green ? { reason: 'green', detail: `every check passes after step ${s.step}`, evidence: { step: s.step, failureHash: s.failureHash } } : undefined),
  stalled: (s) => {
    const at = s.seen.get(s.failureHash) ?? [];
    if (at.length < s.stallThreshold) return undefined;
    return {
      reason: 'stalled',
      detail: `failure identity ${s.failureHash.slice(0, 12)} seen ${at.length} times (steps ${at.join(', ')}); stallThreshold is ${s.stallThreshold}`,
      evidence: { failureHash: s.failureHash, seenAt: [...at], stallThreshold: s.stallThreshold, failureCount: s.failureCount },
    };
  },
  'budget-depleted': (s) =>
    s.budgetBalance !== null && s.budgetBalance <= s.budgetFloor
      ? {
          reason: 'budget-depleted',
          detail: `the confidence budget fell to ${fmt(s.budgetBalance)} after step ${s.step}, at or below its floor of ${fmt(s.budgetFloor)}`,
          evidence: { balance: s.budgetBalance, floor: s.budgetFloor, step: s.step },
        }
      : undefined,
  'low-confidence': (s) =>
    s.escalateBelowConfidence > 0 && s.confidence !== null && s.confidence < s.escalateBelowConfidence
      ? {
          reason: 'low-confidence',
          detail: `the model's CONFIDENCE ${fmt(s.confidence)} at step ${s.step} is below escalateBelowConfidence ${fmt(s.escalateBelowConfidence)}`,
          evidence: { confidence: s.confidence, escalateBelowConfidence: s.escalateBelowConfidence, step: s.step },
        }
      : undefined,
  unreachable: (s) =>
    s.status === 'blocked' && !s.green
      ? {
          reason: 'unreachable',
          detail: `the model reported STATUS: blocked at step ${s.step} and ${s.failureCount} failure(s) remain`,
          evidence: { step: s.step, failureCount: s.failureCount, failureHash: s.failureHash },
        }
      : undefined,
};

function decide<S, R extends StopReason>(order: readonly R[], criteria: Record<R, Criterion<S>>, s: S): Decision | undefined {
  let first: Decision | undefined;
  for (const r of order) {
    const d = criteria[r](s);
    if (!d) continue;
    if (!first) first = { ...d };
    else (first.alsoFired ??= []).push(d.reason);
  }
  return first;
}

/** Before every model call: cancelled → time-limit → step-cap → token-ceiling → cost-ceiling. */
export function gateDecision(s: GateState): Decision | undefined {
  return decide(GATE_ORDER, gateCriteria, s);
}

/** After every step: cancelled → critic-stop → green → stalled → budget-depleted → low-confidence → unreachable. */
export function stepDecision(s: StepState): Decision | undefined {
  return decide(STEP_ORDER, stepCriteria, s);
}

/**
 * The gate criteria that may end a step in the middle (a cancel, the time limit), in the gate's
 * order: the run clock asks this instead of restating them.
 */
export function interruptDecision(s: Pick<GateState, 'cancelled' | 'elapsedMs' | 'timeLimitMs' | 'stepsDone'>): Decision | undefined {
  const state: GateState = { ...s, maxSteps: Infinity, tokensUsed: 0, tokenCeiling: Infinity, nextCallMinTokens: 0, nextPromptTokens: 0, costUsed: 0, costCeiling: 0, nextCallMinCost: null };
  return decide(['cancelled', 'time-limit'] as const, gateCriteria, state);
}

// Stop criteria as pure functions of observable loop state, checked in one fixed order (DESIGN §3).
import type { Decision } from './reasons';

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
}

export interface StepState {
  cancelled: boolean;
  step: number;
  green: boolean;
  failureHash: string;
  /** Steps at which each failure identity was observed (step 0 included). */
  seen: ReadonlyMap<string, readonly number[]>;
  stallThreshold: number;
}

/** Before every model call: cancelled → time-limit → step-cap → token-ceiling. */
export function gateDecision(s: GateState): Decision | undefined {
  if (s.cancelled) return { reason: 'cancelled', detail: `stopped by the user after ${s.stepsDone} step(s)` };
  if (s.elapsedMs >= s.timeLimitMs) {
    return { reason: 'time-limit', detail: `${Math.round(s.elapsedMs / 1000)} s elapsed of the ${Math.round(s.timeLimitMs / 1000)} s limit` };
  }
  if (s.stepsDone >= s.maxSteps) return { reason: 'step-cap', detail: `${s.stepsDone} of ${s.maxSteps} steps done and the checks are not green` };
  const remaining = s.tokenCeiling - s.tokensUsed;
  if (s.nextCallMinTokens > remaining) {
    return {
      reason: 'token-ceiling',
      detail: `the next call needs at least ${s.nextCallMinTokens} tokens (prompt ${s.nextPromptTokens} + minimum output ${s.nextCallMinTokens - s.nextPromptTokens}) but only ${remaining} of ${s.tokenCeiling} remain (${s.tokensUsed} used)`,
    };
  }
  return undefined;
}

/** After every step: cancelled → green → stalled (the later criteria join this order). */
export function stepDecision(s: StepState): Decision | undefined {
  if (s.cancelled) return { reason: 'cancelled', detail: `stopped by the user during step ${s.step}` };
  if (s.green) return { reason: 'green', detail: `every check passes after step ${s.step}` };
  const at = s.seen.get(s.failureHash) ?? [];
  if (at.length >= s.stallThreshold) {
    return {
      reason: 'stalled',
      detail: `failure identity ${s.failureHash.slice(0, 12)} seen ${at.length} times (steps ${at.join(', ')}); stallThreshold is ${s.stallThreshold}`,
    };
  }
  return undefined;
}

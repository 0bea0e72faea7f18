// A step row's checks and a stop's badge in plain words: "type check", "tests: 1 failing · only the
// failing tests re-run", "no progress", never the engine's `tsc · warm`, `test 1 · targeted` or a
// reason id beside the sentence that already says it. The ids stay in the tooltip and the technical
// detail. No `vscode` import: the panel's webview bundle uses it, the unit tests read it.
import type { StopReason } from '../../core/policy/reasons';
import type { CheckSummary } from '../../core/trace/events';
import type { ParserId } from '../../core/types';
import { formatMoney } from '../../core/money';

export type Kind = 'types' | 'lint' | 'tests' | 'other';

/** What kind of check a parser reads: a type check, a linter, tests, or another tool. */
export function kindOf(parser: ParserId | undefined): Kind {
  if (parser === 'tsc') return 'types';
  if (parser === 'eslint' || parser === 'biome' || parser === 'oxlint') return 'lint';
  if (parser === 'mocha' || parser === 'jest' || parser === 'vitest' || parser === 'node-test' || parser === 'tap' || parser === 'ava' || parser === 'uvu') return 'tests';
  return 'other';
}

const NAME: Record<Kind, string> = { types: 'type check', lint: 'lint', tests: 'tests', other: '' };

function count(n: number, kind: Kind): string {
  if (kind === 'types') return `${n} error${n === 1 ? '' : 's'}`;
  if (kind === 'lint') return `${n} problem${n === 1 ? '' : 's'}`;
  if (kind === 'tests') return `${n} failing`;
  return `${n} failure${n === 1 ? '' : 's'}`;
}

/** How a staged step ran the check, when that is worth saying: a full run is the default, a warm type check is just a type check. */
function how(c: Pick<CheckSummary, 'mode'>, kind: Kind): string | undefined {
  if (c.mode !== 'targeted') return undefined;
  if (kind === 'tests') return 'only the failing tests re-run';
  if (kind === 'lint') return 'only the changed files';
  return 'only what changed';
}

/** A check chip's words: `type check`, `tests: 1 failing · only the failing tests re-run`, `build: timed out`. */
export function checkWords(c: Pick<CheckSummary, 'name' | 'exitCode' | 'failureCount' | 'timedOut' | 'mode' | 'parser' | 'notInstalled'>, parser?: ParserId): string {
  const kind = kindOf(c.parser ?? parser);
  const name = NAME[kind] || c.name;
  const ok = c.exitCode === 0 && c.failureCount === 0;
  const state = c.timedOut ? 'timed out' : ok ? '' : c.failureCount > 0 ? count(c.failureCount, kind) : c.notInstalled !== undefined ? 'not installed' : 'failed';
  const mode = how(c, kind);
  return `${name}${state ? `: ${state}` : ''}${mode ? ` · ${mode}` : ''}`;
}

const BADGE: Record<StopReason, string> = {
  green: 'green',
  stalled: 'no progress',
  'step-cap': 'steps used up',
  'token-ceiling': 'tokens used up',
  'cost-ceiling': 'cost limit',
  'time-limit': 'out of time',
  cancelled: 'stopped by you',
  'critic-stop': 'stopped by a guard',
  'budget-depleted': 'gave up unsure',
  'low-confidence': 'model unsure',
  unreachable: 'model gave up',
  'preflight-failed': 'did not start',
  error: 'error',
};

/** The stop's badge: what the sentence beside it says, in two words. */
export function stopBadge(reason: StopReason): string {
  return BADGE[reason];
}

/** Why Continue is refused, in the badges' words (never "stopped by step-cap or token-ceiling"). */
export const CONTINUE_ONLY = 'only a run of this window that stopped with its steps or tokens used up can continue';

/**
 * Why an agent's stop was let through (the panel's session row), in words: the reason's badge, never
 * its id ("green: every check passes after step 2" read as an id and a step the session never had).
 */
export function sessionDecisionLine(d: { reason: StopReason; detail: string }): string {
  if (d.reason === 'green') return 'Every check passes, so the agent was let stop.';
  const badge = BADGE[d.reason];
  return `Let stop (${badge}): ${d.detail}`;
}

function tokenText(n: number): string {
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

/**
 * Continue's button, saying all it adds (one more budget of the settings' size: steps and tokens
 * both), the resource that ran out first: `Continue (+8 steps, +200k tokens)` after a step cap,
 * `Continue (+200k tokens, +8 steps)` after the token ceiling.
 */
export function continueLabel(reason: StopReason | null, extra: { steps: number; tokens: number }): string {
  const steps = `+${extra.steps} step${extra.steps === 1 ? '' : 's'}`;
  const tokens = `+${tokenText(extra.tokens)} tokens`;
  return `Continue (${reason === 'token-ceiling' ? `${tokens}, ${steps}` : `${steps}, ${tokens}`})`;
}

/** Continue's tooltip: the limits before and after, so raising the token ceiling is never a surprise. */
export function continueTitle(limits: { maxSteps: number; tokenCeiling: number }, extra: { steps: number; tokens: number }): string {
  return `Resume this run with ${extra.steps} more step${extra.steps === 1 ? '' : 's'} and ${tokenText(extra.tokens)} more tokens: the step limit goes from ${limits.maxSteps} to ${limits.maxSteps + extra.steps}, the token ceiling from ${tokenText(limits.tokenCeiling)} to ${tokenText(limits.tokenCeiling + extra.tokens)}.`;
}

/**
 * What a run took, for its stop notification: "4 steps (6,034 tokens, $0.012)"; the money only when
 * a model of the run has a price (`costUsed` is null or absent otherwise), never a made-up $0.
 */
export function runTotals(r: { steps: readonly unknown[]; tokensUsed: number; costUsed?: number | null }): string {
  const steps = `${r.steps.length} step${r.steps.length === 1 ? '' : 's'}`;
  const tokens = `${r.tokensUsed.toLocaleString('en-US')} token${r.tokensUsed === 1 ? '' : 's'}`;
  const cost = r.costUsed !== null && r.costUsed !== undefined ? `, ${formatMoney(r.costUsed)}` : '';
  return `${steps} (${tokens}${cost})`;
}

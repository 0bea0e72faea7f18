// The bench's plan: the tasks, the variants and the limits every variant runs under, and the
// task × variant pairs in the order they run (the oracle first). Its id is a hash of all of that, so
// the results of the same plan (a rerun, another machine's shard) are known for the same pairs.
import { createHash } from 'node:crypto';
import { isLoopbackUrl } from '../endpoints';
import { priceOf } from '../model/pricing';
import type { Settings } from '../settings';
import type { HoldoutMode } from './holdout';
import { ORACLE } from './oracle';
import type { BenchTask } from './tasks';

export interface VariantSpec {
  name: string;
  kind: 'oracle' | 'model' | 'settings';
  /** `fixUntilGreen.*` values (prefix dropped) over the user's settings: a settings file's, a model's. */
  settings: Record<string, unknown>;
  /** Where it comes from, for the report (`--model anthropic:…`, `--variant fast=fast.json`). */
  source: string;
}

/** The limits every variant runs under (`maxSteps`, `tokenCeiling`, `timeLimitSeconds`, `stallThreshold`). */
export type BenchLimits = Record<string, number>;

export interface Pair {
  task: string;
  variant: string;
}

export interface BenchPlan {
  version: 1;
  id: string;
  createdAt: string;
  tasks: BenchTask[];
  variants: VariantSpec[];
  limits: BenchLimits;
  holdout: HoldoutMode;
  /** Bench-wide money limit, in the unit of `model.pricing`; null for none. */
  costCeiling: number | null;
  pairs: Pair[];
}

export const ORACLE_VARIANT: VariantSpec = { name: ORACLE, kind: 'oracle', settings: {}, source: 'built in: the reference fix replayed as the reply' };

export function makePlan(tasks: BenchTask[], variants: VariantSpec[], limits: BenchLimits, holdout: HoldoutMode, costCeiling: number | null): BenchPlan {
  const ordered = [...variants.filter((v) => v.kind === 'oracle'), ...variants.filter((v) => v.kind !== 'oracle')];
  const pairs = ordered.flatMap((v) => tasks.map((t) => ({ task: t.id, variant: v.name })));
  const identity = JSON.stringify({ tasks: tasks.map((t) => [t.commit, t.checkPlan, t.holdout?.heldOut ?? [], ...(t.origin !== undefined ? [t.id, t.parent, t.testFiles, t.instruction ?? null, t.settings ?? null] : [])]), variants: ordered.map((v) => [v.name, v.settings]), limits, holdout, costCeiling });
  const id = createHash('sha256').update(identity).digest('hex').slice(0, 12);
  return { version: 1, id, createdAt: new Date().toISOString(), tasks, variants: ordered, limits, holdout, costCeiling, pairs };
}

export function pairKey(p: Pair): string {
  return `${p.task}|${p.variant}`;
}

/** Shard `index` (1-based) of `count`: every count-th pair, so each shard gets a share of every variant. */
export function shardPairs(plan: BenchPlan, index: number, count: number): Pair[] {
  return plan.pairs.filter((_, i) => i % count === index - 1);
}

/** Parses `I/N` (1 ≤ I ≤ N); undefined when the text is not one. */
export function parseShard(text: string): { index: number; count: number } | undefined {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return index >= 1 && count >= 1 && index <= count ? { index, count } : undefined;
}

/** A model billed per token: a hosted provider, not a replay script or a server on this machine. */
export function isPaid(m: { provider: string; baseUrl: string }): boolean {
  if (m.provider === 'anthropic') return !isLoopbackUrl(m.baseUrl);
  if (m.provider === 'openai-compatible') return m.baseUrl.trim() === '' || !isLoopbackUrl(m.baseUrl);
  return false;
}

/**
 * Why the plan cannot start on money grounds, per variant (empty: it can): a paid model with no price
 * in `model.pricing` cannot be held to a ceiling nor priced in the report.
 */
export function moneyProblems(variant: string, settings: Settings, costCeiling: number | null): string[] {
  const models = [settings.model, ...settings.model.escalation];
  return models
    .filter((m) => isPaid(m) && priceOf(m, settings.model.pricing) === null)
    .map((m) => `variant ${variant}: ${m.provider}:${m.id} is billed per token and has no price in fixUntilGreen.model.pricing${costCeiling === null ? ' and no --cost-ceiling is set: the bench could spend without limit' : `: --cost-ceiling ${costCeiling} could not be held`}; add "${m.id}": {"input": N, "output": N} (per million tokens)`);
}

// What a model costs: the user's own prices from `fixUntilGreen.model.pricing` (per million tokens,
// in their currency unit). There is no built-in price table: prices change, and a stale one would
// make the cost ceiling lie.
import * as path from 'node:path';
import type { ModelConfig, ModelPrice, ModelSettings } from '../settings';

/**
 * The price of `model`: `pricing[id]`, or for a replay script its file name. `vscode-lm` models have
 * none (the user's chat models are not billed per token to this extension).
 */
export function priceOf(model: ModelSettings, pricing: ModelConfig['pricing']): ModelPrice | null {
  if (model.provider === 'vscode-lm') return null;
  const own = Object.prototype.hasOwnProperty.call(pricing, model.id) ? pricing[model.id] : undefined;
  if (own) return own;
  if (model.provider === 'replay') {
    const base = path.basename(model.id);
    if (Object.prototype.hasOwnProperty.call(pricing, base)) return pricing[base] ?? null;
  }
  return null;
}

/** How a model is named in messages: `provider:id`. */
export function modelName(m: ModelSettings): string {
  return `${m.provider}:${m.id || '(any)'}`;
}

/**
 * With a cost ceiling, every model that could be billed needs a price, or the ceiling could not be
 * held: the problems, one per unpriced model (`model` for the run's own, `model.escalation[i]`).
 */
export function unpricedProblems(config: ModelConfig, costCeiling: number): string[] {
  if (costCeiling <= 0) return [];
  const models: [string, ModelSettings][] = [['fixUntilGreen.model', config], ...config.escalation.map((m, i): [string, ModelSettings] => [`fixUntilGreen.model.escalation[${i}]`, m])];
  return models
    .filter(([, m]) => m.provider !== 'vscode-lm' && priceOf(m, config.pricing) === null)
    .map(([key, m]) => `fixUntilGreen.costCeiling is ${costCeiling} but ${key} (${modelName(m)}) has no price: add "${m.id}": {"input": N, "output": N} (per million tokens) to fixUntilGreen.model.pricing`);
}

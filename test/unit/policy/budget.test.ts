// The confidence budget's arithmetic (DESIGN §3.1).
import assert from 'node:assert/strict';
import { BUDGET_FLOOR, ConfidenceBudget, novelty } from '../../../src/core/policy/budget';
import { stepDecision } from '../../../src/core/policy/policy';

/** Whether the run would stop with budget-depleted on this balance: the policy's criterion, as the loop asks it. */
function depleted(b: ConfidenceBudget): boolean {
  const d = stepDecision({
    cancelled: false, step: 1, green: false, failureHash: 'h', failureCount: 1, seen: new Map([['h', [1]]]), stallThreshold: 3,
    criticStop: null, budgetBalance: b.balance, budgetFloor: BUDGET_FLOOR, confidence: null, escalateBelowConfidence: 0, status: null,
  });
  return d?.reason === 'budget-depleted';
}

const DEFAULTS = { enabled: true, stepCost: 0.08, noveltyGain: 0.12 };

describe('confidence budget', () => {
  it('novelty: 1 for a never-seen state better than the best, 0.5 for another never-seen state, 0 for a seen one', () => {
    assert.equal(novelty(false, 2, 3), 1);
    assert.equal(novelty(false, 3, 3), 0.5);
    assert.equal(novelty(false, 5, 3), 0.5);
    assert.equal(novelty(true, 0, 3), 0);
    assert.equal(novelty(true, 5, 3), 0);
  });

  it('spends 0.08 a step and earns 0.12 × novelty', () => {
    const b = new ConfidenceBudget(DEFAULTS);
    assert.equal(b.balance, 1);
    assert.deepEqual(b.step(1, 1), { step: 1, novelty: 1, spent: 0.08, earned: 0.12, balance: 1.04 });
    assert.deepEqual(b.step(2, 0.5), { step: 2, novelty: 0.5, spent: 0.08, earned: 0.06, balance: 1.02 });
    assert.deepEqual(b.step(3, 0), { step: 3, novelty: 0, spent: 0.08, earned: 0, balance: 0.94 });
  });

  it('with nothing new, depletes on the 12th step (1 - 12 × 0.08 = 0.04 ≤ 0.05), not the 11th (0.12)', () => {
    const b = new ConfidenceBudget(DEFAULTS);
    for (let i = 1; i <= 11; i++) b.step(i, 0);
    assert.equal(b.balance, 0.12);
    assert.equal(depleted(b), false);
    b.step(12, 0);
    assert.equal(b.balance, 0.04);
    assert.equal(depleted(b), true);
  });

  it('half-new states lose 0.02 a step: depleted at step 48 (0.04), not 47 (0.06)', () => {
    const b = new ConfidenceBudget(DEFAULTS);
    for (let i = 1; i <= 47; i++) b.step(i, 0.5);
    assert.equal(b.balance, 0.06);
    assert.equal(depleted(b), false);
    b.step(48, 0.5);
    assert.equal(b.balance, 0.04);
    assert.equal(depleted(b), true);
  });

  it('always-better states gain 0.04 a step and never deplete', () => {
    const b = new ConfidenceBudget(DEFAULTS);
    for (let i = 1; i <= 100; i++) b.step(i, 1);
    assert.equal(b.balance, 5);
    assert.equal(depleted(b), false);
  });

  it('lands exactly on the floor without binary drift (1 - 0.95 is 0.05, and that is depleted)', () => {
    assert.equal(BUDGET_FLOOR, 0.05);
    const b = new ConfidenceBudget({ enabled: true, stepCost: 0.95, noveltyGain: 0 });
    b.step(1, 1);
    assert.equal(b.balance, 0.05);
    assert.equal(depleted(b), true);
  });

  it('keeps every entry for the trace, and reports whether it is on', () => {
    const b = new ConfidenceBudget({ ...DEFAULTS, enabled: false });
    assert.equal(b.enabled, false);
    const on = new ConfidenceBudget(DEFAULTS);
    on.step(1, 0);
    on.step(2, 1);
    assert.deepEqual(on.entries.map((e) => e.balance), [0.92, 0.96]);
  });
});

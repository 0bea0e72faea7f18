// The fixed order of DESIGN §3: every criterion alone, and every pair firing at once, set in either order.
import assert from 'node:assert/strict';
import type { GateState, StepState } from '../../../src/core/policy/policy';
import { gateDecision, GATE_ORDER, stepDecision, STEP_ORDER } from '../../../src/core/policy/policy';
import type { Decision, StopReason } from '../../../src/core/policy/reasons';

/** Every criterion the product's decision says fired, in order: the decision first, then `alsoFired`. */
function fired(d: Decision | undefined): StopReason[] {
  return d ? [d.reason, ...(d.alsoFired ?? [])] : [];
}

function gateBase(): GateState {
  return { cancelled: false, elapsedMs: 1000, timeLimitMs: 60000, stepsDone: 2, maxSteps: 8, tokensUsed: 5000, tokenCeiling: 200000, nextCallMinTokens: 3000, nextPromptTokens: 2744, costUsed: 0.5, costCeiling: 2, nextCallMinCost: 0.1 };
}

const gateTriggers: Record<string, (s: GateState) => void> = {
  cancelled: (s) => {
    s.cancelled = true;
  },
  'time-limit': (s) => {
    s.elapsedMs = s.timeLimitMs;
  },
  'step-cap': (s) => {
    s.stepsDone = s.maxSteps;
  },
  'token-ceiling': (s) => {
    s.tokensUsed = s.tokenCeiling - s.nextCallMinTokens + 1;
  },
  'cost-ceiling': (s) => {
    s.costUsed = s.costCeiling - s.nextCallMinCost! + 0.001;
  },
};

const HASH = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

function stepBase(): StepState {
  return {
    cancelled: false,
    step: 4,
    green: false,
    failureHash: HASH,
    failureCount: 2,
    seen: new Map([[HASH, [0]]]),
    stallThreshold: 3,
    criticStop: null,
    budgetBalance: null,
    budgetFloor: 0.05,
    confidence: 0.9,
    escalateBelowConfidence: 0,
    status: 'in_progress',
  };
}

const stepTriggers: Record<string, (s: StepState) => void> = {
  cancelled: (s) => {
    s.cancelled = true;
  },
  'critic-stop': (s) => {
    s.criticStop = { critic: 'custom', reason: 'the edit deletes the public API' };
  },
  green: (s) => {
    s.green = true;
  },
  stalled: (s) => {
    s.seen = new Map([[s.failureHash, [0, 2, 4]]]);
  },
  'budget-depleted': (s) => {
    s.budgetBalance = 0.04;
  },
  'low-confidence': (s) => {
    s.escalateBelowConfidence = 0.5;
    s.confidence = 0.3;
  },
  unreachable: (s) => {
    s.status = 'blocked';
  },
};

describe('stop policy: fixed order', () => {
  it('lists the order of DESIGN §3 exactly', () => {
    assert.deepEqual([...GATE_ORDER], ['cancelled', 'time-limit', 'step-cap', 'token-ceiling', 'cost-ceiling']);
    assert.deepEqual([...STEP_ORDER], ['cancelled', 'critic-stop', 'green', 'stalled', 'budget-depleted', 'low-confidence', 'unreachable']);
  });

  it('fires nothing on a quiet state', () => {
    assert.equal(gateDecision(gateBase()), undefined);
    assert.equal(stepDecision(stepBase()), undefined);
  });

  describe('each gate criterion alone', () => {
    for (const r of GATE_ORDER) {
      it(`${r} fires alone, with evidence`, () => {
        const s = gateBase();
        gateTriggers[r]!(s);
        const d = gateDecision(s);
        assert.equal(d?.reason, r);
        assert.ok(d!.detail.length > 10);
        assert.ok(d!.evidence && Object.keys(d!.evidence).length > 0);
        assert.equal(d!.alsoFired, undefined);
        assert.deepEqual(fired(gateDecision(s)), [r]);
      });
    }
  });

  describe('each post-step criterion alone', () => {
    for (const r of STEP_ORDER) {
      it(`${r} fires alone, with evidence`, () => {
        const s = stepBase();
        stepTriggers[r]!(s);
        const d = stepDecision(s);
        assert.equal(d?.reason, r);
        assert.ok(d!.evidence && Object.keys(d!.evidence).length > 0);
        assert.deepEqual(fired(stepDecision(s)), [r]);
      });
    }
  });

  describe('every pair of gate criteria, set in both orders', () => {
    for (let i = 0; i < GATE_ORDER.length; i++) {
      for (let j = i + 1; j < GATE_ORDER.length; j++) {
        const a = GATE_ORDER[i]!;
        const b = GATE_ORDER[j]!;
        it(`${a} beats ${b}${j === i + 1 ? ' (adjacent)' : ''}`, () => {
          for (const seq of [[a, b], [b, a]]) {
            const s = gateBase();
            for (const r of seq) gateTriggers[r]!(s);
            assert.deepEqual(fired(gateDecision(s)), [a, b]);
            const d = gateDecision(s);
            assert.equal(d?.reason, a, `set as ${seq.join(' then ')}`);
            assert.deepEqual(d?.alsoFired, [b]);
          }
        });
      }
    }
  });

  describe('every pair of post-step criteria, set in both orders', () => {
    for (let i = 0; i < STEP_ORDER.length; i++) {
      for (let j = i + 1; j < STEP_ORDER.length; j++) {
        const a = STEP_ORDER[i]!;
        const b = STEP_ORDER[j]!;
        it(`${a} beats ${b}${j === i + 1 ? ' (adjacent)' : ''}`, () => {
          for (const seq of [[a, b], [b, a]]) {
            const s = stepBase();
            for (const r of seq) stepTriggers[r]!(s);
            const d = stepDecision(s);
            assert.equal(d?.reason, a, `set as ${seq.join(' then ')}`);
            // `unreachable` is defined as blocked *and not green*: with green it does not fire at all.
            const expected = a === 'green' && b === 'unreachable' ? [a] : [a, b];
            assert.deepEqual(fired(stepDecision(s)), expected);
            assert.deepEqual(d?.alsoFired, expected.length > 1 ? [b] : undefined);
          }
        });
      }
    }
  });

  it('resolves all criteria firing at once to the first of each order', () => {
    const g = gateBase();
    for (const t of Object.values(gateTriggers)) t(g);
    assert.equal(gateDecision(g)?.reason, 'cancelled');
    assert.deepEqual(gateDecision(g)?.alsoFired, ['time-limit', 'step-cap', 'token-ceiling', 'cost-ceiling']);
    const s = stepBase();
    for (const t of Object.values(stepTriggers)) t(s);
    assert.equal(stepDecision(s)?.reason, 'cancelled');
  });

  describe('criteria details', () => {
    it('stalled counts over the whole run (A,B,A,B,A stalls at the third A) and names the hash prefix and steps', () => {
      const A = 'a'.repeat(64);
      const B = 'b'.repeat(64);
      const seen = new Map<string, number[]>();
      const states = [A, B, A, B, A];
      let stoppedAt = -1;
      states.forEach((h, step) => {
        seen.set(h, [...(seen.get(h) ?? []), step]);
        if (stoppedAt >= 0) return;
        const d = stepDecision({ ...stepBase(), step, failureHash: h, seen });
        if (d) {
          stoppedAt = step;
          assert.equal(d.reason, 'stalled');
          assert.match(d.detail, /aaaaaaaaaaaa seen 3 times \(steps 0, 2, 4\); stallThreshold is 3/);
          assert.deepEqual(d.evidence?.seenAt, [0, 2, 4]);
        }
      });
      assert.equal(stoppedAt, 4);
    });

    it('stalled needs stallThreshold observations, not fewer', () => {
      const s = stepBase();
      s.seen = new Map([[HASH, [0, 3]]]);
      assert.equal(stepDecision(s), undefined);
      s.stallThreshold = 2;
      assert.equal(stepDecision(s)?.reason, 'stalled');
    });

    it('low-confidence is off at 0 and ignores a missing CONFIDENCE', () => {
      const s = stepBase();
      s.confidence = 0.01;
      assert.equal(stepDecision(s), undefined, 'off at 0');
      s.escalateBelowConfidence = 0.4;
      s.confidence = null;
      assert.equal(stepDecision(s), undefined, 'no readable confidence');
      s.confidence = 0.4;
      assert.equal(stepDecision(s), undefined, 'equal is not below');
      s.confidence = 0.39;
      assert.equal(stepDecision(s)?.reason, 'low-confidence');
    });

    it('budget-depleted fires at the floor, not above it, and never when the budget is off', () => {
      const s = stepBase();
      s.budgetBalance = 0.0500001;
      assert.equal(stepDecision(s), undefined);
      s.budgetBalance = 0.05;
      assert.equal(stepDecision(s)?.reason, 'budget-depleted');
      s.budgetBalance = null;
      assert.equal(stepDecision(s), undefined);
    });

    it('unreachable only when blocked and not green', () => {
      const s = stepBase();
      s.status = 'blocked';
      assert.equal(stepDecision(s)?.reason, 'unreachable');
      s.green = true;
      assert.equal(stepDecision(s)?.reason, 'green');
      assert.deepEqual(fired(stepDecision(s)), ['green']);
    });

    it('token-ceiling fires exactly when the next call cannot fit', () => {
      const s = gateBase();
      s.tokensUsed = s.tokenCeiling - s.nextCallMinTokens;
      assert.equal(gateDecision(s), undefined, 'fits exactly');
      s.tokensUsed += 1;
      const d = gateDecision(s);
      assert.equal(d?.reason, 'token-ceiling');
      assert.match(d!.detail, /needs at least 3000 tokens \(prompt 2744 \+ minimum output 256\) but only 2999 of 200000 remain/);
    });

    it('cost-ceiling fires exactly when the cheapest next call could pass it, never when off or unpriced', () => {
      const s = gateBase();
      s.costUsed = s.costCeiling - s.nextCallMinCost!;
      assert.equal(gateDecision(s), undefined, 'fits exactly');
      s.costUsed += 0.0001;
      const d = gateDecision(s);
      assert.equal(d?.reason, 'cost-ceiling');
      assert.match(d!.detail, /could cost 0\.1 \(prompt 2744 tokens \+ minimum output\) but only 0\.0999 of the cost ceiling 2 remain \(1\.9 spent\)/);
      assert.deepEqual(d!.evidence, { nextCallMinCost: 0.1, nextPromptTokens: 2744, costUsed: 1.9001, costCeiling: 2, remaining: 0.0999 });
      assert.equal(gateDecision({ ...s, costCeiling: 0 }), undefined, 'off at 0');
      assert.equal(gateDecision({ ...s, nextCallMinCost: null }), undefined, 'a model without a price spends no money the run counts');
    });

    it('step-cap fires once maxSteps steps are done', () => {
      const s = gateBase();
      s.stepsDone = 7;
      assert.equal(gateDecision(s), undefined);
      s.stepsDone = 8;
      assert.match(gateDecision(s)!.detail, /8 of 8 steps done/);
    });
  });
});

// Outcomes (DESIGN §3.2), the best state, and what the workspace holds after a stop.
import assert from 'node:assert/strict';
import type { StateSummary } from '../../../src/core/policy/outcome';
import { competingHypotheses, decideOutcome, failureId, fixedAndRemaining, isBetter, restoreTarget } from '../../../src/core/policy/outcome';
import type { Failure } from '../../../src/core/types';

const f = (id: string, message = 'failed'): Failure => ({ check: 'test', file: 'test/a.test.ts', id, message });
const st = (step: number, ids: string[]): StateSummary => ({ step, green: ids.length === 0, failures: ids.map((i) => f(i)) });

describe('outcome', () => {
  const initial = st(0, ['a', 'b']);

  it('fixed when green', () => {
    const o = decideOutcome({ green: true, initial, best: st(2, []), observed: [st(1, ['a']), st(2, [])] });
    assert.equal(o.outcome, 'fixed');
  });

  it('partial when some step had fewer failures than step 0', () => {
    const o = decideOutcome({ green: false, initial, best: st(1, ['b']), observed: [st(1, ['b']), st(2, ['b', 'c'])] });
    assert.equal(o.outcome, 'partial');
    assert.match(o.why, /step 1 had 1 failure\(s\), fewer than the 2 at step 0/);
  });

  it('uncertain when no step had fewer, but one fixed a failure of step 0 while breaking another', () => {
    const o = decideOutcome({ green: false, initial, best: initial, observed: [st(1, ['a', 'c'])] });
    assert.equal(o.outcome, 'uncertain');
    assert.match(o.why, /step 1 fixed some of them/);
  });

  it('punt when nothing of step 0 was ever fixed', () => {
    const o = decideOutcome({ green: false, initial, best: initial, observed: [st(1, ['a', 'b']), st(2, ['a', 'b', 'c'])] });
    assert.equal(o.outcome, 'punt');
    assert.equal(decideOutcome({ green: false, initial, best: initial, observed: [] }).outcome, 'punt');
  });

  it('compares by (check, file, id), not by message', () => {
    assert.equal(failureId(f('a', 'x')), failureId(f('a', 'y')));
    const reworded = { step: 1, green: false, failures: [f('a', 'other words'), f('b', 'more')] };
    assert.equal(decideOutcome({ green: false, initial, best: initial, observed: [reworded] }).outcome, 'punt');
  });

  it('best: fewest failures, earliest on ties, green first', () => {
    // The run replaces its best state only with a strictly better one (isBetter), so ties keep the earlier.
    assert.equal(isBetter(st(1, ['a']), st(0, ['a', 'b'])), true);
    assert.equal(isBetter(st(2, ['c']), st(1, ['a'])), false, 'a tie keeps the earlier');
    assert.equal(isBetter(st(3, ['a', 'b', 'c']), st(1, ['a'])), false);
    assert.equal(isBetter(st(1, ['b']), st(0, ['a'])), false);
    assert.equal(isBetter(st(2, []), st(0, ['a'])), true, 'green beats any failing state');
    assert.equal(isBetter(st(2, ['a']), st(1, [])), false, 'nothing beats green');
  });

  it('restores per outcome and onStop', () => {
    assert.equal(restoreTarget('fixed', 'revert'), 'current');
    assert.equal(restoreTarget('punt', 'keep-last'), 'initial');
    assert.equal(restoreTarget('partial', 'keep-best'), 'best');
    assert.equal(restoreTarget('partial', 'keep-last'), 'current');
    assert.equal(restoreTarget('partial', 'revert'), 'initial');
    assert.equal(restoreTarget('uncertain', 'keep-best'), 'best');
  });

  it('lists fixed and remaining failures', () => {
    const r = fixedAndRemaining([f('a'), f('b'), f('b')], [f('b', 'new text'), f('c')]);
    assert.deepEqual(r.fixed.map((x) => x.id), ['a']);
    assert.deepEqual(r.remaining.map((x) => x.id), ['b', 'c']);
  });

  it('lists the post-mortems as competing hypotheses, once each, with their steps', () => {
    const h = competingHypotheses([
      { step: 1, text: 'The rounding is off.' },
      { step: 2, text: 'the rounding is off.' },
      { step: 3, text: 'The currency parser drops the cents.' },
    ]);
    assert.deepEqual(h, ['step 1: The rounding is off.', 'step 3: The currency parser drops the cents.']);
  });
});

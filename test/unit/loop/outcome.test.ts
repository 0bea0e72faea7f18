// Outcomes on the loop, and what onStop leaves in the workspace.
import assert from 'node:assert/strict';
import type { OnStop } from '../../../src/core/settings';
import type { Project } from './harness';
import { makeRun, project, SRC, step, values } from './harness';

const BAD3 = { a: 'bad', b: 'bad', c: 'bad' };
const S1 = { a: 'ok', b: 'bad', c: 'bad' };
const S2 = { a: 'ok', b: 'worse', c: 'bad' };

describe('loop: outcome and onStop', () => {
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values(BAD3) });
  });
  afterEach(() => p.cleanup());

  const partialRun = async (onStop: OnStop): Promise<Awaited<ReturnType<ReturnType<typeof makeRun>['run']['start']>>> =>
    makeRun(p, [step(BAD3, S1), step(S1, S2)], { maxSteps: 2, onStop }).run.start();

  it('partial + keep-best: the best step (fewest failures, earliest on ties) is what remains', async () => {
    const r = await partialRun('keep-best');
    assert.equal(r.outcome, 'partial');
    assert.equal(r.bestStep, 1, 'steps 1 and 2 both have 2 failures: the earlier wins');
    assert.equal(p.read(SRC), values(S1));
    assert.deepEqual(r.fixedFailures.map((f) => f.id), ['a']);
    assert.deepEqual(r.remainingFailures.map((f) => f.id), ['b', 'c']);
    assert.match(r.outcomeWhy ?? '', /step 1 had 2 failure\(s\), fewer than the 3 at step 0/);
  });

  it('partial + keep-last: the last state remains', async () => {
    const r = await partialRun('keep-last');
    assert.equal(r.outcome, 'partial');
    assert.equal(p.read(SRC), values(S2));
    assert.deepEqual(r.remainingFailures.map((f) => f.message), ['expected b to be ok, got worse', 'expected c to be ok, got bad']);
  });

  it('partial + revert: the original bytes come back', async () => {
    const r = await partialRun('revert');
    assert.equal(r.outcome, 'partial');
    assert.equal(p.read(SRC), values(BAD3));
    assert.deepEqual(r.fixedFailures, []);
    assert.equal(r.remainingFailures.length, 3);
  });

  it('punt: nothing improved, the original bytes come back whatever onStop says', async () => {
    const W = { a: 'bad', b: 'bad', c: 'worse' };
    const r = await makeRun(p, [step(BAD3, W), step(W, BAD3)], { maxSteps: 2, onStop: 'keep-last' }).run.start();
    assert.equal(r.outcome, 'punt');
    assert.equal(p.read(SRC), values(BAD3));
    assert.deepEqual(r.hypotheses, []);
  });

  it('uncertain: a step fixed one failure while breaking another; the competing hypotheses are listed', async () => {
    const U = { a: 'ok', b: 'bad', c: 'bad', d: 'bad' };
    const r = await makeRun(
      p,
      [step(BAD3, U, { postMortem: 'a only needed the flag' }), step(U, BAD3, { postMortem: 'd broke because a and d share state' })],
      { maxSteps: 2, rollbackRegressions: false, onStop: 'keep-last' },
    ).run.start();
    assert.equal(r.outcome, 'uncertain', r.outcomeWhy);
    assert.deepEqual(r.hypotheses, ['step 1: a only needed the flag', 'step 2: d broke because a and d share state']);
  });

  it('fixed: green keeps the result', async () => {
    const r = await makeRun(p, [step(BAD3, { a: 'ok', b: 'ok', c: 'ok' })], { onStop: 'revert' }).run.start();
    assert.equal(r.outcome, 'fixed');
    assert.equal(p.read(SRC), values({ a: 'ok', b: 'ok', c: 'ok' }));
    assert.equal(r.fixedFailures.length, 3);
    assert.deepEqual(r.remainingFailures, []);
  });
});

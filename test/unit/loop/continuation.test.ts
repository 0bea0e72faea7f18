// Continuation: a run stopped by step-cap or token-ceiling resumes from its state with more budget;
// a hook may override those stops; every override is in the trace.
import assert from 'node:assert/strict';
import type { ContinuationState } from '../../../src/core/loop/run';
import type { Decision } from '../../../src/core/policy/reasons';
import type { Critic } from '../../../src/core/policy/critics';
import { findInterruptedRuns } from '../../../src/core/edit/storedRuns';
import type { Project } from './harness';
import { makeRun, ofType, project, SRC, step, traceOf, values } from './harness';

const A = { a: 'bad', b: 'bad' };
const B = { a: 'bad', b: 'worse' };
const FIXED = { a: 'ok', b: 'ok' };

describe('loop: continuation', () => {
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values(A) });
  });
  afterEach(() => p.cleanup());

  it('continue() after step-cap resumes the same run, and keeps the stall history', async () => {
    const noEdit = { text: 'STATUS: in_progress\nCONFIDENCE: 0.5\nPOSTMORTEM: thinking\n' };
    const { run } = makeRun(p, [step(A, B), step(B, A), noEdit, step(A, FIXED)], { maxSteps: 2 });
    const first = await run.start();
    assert.equal(first.stopReason, 'step-cap');
    assert.equal(first.steps.length, 2);
    const r = await run.continue({ extraSteps: 3 });
    // A was seen at steps 0 and 2 before the stop; step 3 sees it a third time.
    assert.equal(r.stopReason, 'stalled', r.detail);
    assert.match(r.detail, /seen 3 times \(steps 0, 2, 3\)/);
    assert.equal(r.steps.length, 3);
    assert.equal(r.limits.maxSteps, 5);
    assert.equal(r.runId, first.runId);
    const decisions = ofType(traceOf(r.tracePath), 'decision');
    assert.deepEqual(decisions.map((d) => [d.reason, d.overridden ?? false]), [['step-cap', false], ['step-cap', true], ['stalled', false]]);
    assert.deepEqual(decisions[1]!.grant, { extraSteps: 3, extraTokens: 0 });
    assert.equal(ofType(traceOf(r.tracePath), 'run-end').length, 2);
  });

  it('a continued run is offered for restore again until it finishes', async () => {
    const seen: string[][] = [];
    const half = { a: 'ok', b: 'bad' };
    // While the continued step runs, its checkpoint must read as interrupted: a critic (which the
    // loop waits for) looks at the storage in the middle of step 2.
    const probe: Critic = {
      name: 'probe',
      async reviewProposal(proposal) {
        if (proposal.step === 2) seen.push((await findInterruptedRuns(p.storage)).map((x) => x.runId));
        return { verdict: 'continue', reason: 'looked at the storage' };
      },
    };
    const { run } = makeRun(p, [step(A, half), step(half, FIXED)], { maxSteps: 1 }, { critics: [probe] });
    const first = await run.start();
    assert.equal(first.stopReason, 'step-cap');
    assert.deepEqual(await findInterruptedRuns(p.storage), []);
    const r = await run.continue({ extraSteps: 1 });
    assert.equal(r.stopReason, 'green', r.detail);
    assert.deepEqual(seen, [[first.runId]]);
    assert.deepEqual(await findInterruptedRuns(p.storage), []);
  });

  it('continue() after token-ceiling adds tokens', async () => {
    const half = { a: 'ok', b: 'bad' };
    const big = { ...step(A, half), usage: { input: 2500, output: 300 } };
    const { run } = makeRun(p, [big, { ...step(half, FIXED), usage: { input: 2500, output: 300 } }], { tokenCeiling: 3200 });
    const first = await run.start();
    assert.equal(first.stopReason, 'token-ceiling');
    const r = await run.continue({ extraTokens: 10000 });
    assert.equal(r.stopReason, 'green');
    assert.equal(r.tokensUsed, 5600);
    assert.equal(r.limits.tokenCeiling, 13200);
  });

  it('refuses to continue a run that did not stop for budget, or without the budget that ran out', async () => {
    const { run } = makeRun(p, [step(A, FIXED)], { maxSteps: 1 });
    await assert.rejects(run.continue({ extraSteps: 1 }), /only a run stopped by step-cap or token-ceiling can continue/);
    assert.equal((await run.start()).stopReason, 'green');
    await assert.rejects(run.continue({ extraSteps: 1 }), /this one stopped with green/);

    const q = project({ [SRC]: values(A) });
    try {
      const capped = makeRun(q, [step(A, B)], { maxSteps: 1 });
      assert.equal((await capped.run.start()).stopReason, 'step-cap');
      await assert.rejects(capped.run.continue({ extraTokens: 5000 }), /needs extraSteps > 0/);
    } finally {
      q.cleanup();
    }
  });

  it('a continuation hook may override step-cap; the override is recorded with overridden: true', async () => {
    const asked: [Decision, ContinuationState][] = [];
    const hook = (d: Decision, s: ContinuationState): { extraSteps: number } | undefined => {
      asked.push([d, s]);
      return asked.length === 1 ? { extraSteps: 1 } : undefined;
    };
    const S2 = { a: 'ok', b: 'worse' };
    const { run } = makeRun(p, [step(A, B), step(B, S2), step(S2, FIXED)], { maxSteps: 1, rollbackRegressions: false }, { continuation: hook });
    const r = await run.start();
    assert.equal(r.stopReason, 'step-cap', 'the hook granted one more step, then declined');
    assert.equal(r.steps.length, 2);
    assert.equal(asked.length, 2);
    assert.equal(asked[0]![0].reason, 'step-cap');
    assert.deepEqual(asked[0]![1], { ...asked[0]![1], stepsDone: 1, maxSteps: 1 });
    const decisions = ofType(traceOf(r.tracePath), 'decision');
    assert.deepEqual(decisions.map((d) => [d.reason, d.overridden ?? false]), [['step-cap', true], ['step-cap', false]]);
    assert.match(decisions[0]!.detail, /overridden by the continuation hook: \+1 step\(s\)/);
  });

  it('a hook grant that does not add what ran out is not an override', async () => {
    let asked = 0;
    const half = { a: 'ok', b: 'bad' };
    const { run } = makeRun(p, [step(A, half), step(half, FIXED)], { maxSteps: 1 }, { continuation: () => (asked++, { extraTokens: 100000 }) });
    const r = await run.start();
    assert.equal(r.stopReason, 'step-cap');
    assert.equal(asked, 1);
    assert.equal(ofType(traceOf(r.tracePath), 'decision').filter((d) => d.overridden).length, 0);
  });

  it('the hook is never asked about other stops', async () => {
    let asked = 0;
    const r = await makeRun(p, [step(A, FIXED)], {}, { continuation: () => (asked++, { extraSteps: 5 }) }).run.start();
    assert.equal(r.stopReason, 'green');
    assert.equal(asked, 0);
  });
});

// Every stop reason reached through the loop itself, with its evidence in the trace.
import assert from 'node:assert/strict';
import { ProviderFatalError } from '../../../src/core/model/provider';
import type { Completion, CompletionRequest } from '../../../src/core/types';
import type { Project } from './harness';
import { makeRun, ofType, project, SilentProvider, SRC, step, TEST, traceOf, values } from './harness';

const BAD3 = { a: 'bad', b: 'bad', c: 'bad' };

describe('loop: every stop reason', () => {
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values(BAD3), [TEST]: 'the tests\n' });
  });
  afterEach(() => p.cleanup());

  it('green at step 0 spends nothing', async () => {
    p.write(SRC, values({ a: 'ok' }));
    const { run } = makeRun(p, []);
    const r = await run.start();
    assert.equal(r.stopReason, 'green');
    assert.equal(r.outcome, 'fixed');
    assert.equal(r.steps.length, 0);
    assert.equal(r.tokensUsed, 0);
  });

  it('green after the step that fixes everything', async () => {
    const { run } = makeRun(p, [step(BAD3, { a: 'ok', b: 'ok', c: 'bad' }), step({ a: 'ok', b: 'ok', c: 'bad' }, { a: 'ok', b: 'ok', c: 'ok' }, { status: 'done' })]);
    const r = await run.start();
    assert.equal(r.stopReason, 'green', r.detail);
    assert.equal(r.steps.length, 2);
    assert.equal(r.outcome, 'fixed');
    assert.equal(r.fixedFailures.length, 3);
    assert.equal(p.read(SRC), values({ a: 'ok', b: 'ok', c: 'ok' }));
  });

  it('stalled over the whole run: A, B, A, B, A stops at step 4 and names the hash and steps', async () => {
    const A = BAD3;
    const B = { a: 'bad', b: 'bad', c: 'worse' };
    const { run } = makeRun(p, [step(A, B), step(B, A), step(A, B), step(B, A), step(A, B)], { rollbackRegressions: false });
    const r = await run.start();
    assert.equal(r.stopReason, 'stalled', r.detail);
    assert.equal(r.steps.length, 4);
    assert.match(r.detail, new RegExp(`${r.steps[3]!.failureHash.slice(0, 12)} seen 3 times \\(steps 0, 2, 4\\)`));
    const d = ofType(traceOf(r.tracePath), 'decision').at(-1)!;
    assert.deepEqual(d.evidence?.seenAt, [0, 2, 4]);
  });

  it('step-cap after maxSteps steps, with the evidence', async () => {
    const s1 = { a: 'ok', b: 'bad', c: 'bad' };
    const s2 = { a: 'ok', b: 'ok', c: 'bad' };
    const { run, provider } = makeRun(p, [step(BAD3, s1), step(s1, s2), step(s2, { a: 'ok', b: 'ok', c: 'ok' })], { maxSteps: 2 });
    const r = await run.start();
    assert.equal(r.stopReason, 'step-cap');
    assert.equal((provider as unknown as { used: number }).used, 2);
    assert.match(r.detail, /2 of 2 steps done/);
    assert.equal(r.outcome, 'partial');
  });

  it('token-ceiling: no call is made past it, and the output limit is clamped to what remains', async () => {
    const s1 = { a: 'ok', b: 'bad', c: 'bad' };
    const big = (from: Record<string, string>, to: Record<string, string>): ReturnType<typeof step> => ({ ...step(from, to), usage: { input: 2000, output: 500 } });
    const { run, provider } = makeRun(p, [big(BAD3, s1), big(s1, { a: 'ok', b: 'ok', c: 'bad' }), big(s1, BAD3)], { tokenCeiling: 5200 });
    const r = await run.start();
    assert.equal(r.stopReason, 'token-ceiling', r.detail);
    const reqs = (provider as unknown as { requests: CompletionRequest[] }).requests;
    assert.equal(reqs.length, 2);
    assert.equal(r.tokensUsed, 5000);
    assert.ok(reqs[1]!.maxOutputTokens <= 5200 - 2500);
    assert.match(r.detail, /only 200 of 5200 remain \(5000 used\)/);
  });

  it('cancelled before the first call, and cancelled while a call is in flight', async () => {
    const c1 = new AbortController();
    c1.abort();
    const first = makeRun(p, [], {}, { signal: c1.signal });
    assert.equal((await first.run.start()).stopReason, 'cancelled');

    const silent = new SilentProvider(false);
    const c2 = new AbortController();
    const second = makeRun(p, silent, {}, { signal: c2.signal });
    const done = second.run.start();
    while (silent.calls === 0) await new Promise((res) => setTimeout(res, 5));
    c2.abort();
    const r = await done;
    assert.equal(r.stopReason, 'cancelled');
    assert.equal(r.steps.length, 0, 'the aborted call is not a finished step');
    assert.equal(p.read(SRC), values(BAD3));
  });

  it('critic-stop when a critic says stop, before green in the order', async () => {
    const stopper = { name: 'api-guard', reviewResult: () => ({ verdict: 'stop' as const, reason: 'the public API changed' }) };
    const { run } = makeRun(p, [step(BAD3, { a: 'ok', b: 'ok', c: 'ok' })], {}, { critics: [stopper] });
    const r = await run.start();
    assert.equal(r.stopReason, 'critic-stop');
    assert.match(r.detail, /critic api-guard said stop at step 1: the public API changed/);
    assert.deepEqual(r.alsoFired, ['green']);
    assert.equal(r.outcome, 'partial', 'green was not what stopped it, but the state has fewer failures');
  });

  it('budget-depleted when the confidence budget reaches its floor', async () => {
    const s1 = { a: 'bad', b: 'worse', c: 'bad' };
    const s2 = { a: 'bad', b: 'worst', c: 'bad' };
    const { run } = makeRun(p, [step(BAD3, s1), step(s1, s2), step(s2, BAD3)], { confidenceBudget: { enabled: true, stepCost: 0.5, noveltyGain: 0.2 }, rollbackRegressions: false });
    const r = await run.start();
    // 1 - 0.5 + 0.1 = 0.6, then 0.6 - 0.5 + 0.1 = 0.2, then 0.2 - 0.5 + 0 = -0.3.
    assert.equal(r.stopReason, 'budget-depleted', r.detail);
    assert.equal(r.steps.length, 3);
    assert.deepEqual(r.steps.map((s) => s.budgetBalance), [0.6, 0.2, -0.3]);
    const budget = ofType(traceOf(r.tracePath), 'budget');
    assert.deepEqual(budget.map((b) => b.novelty), [0.5, 0.5, 0]);
  });

  it('the budget is off by default: no budget events, no balance', async () => {
    const { run } = makeRun(p, [step(BAD3, { a: 'ok', b: 'ok', c: 'ok' })]);
    const r = await run.start();
    assert.equal(ofType(traceOf(r.tracePath), 'budget').length, 0);
    assert.equal(r.steps[0]!.budgetBalance, null);
  });

  it('low-confidence when CONFIDENCE falls below escalateBelowConfidence; green still wins', async () => {
    const s1 = { a: 'ok', b: 'bad', c: 'bad' };
    const { run } = makeRun(p, [step(BAD3, s1, { confidence: 0.8 }), step(s1, { a: 'ok', b: 'ok', c: 'bad' }, { confidence: 0.2 })], { escalateBelowConfidence: 0.5 });
    const r = await run.start();
    assert.equal(r.stopReason, 'low-confidence');
    assert.equal(r.steps.length, 2);
    assert.match(r.detail, /CONFIDENCE 0\.2 at step 2 is below escalateBelowConfidence 0\.5/);

    const q = project({ [SRC]: values(BAD3) });
    try {
      const green = makeRun(q, [step(BAD3, { a: 'ok', b: 'ok', c: 'ok' }, { confidence: 0.1 })], { escalateBelowConfidence: 0.5 });
      const g = await green.run.start();
      assert.equal(g.stopReason, 'green');
      assert.deepEqual(g.alsoFired, ['low-confidence']);
    } finally {
      q.cleanup();
    }
  });

  it('unreachable when the model says blocked and the checks are not green; blocked with green is green', async () => {
    const { run } = makeRun(p, [step(BAD3, { a: 'ok', b: 'bad', c: 'bad' }, { status: 'blocked', postMortem: 'b needs a network service' })]);
    const r = await run.start();
    assert.equal(r.stopReason, 'unreachable');
    assert.match(r.detail, /STATUS: blocked at step 1 and 2 failure\(s\) remain/);

    const q = project({ [SRC]: values(BAD3) });
    try {
      const g = await makeRun(q, [step(BAD3, { a: 'ok', b: 'ok', c: 'ok' }, { status: 'blocked' })]).run.start();
      assert.equal(g.stopReason, 'green');
      const sr = ofType(traceOf(g.tracePath), 'self-report')[0]!;
      assert.equal(sr.agreed, false);
      assert.match(sr.note ?? '', /blocked ignored/);
    } finally {
      q.cleanup();
    }
  });

  it('preflight-failed before anything is written or spent', async () => {
    const { run } = makeRun(p, [], {}, { preflightProblems: ['check "lint": executable "eslint" not found'] });
    const r = await run.start();
    assert.equal(r.stopReason, 'preflight-failed');
    assert.equal(r.tokensUsed, 0);
    assert.equal(r.outcome, 'punt');
    assert.match(r.detail, /eslint/);
  });

  it('error when the provider refuses for good, naming the model', async () => {
    const refusing = { label: 'refusing', complete: async (): Promise<Completion> => { throw new ProviderFatalError('401 invalid key'); } };
    const r = await makeRun(p, refusing).run.start();
    assert.equal(r.stopReason, 'error');
    assert.match(r.detail, /model refusing: 401 invalid key/);
    assert.equal(p.read(SRC), values(BAD3));
  });

  it("names the model once when the provider's message already names it", async () => {
    const refusing = { label: 'openai-compatible:m', complete: async (): Promise<Completion> => { throw new ProviderFatalError('openai-compatible:m at 127.0.0.1:1/v1 refused the API key (401)'); } };
    const r = await makeRun(p, refusing).run.start();
    assert.equal(r.stopReason, 'error');
    assert.equal(r.detail, 'openai-compatible:m at 127.0.0.1:1/v1 refused the API key (401)');
  });
});

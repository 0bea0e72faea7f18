// The escalation ladder (DESIGN §3, Escalation) and the cost ceiling, through the loop itself: a
// real project, the real verifier running a real check, scripted models.
import assert from 'node:assert/strict';
import { createRunEngine } from '../../../src/core/engine';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import type { ReplayResponse } from '../../../src/core/model/replay';
import { ReplayProvider } from '../../../src/core/model/replay';
import type { CompletionRequest } from '../../../src/core/types';
import { diffOf, reply } from '../../support/replies';
import type { Project } from './harness';
import { makeRun, ofType, project, settings, SRC, step, TEST, values } from './harness';

const BAD = { a: 'bad', b: 'ok' };
const GOOD = { a: 'ok', b: 'ok' };
const NOTES = 'src/notes.txt';

/** Edits that change nothing the check sees: the failure identity stays the same. */
function stuck(from: number, n: number, o: { confidence?: number; status?: string } = {}): ReplayResponse[] {
  return Array.from({ length: n }, (_, i) => ({
    text: reply([diffOf(NOTES, `note ${from + i}\n`, `note ${from + i + 1}\n`)], { postMortem: `attempt ${from + i + 1}: rewording the notes`, ...o }),
    usage: { input: 1000, output: 100 },
  }));
}

function ladder(name: string, responses: ReplayResponse[]): ReplayProvider {
  return new ReplayProvider({ responses }, name);
}

describe('loop: the escalation ladder', () => {
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values(BAD), [TEST]: 'the tests\n', [NOTES]: 'note 0\n' });
  });
  afterEach(() => p.cleanup());

  it('a stalled model hands the same run to the next one, which fixes it: green, one escalated event, each step names its model', async () => {
    const cheap = ladder('cheap', stuck(0, 2));
    const strong = ladder('strong', [step(BAD, GOOD, { confidence: 0.9 })]);
    const { run, events } = makeRun(p, cheap, {}, { escalation: [{ provider: strong, price: null }] });
    const r = await run.start();
    assert.equal(r.stopReason, 'green', r.detail);
    assert.deepEqual(r.steps.map((s) => s.model), ['cheap', 'cheap', 'strong']);
    const esc = ofType(events, 'escalated');
    assert.equal(esc.length, 1);
    assert.equal(esc[0]!.reason, 'stalled');
    assert.equal(esc[0]!.step, 2);
    assert.deepEqual([esc[0]!.from, esc[0]!.to, esc[0]!.rung, esc[0]!.rungs], ['cheap', 'strong', 1, 1]);
    assert.deepEqual(esc[0]!.evidence?.seenAt, [0, 1, 2]);
    assert.deepEqual(r.escalations?.map((e) => e.to), ['strong']);
    // No stop decision was recorded for the handed-over stall: the run went on.
    assert.deepEqual(ofType(events, 'decision').map((d) => d.reason), ['green']);
    // The strong model sees the same run: the cheap model's post-mortems, its edits, and why it stopped.
    const prompt = (strong.requests[0]!.messages[0]!.content);
    assert.match(prompt, /attempt 2: rewording the notes/);
    assert.match(prompt, /Another model \(cheap\) worked on this before you and stopped with stalled/);
    assert.equal(p.read(NOTES), 'note 2\n', "the cheap model's edits are still there");
    assert.equal(p.read(SRC), values(GOOD));
    // The model-call events say which model answered.
    assert.deepEqual(ofType(events, 'model-call').map((e) => e.model), ['cheap', 'cheap', 'strong']);
  });

  it('the stall count restarts for the next model; when the ladder is exhausted the stop is the last model\'s', async () => {
    const cheap = ladder('cheap', stuck(0, 2));
    const strong = ladder('strong', stuck(2, 3));
    const { run, events } = makeRun(p, cheap, {}, { escalation: [{ provider: strong, price: null }] });
    const r = await run.start();
    assert.equal(r.stopReason, 'stalled', r.detail);
    assert.equal(r.steps.length, 4);
    // The strong model's window starts at the state it was handed (step 2), as step 0 starts the run's.
    assert.match(r.detail, /seen 3 times \(steps 2, 3, 4\)/);
    const d = ofType(events, 'decision').at(-1)!;
    assert.deepEqual(d.evidence?.seenAt, [2, 3, 4]);
    assert.equal(ofType(events, 'escalated').length, 1);
    assert.equal(r.outcome, 'punt');
    assert.equal(p.read(NOTES), 'note 0\n', 'keep-best restored the original bytes: nothing improved');
  });

  it('escalates only on the reasons in escalateOn', async () => {
    const strong = ladder('strong', [step(BAD, GOOD)]);
    const { run, events } = makeRun(p, ladder('cheap', stuck(0, 2)), { escalateOn: ['unreachable'] }, { escalation: [{ provider: strong, price: null }] });
    const r = await run.start();
    assert.equal(r.stopReason, 'stalled');
    assert.equal(ofType(events, 'escalated').length, 0);
    assert.equal(strong.used, 0);
  });

  it('low-confidence and unreachable hand over too', async () => {
    const unsure = ladder('unsure', stuck(0, 1, { confidence: 0.2 }));
    const blocked = ladder('blocked', stuck(1, 1, { status: 'blocked', confidence: 0.9 }));
    const strong = ladder('strong', [step(BAD, GOOD, { confidence: 0.9 })]);
    const { run, events } = makeRun(p, unsure, { escalateBelowConfidence: 0.5 }, { escalation: [{ provider: blocked, price: null }, { provider: strong, price: null }] });
    const r = await run.start();
    assert.equal(r.stopReason, 'green', r.detail);
    assert.deepEqual(ofType(events, 'escalated').map((e) => [e.reason, e.to, e.rung, e.rungs]), [['low-confidence', 'blocked', 1, 2], ['unreachable', 'strong', 2, 2]]);
  });

  it('the confidence budget starts full for the next model', async () => {
    const { run, events } = makeRun(p, ladder('cheap', stuck(0, 2)), { stallThreshold: 20, escalateOn: ['budget-depleted'], confidenceBudget: { enabled: true, stepCost: 0.5, noveltyGain: 0 } }, { escalation: [{ provider: ladder('strong', stuck(2, 2)), price: null }] });
    const r = await run.start();
    assert.equal(r.stopReason, 'budget-depleted');
    assert.deepEqual(ofType(events, 'budget').map((b) => [b.step, b.balance]), [[1, 0.5], [2, 0], [3, 0.5], [4, 0]]);
    assert.equal(ofType(events, 'escalated')[0]!.reason, 'budget-depleted');
  });

  it('maxSteps is the whole run\'s: the next model gets what is left, not a fresh allowance', async () => {
    const strong = ladder('strong', stuck(2, 5));
    const { run } = makeRun(p, ladder('cheap', stuck(0, 2)), { maxSteps: 3 }, { escalation: [{ provider: strong, price: null }] });
    const r = await run.start();
    assert.equal(r.stopReason, 'step-cap', r.detail);
    assert.equal(r.steps.length, 3);
    assert.equal(strong.used, 1);
  });
});

describe('loop: the cost ceiling', () => {
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values(BAD), [TEST]: 'the tests\n', [NOTES]: 'note 0\n' });
  });
  afterEach(() => p.cleanup());

  it('clamps each call to what the money left allows and stops before a call that could pass it', async () => {
    // Output at 1000 per million tokens: 0.001 each; input free. Each reply writes 100 tokens: 0.1.
    const price = { input: 0, output: 1000 };
    const model = ladder('priced', stuck(0, 10));
    const { run, events } = makeRun(p, model, { stallThreshold: 20, costCeiling: 0.65 }, { price });
    const r = await run.start();
    assert.equal(r.stopReason, 'cost-ceiling', r.detail);
    const reqs: CompletionRequest[] = model.requests;
    // After k calls, 0.65 - 0.1k is left: 650, 550, … output tokens; 0.25 buys 250 < 256, so no 5th call.
    assert.deepEqual(reqs.map((q) => q.maxOutputTokens), [650, 550, 450, 350]);
    assert.equal(r.steps.length, 4);
    assert.equal(r.costUsed, 0.4);
    assert.ok(r.costUsed! <= 0.65);
    assert.deepEqual(r.steps.map((s) => s.cost), [0.1, 0.1, 0.1, 0.1]);
    assert.match(r.detail, /but only 0\.25 of the cost ceiling 0\.65 remain \(0\.4 spent\)/);
    assert.equal(r.limits.costCeiling, 0.65);
    const calls = ofType(events, 'model-call');
    assert.deepEqual(calls.map((c) => c.costUsed), [0.1, 0.2, 0.3, 0.4]);
  });

  it('counts money per model across the ladder; a model without a price spends none the run counts', async () => {
    const strong = ladder('strong', [step(BAD, GOOD)]);
    const { run, events } = makeRun(p, ladder('free', stuck(0, 2)), { costCeiling: 5 }, { price: null, escalation: [{ provider: strong, price: { input: 2, output: 10 } }] });
    const r = await run.start();
    assert.equal(r.stopReason, 'green', r.detail);
    assert.deepEqual(r.steps.map((s) => s.cost), [null, null, 0.003]);
    assert.equal(r.costUsed, 0.003);
    assert.equal(ofType(events, 'run-start')[0]!.priced, true);
  });

  it('reports no money when no model has a price', async () => {
    const { run } = makeRun(p, [step(BAD, GOOD)]);
    const r = await run.start();
    assert.equal(r.costUsed, null);
  });
});

describe('engine: the ladder at preflight', () => {
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values(BAD), [TEST]: 'the tests\n' });
  });
  afterEach(() => p.cleanup());

  it('a rung that could not be built, or an unpriced one under a cost ceiling, stops the run before anything is spent', async () => {
    const base = settings();
    const st = { ...base, costCeiling: 1, model: { ...base.model, provider: 'replay' as const, id: 'cheap.json', escalation: [{ provider: 'openai-compatible' as const, id: 'big', baseUrl: '' }, { provider: 'anthropic' as const, id: 'huge', baseUrl: '' }], pricing: { 'cheap.json': { input: 1, output: 1 }, huge: { input: 3, output: 15 } } } };
    const cheap = ladder('cheap', [step(BAD, GOOD)]);
    const { run } = createRunEngine({ root: p.root, settings: st, storageDir: p.storage, workspace: new FsWorkspace(p.root), provider: cheap, escalation: [ladder('big', []), { problem: 'no key: set ANTHROPIC_API_KEY' }] });
    const r = await run.start();
    assert.equal(r.stopReason, 'preflight-failed');
    assert.match(r.detail, /fixUntilGreen\.model\.escalation\[1\]: no key: set ANTHROPIC_API_KEY/);
    assert.match(r.detail, /fixUntilGreen\.costCeiling is 1 but fixUntilGreen\.model\.escalation\[0\] \(openai-compatible:big\) has no price/);
    assert.equal(cheap.used, 0);
    assert.equal(p.read(SRC), values(BAD));
  });
});

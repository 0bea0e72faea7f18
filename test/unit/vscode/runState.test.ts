// Folding loop events into the state the meter and the panel draw.
import assert from 'node:assert/strict';
import type { StepRecord, TimedEvent } from '../../../src/core/trace/events';
import type { RunState } from '../../../src/vscode/common/runState';
import { canContinue, canRevert, canRevertToBest, continuing, continuingPhase, elapsedAt, idleState, reduceRunState } from '../../../src/vscode/common/runState';

const LIMITS = { maxSteps: 8, tokenCeiling: 200000, timeLimitSeconds: 1800 };
const ts = '2026-01-01T00:00:00.000Z';
const T0 = Date.parse(ts);

function record(index: number, failureCount: number): StepRecord {
  return { index, failureHash: `h${failureCount}`, failureCount, applied: true, tokens: 100, postMortem: `pm ${index}`, status: 'in_progress', confidence: 0.5, files: [{ path: 'a.ts', kind: 'modify', added: 1, removed: 1 }], checks: [], critics: [], feedback: null, durationMs: 5, snapshotDir: `/s/${index}`, rolledBack: null };
}

function fold(events: TimedEvent[]): RunState {
  const first: RunState = { ...idleState('/w', 'w', LIMITS), runDir: '/store/runs/r' };
  return events.reduce<RunState>((s, e) => reduceRunState(s, e), first);
}

describe('run state', () => {
  const start: TimedEvent = { ts, type: 'run-start', step: 0, runId: 'r', root: '/w', model: 'm', instruction: 'keep the API', checks: [], limits: { ...LIMITS, maxSteps: 3 }, settings: {} };
  const verify0: TimedEvent = { ts, type: 'verify', step: 0, green: false, failureHash: 'h2', failureCount: 2, failures: [{ check: 't', file: 'a.ts', message: 'x' }, { check: 't', message: 'y' }], flaky: [], checks: [], durationMs: 1, reason: 'initial' };

  it('starts running with the run limits and keeps the run directory', () => {
    const s = fold([start, verify0]);
    assert.equal(s.status, 'running');
    assert.equal(s.limits.maxSteps, 3);
    assert.equal(s.runDir, '/store/runs/r');
    assert.equal(s.instruction, 'keep the API');
    assert.equal(s.initialFailureCount, 2);
    assert.equal(s.remainingFailures.length, 2);
    assert.deepEqual(s.failuresPerStep, [{ step: 0, count: 2 }]);
    assert.equal(s.startedAt, T0);
    // The verify says what it found; that a model call follows is the engine's to say.
    assert.equal(s.phase, 'step 0: 2 failures');
    assert.equal(elapsedAt(s, T0 + 4000), 4000);
  });

  it('says "asking the model for step N" only when the model-call-start event comes', () => {
    const before = fold([start, verify0]);
    assert.doesNotMatch(before.phase, /asking the model/, 'a failing verify alone is no model call');
    assert.equal(before.step, 0);
    const callStart: TimedEvent = { ts, type: 'model-call-start', step: 1, model: 'm', promptTokens: 1234, maxOutputTokens: 4096 };
    const asking = reduceRunState(before, callStart);
    assert.equal(asking.phase, 'step 1: asking the model for step 1 (1,234 prompt tokens)');
    assert.equal(asking.step, 1, 'the meter counts the step whose call started');
    assert.equal(asking.tokensUsed, 0, 'tokens count when the call ends');
    const done = fold([start, verify0, callStart, { ts, type: 'step-end', step: 1, record: record(1, 1), tokensUsed: 115, elapsedMs: 50 }]);
    assert.equal(done.phase, 'step 1: done, 1 failure', 'after a step ends the next call is not announced before it starts');
    const stopping = reduceRunState(done, { ts, type: 'decision', step: 1, reason: 'stalled', detail: 'same failures' });
    assert.equal(stopping.phase, 'stopping: no progress', 'the badge\'s words, not the reason id');
    assert.equal(reduceRunState(done, { ts, type: 'decision', step: 1, reason: 'step-cap', detail: '' }).phase, 'stopping: steps used up');
    const next = reduceRunState(done, { ...callStart, step: 2, promptTokens: 2000 });
    assert.equal(next.phase, 'step 2: asking the model for step 2 (2,000 prompt tokens)');
    assert.equal(next.step, 2);
  });

  it('shows a retry wait in the phase: the fault and when the next attempt comes', () => {
    const s = fold([start, verify0, { ts, type: 'model-retry', step: 1, attempt: 2, delayMs: 4300, reason: '429 Rate limit reached for requests\nmore detail', retryAfterMs: 4000 }]);
    assert.equal(s.phase, 'step 1: model call failed (429 Rate limit reached for requests); retrying in 4 s (attempt 3)');
    assert.equal(s.status, 'running');
  });

  it('attaches critic verdicts to the step they judged', () => {
    const s = fold([
      start,
      verify0,
      { ts, type: 'model-call', step: 1, model: 'm', promptTokens: 10, maxOutputTokens: 100, usage: { input: 10, output: 5 }, usageReported: true, durationMs: 1, tokensUsed: 15, reply: '', status: null, confidence: null, postMortem: null, problems: [], error: null },
      { ts, type: 'critic', step: 1, phase: 'proposal', verdict: { critic: 'protected-paths', phase: 'proposal', verdict: 'retry', reason: 'edits a test file' } },
      { ts, type: 'step-end', step: 1, record: record(1, 1), tokensUsed: 115, elapsedMs: 50 },
    ]);
    assert.equal(s.step, 1);
    assert.equal(s.tokensUsed, 115);
    assert.deepEqual(s.steps[0]!.critics, [{ critic: 'protected-paths', phase: 'proposal', verdict: 'retry', reason: 'edits a test file' }]);
    assert.deepEqual(s.pendingCritics, []);
    assert.deepEqual(s.failuresPerStep, [{ step: 0, count: 2 }, { step: 1, count: 1 }]);
  });

  it('takes the final word from the report, and knows what can follow', () => {
    const report = { runId: 'r', stopReason: 'step-cap' as const, outcome: 'partial' as const, detail: '3 of 3 steps', steps: [record(1, 1)], tokensUsed: 115, elapsedMs: 90, initialFailureCount: 2, remainingFailures: [], fixedFailures: [], bestStep: 1, hypotheses: [], tracePath: '/store/runs/r/trace.jsonl', limits: { ...LIMITS, maxSteps: 3 } };
    const s = fold([start, verify0, { ts, type: 'run-end', step: 1, report }]);
    assert.equal(s.status, 'stopped');
    assert.equal(s.stopReason, 'step-cap');
    assert.equal(s.bestStep, 1);
    assert.equal(s.tracePath, '/store/runs/r/trace.jsonl');
    assert.ok(canContinue(s));
    assert.ok(canRevert(s));
    const c = continuing(s, { ...s.limits, maxSteps: 6 }, T0 + 10_000);
    assert.equal(c.status, 'running');
    assert.equal(c.limits.maxSteps, 6);
    assert.equal(c.stopReason, null);
    // The engine's clock does not count the pause before Continue: the live figure goes on from the stop's.
    assert.equal(c.startedAt, T0 + 10_000 - s.elapsedMs, "a continued run's clock goes on from the stop's elapsed time");
    assert.equal(elapsedAt(c, T0 + 10_000), s.elapsedMs, 'the time shown does not jump at Continue');
    assert.ok(elapsedAt(c, T0 + 12_000) > s.elapsedMs);
    assert.ok(!canContinue({ ...s, stopReason: 'stalled' }));
    assert.ok(!canRevert({ ...s, steps: [] }));
  });

  it('follows the ladder and the money: each step keeps its model, escalated says who took over, unpriced models are named', () => {
    const priced: TimedEvent = { ...start, model: 'openai-compatible:cheap', ladder: ['openai-compatible:strong'], priced: true, limits: { ...LIMITS, costCeiling: 1 } } as TimedEvent;
    const call = (step: number, model: string, cost: number | null, costUsed: number): TimedEvent => ({ ts, type: 'model-call', step, model, promptTokens: 10, maxOutputTokens: 100, usage: { input: 10, output: 5 }, usageReported: true, durationMs: 1, tokensUsed: 15 * step, reply: 'x', status: null, confidence: null, postMortem: null, problems: [], error: null, cost, costUsed });
    const end = (step: number, model: string, cost: number | null, costUsed: number): TimedEvent => ({ ts, type: 'step-end', step, record: { ...record(step, 2), model, cost }, tokensUsed: 15 * step, elapsedMs: 10, costUsed });
    const escalated: TimedEvent = { ts, type: 'escalated', step: 1, reason: 'stalled', detail: 'seen 3 times', from: 'openai-compatible:cheap', to: 'openai-compatible:strong', rung: 1, rungs: 1 };
    const s = fold([priced, verify0, call(1, 'openai-compatible:cheap', null, 0), end(1, 'openai-compatible:cheap', null, 0), escalated, call(2, 'openai-compatible:strong', 0.02, 0.02), end(2, 'openai-compatible:strong', 0.02, 0.02)]);
    assert.equal(s.costUsed, 0.02);
    assert.equal(s.limits.costCeiling, 1);
    assert.deepEqual(s.steps.map((x) => [x.model, x.cost]), [['openai-compatible:cheap', null], ['openai-compatible:strong', 0.02]]);
    assert.deepEqual(s.escalations, [{ step: 1, reason: 'stalled', from: 'openai-compatible:cheap', to: 'openai-compatible:strong' }]);
    assert.equal(s.model, 'openai-compatible:strong', 'the header names the model at work');
    assert.deepEqual(s.unpriced, ['openai-compatible:cheap']);
    const afterEscalation = fold([priced, verify0, escalated]);
    assert.equal(afterEscalation.phase, 'Escalated to strong after step 1: cheap made no progress.');
    assert.deepEqual(afterEscalation.modelNames, { 'openai-compatible:cheap': 'cheap', 'openai-compatible:strong': 'strong' }, 'how a person names each model of the run');
    // A chat model of VS Code by the name VS Code gives it (run-start's names); two models of one id told apart by provider.
    const named = fold([{ ...start, model: 'vscode-lm:copilot-gpt-4o', names: { 'vscode-lm:copilot-gpt-4o': 'GPT-4o' }, ladder: ['openai-compatible:gpt-4o', 'anthropic:gpt-4o'] } as TimedEvent]);
    assert.deepEqual(named.modelNames, { 'vscode-lm:copilot-gpt-4o': 'GPT-4o', 'openai-compatible:gpt-4o': 'gpt-4o (openai-compatible)', 'anthropic:gpt-4o': 'gpt-4o (anthropic)' });
    assert.equal(fold([start, verify0]).costUsed, null, 'no price anywhere: no money');
  });

  it('Revert to best is offered only when it would change the files (issue 40)', () => {
    const base: RunState = { ...idleState('/w', 'w', LIMITS), status: 'stopped', runDir: '/runs/r', stopReason: 'green', outcome: 'fixed', steps: [1, 2].map((i) => ({ ...record(i, 2 - i), model: null, editErrors: [], restoredToStep: null, critics: [], rolledBack: null })), bestStep: 2, step: 2 };
    assert.equal(canRevertToBest(base), false, 'green, best step = last step: the files already hold it');
    assert.equal(canRevertToBest({ ...base, reverted: 'run' }), true, 'after Revert run it brings the fix back');
    assert.equal(canRevertToBest({ ...base, reverted: 'best' }), false);
    assert.equal(canRevertToBest({ ...base, stopReason: 'stalled', bestStep: 1 }), true, 'the best step is not the last');
    assert.equal(canRevertToBest({ ...base, stopReason: 'step-cap', bestStep: 1, held: { step: 1, target: 'best' } }), false, 'keep-best already holds it');
    assert.equal(canRevertToBest({ ...base, bestStep: null }), false);
  });

  it('a continuation from the original files says "where the run started", not "step 0"', () => {
    const base: RunState = { ...idleState('/w', 'w', LIMITS), status: 'stopped', step: 2, held: { step: 0, target: 'initial' } };
    assert.equal(continuingPhase(base), 'step 2: continuing from where the run started (the original files)');
    assert.equal(continuingPhase({ ...base, held: { step: 1, target: 'best' } }), 'step 2: continuing from step 1 (the best step), where the files are');
  });
});

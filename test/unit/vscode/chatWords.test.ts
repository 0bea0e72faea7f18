// `@fix` answers as an agent does: a short list of steps and one closing sentence, never the engine's
// words (reason id, outcome, evidence, identity hashes, run id, trace path).
import assert from 'node:assert/strict';
import type { RunReport, TimedEvent } from '../../../src/core/trace/events';
import { readValues } from '../../../src/core/verify/values';
import { stepLine, stopMarkdown } from '../../../src/vscode/common/chatWords';

type Verify = Extract<TimedEvent, { type: 'verify' }>;
const verify = (o: Partial<Verify>): Verify => ({ type: 'verify', t: 0, step: 0, reason: 'initial', green: false, failureCount: 3, failureHash: '8b9e206b62e8aa00', checks: [], ...o }) as unknown as Verify;

describe('@fix answers in plain words', () => {
  it('lists each check pass as a short step, with no identity hash', () => {
    assert.equal(stepLine(verify({}), undefined, undefined), '- Before any edit: 3 failures');
    assert.equal(stepLine(verify({ step: 1, reason: 'step', failureCount: 1 }), ['src/cart.ts'], undefined), '- Step 1: edited `src/cart.ts` → 1 failure left');
    assert.equal(stepLine(verify({ step: 2, reason: 'step', green: true, failureCount: 0 }), ['src/cart.ts'], undefined), '- Step 2: edited `src/cart.ts` → **green**');
    assert.doesNotMatch(stepLine(verify({ step: 1, reason: 'step' }), undefined, 'src/a.ts: hunk 1 did not match'), /8b9e206b/);
  });

  it('closes with the one sentence of the stop, and nothing of the engine', () => {
    const r = {
      runId: '20261127-011440-ab12', stopReason: 'step-cap', outcome: 'partial', detail: '1 of 1 steps done and the checks are not green; identity 8b9e206b62e8',
      steps: [{ index: 1, applied: true, failureCount: 1 }], remainingFailures: [readValues({ check: 'test', id: 'applyDiscount', message: "AssertionError: Expected values to be strictly equal:\n\n190 !== 180\n" })],
      limits: { maxSteps: 1, tokenCeiling: 200000, timeLimitSeconds: 600 }, tracePath: '/home/u/.vscode-server/data/User/workspaceStorage/abc/fix-until-green/runs/x.jsonl', tokensUsed: 1200, held: null,
    } as unknown as RunReport;
    const text = stopMarkdown(r);
    assert.equal(text.trim(), 'Stopped: all 1 step used; 1 failure left (applyDiscount: 190 !== 180). Continue gives it more steps.');
    assert.doesNotMatch(text, /step-cap|partial|identity|8b9e206b|20261127|workspaceStorage|Evidence|Trace/);
  });
});

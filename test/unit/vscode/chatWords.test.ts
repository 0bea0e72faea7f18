// `@fix` answers as an agent does: a short list of steps and one closing sentence, never the engine's
// words (reason id, outcome, evidence, identity hashes, run id, trace path).
import assert from 'node:assert/strict';
import type { RunReport, TimedEvent } from '../../../src/core/trace/events';
import type { Failure, VerifyResult } from '../../../src/core/types';
import { readValues } from '../../../src/core/verify/values';
import { chatFailure, checksHead, checksProgress, flakyNote, placeOf, stepLine, stopMarkdown, workingLine } from '../../../src/vscode/common/chatWords';

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

describe('@fix /checks answers a person, not an agent (issue 40)', () => {
  // What node:test prints for a failed string comparison: the legend, the diff, the caret, the stack.
  const nodeMessage = "Expected values to be strictly equal:\n+ actual - expected\n\n+ '12.5 EUR'\n- '12.05 EUR'\n     ^\n\n    at TestContext.<anonymous> (test/invoice.test.ts:12:10)";
  const test = readValues({ check: 'tests', file: 'test/invoice.test.ts', line: 12, column: 10, id: 'formatTotal prints euros and cents', message: nodeMessage });
  const type = { check: 'type check', file: 'src/tax.ts', line: 3, column: 7, id: 'TS2322', message: "Type 'string' is not assignable to type 'number'.\n  3 | export const rate: number = '0.2';\n    |              ^^^^" };
  const lint = { check: 'lint', file: 'src/tax.ts', line: 9, column: 1, id: 'no-unused-vars', message: "'old' is assigned a value but never used." };
  const result = (failures: Failure[]): Pick<VerifyResult, 'green' | 'failures' | 'checks'> => ({
    green: failures.length === 0,
    failures,
    checks: (['type check', 'lint', 'tests'] as const).map((name, i) => {
      const own = failures.filter((f) => f.check === name);
      return { name, parser: (['tsc', 'eslint', 'node-test'] as const)[i], exitCode: own.length > 0 ? 1 : 0, timedOut: false, failures: own };
    }) as unknown as VerifyResult['checks'],
  });

  it('leads with how many failures in how many files, each check in the panel\'s words', () => {
    assert.equal(checksHead(result([test, type, lint])), '**Not green:** 3 failures in 2 files (type check: 1 error · lint: 1 problem · tests: 1 failing).');
    assert.equal(checksHead(result([test])), '**Not green:** 1 failure in 1 file (tests: 1 failing).', 'the checks that pass are not listed');
    assert.equal(checksHead(result([])), '**Green:** every check passes.');
  });

  it('words each failure by its values and place: expected and actual in words, no legend, caret, stack, code frame or TypeScript code', () => {
    const t = chatFailure(test, 'node-test');
    assert.equal(t.text, "**formatTotal prints euros and cents**: expected '12.05 EUR', got '12.5 EUR'");
    assert.equal(placeOf(t), 'test/invoice.test.ts:12');
    const ty = chatFailure(type, 'tsc');
    assert.equal(ty.text, "Type 'string' is not assignable to type 'number'.");
    assert.deepEqual([ty.file, ty.line, ty.column], ['src/tax.ts', 3, 7]);
    assert.equal(chatFailure(lint, 'eslint').text, "'old' is assigned a value but never used. (no-unused-vars)");
    const untold = chatFailure({ check: 'tests', file: 'test/a.test.ts', id: 'adds', message: 'AssertionError [ERR_ASSERTION]: the sum is wrong\n    at x (a.js:1:1)' }, 'mocha');
    assert.equal(untold.text, '**adds**: the sum is wrong');
    for (const f of [t, ty, untold]) assert.doesNotMatch(f.text, /actual - expected|\^|\bat \w|TS2322|\[tsc|\| /);
  });

  it('says what changed since the last check in words, never the identity or the seen counter', () => {
    assert.equal(checksProgress('first', null), '');
    assert.equal(checksProgress('repeat', 1), 'The same failures as the last check.');
    assert.equal(checksProgress('repeat', 3), 'The same failures as an earlier check.');
    assert.equal(checksProgress('progress', null), 'Fewer failures than the last check.');
    assert.equal(checksProgress('regressed', null), 'More failures than the last check.');
    assert.equal(flakyNote(2), '2 more failures did not come back on a re-run, so they are not counted.');
    const all = [checksHead(result([test, type])), checksProgress('repeat', 1), ...[test, type].map((f) => chatFailure(f).text)].join('\n');
    assert.doesNotMatch(all, /identity|seen \d+ time|\(s\)|[0-9a-f]{12}/);
  });

  it('names the model as a person would in its first line', () => {
    const start = { type: 'run-start', model: 'vscode-lm:fug-scripted-model', names: { 'vscode-lm:fug-scripted-model': 'Scripted Test Model' }, limits: { maxSteps: 1 } } as unknown as Extract<TimedEvent, { type: 'run-start' }>;
    assert.equal(workingLine(start), 'Working with Scripted Test Model, at most 1 step.');
    assert.equal(workingLine({ ...start, model: 'openai-compatible:big-coder', names: undefined } as unknown as typeof start), 'Working with big-coder, at most 1 step.');
  });
});

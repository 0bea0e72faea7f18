// Critics on the loop: a retry rolls the edit back, counts as a step, and re-prompts with the reason.
import assert from 'node:assert/strict';
import type { CompletionRequest } from '../../../src/core/types';
import { diffOf, reply } from '../../support/replies';
import type { Project } from './harness';
import { makeRun, ofType, project, SRC, step, TEST, traceOf, values } from './harness';

const BAD3 = { a: 'bad', b: 'bad', c: 'bad' };
const TEST_TEXT = 'assert a\nassert b\nassert c\n';

function prompts(provider: unknown): string[] {
  return (provider as { requests: CompletionRequest[] }).requests.map((r) => r.messages[0]!.content);
}

describe('loop: critics', () => {
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values(BAD3), [TEST]: TEST_TEXT });
  });
  afterEach(() => p.cleanup());

  it('protected paths: an edit to a test file is not written, counts as a step, and the reason is fed back', async () => {
    const editTest = { text: reply([diffOf(TEST, TEST_TEXT, 'assert a\n')]), usage: { input: 500, output: 50 } };
    const { run, provider } = makeRun(p, [editTest, step(BAD3, { a: 'ok', b: 'ok', c: 'ok' })]);
    const r = await run.start();
    assert.equal(r.stopReason, 'green', r.detail);
    assert.equal(r.steps.length, 2, 'the retried step counts');
    assert.equal(p.read(TEST), TEST_TEXT, 'the test file is untouched');
    const s1 = r.steps[0]!;
    assert.equal(s1.applied, false);
    assert.equal(s1.rolledBack, 'previous');
    assert.deepEqual(s1.critics.map((c) => `${c.critic}:${c.verdict}`), ['protected-paths:retry', 'no-suppressions:continue', 'verifier-integrity:continue']);
    assert.match(prompts(provider)[1]!, /protected-paths: the edit touches protected file\(s\) test\/values\.test\.txt/);
    const critics = ofType(traceOf(r.tracePath), 'critic');
    assert.ok(critics.some((c) => c.step === 1 && c.phase === 'proposal' && c.verdict.verdict === 'retry'));
  });

  it('protected paths retried every time stall the run (the state never changes)', async () => {
    const editTest = { text: reply([diffOf(TEST, TEST_TEXT, 'assert a\n')]) };
    const r = await makeRun(p, [editTest, editTest, editTest]).run.start();
    assert.equal(r.stopReason, 'stalled');
    assert.equal(r.steps.length, 2);
  });

  it('no suppressions: an added @ts-ignore is refused and the file left as it was', async () => {
    const withIgnore = { text: reply([diffOf(SRC, values(BAD3), '// @ts-ignore\n' + values(BAD3))]) };
    const { run, provider } = makeRun(p, [withIgnore, step(BAD3, { a: 'ok', b: 'ok', c: 'ok' })]);
    const r = await run.start();
    assert.equal(r.stopReason, 'green');
    assert.equal(r.steps[0]!.rolledBack, 'previous');
    assert.match(prompts(provider)[1]!, /no-suppressions: the edit adds suppression\(s\).*@ts-ignore in src\/values\.txt/);
  });

  it('the settings switch the built-ins off', async () => {
    const editTest = { text: reply([diffOf(TEST, TEST_TEXT, 'assert a\n')]) };
    const withIgnore = { text: reply([diffOf(SRC, values(BAD3), '// @ts-ignore\n' + values(BAD3))]) };
    const r = await makeRun(p, [editTest, withIgnore], { protectedPaths: [], forbidSuppressions: false, allowVerifierEdits: true, maxSteps: 2 }).run.start();
    assert.equal(r.steps[0]!.applied, true);
    assert.equal(r.steps[1]!.applied, true);
    assert.equal(r.outcome, 'punt', 'neither edit fixed anything');
    assert.equal(p.read(TEST), TEST_TEXT, 'a punt restores the original bytes');
    assert.deepEqual(r.steps[1]!.critics.map((c) => c.critic), ['protected-paths', 'regression']);
  });

  it('regression: a step that breaks more than it fixes is rolled back to the best state and retried with the evidence', async () => {
    const s1 = { a: 'ok', b: 'bad', c: 'bad' };
    const s2 = { a: 'bad', b: 'ok', c: 'bad', d: 'bad' };
    const { run, provider, verifier } = makeRun(p, [step(BAD3, s1), step(s1, s2), step(s1, { a: 'ok', b: 'ok', c: 'ok' })]);
    const r = await run.start();
    assert.equal(r.stopReason, 'green', r.detail);
    assert.equal(r.steps.length, 3);
    // Flake re-runs compare with the state on disk: after the rollback that is step 1's, not step 2's.
    const regressed = ofType(traceOf(r.tracePath), 'verify').find((v) => v.step === 2)!.failureHash;
    assert.equal(verifier.previousHashes.length, 4);
    assert.equal(verifier.previousHashes[0], null);
    assert.equal(verifier.previousHashes[2], r.steps[0]!.failureHash);
    assert.equal(verifier.previousHashes[3], r.steps[0]!.failureHash);
    assert.notEqual(verifier.previousHashes[3], regressed);
    const s = r.steps[1]!;
    assert.equal(s.rolledBack, 'best');
    assert.equal(s.failureCount, 2, 'the step leaves the best state');
    assert.equal(s.failureHash, r.steps[0]!.failureHash);
    const critic = s.critics.find((c) => c.critic === 'regression')!;
    assert.equal(critic.verdict, 'retry');
    assert.match(critic.reason, /3 failure\(s\), more than the 2 of the best state \(step 1\); newly failing \(passed at step 0\): \[test\] test\/values\.test\.txt d/);
    assert.match(prompts(provider)[2]!, /rolled back to the state of step 1/);
    const trace = traceOf(r.tracePath);
    const rollback = ofType(trace, 'edit').find((e) => e.rolledBack);
    assert.equal(rollback?.restoredToStep, 1);
    assert.ok(ofType(trace, 'verify').some((v) => v.step === 2 && v.failureCount === 3), 'the regressed state was verified and recorded');
  });

  it('regression: same count but something that passed at step 0 now fails → roll back to best', async () => {
    const s1 = { a: 'ok', b: 'bad', c: 'bad' };
    const s2 = { a: 'ok', b: 'ok', c: 'bad', d: 'bad' };
    const r = await makeRun(p, [step(BAD3, s1), step(s1, s2)], { maxSteps: 2 }).run.start();
    assert.equal(r.steps[1]!.rolledBack, 'best');
    assert.equal(p.read(SRC), values(s1), 'the workspace holds the best state');
  });

  it('regression off: the regressed state is kept', async () => {
    const s1 = { a: 'ok', b: 'bad', c: 'bad' };
    const s2 = { a: 'bad', b: 'ok', c: 'bad', d: 'bad' };
    const r = await makeRun(p, [step(BAD3, s1), step(s1, s2)], { maxSteps: 2, rollbackRegressions: false, onStop: 'keep-last' }).run.start();
    assert.equal(r.steps[1]!.rolledBack, null);
    assert.equal(p.read(SRC), values(s2));
  });

  it('a plugged-in result critic retrying rolls back to the state before the step', async () => {
    const s1 = { a: 'ok', b: 'bad', c: 'bad' };
    let calls = 0;
    const picky = {
      name: 'picky',
      reviewResult: () => (++calls === 2 ? { verdict: 'retry' as const, reason: 'b must not be fixed before c', score: 0.1 } : { verdict: 'continue' as const, reason: 'fine' }),
    };
    const { run, provider } = makeRun(p, [step(BAD3, s1), step(s1, { a: 'ok', b: 'ok', c: 'bad' }), step(s1, { a: 'ok', b: 'ok', c: 'ok' })], {}, { critics: [picky] });
    const r = await run.start();
    assert.equal(r.stopReason, 'green');
    assert.equal(r.steps[1]!.rolledBack, 'previous');
    assert.equal(r.steps[1]!.critics.find((c) => c.critic === 'picky')?.score, 0.1);
    assert.match(prompts(provider)[2]!, /picky: b must not be fixed before c/);
  });

  it('a proposal critic saying stop ends the run with critic-stop and writes nothing', async () => {
    const stopper = { name: 'guard', reviewProposal: () => ({ verdict: 'stop' as const, reason: 'too large' }) };
    const r = await makeRun(p, [step(BAD3, { a: 'ok', b: 'ok', c: 'ok' })], {}, { critics: [stopper] }).run.start();
    assert.equal(r.stopReason, 'critic-stop');
    assert.equal(p.read(SRC), values(BAD3));
  });

  it('a critic that throws stops the run with error, naming it', async () => {
    const broken = { name: 'broken', reviewProposal: (): never => { throw new Error('no config'); } };
    const r = await makeRun(p, [step(BAD3, { a: 'ok', b: 'ok', c: 'ok' })], {}, { critics: [broken] }).run.start();
    assert.equal(r.stopReason, 'error');
    assert.match(r.detail, /critic broken: threw while reviewing the proposal: no config/);
    assert.equal(p.read(SRC), values(BAD3));
  });
});

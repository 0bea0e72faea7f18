// The reply header on the loop: done is checked, bad headers are recorded, post-mortems flow into prompts.
import assert from 'node:assert/strict';
import type { CompletionRequest } from '../../../src/core/types';
import { diffOf } from '../../support/replies';
import type { Project } from './harness';
import { makeRun, ofType, project, SRC, step, traceOf, values } from './harness';

const BAD2 = { a: 'bad', b: 'bad' };

function prompts(provider: unknown): string[] {
  return (provider as { requests: CompletionRequest[] }).requests.map((r) => r.messages[0]!.content);
}

describe('loop: self-report', () => {
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values(BAD2) });
  });
  afterEach(() => p.cleanup());

  it('rejects a done the checks do not confirm, records it, and goes on', async () => {
    const s1 = { a: 'ok', b: 'bad' };
    const { run, provider } = makeRun(p, [step(BAD2, s1, { status: 'done', confidence: 0.95 }), step(s1, { a: 'ok', b: 'ok' }, { status: 'done' })]);
    const r = await run.start();
    assert.equal(r.stopReason, 'green');
    assert.equal(r.steps.length, 2);
    const reports = ofType(traceOf(r.tracePath), 'self-report');
    assert.equal(reports[0]!.agreed, false);
    assert.match(reports[0]!.note ?? '', /STATUS: done was rejected: the checks still report 1 failure\(s\)/);
    assert.equal(reports[1]!.agreed, true);
    assert.match(prompts(provider)[1]!, /STATUS: done was rejected/);
  });

  it('handles bad replies (empty, no header, confidence 1.7 or high) with a clear trace entry, never a crash', async () => {
    const noHeader = { text: 'Here you go:\n```diff\n' + diffOf(SRC, values(BAD2), values({ a: 'ok', b: 'bad' })) + '```\n' };
    const replies = [
      { text: '' },
      noHeader,
      { text: 'STATUS: in_progress\nCONFIDENCE: 1.7\nPOSTMORTEM: sure\n' },
      { text: 'STATUS: in_progress\nCONFIDENCE: high\nPOSTMORTEM: sure\n' },
    ];
    const r = await makeRun(p, replies, { stallThreshold: 3, escalateBelowConfidence: 0.5 }).run.start();
    assert.equal(r.stopReason, 'stalled', r.detail);
    assert.equal(r.steps.length, 4);
    const calls = ofType(traceOf(r.tracePath), 'model-call');
    assert.deepEqual(calls[0]!.problems, ['empty reply: no STATUS, CONFIDENCE or POSTMORTEM']);
    assert.deepEqual(calls[1]!.problems, ['no STATUS line', 'no CONFIDENCE line', 'no POSTMORTEM line']);
    assert.deepEqual(calls[2]!.problems, ['CONFIDENCE "1.7" is not a number from 0 to 1; read as absent']);
    assert.deepEqual(calls[3]!.problems, ['CONFIDENCE "high" is not a number from 0 to 1; read as absent']);
    assert.equal(r.steps[1]!.applied, true, 'a reply without a header still has its edit applied');
    assert.deepEqual(r.steps.map((s) => s.confidence), [null, null, null, null]);
    assert.deepEqual(r.steps[2]!.selfReportProblems, ['CONFIDENCE "1.7" is not a number from 0 to 1; read as absent']);
    const reports = ofType(traceOf(r.tracePath), 'self-report');
    assert.equal(reports.length, 4);
    assert.ok(reports.every((x) => x.problems.length > 0));
  });

  it('keeps the last three post-mortems, feeds them to the next prompt, and shows them in the trace', async () => {
    const states = [BAD2, { a: 'bad', b: 'x1' }, { a: 'bad', b: 'x2' }, { a: 'bad', b: 'x3' }, { a: 'bad', b: 'x4' }, { a: 'ok', b: 'ok' }];
    const replies = states.slice(1).map((to, i) => step(states[i]!, to, { postMortem: `hypothesis ${i + 1}` }));
    const { run, provider } = makeRun(p, replies);
    const r = await run.start();
    assert.equal(r.stopReason, 'green');
    const ps = prompts(provider);
    assert.doesNotMatch(ps[0]!, /Earlier post-mortems/);
    assert.match(ps[1]!, /1\. hypothesis 1\n*$|1\. hypothesis 1/);
    assert.match(ps[4]!, /1\. hypothesis 2\n2\. hypothesis 3\n3\. hypothesis 4/);
    assert.doesNotMatch(ps[4]!, /hypothesis 1\b/);
    const last = ofType(traceOf(r.tracePath), 'self-report').at(-1)!;
    assert.deepEqual(last.postMortems.map((x) => x.step), [3, 4, 5]);
  });
});

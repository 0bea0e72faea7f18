// The reply header: tolerant where models vary, strict where a guess would mislead the policy.
import assert from 'node:assert/strict';
import { parseConfidence, parseSelfReport, POSTMORTEM_MAX_CHARS, PostMortems } from '../../../src/core/policy/selfReport';

describe('self-report parsing', () => {
  it('reads the three plain header lines', () => {
    const r = parseSelfReport('STATUS: in_progress\nCONFIDENCE: 0.7\nPOSTMORTEM: First attempt.\n\n```diff\n--- a/x\n+++ b/x\n```\n');
    assert.deepEqual(r, { status: 'in_progress', confidence: 0.7, postMortem: 'First attempt.', problems: [] });
  });

  it('is tolerant of case, markdown emphasis, list and quote markers', () => {
    const variants = [
      '**STATUS:** Done\n**Confidence:** 0.9\n**PostMortem:** the guard was inverted',
      '- status: DONE\n- confidence = 90%\n- post-mortem: the guard was inverted',
      '> __Status__: `done`\n> *CONFIDENCE*: 0.90.\n> Post mortem: the guard was inverted',
      '### STATUS: done\n### CONFIDENCE: 0.9 (fairly sure)\n### POSTMORTEM: the guard was inverted',
      'Status: done.\nConfidence: 0,9\nPOST_MORTEM: the guard was inverted',
    ];
    for (const v of variants) {
      const r = parseSelfReport(v);
      assert.equal(r.status, 'done', v);
      assert.equal(r.confidence, 0.9, v);
      assert.equal(r.postMortem, 'the guard was inverted', v);
      assert.deepEqual(r.problems, [], v);
    }
  });

  it('reads "in progress" spelled several ways', () => {
    for (const s of ['in progress', 'In-Progress', 'IN_PROGRESS', 'inprogress']) assert.equal(parseSelfReport(`STATUS: ${s}`).status, 'in_progress', s);
  });

  it('names every missing field and does not crash on a reply with no header', () => {
    const r = parseSelfReport('Here is the fix:\n```diff\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b\n```');
    assert.equal(r.status, undefined);
    assert.equal(r.confidence, undefined);
    assert.equal(r.postMortem, undefined);
    assert.deepEqual(r.problems, ['no STATUS line', 'no CONFIDENCE line', 'no POSTMORTEM line']);
  });

  it('handles an empty reply (and a missing one) with a clear problem', () => {
    for (const v of ['', '   \n\n', null, undefined]) {
      const r = parseSelfReport(v);
      assert.equal(r.status, undefined);
      assert.equal(r.confidence, undefined);
      assert.deepEqual(r.problems, ['empty reply: no STATUS, CONFIDENCE or POSTMORTEM']);
    }
  });

  it('refuses garbage confidence (1.7, high, -0.2, NaN) instead of guessing', () => {
    for (const v of ['1.7', 'high', '-0.2', 'NaN', '150%', 'about half', '']) {
      const r = parseSelfReport(`STATUS: in_progress\nCONFIDENCE: ${v}\nPOSTMORTEM: x`);
      assert.equal(r.confidence, undefined, v);
      assert.equal(r.status, 'in_progress');
      assert.equal(r.problems.length, 1, v);
      assert.match(r.problems[0]!, /^CONFIDENCE ".*" is not a number from 0 to 1; read as absent$/);
    }
  });

  it('refuses an unknown STATUS and keeps the rest', () => {
    const r = parseSelfReport('STATUS: finished\nCONFIDENCE: 1\nPOSTMORTEM: done it');
    assert.equal(r.status, undefined);
    assert.equal(r.confidence, 1);
    assert.deepEqual(r.problems, ['STATUS "finished" is not one of in_progress, done, blocked; read as absent']);
  });

  it('accepts the confidence forms models write', () => {
    assert.equal(parseConfidence('0'), 0);
    assert.equal(parseConfidence('1'), 1);
    assert.equal(parseConfidence('.25'), 0.25);
    assert.equal(parseConfidence('75 %'), 0.75);
    assert.equal(parseConfidence('**0.6**'), 0.6);
    assert.equal(parseConfidence('0.6/1'), 0.6);
    assert.equal(parseConfidence('1.0000001'), undefined);
    assert.equal(parseConfidence('0.6x'), undefined);
  });

  it('reads a multi-line post-mortem up to the blank line, and caps it at 600 characters', () => {
    const r = parseSelfReport('STATUS: in_progress\nCONFIDENCE: 0.5\nPOSTMORTEM:\nThe first fix was wrong because\nthe rounding happens twice.\n\nMore prose here.');
    assert.equal(r.postMortem, 'The first fix was wrong because the rounding happens twice.');
    const long = parseSelfReport(`POSTMORTEM: ${'why '.repeat(400)}`);
    assert.equal(long.postMortem!.length, POSTMORTEM_MAX_CHARS);
    assert.ok(long.postMortem!.endsWith('…'));
  });

  it('takes the first of duplicated fields and ignores header-like lines inside edits', () => {
    const r = parseSelfReport('STATUS: in_progress\nCONFIDENCE: 0.4\nPOSTMORTEM: p\nSTATUS: done\n```ts\nstatus: done\n```');
    assert.equal(r.status, 'in_progress');
    const inDiff = parseSelfReport('Fix below.\n--- a/src/s.ts\n+++ b/src/s.ts\n@@ -1 +1 @@\n-status: "open",\n+status: "done",\n');
    assert.equal(inDiff.status, undefined);
    assert.deepEqual(inDiff.problems, ['no STATUS line', 'no CONFIDENCE line', 'no POSTMORTEM line']);
  });

  it('names an empty POSTMORTEM', () => {
    assert.deepEqual(parseSelfReport('STATUS: done\nCONFIDENCE: 1\nPOSTMORTEM:\n\n').problems, ['POSTMORTEM is empty']);
  });

  it('keeps the last three post-mortems, oldest first', () => {
    const p = new PostMortems(3);
    for (let i = 1; i <= 5; i++) p.add(i, `pm ${i}`);
    assert.deepEqual(p.texts, ['pm 3', 'pm 4', 'pm 5']);
    assert.deepEqual(p.entries.map((e) => e.step), [3, 4, 5]);
    p.add(6, 'x'.repeat(1000));
    assert.equal(p.texts[2]!.length, POSTMORTEM_MAX_CHARS);
  });
});

// The questions that guard the actions that discard work (issue 40): asked every time, naming the files.
import assert from 'node:assert/strict';
import type { RunState, StepView } from '../../../src/vscode/common/runState';
import { idleState } from '../../../src/vscode/common/runState';
import { restoredSentence, revertRunQuestion, revertToBestQuestion, runAgainLabel, touchedFiles, undoAllQuestion } from '../../../src/vscode/common/confirmWords';

const LIMITS = { maxSteps: 8, tokenCeiling: 200000, timeLimitSeconds: 1800 };

function step(index: number, paths: string[], applied = true): StepView {
  return { index, applied, files: paths.map((p) => ({ path: p, kind: 'modify' as const, added: 1, removed: 1 })), checks: [], failureCount: 0, failureHash: 'h', postMortem: null, tokens: 10, critics: [], feedback: null, status: null, confidence: null, durationMs: 1, snapshotDir: '/s', rolledBack: null, restoredToStep: null };
}

function run(over: Partial<RunState>): RunState {
  return { ...idleState('/w', 'w', LIMITS), status: 'stopped', runId: 'r', runDir: '/runs/r', stopReason: 'green', outcome: 'fixed', ...over };
}

describe('confirm words', () => {
  it('Revert run asks on a green run whose files are all kept, naming the file and that the fix goes with it', () => {
    const st = run({ steps: [step(1, ['src/cart.ts'])], review: { dir: '/r', files: [{ path: 'src/cart.ts', kind: 'modified', decision: 'kept' }] } });
    const q = revertRunQuestion(st);
    assert.equal(q.message, 'Revert the run? The file it wrote (src/cart.ts) goes back to what it was before the run, and the fix goes with it.');
    assert.equal(q.detail, 'A file you changed since the run is left alone.');
    assert.equal(q.confirm, 'Revert Run');
  });

  it("an agent's session names the files its edit tools wrote, as the panel's Revert session says it", () => {
    const session = { touched: ['src/cart.ts', 'src/cart.ts'] } as unknown as NonNullable<RunState['session']>;
    const q = revertRunQuestion(run({ session }));
    assert.deepEqual(touchedFiles(run({ session })), ['src/cart.ts']);
    assert.equal(q.message, 'Revert the session? The file the agent wrote (src/cart.ts) goes back to what it was before the session, and the fix goes with it.');
    assert.equal(q.detail, 'A file you changed since the session is left alone.');
    assert.equal(q.confirm, 'Revert Session');
    // No file known: the sentence still agrees with itself.
    assert.equal(revertRunQuestion(run({})).message, 'Revert the run? Every file it wrote goes back to what it was before the run, and the fix goes with it.');
  });

  it('counts the files (plural, at most three named) and names the ones still waiting for Keep or Undo', () => {
    const files = ['a.ts', 'b.ts', 'c.ts', 'd.ts'];
    const st = run({ stopReason: 'stalled', outcome: 'partial', steps: [step(1, ['a.ts', 'b.ts']), step(2, ['c.ts', 'd.ts', 'a.ts']), step(3, ['z.ts'], false)] });
    assert.deepEqual(touchedFiles(st), files, 'applied steps only, each file once');
    assert.equal(revertRunQuestion(st).message, 'Revert the run? All 4 files it wrote (a.ts, b.ts, c.ts and 1 more) go back to what they were before the run.');
    const reviewed = { ...st, review: { dir: '/r', files: files.map((path, i) => ({ path, kind: 'modified' as const, decision: i === 0 ? ('kept' as const) : ('pending' as const) })) } };
    assert.equal(revertRunQuestion(reviewed).detail, 'A file you changed since the run is left alone. 3 files still wait for Keep or Undo (b.ts, c.ts, d.ts).');
    const one = { ...st, review: { dir: '/r', files: [{ path: 'a.ts', kind: 'modified' as const, decision: 'pending' as const }] } };
    assert.match(revertRunQuestion(one).detail, / 1 file still waits for Keep or Undo \(a\.ts\)\.$/);
  });

  it('Revert to best asks too, saying which state the files go to', () => {
    const st = run({ stopReason: 'stalled', outcome: 'partial', bestStep: 2, steps: [step(1, ['a.ts']), step(2, ['b.ts'])] });
    assert.equal(revertToBestQuestion(st).message, 'Revert to the best step? The 2 files the run wrote go back to what they were after step 2.');
    assert.equal(revertToBestQuestion({ ...st, bestStep: 0 }).message, 'Revert to the best step? The 2 files the run wrote go back to what they were before the run.');
    assert.equal(revertToBestQuestion(st).confirm, 'Revert to Best');
  });

  it('Undo all asks when it puts back more than one file; one file is its own row\'s Undo', () => {
    assert.equal(undoAllQuestion(['a.ts']), null);
    assert.equal(undoAllQuestion([]), null);
    assert.equal(undoAllQuestion(['a.ts', 'b.ts'])?.message, 'Undo all 2 files? Each goes back to what it was before the run (a.ts, b.ts).');
  });

  it('no "(s)" and no singular verb for a plural anywhere in the questions', () => {
    for (const n of [1, 2, 5]) {
      const paths = Array.from({ length: n }, (_, i) => `f${i}.ts`);
      const st = run({ steps: [step(1, paths)], review: { dir: '/r', files: paths.map((path) => ({ path, kind: 'modified' as const, decision: 'pending' as const })) } });
      for (const q of [revertRunQuestion(st), revertToBestQuestion(st), undoAllQuestion(paths)]) {
        if (!q) continue;
        const text = `${q.message} ${q.detail}`;
        assert.doesNotMatch(text, /\(s\)|\b1 files\b|\bfiles (goes|waits)\b|\bfile (go|wait)\b/, text);
      }
    }
  });

  it('offers "Run again" only after a run that ran; a refused first start is offered the Run itself', () => {
    assert.equal(runAgainLabel(idleState('/w', 'w', LIMITS)), 'Run Fix Until Green');
    assert.equal(runAgainLabel(run({})), 'Run again');
  });

  // Issue 40 walk: "restored 1 file to their original bytes" after Revert session. The rule: the
  // sentence after a revert agrees in number with its files, names them, and says run or session.
  it('the sentence after a revert agrees with its number and names what was reverted', () => {
    assert.equal(restoredSentence(['src/cart.ts'], 'session'), 'restored src/cart.ts to what it was before the session');
    assert.equal(restoredSentence(['a.ts', 'b.ts'], 'run'), 'restored 2 files (a.ts, b.ts) to what they were before the run');
    assert.equal(restoredSentence(['a.ts', 'b.ts', 'c.ts', 'd.ts'], 'run', 2), 'restored 4 files (a.ts, b.ts, c.ts and 1 more) to what they were after step 2');
    assert.equal(restoredSentence(['a.ts'], 'run', 0), 'restored a.ts to what it was before the run');
    assert.equal(restoredSentence([], 'session'), 'nothing to restore: every file the session wrote already holds what it had before the session');
    for (const n of [1, 2, 5]) {
      const s = restoredSentence(Array.from({ length: n }, (_, i) => `f${i}.ts`), 'run');
      assert.doesNotMatch(s, n === 1 ? /\b(they|their|files)\b/ : /\b(it was|its)\b/, s);
      assert.doesNotMatch(s, /\(s\)|original bytes|run \d/, s);
    }
  });
});

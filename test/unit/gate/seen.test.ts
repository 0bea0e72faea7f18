// The seen-counter and its verdicts (issue 17): what an agent reads after each check pass.
import assert from 'node:assert/strict';
import { progressOf, SeenCounter, verdictOf } from '../../../src/core/gate/seen';
import { readFixInput, readRunChecksInput, ToolInputError } from '../../../src/core/gate/definitions';

describe('gate: how often an identity was seen, and what that says', () => {
  it('counts attempts per scope and how far back an identity was last seen', () => {
    const s = new SeenCounter();
    assert.deepEqual(s.observe('/a', 'h1', 3), { attempt: 1, seen: 1, attemptsAgo: null, previous: null });
    assert.deepEqual(s.observe('/a', 'h2', 2), { attempt: 2, seen: 1, attemptsAgo: null, previous: { failureHash: 'h1', failureCount: 3 } });
    assert.deepEqual(s.observe('/a', 'h1', 3), { attempt: 3, seen: 2, attemptsAgo: 2, previous: { failureHash: 'h2', failureCount: 2 } });
    assert.deepEqual(s.observe('/a', 'h1', 3), { attempt: 4, seen: 3, attemptsAgo: 1, previous: { failureHash: 'h1', failureCount: 3 } });
    // Another folder has its own attempts.
    assert.deepEqual(s.observe('/b', 'h1', 3), { attempt: 1, seen: 1, attemptsAgo: null, previous: null });
    s.reset('/a');
    assert.equal(s.observe('/a', 'h1', 3).seen, 1);
  });

  it('words a repeat as no progress, naming how many attempts ago', () => {
    const s = new SeenCounter();
    s.observe('/a', 'h1', 3);
    s.observe('/a', 'h2', 3);
    const again = s.observe('/a', 'h1', 3);
    assert.equal(progressOf(again, false, 3), 'repeat');
    assert.equal(verdictOf(again, false, 3), 'same failures as 2 attempts ago (this identity seen 2 times in this session): you are not making progress; stop or change approach');
    const next = s.observe('/a', 'h1', 3);
    assert.match(verdictOf(next, false, 3), /^same failures as the previous attempt \(this identity seen 3 times in this session\): you are not making progress; stop or change approach$/);
  });

  it('tells first sight, progress, regression, moved failures and green apart', () => {
    const s = new SeenCounter();
    const first = s.observe('/a', 'h1', 4);
    assert.equal(progressOf(first, false, 4), 'first');
    assert.match(verdictOf(first, false, 4), /^4 failures, first seen in this session/);
    const fewer = s.observe('/a', 'h2', 2);
    assert.equal(progressOf(fewer, false, 2), 'progress');
    assert.match(verdictOf(fewer, false, 2), /^progress: 2 failures, down from 4/);
    const more = s.observe('/a', 'h3', 5);
    assert.equal(progressOf(more, false, 5), 'regressed');
    assert.match(verdictOf(more, false, 5), /^worse: 5 failures, up from 2.*consider undoing it$/);
    const moved = s.observe('/a', 'h4', 5);
    assert.equal(progressOf(moved, false, 5), 'moved');
    assert.match(verdictOf(moved, false, 5), /^different failures, as many as before \(5\)/);
    const green = s.observe('/a', 'g', 0);
    assert.equal(progressOf(green, true, 0), 'green');
    assert.equal(verdictOf(green, true, 0), 'green: every check passes (the previous attempt had 5 failures); the task is done, stop here');
    const greenAgain = s.observe('/a', 'g', 0);
    assert.equal(verdictOf(greenAgain, true, 0), 'green: every check passes; nothing to fix');
  });

  it('reads tool inputs by their schema and refuses anything else', () => {
    assert.deepEqual(readRunChecksInput(undefined), {});
    assert.deepEqual(readRunChecksInput({ folder: ' ' }), {});
    assert.deepEqual(readRunChecksInput({ folder: '/w' }), { folder: '/w' });
    assert.throws(() => readRunChecksInput({ cwd: '/w' }), (e: unknown) => e instanceof ToolInputError && /unknown input "cwd" \(expected folder\)/.test(e.message));
    assert.throws(() => readRunChecksInput([]), /must be an object/);
    assert.deepEqual(readFixInput({ instruction: 'keep the API', maxSteps: 3 }), { instruction: 'keep the API', maxSteps: 3 });
    assert.throws(() => readFixInput({ maxSteps: 2.5 }), /"maxSteps" must be a whole number from 1 to 100/);
    assert.throws(() => readFixInput({ maxSteps: 101 }), /from 1 to 100/);
    assert.throws(() => readFixInput({ folder: 3 }), /"folder" must be a string/);
  });
});

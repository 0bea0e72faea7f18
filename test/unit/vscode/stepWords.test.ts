// Step rows and the stop's badge in plain words: "type check", "only the failing tests re-run", "no
// progress"; never `tsc · warm`, `test 1 · targeted` or a reason id beside the sentence.
import assert from 'node:assert/strict';
import { STOP_REASONS } from '../../../src/core/policy/reasons';
import { checkWords, CONTINUE_ONLY, continueLabel, continueTitle, sessionDecisionLine, stopBadge, runTotals } from '../../../src/vscode/common/stepWords';
import { formatMoney } from '../../../src/core/money';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ok = { exitCode: 0, failureCount: 0, timedOut: false };

describe('step rows in plain words', () => {
  it('names a check by what it does, with its count in its own words', () => {
    assert.equal(checkWords({ name: 'tsc', ...ok, mode: 'warm' }, 'tsc'), 'type check', 'a warm type check is a type check');
    assert.equal(checkWords({ name: 'typecheck', exitCode: 2, failureCount: 2, timedOut: false, mode: 'full' }, 'tsc'), 'type check: 2 errors');
    assert.equal(checkWords({ name: 'test', exitCode: 1, failureCount: 1, timedOut: false, mode: 'targeted' }, 'node-test'), 'tests: 1 failing · only the failing tests re-run');
    assert.equal(checkWords({ name: 'test', ...ok, mode: 'full' }, 'jest'), 'tests');
    assert.equal(checkWords({ name: 'lint', exitCode: 1, failureCount: 3, timedOut: false, mode: 'targeted' }, 'eslint'), 'lint: 3 problems · only the changed files');
    assert.equal(checkWords({ name: 'build', exitCode: 1, failureCount: 0, timedOut: false }, 'generic'), 'build: failed', 'a check of its own name keeps it');
    assert.equal(checkWords({ name: 'e2e', exitCode: null, failureCount: 0, timedOut: true, parser: 'mocha' }), 'tests: timed out', "the summary's own parser");
    for (const w of [checkWords({ name: 'tsc', ...ok, mode: 'warm' }, 'tsc'), checkWords({ name: 'test', ...ok, mode: 'targeted' }, 'vitest')]) assert.doesNotMatch(w, /warm|targeted|tsc/);
  });

  it("gives every stop a badge that says what its sentence says, never the reason id", () => {
    for (const r of STOP_REASONS) {
      const b = stopBadge(r);
      assert.ok(b.length > 0 && b.length <= 20, `${r}: ${b}`);
      if (r !== 'green' && r !== 'error') assert.notEqual(b, r);
    }
    assert.equal(stopBadge('stalled'), 'no progress');
    assert.equal(stopBadge('step-cap'), 'steps used up');
  });

  // Issue 40 walk: an agent session's row read "green: every check passes after step 2", the id
  // and a step the session never had. Every reason's line says its badge, never the id.
  it("says why an agent's stop was let through in words, never the reason id", () => {
    assert.equal(sessionDecisionLine({ reason: 'green', detail: 'every check passes after step 2' }), 'Every check passes, so the agent was let stop.');
    assert.equal(sessionDecisionLine({ reason: 'stalled', detail: 'the same 2 failures at 3 stops in a row' }), 'Let stop (no progress): the same 2 failures at 3 stops in a row');
    for (const r of STOP_REASONS) {
      const line = sessionDecisionLine({ reason: r, detail: 'x' });
      if (r !== 'error') assert.ok(!line.includes(`${r}:`) && !line.startsWith(r), `${r}: ${line}`);
    }
  });

  it('refuses Continue in the words of the badges, never the reason ids', () => {
    for (const r of STOP_REASONS) if (r !== 'green' && r !== 'error') assert.ok(!CONTINUE_ONLY.includes(r), `${r} in: ${CONTINUE_ONLY}`);
    assert.ok(CONTINUE_ONLY.includes(stopBadge('step-cap').replace(' used up', '')) && CONTINUE_ONLY.includes('tokens used up'));
  });

  it('Continue says what it adds', () => {
    // Both, always: Continue adds a whole run's budget, and the tokens were added unannounced before (issue 40).
    assert.equal(continueLabel('step-cap', { steps: 2, tokens: 200000 }), 'Continue (+2 steps, +200k tokens)');
    assert.equal(continueLabel('step-cap', { steps: 1, tokens: 200000 }), 'Continue (+1 step, +200k tokens)');
    assert.equal(continueLabel('token-ceiling', { steps: 8, tokens: 200000 }), 'Continue (+200k tokens, +8 steps)');
    assert.equal(continueTitle({ maxSteps: 8, tokenCeiling: 200000 }, { steps: 8, tokens: 200000 }), 'Resume this run with 8 more steps and 200k more tokens: the step limit goes from 8 to 16, the token ceiling from 200k to 400k.');
  });
});

describe('run totals in the stop notification (issue 40)', () => {
  it('says what the run cost when prices are set, and only then', () => {
    assert.equal(runTotals({ steps: [1, 2, 3, 4], tokensUsed: 6034, costUsed: 0.0123 }), `4 steps (6,034 tokens, ${formatMoney(0.0123)})`);
    assert.equal(runTotals({ steps: [1, 2, 3, 4], tokensUsed: 6034, costUsed: null }), '4 steps (6,034 tokens)', 'no price: no made-up money');
    assert.equal(runTotals({ steps: [1, 2, 3, 4], tokensUsed: 6034 }), '4 steps (6,034 tokens)');
    assert.equal(runTotals({ steps: [1], tokensUsed: 1, costUsed: 0 }), `1 step (1 token, ${formatMoney(0)})`, 'a priced run that cost nothing says so');
  });
  it('the green notification is built from it', () => {
    const src = readFileSync(path.join(__dirname, '..', '..', '..', 'src', 'vscode', 'stopNotice.ts'), 'utf8');
    assert.match(src, /green in \$\{ctl\.folderName\} after \$\{runTotals\(r\)\}\./);
  });
});

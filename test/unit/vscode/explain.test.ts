// Every stop reason leads with a sentence a newcomer reads; the engine's words (hashes, thresholds)
// stay available as the technical detail. The details here are the engine's own formats.
import assert from 'node:assert/strict';
import { STOP_REASONS } from '../../../src/core/policy/reasons';
import type { StopReason } from '../../../src/core/policy/reasons';
import type { Failure } from '../../../src/core/types';
import type { StopFacts } from '../../../src/vscode/common/explain';
import { failureHeadline, readValues } from '../../../src/core/verify/values';
import { explainEscalation, explainHeld, explainStop, failuresLeft, notAppliedWhy, stopMessage } from '../../../src/vscode/common/explain';

// As the verifier reports it: its values read (Failure.values), which the shell headlines.
const DISCOUNT: Failure = readValues({
  check: 'test',
  file: 'test/cart.test.ts',
  line: 12,
  id: 'applyDiscount',
  message: 'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n20 !== 180\n',
});
const TYPE: Failure = { check: 'typecheck', file: 'src/cart.ts', line: 3, id: 'TS2322', message: "Type 'string' is not assignable to type 'number'." };
const LIMITS = { maxSteps: 5, tokenCeiling: 200000, timeLimitSeconds: 600 };

function facts(stopReason: StopReason, detail: string, remainingFailures: Failure[] = [DISCOUNT], steps = 3): StopFacts {
  return { stopReason, outcome: 'punt', detail, remainingFailures, limits: LIMITS, steps: Array.from({ length: steps }, (_, i) => ({ index: i + 1 })) };
}

/** One realistic stop of each reason, in the engine's words. */
const STOPS: Record<StopReason, { facts: StopFacts; sentence: RegExp }> = {
  green: { facts: facts('green', 'every check passes after step 2', [], 2), sentence: /^Green: every check passes after step 2\.$/ },
  stalled: {
    facts: facts('stalled', 'failure identity 8b9e206b62e8 seen 3 times (steps 1, 2, 3); stallThreshold is 3'),
    sentence: /^Stopped: no progress — the same failure \(applyDiscount: 20 !== 180\) came back 3 times\.$/,
  },
  'step-cap': { facts: facts('step-cap', '5 of 5 steps done and the checks are not green', [DISCOUNT, TYPE], 5), sentence: /^Stopped: all 5 steps used; 2 failures left \(applyDiscount: 20 !== 180, and 1 more\)\. Continue gives it more steps\.$/ },
  'token-ceiling': { facts: facts('token-ceiling', 'the next call needs at least 9000 tokens (prompt 8000 + minimum output 1000) but only 10 of 200000 remain (199990 used)'), sentence: /^Stopped: the token budget \(200,000\) is spent; 1 failure left/ },
  'cost-ceiling': {
    facts: { ...facts('cost-ceiling', 'the next call could cost 0.0768 (prompt 1512 tokens + minimum output) but only 0.0464 of the cost ceiling 0.05 remain (0.0036 spent)'), limits: { ...LIMITS, costCeiling: 0.05 } },
    sentence: /^Stopped: the next model call could have cost more than what is left of the cost ceiling \(\$0\.05\), so it was not made; 1 failure left \(applyDiscount: 20 !== 180\)\.$/,
  },
  'time-limit': { facts: facts('time-limit', '601 s elapsed of the 600 s limit'), sentence: /^Stopped: the time limit \(10 minutes\) ran out; 1 failure left/ },
  cancelled: { facts: facts('cancelled', 'stopped by the user during step 2', [DISCOUNT], 2), sentence: /^Stopped by you after step 2; 1 failure left \(applyDiscount: 20 !== 180\)\.$/ },
  'critic-stop': {
    facts: facts('critic-stop', 'critic verifier-integrity said stop at step 2: what defines the checks changed on disk during the run: package.json, tsconfig.json; the checks are no longer the ones step 0 recorded'),
    sentence: /^Stopped: what defines the checks changed on disk during step 2 \(package\.json, tsconfig\.json\), so the checks are no longer the ones the run started with\.$/,
  },
  'budget-depleted': { facts: facts('budget-depleted', 'the confidence budget fell to 0 after step 3, at or below its floor of 0'), sentence: /^Stopped: the model kept failing while unsure of itself .*step 3\); 1 failure left/ },
  'low-confidence': { facts: facts('low-confidence', "the model's CONFIDENCE 0.2 at step 3 is below escalateBelowConfidence 0.5"), sentence: /^Stopped: the model was unsure at step 3 \(confidence 0\.2, below the 0\.5 you set\); 1 failure left/ },
  unreachable: { facts: facts('unreachable', 'the model reported STATUS: blocked at step 3 and 1 failure(s) remain'), sentence: /^Stopped: the model says it cannot fix this \(it reported "blocked" at step 3\); 1 failure left/ },
  'preflight-failed': { facts: facts('preflight-failed', 'No chat model is available in VS Code.', [], 0), sentence: /^Did not start: No chat model is available in VS Code\.$/ },
  error: {
    // A restore that met a file changed outside the run (loop/restorer.ts), after a stall.
    facts: facts('error', "stalled: failure identity 8b9e206b62e8 seen 3 times (steps 1, 2, 3); stallThreshold is 3; then could not restore the state of step 0: src/cart.ts changed outside the run; left as the user has it; the run's version is kept in its storage (Revert run offers it)"),
    sentence: /^Stopped: the files could not be put back to what they were before the run, because src\/cart\.ts changed outside the run\. Your version is kept; Revert run offers the run's\.$/,
  },
};

describe('stop sentences', () => {
  for (const reason of STOP_REASONS) {
    it(`${reason}: a plain sentence, no hashes or setting names, the engine's words kept as the technical detail`, () => {
      const { facts: f, sentence } = STOPS[reason];
      const e = explainStop(f);
      assert.match(e.sentence, sentence);
      assert.doesNotMatch(e.sentence, /[0-9a-f]{8,}|stallThreshold|identity|escalateBelowConfidence|critic /, 'no internal vocabulary in the sentence');
      assert.ok(e.technical.startsWith(`${reason} (punt)`), e.technical);
      assert.ok(e.technical.includes(f.detail!), 'the technical detail keeps the engine words');
    });
  }

  it('a green run with no steps says there was nothing to fix', () => {
    assert.equal(explainStop(facts('green', 'every check passes before any step: nothing to fix', [], 0)).sentence, 'Green: every check already passes; nothing to fix.');
  });

  it('another critic stop names the guard and its reason', () => {
    const e = explainStop(facts('critic-stop', 'critic protected-paths said stop at step 1: the edit touches .env, a protected path'));
    assert.equal(e.sentence, 'Stopped: the protected-paths guard stopped step 1: the edit touches .env, a protected path.');
  });

  it('a stall over several failures counts them', () => {
    const e = explainStop(facts('stalled', 'failure identity 8b9e206b62e8 seen 2 times (steps 1, 2); stallThreshold is 2', [DISCOUNT, TYPE]));
    assert.equal(e.sentence, 'Stopped: no progress — the same 2 failures (applyDiscount: 20 !== 180, and 1 more) came back 2 times.');
  });

  it('a model error keeps the model once and drops the prose fix (the button does it)', () => {
    const e = explainStop(facts('error', 'model openai-compatible:m: openai-compatible:m at 127.0.0.1:1 refused the API key (401 bad key). Fix: run the command "Fix Until Green: Set API Key" (fixUntilGreen.setApiKey).'));
    assert.equal(e.sentence, 'Stopped by an error: m on 127.0.0.1:1 refused the API key (401 bad key).');
  });
});

describe('failure headlines', () => {
  it('show the values of an assertion, not its boilerplate first line', () => {
    assert.equal(failureHeadline(DISCOUNT), 'applyDiscount: 20 !== 180');
    assert.equal(failureHeadline(TYPE), "TS2322: Type 'string' is not assignable to type 'number'.");
    assert.equal(failureHeadline({ check: 'lint', file: 'src/a.ts', line: 4, message: 'Unexpected any.' }), 'src/a.ts:4: Unexpected any.');
    assert.equal(failuresLeft([]), 'no failures left');
  });
});

describe('why an edit was not applied', () => {
  it('names the file, the hunk and the reason of a hunk that did not match', () => {
    const err = "src/cart.ts: hunk 1 of 1 (reply line 4) did not match the file's current content. It starts:\n  return total - percent;\nClosest region: lines 2-4 (2 line(s) match); rejected because line 3 differs.";
    assert.equal(notAppliedWhy([err], null), 'src/cart.ts: hunk 1 of 1 (reply line 4) did not match the file (line 3 differs)');
    assert.equal(notAppliedWhy([], err), 'src/cart.ts: hunk 1 of 1 (reply line 4) did not match the file (line 3 differs)', 'the step record feedback when the event had none');
    assert.equal(notAppliedWhy(["src/a.ts: hunk 2 of 2 (reply line 9) did not match the file's current content. It starts:\nx\nNo region of the file resembles it."], null), 'src/a.ts: hunk 2 of 2 (reply line 9) did not match the file (no part of the file resembles it)');
    assert.equal(notAppliedWhy([], 'Your edit was not applied: the edit changes the verifier'), 'refused: the edit changes the verifier');
    assert.equal(notAppliedWhy([], null), 'the reply held no edit that could be applied');
  });

  it('says who finished or stopped when the run went up the ladder, and what each escalation was', () => {
    const escalations = [{ step: 2, reason: 'stalled' as const, from: 'openai-compatible:cheap', to: 'anthropic:strong' }];
    // Models named as a person names them (issue 40): their ids, or the names VS Code gave them; no setting's provider prefix, no reason id.
    assert.equal(explainStop({ ...STOPS.green.facts, escalations }).sentence, 'Green: every check passes after step 2. strong finished it after taking over.');
    assert.match(explainStop({ ...STOPS.stalled.facts, escalations }).sentence, /came back 3 times\. The ladder is exhausted: strong, its last model, stopped too \(after one escalation\)\.$/);
    assert.match(explainStop({ ...STOPS['token-ceiling'].facts, escalations }).sentence, /Continue gives it more tokens\. strong was at work, after one escalation\.$/);
    assert.equal(explainEscalation(escalations[0]!), 'Escalated to strong after step 2: cheap made no progress.');
    assert.equal(explainEscalation({ ...escalations[0]!, reason: 'unreachable' }), 'Escalated to strong after step 2: cheap said it cannot fix this.');
    const names = { 'vscode-lm:copilot-gpt-4o': 'GPT-4o' };
    const toChat = [{ ...escalations[0]!, to: 'vscode-lm:copilot-gpt-4o' }];
    assert.equal(explainStop({ ...STOPS.green.facts, escalations: toChat, modelNames: names }).sentence, 'Green: every check passes after step 2. GPT-4o finished it after taking over.');
    assert.equal(explainEscalation(toChat[0]!, names), 'Escalated to GPT-4o after step 2: cheap made no progress.');
    assert.equal(explainStop({ ...STOPS.green.facts, escalations: [] }).sentence, 'Green: every check passes after step 2.');
  });
});

describe('what the workspace holds after a stop', () => {
  const steps = [
    { index: 1, applied: true, failureCount: 1 },
    { index: 2, applied: true, failureCount: 1 },
  ];
  const stop = (over: Partial<StopFacts>): StopFacts => ({ ...facts('step-cap', '2 of 2 steps done and the checks are not green', [DISCOUNT], 2), outcome: 'partial', steps, ...over });

  it('keep-best: names the step kept, its failures, the steps undone, and where Continue resumes', () => {
    const e = explainStop(stop({ held: { step: 1, target: 'best' }, limits: { ...LIMITS, maxSteps: 2 } }));
    assert.equal(e.held, 'Kept step 1 (best: 1 failure left); step 2 undone.');
    assert.match(e.sentence, /Continue resumes from step 1 with more steps\.$/);
    assert.equal(stopMessage(e), `${e.sentence} ${e.held}`);
  });

  it('lists several undone steps, and skips steps a critic rolled back or that were not applied', () => {
    const many = [{ index: 1, applied: true, failureCount: 0 }, { index: 2, applied: true, failureCount: 2 }, { index: 3, applied: false, failureCount: 2 }, { index: 4, applied: true, failureCount: 2, rolledBack: 'previous' as const }, { index: 5, applied: true, failureCount: 3 }];
    assert.equal(explainHeld(stop({ steps: many, held: { step: 1, target: 'best' } })), 'Kept step 1 (best: no failures left); steps 2 and 5 undone.');
  });

  it('keep-last and the last step best: says which step is kept; Continue goes on from the last', () => {
    const e = explainStop(stop({ held: { step: 2, target: 'current' } }));
    assert.equal(e.held, 'Kept step 2 (1 failure left).');
    assert.match(e.sentence, /Continue gives it more steps\.$/);
  });

  it('a punt or onStop revert: the files are as they were before the run', () => {
    assert.equal(explainHeld(stop({ outcome: 'punt', held: { step: 0, target: 'initial' } })), 'Nothing improved, so every step was undone: your files are as they were before the run.');
    assert.equal(explainHeld(stop({ outcome: 'partial', held: { step: 0, target: 'initial' } })), 'Every step was undone: your files are as they were before the run.');
  });

  it('says nothing for a green run, a run that changed nothing, or a state saved before', () => {
    assert.equal(explainHeld(stop({ stopReason: 'green', held: { step: 2, target: 'current' } })), null);
    assert.equal(explainHeld(stop({ steps: [{ index: 1, applied: false, failureCount: 1 }], held: { step: 0, target: 'best' } })), null);
    assert.equal(explainHeld(stop({ held: undefined })), null);
  });
});

describe('the failure a sentence names', () => {
  it('is the first that shows its values, not a type error listed before it', () => {
    const e = explainStop({ ...facts('stalled', 'failure identity 8b9e206b62e8 seen 3 times (steps 1, 2, 3); stallThreshold is 3', [TYPE, DISCOUNT]) });
    assert.match(e.sentence, /the same 2 failures \(applyDiscount: 20 !== 180, and 1 more\)/);
    assert.match(failuresLeft([TYPE, DISCOUNT]), /^2 failures left \(applyDiscount: 20 !== 180, and 1 more\)$/);
  });
});

describe('no "step 0" in a sentence a person reads (issue 40)', () => {
  const steps = [
    { index: 1, applied: true, failureCount: 2 },
    { index: 2, applied: true, failureCount: 3 },
  ];
  it('Continue resumes "from where it started" when every step was undone', () => {
    for (const reason of ['step-cap', 'token-ceiling'] as const) {
      const e = explainStop({ ...facts(reason, '2 of 2 steps done', [DISCOUNT], 2), outcome: 'punt', steps, held: { step: 0, target: 'initial' }, limits: { ...LIMITS, maxSteps: 2 } });
      assert.match(e.sentence, /Continue resumes from where it started with more (steps|tokens)\.$/, e.sentence);
    }
  });
  it('no stop of any reason says "step 0" when its files went back to before the run', () => {
    for (const reason of STOP_REASONS) {
      const f: StopFacts = { ...STOPS[reason].facts, steps, held: { step: 0, target: 'initial' } };
      const e = explainStop(f);
      assert.doesNotMatch(`${e.sentence} ${e.held ?? ''}`, /\bstep 0\b/, `${reason}: ${e.sentence}`);
    }
  });
  it("a not-applied reason is whole, however long (the panel wraps it)", () => {
    const long = `src/cart.ts: ${'the edit names a function that the file does not have, '.repeat(5)}end.`;
    assert.equal(notAppliedWhy([long], null), long);
  });
});

// The status-bar meter's text, tooltip and warning threshold, as pure functions of the run state.
import assert from 'node:assert/strict';
import { stopBadge } from '../../../src/vscode/common/stepWords';
import { barLevel, escapeMarkdown, formatDuration, formatTokens, IDLE_ICON, meterView, panelIcon, progressMessage, reasonIcon, shortRunId, WARN_FRACTION } from '../../../src/vscode/common/meterView';
import type { RunState } from '../../../src/vscode/common/runState';
import { idleState } from '../../../src/vscode/common/runState';

const LIMITS = { maxSteps: 8, tokenCeiling: 200000, timeLimitSeconds: 1800 };

function running(step: number, tokensUsed: number, over: Partial<RunState> = {}): RunState {
  return { ...idleState('/w/app', 'app', LIMITS), status: 'running', runId: 'r1', step, tokensUsed, startedAt: 1_000_000, phase: 'step 3: verifying', ...over };
}

describe('status-bar meter', () => {
  it('formats token counts compactly', () => {
    assert.equal(formatTokens(0), '0');
    assert.equal(formatTokens(950), '950');
    assert.equal(formatTokens(1000), '1k');
    assert.equal(formatTokens(12400), '12.4k');
    assert.equal(formatTokens(12449), '12.4k');
    assert.equal(formatTokens(99950), '100k');
    assert.equal(formatTokens(200000), '200k');
    assert.equal(formatTokens(1250000), '1.25M');
  });

  it('formats durations', () => {
    assert.equal(formatDuration(9000), '9s');
    assert.equal(formatDuration(65000), '1m 05s');
    assert.equal(formatDuration(3_700_000), '1h 01m');
    assert.equal(formatDuration(-5), '0s');
  });

  it('shows `k/maxSteps · used/ceiling` while running, e.g. 3/8 · 12.4k/200k', () => {
    const v = meterView(running(3, 12400), 1_005_000);
    assert.equal(v.text, '$(sync~spin) Fix Until Green: 3/8 steps · 12.4k/200k tokens');
    assert.equal(v.warning, false);
    assert.match(v.ariaLabel, /step 3 of 8, 12400 of 200000 tokens/);
    assert.match(v.tooltip, /\| Steps \| 3 \| 8 \|/);
    assert.match(v.tooltip, /\| Tokens \| 12,400 \| 200,000 \|/);
    assert.match(v.tooltip, /\| Time \| 5s \| 30m 00s \|/);
  });

  it('warns only past 80 % of the steps or of the tokens', () => {
    assert.equal(WARN_FRACTION, 0.8);
    const at = (steps: number, maxSteps: number, tokens: number): boolean => meterView(running(steps, tokens, { limits: { ...LIMITS, maxSteps } })).warning;
    assert.equal(at(4, 5, 0), false, '4/5 is exactly 80 %: not past it');
    assert.equal(at(5, 5, 0), true);
    assert.equal(at(7, 8, 0), true, '87.5 % of the steps');
    assert.equal(at(1, 8, 160000), false, 'exactly 80 % of the tokens');
    assert.equal(at(1, 8, 160001), true);
    assert.match(meterView(running(7, 0)).ariaLabel, /budget nearly spent/);
  });

  it('shows the last result with its codicon when idle after a run', () => {
    const stopped = (stopReason: RunState['stopReason'], outcome: RunState['outcome']): RunState => ({ ...running(2, 4200), status: 'stopped', stopReason, outcome, detail: 'every check passes after step 2' });
    assert.equal(meterView(stopped('green', 'fixed')).text, '$(check-all) Fix Until Green: green · 2/8 steps · 4.2k/200k tokens');
    assert.equal(meterView(stopped('stalled', 'punt')).text, '$(debug-pause) Fix Until Green: no progress · 2/8 steps · 4.2k/200k tokens');
    assert.equal(meterView(stopped('step-cap', 'partial')).text, '$(debug-pause) Fix Until Green: steps used up · 2/8 steps · 4.2k/200k tokens');
    assert.equal(meterView(stopped('token-ceiling', 'partial')).text, '$(debug-pause) Fix Until Green: tokens used up · 2/8 steps · 4.2k/200k tokens');
    assert.equal(meterView(stopped('error', 'punt')).text, '$(circle-slash) Fix Until Green: error · 2/8 steps · 4.2k/200k tokens');
    assert.equal(meterView(stopped('green', 'fixed')).warning, false, 'no warning colour once stopped');
    const v = meterView(stopped('green', 'fixed'));
    assert.match(v.tooltip, /^\*\*Fix Until Green\*\*: green · app\n/);
    assert.match(v.tooltip, /Green: every check/, 'the stop sentence');
    assert.equal(meterView({ ...stopped('green', 'fixed'), reverted: 'run' }).text, '$(check-all) Fix Until Green: green · 2/8 steps · 4.2k/200k tokens · reverted');
  });

  it("never uses Problems' error or warning icon, and leads its tooltip with the stop sentence", () => {
    for (const r of [null, 'green', 'error', 'preflight-failed', 'stalled', 'cancelled'] as const) assert.doesNotMatch(reasonIcon(r), /^\$\((error|warning)\)$/, String(r));
    const st: RunState = { ...idleState('/w', 'w', LIMITS), status: 'stopped', step: 2, stopReason: 'stalled', outcome: 'punt', detail: 'failure identity 8b9e206b62e8 seen 2 times (steps 1, 2); stallThreshold is 2' };
    assert.match(meterView(st).tooltip, /Stopped: no progress — the same failures came back 2 times/);
  });

  it('speaks the badge\'s words, never a reason id, outcome or failure identity, on every stop (issue 40)', () => {
    for (const r of ['stalled', 'step-cap', 'token-ceiling', 'cost-ceiling', 'time-limit', 'cancelled', 'critic-stop', 'budget-depleted', 'low-confidence', 'unreachable', 'preflight-failed', 'error'] as const) {
      const st: RunState = { ...idleState('/w', 'w', LIMITS), status: 'stopped', step: 2, stopReason: r, outcome: 'punt', detail: 'failure identity 8b9e206b62e8 seen 2 times' };
      const v = meterView(st);
      // "error" is its own plain word; every other id has words of its own.
      const ids = new RegExp(`${stopBadge(r) === r ? '' : `\\b${r}\\b|`}\\bpunt\\b|8b9e206b62e8`);
      for (const text of [v.text, v.ariaLabel, v.tooltip.split('\n')[0]!]) assert.doesNotMatch(text, ids, `${r}: ${text}`);
      // (A guard's or an error's detail the explainer cannot read is quoted by its sentence, on purpose.)
      if (r !== 'critic-stop' && r !== 'error' && r !== 'preflight-failed') assert.doesNotMatch(v.tooltip, /8b9e206b62e8/, `${r}: no failure identity in the tooltip`);
      assert.match(v.text, new RegExp(`: ${stopBadge(r)} · `));
    }
  });

  it('maps every stop reason to its icon', () => {
    assert.equal(reasonIcon('green'), '$(check-all)');
    assert.equal(reasonIcon('error'), '$(circle-slash)');
    assert.equal(reasonIcon('preflight-failed'), '$(circle-slash)');
    for (const r of ['stalled', 'step-cap', 'token-ceiling', 'time-limit', 'cancelled', 'critic-stop', 'budget-depleted', 'low-confidence', 'unreachable'] as const) {
      assert.equal(reasonIcon(r), '$(debug-pause)', r);
    }
  });

  it('shows the same named item before any run, with the empty ring of the product mark and a plain "no run yet"', () => {
    assert.equal(IDLE_ICON, '$(circle-large-outline)');
    assert.equal(meterView(undefined).text, '$(circle-large-outline) Fix Until Green: no run yet');
    assert.equal(meterView(idleState('/w', 'w', LIMITS)).text, '$(circle-large-outline) Fix Until Green: no run yet');
    assert.equal(meterView(undefined).ariaLabel, 'Fix Until Green: no run yet');
    assert.equal(reasonIcon(null), IDLE_ICON, 'a session with no reason yet shows the idle ring too');
    // Every state leads with its icon, then the same name: a newcomer reads one item whose icon changes.
    const stopped: RunState = { ...running(1, 10), status: 'stopped', stopReason: 'step-cap', outcome: 'partial' };
    for (const v of [meterView(undefined), meterView(running(1, 10)), meterView(stopped)]) assert.match(v.text, /^\$\([a-z-~]+\) Fix Until Green: /);
    assert.doesNotMatch(meterView(undefined).text, /beaker|check/, 'no green check and no icon of its own before a run');
  });

  it('keeps model and check text from becoming markdown in the tooltip', () => {
    assert.equal(escapeMarkdown('[click](http://x) *bold* `code` <b>'), '\\[click\\]\\(http://x\\) \\*bold\\* \\`code\\` \\<b\\>');
    const v = meterView({ ...running(1, 10), phase: '[evil](command:workbench.action.quit)' });
    assert.doesNotMatch(v.tooltip, /\[evil\]\(command/);
  });

  it('shows the money spent when prices are known, against the cost ceiling, and warns past 80 % of it', () => {
    const v = meterView(running(3, 12400, { costUsed: 0.0423, limits: { ...LIMITS, costCeiling: 0.5 } }), 1_005_000);
    assert.equal(v.text, '$(sync~spin) Fix Until Green: 3/8 steps · 12.4k/200k tokens · $0.04 of $0.50');
    assert.match(v.tooltip, /\| Cost \| \$0\.04 \| \$0\.50 \|/);
    assert.match(v.ariaLabel, /, \$0\.04 of \$0\.50$/);
    const small = meterView({ ...running(2, 1200, { costUsed: 0.00893, limits: { ...LIMITS, costCeiling: 0.5 } }), status: 'stopped', stopReason: 'step-cap', outcome: 'partial' });
    assert.equal(small.text, '$(debug-pause) Fix Until Green: steps used up · 2/8 steps · 1.2k/200k tokens · $0.009 of $0.50');
    assert.match(small.tooltip, /\| Cost \| \$0\.009 \| \$0\.50 \|/);
    assert.match(small.tooltip, /Stopped: all 8 steps used/, 'the stop sentence leads the tooltip');
    assert.equal(v.warning, false);
    assert.equal(meterView(running(3, 0, { costUsed: 0.41, limits: { ...LIMITS, costCeiling: 0.5 } })).warning, true);
    const noCeiling = meterView(running(1, 100, { costUsed: 1.5 }));
    assert.match(noCeiling.text, /tokens · \$1\.50 spent$/);
    assert.match(noCeiling.tooltip, /\| Cost \| \$1\.50 \| none \|/);
    assert.doesNotMatch(meterView(running(1, 100)).text, /cost|\$\d|spent/, 'no price: no money figure');
  });

  it("says in the tooltip that vscode-lm models have no price, never a made-up figure", () => {
    const lm = meterView(running(2, 3000, { unpriced: ['vscode-lm:copilot-gpt-4o'], modelNames: { 'vscode-lm:copilot-gpt-4o': 'GPT-4o' } }));
    assert.doesNotMatch(lm.text, /cost|\$\d/);
    // Named as a person names it: the name VS Code gives the chat model, not the setting's label.
    assert.match(lm.tooltip, /`GPT-4o`: VS Code's chat models have no per-token price, so their calls cost no money here\./);
    const mixed = meterView({ ...running(3, 3000, { unpriced: ['vscode-lm:copilot', 'openai-compatible:local'], costUsed: 0.2 }), status: 'stopped', stopReason: 'green', outcome: 'fixed' });
    assert.match(mixed.text, /· \$0\.20 spent$/);
    assert.match(mixed.tooltip, /no per-token price, so their calls cost no money here and are not in the cost\./);
    assert.match(mixed.tooltip, /`local`: no price in `fixUntilGreen\.model\.pricing`, so their calls are not in the cost\./);
  });
});

describe('panel header and tab', () => {
  it('shows the run id as its start time on the local clock, the whole id kept for the tooltip', () => {
    const id = '2026-11-23T12-07-52-123Z-ab12cd34';
    const at = new Date('2026-11-23T12:07:52.123Z');
    const two = (n: number): string => String(n).padStart(2, '0');
    assert.equal(shortRunId(id), `run of ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`);
    assert.equal(shortRunId('custom-run-id-that-is-long'), 'run custom-run-id…');
    assert.equal(shortRunId('r1'), 'run r1');
  });

  it("gives the tab an icon for the state: never a green check before a run or on a failure", () => {
    const idle = idleState('/w', 'w', { maxSteps: 8, tokenCeiling: 200000, timeLimitSeconds: 1800 });
    // Not icon.png either: the product's icon is a green check, which would say "passed" over "no run yet".
    assert.equal(panelIcon(null), 'status-idle.svg');
    assert.equal(panelIcon(idle), 'status-idle.svg');
    assert.equal(panelIcon({ ...idle, status: 'running' }), 'status-running.svg');
    assert.equal(panelIcon({ ...idle, status: 'stopped', stopReason: 'green' }), 'status-green.svg');
    assert.equal(panelIcon({ ...idle, status: 'stopped', stopReason: 'stalled' }), 'status-stopped.svg');
    assert.equal(panelIcon({ ...idle, status: 'stopped', stopReason: 'preflight-failed' }), 'status-error.svg');
  });
});

describe('progress notification', () => {
  it('names the step the panel and the meter show, from the same state', () => {
    const s = running(2, 1500, { phase: 'step 2: asking the model for step 2 (1,234 prompt tokens)' });
    assert.equal(progressMessage(s), 'step 2/8: asking the model for step 2 (1,234 prompt tokens)');
    assert.match(meterView(s, 1_000_000).text, /2\/8/);
    const stopped: RunState = { ...s, status: 'stopped', stopReason: 'step-cap', outcome: 'partial', held: { step: 1, target: 'best' }, steps: [{ index: 1, applied: true, failureCount: 1 }, { index: 2, applied: true, failureCount: 1 }] as RunState['steps'] };
    assert.match(progressMessage(stopped), /Continue resumes from step 1 with more steps\. Kept step 1 \(best: 1 failure left\); step 2 undone\.$/);
  });
});

describe('budget bar colours (issue 40)', () => {
  it('a green run that used every step is not a warning; only the budget that ran out warns once stopped', () => {
    assert.equal(barLevel({ status: 'stopped', stopReason: 'green' }, 'steps', 1), 'low');
    assert.equal(barLevel({ status: 'stopped', stopReason: 'green' }, 'tokens', 0.9), 'low');
    assert.equal(barLevel({ status: 'stopped', stopReason: 'step-cap' }, 'steps', 1), 'high');
    assert.equal(barLevel({ status: 'stopped', stopReason: 'step-cap' }, 'tokens', 0.7), 'low');
    assert.equal(barLevel({ status: 'stopped', stopReason: 'token-ceiling' }, 'tokens', 1), 'high');
    assert.equal(barLevel({ status: 'stopped', stopReason: 'time-limit' }, 'time', 1), 'high');
    assert.equal(barLevel({ status: 'stopped', stopReason: 'cost-ceiling' }, 'cost', 0.95), 'high');
    assert.equal(barLevel({ status: 'stopped', stopReason: 'stalled' }, 'steps', 0.9), 'low');
  });
  it('while running, how near the limit it is', () => {
    assert.equal(barLevel({ status: 'running', stopReason: null }, 'steps', 0.4), 'low');
    assert.equal(barLevel({ status: 'running', stopReason: null }, 'steps', 0.6), 'mid');
    assert.equal(barLevel({ status: 'running', stopReason: null }, 'tokens', 0.85), 'high');
  });

  it('after a refused start says "did not start" and why, not "no run yet" (issue 40)', () => {
    const refused = meterView({ ...idleState('/w', 'w', LIMITS), refused: { message: 'fake-coder on 127.0.0.1:4011 needs an API key.', actions: [] } });
    assert.equal(refused.text, '$(circle-slash) Fix Until Green: did not start');
    assert.ok(refused.tooltip.replace(/\\/g, '').includes('fake-coder on 127.0.0.1:4011 needs an API key.'), refused.tooltip);
    assert.doesNotMatch(refused.text + refused.tooltip, /no run yet/);
    assert.equal(panelIcon({ ...idleState('/w', 'w', LIMITS), refused: { message: 'x', actions: [] } }), 'status-error.svg');
  });
});

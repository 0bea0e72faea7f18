// Where the panel puts the keyboard when it takes the focus (issue 40): what the user most likely
// wants next, never an action that discards work. The panel's webview focuses the first element
// `focusOrder` names that is present and enabled; its fallback skips DESTRUCTIVE_SELECTORS.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { StepView, RunState } from '../../../src/vscode/common/runState';
import { idleState } from '../../../src/vscode/common/runState';
import type { StopReason } from '../../../src/core/policy/reasons';
import { DESTRUCTIVE_SELECTORS, focusOrder } from '../../../src/vscode/common/panelFocus';

const LIMITS = { maxSteps: 8, tokenCeiling: 200000, timeLimitSeconds: 1800 };
const REPO = path.resolve(__dirname, '..', '..', '..');

function step(index: number): StepView {
  return { index, applied: true, files: [{ path: 'src/a.ts', kind: 'modify', added: 1, removed: 1 }], checks: [], failureCount: 0, failureHash: 'h', postMortem: null, tokens: 10, critics: [], feedback: null, status: null, confidence: null, durationMs: 1, snapshotDir: '/s', rolledBack: null, restoredToStep: null };
}

function stopped(stopReason: StopReason, over: Partial<RunState> = {}): RunState {
  return { ...idleState('/w', 'w', LIMITS), status: 'stopped', runId: 'r', runDir: '/runs/r', stopReason, outcome: stopReason === 'green' ? 'fixed' : 'partial', steps: [step(1), step(2)], bestStep: 2, step: 2, ...over };
}

const pendingReview = { dir: '/r', files: [{ path: 'src/a.ts', kind: 'modified' as const, decision: 'pending' as const }, { path: 'src/b.ts', kind: 'modified' as const, decision: 'pending' as const }] };
const keptReview = { dir: '/r', files: pendingReview.files.map((f) => ({ ...f, decision: 'kept' as const })) };

describe('panel focus', () => {
  it('after a stop, the first pending file of the review, else Continue, else the stop sentence', () => {
    assert.match(focusOrder(stopped('green', { review: pendingReview }))[0]!, /review-file.*pending.*review-name/);
    assert.equal(focusOrder(stopped('step-cap', { review: keptReview }))[0], '[data-action="continue"]');
    assert.equal(focusOrder(stopped('token-ceiling'))[0], '[data-action="continue"]');
    // A green run whose files are all kept, and a stalled one: nothing to continue; the sentence that says why it stopped.
    for (const st of [stopped('green', { review: keptReview }), stopped('stalled'), stopped('error', { reverted: 'run' })]) {
      const order = focusOrder(st);
      assert.equal(order.at(-1), '[data-testid="stop-sentence"]', st.stopReason!);
      assert.ok(!order.includes('[data-action="continue"]'), `${st.stopReason}: no Continue to focus`);
    }
  });

  it('never names an action that discards work, in any state the panel draws', () => {
    const states: (RunState | null)[] = [
      null,
      idleState('/w', 'w', LIMITS),
      { ...idleState('/w', 'w', LIMITS), status: 'running', runId: 'r', phase: 'step 1: verifying' },
      ...(['green', 'stalled', 'step-cap', 'token-ceiling', 'regressed', 'error', 'preflight-failed', 'time-limit'] as StopReason[]).flatMap((r) => [stopped(r), stopped(r, { review: pendingReview }), stopped(r, { review: keptReview }), stopped(r, { reverted: 'best' })]),
    ];
    for (const st of states) {
      const order = focusOrder(st);
      assert.ok(order.length > 0, `${st?.status ?? 'null'}: somewhere to go`);
      for (const sel of order) {
        assert.ok(!/revert|undo/i.test(sel), `${st?.status}/${st?.stopReason}: ${sel} discards work`);
        assert.ok(!DESTRUCTIVE_SELECTORS.includes(sel), sel);
      }
    }
  });

  it('names only elements the panel draws, with the focusable sentence and phase (a renamed test id would leave the focus nowhere)', () => {
    const panel = readFileSync(path.join(REPO, 'media', 'panel.ts'), 'utf8') + readFileSync(path.join(REPO, 'media', 'sessionView.ts'), 'utf8');
    for (const testid of ['stop-sentence', 'checks-sentence', 'phase', 'session-sentence']) {
      assert.match(panel, new RegExp(`'data-testid': '${testid}', tabindex: -1`), `${testid} is drawn and takes the focus`);
    }
    for (const action of ['continue', 'run', 'revertRun', 'revertToBest']) assert.match(panel, new RegExp(`button\\('${action}'`), action);
    assert.match(panel, /'data-testid': 'review-file'/);
    assert.match(panel, /class: 'review-name link'/);
    assert.match(panel, /`review-\$\{action\}\$\{path === null \? '-all' : ''\}`/, 'review-undo-all is the Undo all button');
    // The webview asks panelFocus, not "the first enabled button" (which was Revert run on a green run).
    assert.match(panel, /focusOrder\(state\)/);
    assert.doesNotMatch(panel, /querySelector<HTMLElement>\('\.actions button:not\(:disabled\)/);
  });

  it("draws no reason id or outcome beside the plain words: the data-testid copies are hidden, Technical detail names them (issue 40)", () => {
    for (const file of ['panel.ts', 'sessionView.ts']) {
      const src = readFileSync(path.join(REPO, 'media', file), 'utf8');
      assert.match(src, /h\('div', \{ class: 'ids', hidden: true \}, h\('code', \{ 'data-testid': 'stop-reason' \}/, `${file}: the stop-reason test id is kept, not drawn`);
      assert.doesNotMatch(src, /'stop reason ', h\('code'/, `${file}: no visible ids line under the stop`);
    }
    assert.match(readFileSync(path.join(REPO, 'media', 'panel.css'), 'utf8'), /\[hidden\] \{ display: none !important; \}/, 'no class display rule draws a hidden element');
  });

  it('after a refused start, says why with the notification\'s buttons and puts the keyboard on its first fix, not "no run yet" (issue 40)', () => {
    const refused: RunState = { ...idleState('/w', 'w', LIMITS), refused: { message: 'fake-coder on 127.0.0.1:4011 needs an API key.', actions: [{ kind: 'setApiKey', provider: 'openai-compatible' }, { kind: 'setBaseUrl' }] } };
    assert.deepEqual(focusOrder(refused).slice(0, 2), ['[data-testid="refusal-fix"]', '[data-action="run"]']);
    assert.equal(focusOrder({ ...refused, refused: null })[0], '[data-action="run"]');
    // Over a finished run too: the refusal is the newest fact.
    assert.equal(focusOrder(stopped('green', { refused: refused.refused }))[0], '[data-testid="refusal-fix"]');
    const src = readFileSync(path.join(REPO, 'media', 'panel.ts'), 'utf8');
    assert.match(src, /'data-testid': 'refusal-sentence'[^\n]*`Did not start: \$\{r\.message\}`/, 'the sentence the notification shows');
    assert.match(src, /send\(\{ type: 'fix', index, folder: st\.folder \}\)/, 'each fix is the notification\'s, by its index');
    assert.match(src, /button\('run', runAgainLabel\(st\)/, 'and Run (again, when a run ran)');
  });

  it('keeps no disabled Stop on a finished run, and promises no checks a folder may not have (issue 40)', () => {
    const src = readFileSync(path.join(REPO, 'media', 'panel.ts'), 'utf8');
    assert.match(src, /st\.status === 'running' \? button\('stop', 'Stop', 'debug-stop', true,/);
    assert.doesNotMatch(src, /type check, lint and tests pass/);
  });
});

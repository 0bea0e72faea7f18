// The panel's message protocol: what each side accepts from the other.
import assert from 'node:assert/strict';
import { COMMAND_IDS } from '../../../src/vscode/common/commandIds';
import { isFromWebview, isPersistedPanelState, isRunState, isToWebview, PANEL_ACTION_COMMANDS, PANEL_ACTIONS } from '../../../src/vscode/common/protocol';
import { idleState } from '../../../src/vscode/common/runState';

const STATE = { ...idleState('/w/app', 'app', { maxSteps: 8, tokenCeiling: 200000, timeLimitSeconds: 1800 }), status: 'stopped' as const, stopReason: 'green' as const };

describe('panel message protocol', () => {
  it('accepts every well-formed webview message', () => {
    assert.ok(isFromWebview({ type: 'ready' }));
    for (const action of PANEL_ACTIONS) {
      assert.ok(isFromWebview({ type: 'action', action, folder: '/w/app' }), action);
      assert.ok(isFromWebview({ type: 'action', action, folder: null }), action);
    }
    assert.ok(isFromWebview({ type: 'openDiff', step: 2, folder: '/w/app' }));
    for (const action of ['diff', 'keep', 'undo']) {
      assert.ok(isFromWebview({ type: 'review', action, path: 'src/a.ts', folder: '/w/app' }), action);
      assert.ok(isFromWebview({ type: 'review', action, path: null, folder: null }), `${action} all`);
    }
    assert.ok(!isFromWebview({ type: 'review', action: 'delete', path: 'src/a.ts', folder: null }), 'an unknown review action');
    assert.ok(!isFromWebview({ type: 'review', action: 'undo', path: '', folder: null }), 'an empty path');
    // A refused start's fix, by its index in the refusal (the host looks the action up; the webview names none).
    assert.ok(isFromWebview({ type: 'fix', index: 0, folder: '/w/app' }));
    assert.ok(isFromWebview({ type: 'fix', index: 1, folder: null }));
    for (const index of [-1, 1.5, '0', 99]) assert.ok(!isFromWebview({ type: 'fix', index, folder: null }), `index ${String(index)}`);
  });

  it('maps every button to the registered command of its name (the panel runs commands, one path)', () => {
    for (const action of PANEL_ACTIONS) {
      assert.equal(PANEL_ACTION_COMMANDS[action], `fixUntilGreen.${action}`);
      assert.ok((COMMAND_IDS as readonly string[]).includes(PANEL_ACTION_COMMANDS[action]), action);
    }
  });

  it('rejects malformed or unknown webview messages', () => {
    for (const m of [
      null,
      undefined,
      'ready',
      [],
      {},
      { type: 'eval', code: 'x' },
      { type: 'action', action: 'deleteEverything', folder: null },
      { type: 'action', action: 'stop' },
      { type: 'action', action: 'stop', folder: 42 },
      { type: 'openDiff', step: 0, folder: null },
      { type: 'openDiff', step: 1.5, folder: null },
      { type: 'openDiff', step: '1', folder: null },
      { type: 'openDiff', folder: null },
    ]) {
      assert.equal(isFromWebview(m), false, JSON.stringify(m));
    }
  });

  it('accepts host messages with a run state, or none, and busy markers', () => {
    assert.ok(isToWebview({ type: 'state', state: STATE, now: 1 }));
    assert.ok(isToWebview({ type: 'state', state: JSON.parse(JSON.stringify(STATE)), now: 1 }), 'the state survives JSON, as postMessage sends it');
    assert.ok(isToWebview({ type: 'state', state: null, now: 1 }));
    assert.ok(isToWebview({ type: 'busy', action: 'revertRun' }));
    assert.ok(isToWebview({ type: 'busy', action: null }));
  });

  it('rejects host messages the webview cannot draw', () => {
    assert.equal(isToWebview({ type: 'state', state: STATE }), false, 'no clock');
    assert.equal(isToWebview({ type: 'state', state: { ...STATE, status: 'exploded' }, now: 1 }), false);
    assert.equal(isToWebview({ type: 'state', state: { ...STATE, steps: 'none' }, now: 1 }), false);
    assert.equal(isToWebview({ type: 'state', state: { ...STATE, limits: { maxSteps: 8 } }, now: 1 }), false);
    assert.equal(isToWebview({ type: 'busy', action: 'format' }), false);
    assert.equal(isToWebview({ type: 'html', html: '<script>' }), false);
    assert.equal(isRunState({ folder: 1 }), false);
  });

  it('recognises a saved panel state, and only that', () => {
    assert.ok(isPersistedPanelState({ version: 1, state: STATE }));
    assert.ok(isPersistedPanelState({ version: 1, state: null }));
    assert.equal(isPersistedPanelState({ version: 2, state: STATE }), false);
    assert.equal(isPersistedPanelState({ version: 1, state: { folder: '/w' } }), false);
    assert.equal(isPersistedPanelState(undefined), false);
  });
});

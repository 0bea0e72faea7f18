import assert from 'node:assert/strict';
import { defaultSettings, pickPrefixed, validateSettings } from '../../../src/core/settings';

describe('settings validation', () => {
  it('accepts an empty bag as the defaults of DESIGN §7', () => {
    const r = validateSettings({});
    assert.ok(r.ok);
    assert.deepEqual(r.settings, defaultSettings());
    assert.equal(r.settings.maxSteps, 8);
    assert.equal(r.settings.tokenCeiling, 200000);
    assert.equal(r.settings.stallThreshold, 3);
    assert.equal(r.settings.onStop, 'keep-best');
  });

  it('names every bad setting with its bound', () => {
    const r = validateSettings({ maxSteps: -1, tokenCeiling: 10, stallThreshold: 'three', onStop: 'pray', 'model.provider': 'gpt' });
    assert.equal(r.ok, false);
    if (r.ok) return;
    const msgs = r.issues.map((i) => i.message);
    assert.deepEqual(r.issues.map((i) => i.setting), [
      'fixUntilGreen.maxSteps',
      'fixUntilGreen.tokenCeiling',
      'fixUntilGreen.stallThreshold',
      'fixUntilGreen.onStop',
      'fixUntilGreen.model.provider',
    ]);
    assert.match(msgs[0]!, /maxSteps must be an integer from 1 to 100; got -1/);
    assert.match(msgs[2]!, /got "three"/);
  });

  it('checks each configured check', () => {
    const r = validateSettings({ checks: [{ name: 'a', command: 'tsc' }, { name: 'a', command: 'eslint .' }, { command: 'x' }, { name: 'p', command: 'x', parser: 'pytest' }] });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.deepEqual(r.issues.map((i) => i.setting), ['fixUntilGreen.checks[1].name', 'fixUntilGreen.checks[2].name', 'fixUntilGreen.checks[3].parser']);
  });

  it('reads prefixed keys from settings.json, flat or nested, and ignores others', () => {
    const bag = pickPrefixed({ 'fixUntilGreen.maxSteps': 4, 'fixUntilGreen.model.id': 'm', 'editor.tabSize': 2 });
    assert.deepEqual(bag, { maxSteps: 4, 'model.id': 'm' });
    const r = validateSettings(bag);
    assert.ok(r.ok);
    assert.equal(r.settings.model.id, 'm');
  });
});

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

  it('reads the escalation ladder, escalateOn, costCeiling and pricing, flat or nested', () => {
    const r = validateSettings({
      'model.escalation': [{ provider: 'openai-compatible', id: 'big', baseUrl: 'http://localhost:8080/v1' }, { provider: 'anthropic', id: 'claude-x' }],
      'model.pricing': { big: { input: 2.5, output: 10 }, 'claude-x': { input: 3, output: 15 } },
      escalateOn: ['stalled', 'budget-depleted'],
      costCeiling: 2.5,
    });
    assert.ok(r.ok, JSON.stringify(!r.ok && r.issues));
    assert.deepEqual(r.settings.model.escalation, [{ provider: 'openai-compatible', id: 'big', baseUrl: 'http://localhost:8080/v1' }, { provider: 'anthropic', id: 'claude-x', baseUrl: '' }]);
    assert.deepEqual(r.settings.model.pricing.big, { input: 2.5, output: 10 });
    assert.deepEqual(r.settings.escalateOn, ['stalled', 'budget-depleted']);
    assert.equal(r.settings.costCeiling, 2.5);
    const nested = validateSettings(pickPrefixed({ fixUntilGreen: { model: { escalation: [{ provider: 'replay', id: 'b.json' }] } } }));
    assert.ok(nested.ok);
    assert.equal(nested.settings.model.escalation[0]!.id, 'b.json');
    assert.deepEqual(defaultSettings().escalateOn, ['stalled', 'low-confidence', 'unreachable']);
    assert.deepEqual(defaultSettings().model.escalation, []);
    assert.equal(defaultSettings().costCeiling, 0);
  });

  it('names each bad rung, price, escalateOn entry and cost ceiling', () => {
    const r = validateSettings({
      'model.escalation': [{ provider: 'gpt', id: 'x' }, 'big', { id: 'no-provider' }, { provider: 'anthropic', id: 'c', baseUrl: 'ftp://x' }],
      'model.pricing': { big: { input: -1, output: 10 }, ok: { input: 1, output: 1 }, half: { input: 1 } },
      escalateOn: ['stalled', 'step-cap'],
      costCeiling: -1,
    });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.deepEqual(r.issues.map((i) => i.setting), [
      'fixUntilGreen.costCeiling',
      'fixUntilGreen.model.escalation[0].provider',
      'fixUntilGreen.model.escalation[1]',
      'fixUntilGreen.model.escalation[2].provider',
      'fixUntilGreen.model.escalation[3].baseUrl',
      'fixUntilGreen.model.pricing.big',
      'fixUntilGreen.model.pricing.half',
      'fixUntilGreen.escalateOn',
    ]);
    assert.match(r.issues.at(-1)!.message, /distinct stop reasons from stalled, low-confidence, unreachable, budget-depleted; got \["stalled","step-cap"\]/);
    assert.ok(!validateSettings({ escalateOn: ['stalled', 'stalled'] }).ok, 'each reason once');
    const long = validateSettings({ 'model.escalation': Array.from({ length: 6 }, () => ({ provider: 'replay', id: 'r.json' })) });
    assert.ok(!long.ok && /at most 5 models; got 6/.test(long.issues[0]!.message));
  });
});

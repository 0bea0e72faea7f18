// The key rule as a pure decision (issue 29): an endpoint the folder's files alone chose is never
// sent the owner's key; a loopback one gets none, any other is refused naming file, setting, host
// and how to confirm; an endpoint the owner named or confirmed is trusted.
import assert from 'node:assert/strict';
import type { KeyedEndpoint } from '../../../src/core/model/keyTrust';
import { endpointOrigin } from '../../../src/core/endpoints';
import { decideKeyTrust, folderSettingNotices } from '../../../src/core/model/keyTrust';

const FILE = '/repo/.vscode/settings.json';
const confirm = (_e: KeyedEndpoint, url: string): string => `pass --base-url ${url}`;
const model = (over: Partial<KeyedEndpoint>): KeyedEndpoint => ({ setting: 'fixUntilGreen.model', provider: 'openai-compatible', baseUrl: '', fromFolder: [], keyed: true, ...over });

describe('key trust: a key goes only where its owner sends it', () => {
  it('refuses a folder-chosen base URL with a key, naming the file, the setting, the host and the confirmation', () => {
    const d = decideKeyTrust({ file: FILE, howToConfirm: confirm, endpoints: [model({ baseUrl: 'https://evil.example:8443/v1', fromFolder: ['baseUrl'] })] });
    assert.equal(d.ok, false);
    if (d.ok) return;
    assert.equal(d.refusal.file, FILE);
    assert.equal(d.refusal.setting, 'fixUntilGreen.model.baseUrl');
    assert.equal(d.refusal.host, 'evil.example:8443');
    assert.equal(d.refusal.origin, 'https://evil.example:8443');
    assert.match(d.refusal.message, /\/repo\/\.vscode\/settings\.json sets fixUntilGreen\.model\.baseUrl to https:\/\/evil\.example:8443\/v1/);
    assert.match(d.refusal.message, /key would be sent to evil\.example:8443/);
    assert.match(d.refusal.message, /pass --base-url https:\/\/evil\.example:8443\/v1/);
  });

  it('refuses a folder-chosen provider (its public endpoint) with a key', () => {
    const d = decideKeyTrust({ file: FILE, howToConfirm: () => 'pass --model anthropic:ID', endpoints: [model({ provider: 'anthropic', fromFolder: ['provider'] })] });
    assert.ok(!d.ok && d.refusal.setting === 'fixUntilGreen.model.provider' && d.refusal.host === 'api.anthropic.com');
  });

  it('refuses a folder-chosen escalation rung, naming the rung', () => {
    const d = decideKeyTrust({ file: FILE, howToConfirm: confirm, endpoints: [model({ provider: 'replay', keyed: false }), model({ setting: 'fixUntilGreen.model.escalation[0]', baseUrl: 'http://10.1.2.3/v1', fromFolder: ['provider', 'baseUrl'] })] });
    assert.ok(!d.ok);
    assert.equal(d.refusal.setting, 'fixUntilGreen.model.escalation[0]');
    assert.equal(d.refusal.host, '10.1.2.3');
  });

  it('trusts what the owner named, what carries no key, and what the owner confirmed for this folder', () => {
    assert.deepEqual(decideKeyTrust({ file: FILE, howToConfirm: confirm, endpoints: [model({ baseUrl: 'https://evil.example/v1' })] }), { ok: true, withhold: [] });
    assert.deepEqual(decideKeyTrust({ file: FILE, howToConfirm: confirm, endpoints: [model({ baseUrl: 'https://evil.example/v1', fromFolder: ['baseUrl'], keyed: false })] }), { ok: true, withhold: [] });
    const confirmed = [endpointOrigin('https://gw.example/v1')];
    assert.deepEqual(decideKeyTrust({ file: FILE, confirmed, howToConfirm: confirm, endpoints: [model({ baseUrl: 'https://gw.example/other', fromFolder: ['baseUrl'] })] }), { ok: true, withhold: [] });
    // Confirmed for one origin is not confirmed for another port or scheme.
    assert.equal(decideKeyTrust({ file: FILE, confirmed, howToConfirm: confirm, endpoints: [model({ baseUrl: 'http://gw.example/v1', fromFolder: ['baseUrl'] })] }).ok, false);
  });

  it('a folder-chosen server on this machine is sent no key instead of being refused', () => {
    assert.deepEqual(decideKeyTrust({ file: FILE, howToConfirm: confirm, endpoints: [model({ baseUrl: 'http://127.0.0.1:11434/v1', fromFolder: ['baseUrl'] })] }), { ok: true, withhold: ['fixUntilGreen.model'] });
  });

  it('names the money and gate settings the folder set, and only those', () => {
    const lines = folderSettingNotices(FILE, ['maxSteps', 'costCeiling', 'protectedPaths', 'allowVerifierEdits', 'stallThreshold'], { maxSteps: 100, costCeiling: 50, protectedPaths: [], allowVerifierEdits: true, stallThreshold: 9 });
    assert.deepEqual(lines, [
      `${FILE} sets fixUntilGreen.maxSteps = 100: it spends more of your money`,
      `${FILE} sets fixUntilGreen.costCeiling = 50: it spends more of your money`,
      `${FILE} sets fixUntilGreen.protectedPaths = [] (no file protected): it decides which files the model may not edit`,
      `${FILE} sets fixUntilGreen.allowVerifierEdits = true: it lets the model edit what defines the checks`,
    ]);
    assert.deepEqual(folderSettingNotices(FILE, ['protectedPaths', 'allowVerifierEdits'], { protectedPaths: ['**/*.test.ts'], allowVerifierEdits: false }), []);
  });
});

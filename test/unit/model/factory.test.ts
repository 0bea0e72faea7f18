// Provider creation lives in the core and fails with a typed error; each front end words it its own
// way, so the CLI's flags never reach a VS Code notification and VS Code's commands never reach a terminal.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { UsageError } from '../../../src/cli/errors';
import { createCliProvider, providerUsageError } from '../../../src/cli/providers';
import { createProvider, ProviderConfigError, VSCODE_KEY_HINT } from '../../../src/core/model/factory';
import type { ModelSettings } from '../../../src/core/settings';
import { defaultSettings } from '../../../src/core/settings';
import { providerProblem } from '../../../src/vscode/common/providerProblem';

function configError(f: () => unknown): ProviderConfigError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof ProviderConfigError, `expected a ProviderConfigError, got ${String(e)}`);
    return e;
  }
  assert.fail('no error');
}

describe('provider factory (core)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-providers-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const model = (m: Partial<ModelSettings>): ModelSettings => ({ provider: 'replay', id: '', baseUrl: '', ...m });
  const setup = { root: '', keyHint: VSCODE_KEY_HINT };

  it('builds a replay provider from a file relative to the workspace folder', () => {
    writeFileSync(path.join(dir, 'r.json'), JSON.stringify({ responses: [{ text: 'hi' }] }));
    const p = createProvider(model({ id: 'r.json' }), { ...setup, root: dir });
    assert.equal(p.label, 'replay:r.json');
  });

  it('says what is wrong in settings terms, with a code and the setting at fault, never a CLI flag', () => {
    const cases: [ModelSettings, string, string][] = [
      [model({ id: '' }), 'no-replay-file', 'model.id'],
      [model({ id: 'missing.json' }), 'bad-replay-file', 'model.id'],
      [model({ provider: 'openai-compatible', id: ' ' }), 'no-model-id', 'model.id'],
      [model({ provider: 'anthropic', id: 'claude-x' }), 'no-api-key', 'apiKey'],
      [model({ provider: 'openai-compatible', id: 'gpt-x', baseUrl: 'https://api.example.invalid/v1' }), 'no-api-key', 'apiKey'],
      [model({ provider: 'vscode-lm', id: '' }), 'host-provider', 'model.provider'],
    ];
    for (const [m, code, field] of cases) {
      const e = configError(() => createProvider(m, { ...setup, root: dir }));
      assert.equal(e.code, code, m.provider);
      assert.equal(e.field, field, m.provider);
      assert.equal(e.provider, m.provider);
      assert.doesNotMatch(e.message, /--model|CLI/, e.message);
    }
  });

  it('the missing-key message carries the front end\'s own key hint', () => {
    const e = configError(() => createProvider(model({ provider: 'anthropic', id: 'claude-x' }), setup));
    assert.match(e.message, /Set API Key/);
  });

  it('a loopback endpoint needs no key', () => {
    const p = createProvider(model({ provider: 'openai-compatible', id: 'm', baseUrl: 'http://127.0.0.1:9/v1' }), setup);
    assert.match(p.label, /m/);
  });
});

describe('provider wording (CLI)', () => {
  const settings = (m: Partial<ModelSettings>): ReturnType<typeof defaultSettings> => ({ ...defaultSettings(), model: { ...defaultSettings().model, provider: 'replay', id: '', baseUrl: '', ...m } });

  it('words each configuration error in its flags', () => {
    assert.throws(() => createCliProvider(settings({ id: '' }), '/'), (e: unknown) => e instanceof UsageError && e.message === '--model replay:FILE needs a file');
    assert.throws(() => createCliProvider(settings({ provider: 'vscode-lm' }), '/'), (e: unknown) => e instanceof UsageError && /runs only inside VS Code; pass --model replay:FILE/.test(e.message));
    assert.throws(
      () => createCliProvider(settings({ provider: 'openai-compatible', id: '' }), '/'),
      (e: unknown) => e instanceof UsageError && /model\.id is empty.*--model openai-compatible:ID/.test(e.message),
    );
    const unknown = providerUsageError(new ProviderConfigError('unknown-provider', 'model.provider', 'bedrock', 'x'));
    assert.equal(unknown.message, '--model bedrock: this provider is not available in this build of the CLI');
  });

  it('reads the key from the environment it is given, and names the variable when it is missing', () => {
    const s = settings({ provider: 'anthropic', id: 'claude-x' });
    assert.throws(() => createCliProvider(s, '/', { env: {} }), (e: unknown) => e instanceof UsageError && /set the ANTHROPIC_API_KEY environment variable/.test(e.message));
    assert.doesNotThrow(() => createCliProvider(s, '/', { env: { ANTHROPIC_API_KEY: 'k' } }));
  });
});

describe('provider wording (VS Code)', () => {
  it('words each configuration error in settings and commands, never a CLI flag', () => {
    const codes = ['no-replay-file', 'bad-replay-file', 'no-model-id', 'no-api-key', 'host-provider', 'unknown-provider'] as const;
    for (const code of codes) {
      const text = providerProblem(new ProviderConfigError(code, 'model.id', 'openai-compatible', `core wording of ${code}`));
      assert.doesNotMatch(text, /--model|CLI|environment variable/, `${code}: ${text}`);
      assert.ok(text.length > 0);
    }
    assert.equal(providerProblem(new ProviderConfigError('no-replay-file', 'model.id', 'replay', 'x')), 'fixUntilGreen.model.id is empty: name the replay script file, relative to the workspace folder');
    // The missing-key message is the core's, built with VS Code's hint (Set API Key).
    const key = (() => {
      try {
        createProvider({ provider: 'anthropic', id: 'claude-x', baseUrl: '' }, { root: '/', keyHint: VSCODE_KEY_HINT });
      } catch (e) {
        return providerProblem(e as ProviderConfigError);
      }
      return '';
    })();
    assert.match(key, /needs an API key and none is set: run the command "Fix Until Green: Set API Key"/);
  });
});

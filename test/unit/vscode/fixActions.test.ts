// A problem that stops a run is one short sentence with its fixes as buttons: the model named once,
// the fix as an action instead of prose.
import assert from 'node:assert/strict';
import { ProviderConfigError, VSCODE_KEY_HINT } from '../../../src/core/model/factory';
import { actionLabel, checksProblem, explainError, ladderFix, missingKey, noChatModel, providerFix } from '../../../src/vscode/common/fixActions';

describe('fix actions of a problem', () => {
  it('a 401 says the server refused the key, names the model once, and offers Set API Key', () => {
    // The detail a run ends with when the server answers 401 (run.ts + httpFaults.ts).
    const detail = `model openai-compatible:fake-coder: openai-compatible:fake-coder at 127.0.0.1:4011 refused the API key (401 Incorrect API key provided). Fix: ${VSCODE_KEY_HINT}.`;
    const p = explainError(detail);
    // The model as a person names it, on the server the key is for (issue 40), not by its setting.
    assert.equal(p.message, 'fake-coder on 127.0.0.1:4011 refused the API key (401 Incorrect API key provided).');
    assert.equal(p.message.split('fake-coder').length - 1, 1, 'the model name once');
    assert.deepEqual(p.actions.map(actionLabel), ['Set API Key', 'Open Settings']);
    assert.deepEqual(p.actions[1], { kind: 'openSetting', setting: 'fixUntilGreen.model.provider' });
    // Set API Key opens the key box for the provider the error named: it does not ask which (issue 40).
    assert.deepEqual(p.actions[0], { kind: 'setApiKey', provider: 'openai-compatible' });
  });

  it('a missing key is one sentence naming the host it is for, with Set API Key and Set Base URL', () => {
    // An OpenAI-compatible provider with no base URL would go to api.openai.com: the server's address comes first.
    const empty = missingKey('openai-compatible', '');
    assert.equal(empty.message, 'No server is set for the OpenAI-compatible provider: set its base URL, or an API key to use api.openai.com.');
    assert.deepEqual(empty.actions.map(actionLabel), ['Set Base URL', 'Set API Key']);
    const remote = missingKey('openai-compatible', 'https://openrouter.ai/api/v1');
    assert.equal(remote.message, 'openrouter.ai needs an API key (openai-compatible).');
    assert.deepEqual(remote.actions.map(actionLabel), ['Set API Key', 'Set Base URL']);
    assert.equal(missingKey('anthropic', '').message, 'api.anthropic.com needs an API key (anthropic).');
    for (const p of [empty, remote]) {
      assert.doesNotMatch(p.message, /fixUntilGreen\.|Set API Key|127\.0\.0\.1:11434/, 'no command id, no setting key, no note on local servers');
      assert.equal(p.message.split(/[.:] [A-Z]/).length, 1, `one sentence: ${p.message}`);
    }
    // A rung of the ladder keeps the key but not the run's own base URL.
    assert.deepEqual(ladderFix(remote.actions).map(actionLabel), ['Set API Key', 'Open Settings']);
  });

  it('a 401 from a server never given a key says it needs one, for which host, with both fixes', () => {
    const detail = `model openai-compatible:fake-coder: openai-compatible:fake-coder at 127.0.0.1:4011/v1 needs an API key and none was sent (401 Incorrect API key provided: (none).). Fix: ${VSCODE_KEY_HINT}.`;
    const p = explainError(detail);
    assert.equal(p.message, 'fake-coder on 127.0.0.1:4011 needs an API key.');
    assert.deepEqual(p.actions.map(actionLabel), ['Set API Key', 'Set Base URL']);
    assert.deepEqual(p.actions[0], { kind: 'setApiKey', provider: 'openai-compatible' });
    assert.deepEqual(explainError(detail.replace(/openai-compatible/g, 'anthropic')).actions[0], { kind: 'setApiKey', provider: 'anthropic' });
    // The same words for a preflight stop read back from its detail.
    const pre = explainError('openai-compatible at api.openai.com/v1 needs an API key and none is set: run the command "Fix Until Green: Set API Key" (fixUntilGreen.setApiKey) (a server on this machine, e.g. http://127.0.0.1:11434/v1, needs none; set fixUntilGreen.model.baseUrl to use one)');
    assert.equal(pre.message, 'api.openai.com needs an API key (openai-compatible).');
    assert.deepEqual(pre.actions[0], { kind: 'setApiKey', provider: 'openai-compatible' });
    assert.deepEqual(missingKey('anthropic', '').actions[0], { kind: 'setApiKey', provider: 'anthropic' });
    assert.deepEqual(providerFix(new ProviderConfigError('no-api-key', 'apiKey', 'anthropic', 'x'))[0], { kind: 'setApiKey', provider: 'anthropic' });
  });

  it('no chat model offers Choose Model… and the provider setting', () => {
    const p = noChatModel('');
    assert.equal(p.message, 'No chat model is available in VS Code.');
    assert.deepEqual(p.actions.map(actionLabel), ['Choose Model…', 'Open Settings']);
    assert.deepEqual(p.actions[1], { kind: 'openSetting', setting: 'fixUntilGreen.model.provider' });
    assert.match(noChatModel('gpt-4o').message, /matching "gpt-4o"/);
    // The same problem, read back from a preflight-failed stop's detail.
    assert.deepEqual(explainError(p.message).actions, p.actions);
  });

  it('a provider that cannot be built opens the setting that fixes it', () => {
    assert.deepEqual(providerFix(new ProviderConfigError('no-api-key', 'apiKey', 'openai-compatible', 'x')).map(actionLabel), ['Set API Key', 'Set Base URL']);
    assert.deepEqual(providerFix(new ProviderConfigError('no-model-id', 'model.id', 'anthropic', 'x')), [{ kind: 'openSetting', setting: 'fixUntilGreen.model.id' }]);
    assert.deepEqual(providerFix(new ProviderConfigError('unknown-provider', 'model.provider', 'foo', 'x'))[0], { kind: 'chooseModel' });
  });

  it('a 404 points at the model id, an unreachable server at the base URL, other faults offer nothing', () => {
    assert.deepEqual(explainError('model a:b: a:b at h: model "b" or the endpoint was not found (404). Fix: set fixUntilGreen.model.id (CLI: --model) to a model this server serves').actions, [{ kind: 'openSetting', setting: 'fixUntilGreen.model.id' }]);
    assert.deepEqual(explainError('could not reach 127.0.0.1:9 (ECONNREFUSED)').actions, [{ kind: 'openSetting', setting: 'fixUntilGreen.model.baseUrl' }]);
    const other = explainError('could not restore the state of step 1: src/a.ts changed on disk');
    assert.deepEqual(other, { message: 'could not restore the state of step 1: src/a.ts changed on disk.', actions: [] });
  });

  it('checks that cannot run open fixUntilGreen.checks', () => {
    const p = checksProblem(['check "test": npx not found', 'check "lint": eslint not found']);
    assert.equal(p.message, 'The checks cannot run: check "test": npx not found (and 1 more; see the log)');
    assert.deepEqual(p.actions, [{ kind: 'openSetting', setting: 'fixUntilGreen.checks' }]);
  });
});

// Choose Model…'s guided set-up: the base URL it accepts, when it asks for a key, the server's own
// model list (a real HTTP server speaking the OpenAI API), and the sentence that says where it saved.
import assert from 'node:assert/strict';
import { listModels, modelIds, modelsUrl } from '../../../src/core/model/modelList';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { baseUrlProblem, keyAsked, keyPrompt, savedSentence, scopeName } from '../../../src/vscode/common/modelSetup';

describe('Choose Model… set-up', () => {
  it('accepts an http(s) base URL or none, and says what is wrong with another', () => {
    assert.equal(baseUrlProblem(''), undefined, 'empty: the provider default');
    assert.equal(baseUrlProblem('http://127.0.0.1:11434/v1'), undefined);
    assert.match(baseUrlProblem('127.0.0.1:11434') ?? '', /Not a URL|http/);
    assert.match(baseUrlProblem('ftp://host/v1') ?? '', /http:\/\/ or https:\/\//);
  });

  it('asks for a key only for a remote server with none stored', () => {
    assert.equal(keyAsked('http://127.0.0.1:11434/v1', 'openai-compatible', false), false, 'a local server needs none');
    assert.equal(keyAsked('', 'openai-compatible', false), true, 'api.openai.com');
    assert.equal(keyAsked('https://openrouter.ai/api/v1', 'openai-compatible', true), false, 'one is stored');
    assert.equal(keyAsked('', 'vscode-lm', false), false);
  });

  it('says what runs now and which scope it was saved to', () => {
    assert.equal(savedSentence({ provider: 'openai-compatible', id: 'qwen2.5-coder', baseUrl: 'http://127.0.0.1:11434/v1' }, scopeName(false, 'invoice')), "Fix Until Green runs with qwen2.5-coder on 127.0.0.1:11434: saved to this workspace's settings (.vscode/settings.json).");
    assert.equal(savedSentence({ provider: 'anthropic', id: 'claude-sonnet-4', baseUrl: '' }, scopeName(false, 'invoice')), "Fix Until Green runs with claude-sonnet-4 on api.anthropic.com: saved to this workspace's settings (.vscode/settings.json).");
    assert.equal(savedSentence({ provider: 'vscode-lm', id: 'gpt-4o', baseUrl: '' }, scopeName(true, 'api'), 'GPT-4o'), 'Fix Until Green runs with GPT-4o: saved to the folder settings of api (api/.vscode/settings.json).');
  });
});

describe("Choose Model…'s key box (issue 40 walk)", () => {
  // A server on this machine is asked no key first; when its /models answers 401 the password box
  // opened with no word of why. The rule: a box the server's answer opened says that answer first.
  it("says why it asks when the server's answer made it ask, then where the key goes", async () => {
    assert.equal(keyPrompt(), "Stored in VS Code's secret storage, never in settings.");
    const server = await startFakeOpenAI({ replies: [], apiKey: 'sk-walk-0123456789' });
    try {
      const listing = await listModels('anthropic', server.url, undefined);
      assert.ok(!listing.ok && listing.needsKey);
      const p = keyPrompt(listing.reason);
      assert.match(p, /^Asked because 127\.0\.0\.1:\d+\/v1\/models answered 401: it needs an API key\. The key is stored in VS Code's secret storage, never in settings\.$/);
    } finally {
      await server.close();
    }
  });
});

describe("a server's model list", () => {
  let open: FakeOpenAI;
  let keyed: FakeOpenAI;
  before(async () => {
    open = await startFakeOpenAI({ models: ['qwen2.5-coder:7b', 'llama3.1:8b'] });
    keyed = await startFakeOpenAI({ models: ['fake-coder'], apiKey: 'sk-list-3f9a1c7e' });
  });
  after(async () => {
    await open.close();
    await keyed.close();
  });

  it('lists the ids a server serves, sorted', async () => {
    assert.deepEqual(await listModels('openai-compatible', open.url, undefined), { ok: true, ids: ['llama3.1:8b', 'qwen2.5-coder:7b'] });
  });

  it('says a key is missing (or refused) on a 401, and lists with the right key', async () => {
    const none = await listModels('openai-compatible', keyed.url, undefined);
    assert.equal(none.ok, false);
    assert.ok(!none.ok && none.needsKey && /needs an API key/.test(none.reason));
    const wrong = await listModels('openai-compatible', keyed.url, 'sk-wrong-00000000');
    assert.ok(!wrong.ok && wrong.needsKey && /refused/.test(wrong.reason) && !wrong.reason.includes('sk-wrong'));
    assert.deepEqual(await listModels('openai-compatible', keyed.url, 'sk-list-3f9a1c7e'), { ok: true, ids: ['fake-coder'] });
  });

  it('an unreachable server is a reason, not a throw', async () => {
    const r = await listModels('openai-compatible', 'http://127.0.0.1:9/v1', undefined);
    assert.ok(!r.ok && !r.needsKey && /could not reach 127\.0\.0\.1:9\/v1/.test(r.reason), JSON.stringify(r));
  });

  it('reads the URL and the answer of each provider', () => {
    assert.equal(modelsUrl('openai-compatible', 'http://127.0.0.1:11434/v1/'), 'http://127.0.0.1:11434/v1/models');
    assert.equal(modelsUrl('openai-compatible', ''), 'https://api.openai.com/v1/models');
    assert.equal(modelsUrl('anthropic', ''), 'https://api.anthropic.com/v1/models');
    assert.deepEqual(modelIds({ models: [{ name: 'b' }, { name: 'a' }] }), ['a', 'b'], "Ollama's own list");
    assert.deepEqual(modelIds({ nope: 1 }), []);
  });
});

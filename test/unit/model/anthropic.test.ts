// The anthropic provider against the local fake server's Messages API.
import assert from 'node:assert/strict';
import type { AnthropicOptions } from '../../../src/core/model/anthropic';
import { AnthropicProvider } from '../../../src/core/model/anthropic';
import { ProviderFatalError, ProviderReplyError } from '../../../src/core/model/provider';
import type { CompletionRequest } from '../../../src/core/types';
import type { FakeOpenAI, FakeOpenAIOptions } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';

const KEY = 'sk-ant-unit-0123456789abcdef';
const HINT = 'set the ANTHROPIC_API_KEY environment variable to a valid key';

function request(over: Partial<CompletionRequest> = {}): CompletionRequest {
  return { system: 'You fix code.', messages: [{ role: 'user', content: 'Make the tests pass.' }], maxOutputTokens: 400, signal: new AbortController().signal, ...over };
}

describe('anthropic provider (against the local fake server)', () => {
  let server: FakeOpenAI | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function setup(o: FakeOpenAIOptions, p: Partial<AnthropicOptions> = {}): Promise<AnthropicProvider> {
    await server?.close();
    server = await startFakeOpenAI(o);
    // Either form of base URL works: the SDK adds /v1 itself.
    return new AnthropicProvider({ model: 'claude-fake', baseUrl: server.url, apiKey: KEY, keyHint: HINT, retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 40 }, ...p });
  }

  it('sends system, messages and max_tokens to /v1/messages and returns text with usage', async () => {
    const p = await setup({ replies: ['STATUS: done'] });
    const c = await p.complete(request());
    assert.equal(c.text, 'STATUS: done');
    assert.equal(c.usageReported, true);
    assert.equal(c.finishReason, 'end_turn');
    assert.deepEqual(c.usage, server!.requests[0]!.usage);
    const r = server!.requests[0]!;
    assert.equal(r.path, '/v1/messages');
    const body = r.body as { system: string; max_tokens: number; messages: unknown[] };
    assert.equal(body.system, 'You fix code.');
    assert.equal(body.max_tokens, 400);
    assert.equal(body.messages.length, 1);
    assert.equal(p.label, 'anthropic:claude-fake');
  });

  it('counts input tokens with the provider\'s own endpoint', async () => {
    const p = await setup({ replies: ['x'], usage: { inputScale: 1.2 } });
    const n = await p.countInputTokens({ system: 'You fix code.', messages: [{ role: 'user', content: 'Make the tests pass.' }] }, new AbortController().signal);
    await p.complete(request());
    assert.equal(n, server!.requests[1]!.usage!.input, 'the count matches what the call then reports');
  });

  it('retries 529 overloaded and 429, then succeeds', async () => {
    const p = await setup({ script: [{ fault: 'status', status: 529 }, { fault: 'status', status: 429, retryAfterMs: 20 }, { content: 'ok' }] });
    const notices: { attempt: number; retryAfterMs?: number; reason: string }[] = [];
    assert.equal((await p.complete({ ...request(), onRetry: (n) => notices.push(n) })).text, 'ok');
    assert.equal(server!.requests.length, 3);
    // The caller hears of each failed attempt (the loop writes them to the trace).
    assert.deepEqual(notices.map((n) => [n.attempt, n.retryAfterMs]), [[1, undefined], [2, 20]]);
    assert.match(notices[0]!.reason, /529/);
  });

  it('401 stops with a message naming ANTHROPIC_API_KEY and never the key', async () => {
    const p = await setup({ apiKey: 'sk-ant-other-key-999999' });
    await assert.rejects(p.complete(request()), (e: unknown) => e instanceof ProviderFatalError && /refused the API key.*ANTHROPIC_API_KEY/.test(e.message) && !e.message.includes(KEY));
  });

  it('a reply cut off at max_tokens, or with only a tool call, is a reply error', async () => {
    const p = await setup({ script: [{ content: 'word '.repeat(300) }, { content: null, toolCall: true }] });
    await assert.rejects(p.complete(request({ maxOutputTokens: 20 })), (e: unknown) => e instanceof ProviderReplyError && e.problem === 'truncated' && e.usage.output === 20);
    await assert.rejects(p.complete(request()), (e: unknown) => e instanceof ProviderReplyError && e.problem === 'not-text' && /tool_use/.test(e.message));
  });
});

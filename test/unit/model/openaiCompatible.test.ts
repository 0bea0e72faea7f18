// The openai-compatible provider against a real HTTP server on 127.0.0.1 that plays the model.
import assert from 'node:assert/strict';
import type { OpenAICompatibleOptions } from '../../../src/core/model/openaiCompatible';
import { OpenAICompatibleProvider } from '../../../src/core/model/openaiCompatible';
import { ProviderFatalError, ProviderReplyError } from '../../../src/core/model/provider';
import type { RetryNotice } from '../../../src/core/model/retry';
import { countRequestTokens } from '../../../src/core/tokens';
import type { CompletionRequest } from '../../../src/core/types';
import type { FakeOpenAI, FakeOpenAIOptions } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';

const KEY = 'sk-unit-9f8e7d6c5b4a3210';
const HINT = 'set the OPENAI_API_KEY environment variable to a valid key';

function request(over: Partial<CompletionRequest> = {}): CompletionRequest {
  return { system: 'You fix code.', messages: [{ role: 'user', content: 'Make the tests pass.' }], maxOutputTokens: 500, signal: new AbortController().signal, ...over };
}

describe('openai-compatible provider (against the local fake server)', () => {
  let server: FakeOpenAI | undefined;
  let notices: RetryNotice[];
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function setup(o: FakeOpenAIOptions, p: Partial<OpenAICompatibleOptions> = {}): Promise<OpenAICompatibleProvider> {
    await server?.close();
    server = await startFakeOpenAI(o);
    notices = [];
    return new OpenAICompatibleProvider({
      model: 'fake-model',
      baseUrl: server.url,
      apiKey: KEY,
      keyHint: HINT,
      retry: { attempts: 4, baseDelayMs: 10, maxDelayMs: 50 },
      onRetry: (n) => notices.push(n),
      ...p,
    });
  }

  it('sends the system prompt, the messages and the output limit, and returns text with reported usage', async () => {
    const p = await setup({ replies: ['STATUS: done'], usage: { inputScale: 1 } });
    const c = await p.complete(request());
    assert.equal(c.text, 'STATUS: done');
    assert.equal(c.usageReported, true);
    assert.equal(c.finishReason, 'stop');
    assert.deepEqual(c.usage, server!.requests[0]!.usage);
    const body = server!.requests[0]!.body as { model: string; messages: { role: string; content: string }[]; max_tokens: number };
    assert.equal(body.model, 'fake-model');
    assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user']);
    assert.equal(body.messages[0]!.content, 'You fix code.');
    assert.equal(body.max_tokens, 500);
    assert.equal(server!.requests[0]!.headers.authorization, `Bearer ${KEY}`);
    assert.equal(p.label, 'openai-compatible:fake-model');
  });

  it('estimates usage with the tokenizer when the server reports none', async () => {
    const p = await setup({ replies: ['hello world, this is the reply'], usage: { omit: true } });
    const req = request();
    const c = await p.complete(req);
    assert.equal(c.usageReported, false);
    assert.equal(c.usage.input, countRequestTokens(req));
    assert.ok(c.usage.output > 3 && c.usage.output < 20, `output ${c.usage.output}`);
  });

  it('needs no key for a loopback server', async () => {
    const p = await setup({ replies: ['ok'] }, { apiKey: undefined });
    assert.equal((await p.complete(request())).text, 'ok');
  });

  describe('preflight (is the server there at all?)', () => {
    it('passes when the server answers, even with 401 (auth is the first call\'s to report)', async () => {
      const p = await setup({ replies: ['x'] });
      assert.deepEqual(await p.preflight(new AbortController().signal), []);
      const q = await setup({ apiKey: 'sk-another-key-0000000' });
      assert.deepEqual(await q.preflight(new AbortController().signal), []);
      assert.deepEqual(server!.requests.map((r) => r.outcome), ['models 401']);
    });

    it('names the unreachable server and the setting to check', async () => {
      const p = await setup({});
      const url = server!.url;
      await server!.close();
      server = undefined;
      const problems = await p.preflight(new AbortController().signal);
      assert.equal(problems.length, 1);
      assert.match(problems[0]!, new RegExp(`cannot reach ${url.replace('http://', '').replace(/[./]/g, '\\$&')} \\(ECONNREFUSED\\); check that the server is running and fixUntilGreen\\.model\\.baseUrl`));
    });
  });

  describe('transient faults are retried', () => {
    it('429 with Retry-After: waits what the server asked, then succeeds', async () => {
      const p = await setup({ script: [{ fault: 'status', status: 429, retryAfter: 1 }, { content: 'after the wait' }] });
      const started = Date.now();
      const c = await p.complete(request());
      assert.equal(c.text, 'after the wait');
      assert.equal(server!.requests.length, 2);
      assert.equal(notices.length, 1);
      assert.equal(notices[0]!.retryAfterMs, 1000);
      assert.ok(Date.now() - started >= 1000, 'waited at least the Retry-After');
    });

    it('429 with retry-after-ms', async () => {
      const p = await setup({ script: [{ fault: 'status', status: 429, retryAfterMs: 30 }, { content: 'ok' }] });
      assert.equal((await p.complete(request())).text, 'ok');
      assert.equal(notices[0]!.retryAfterMs, 30);
    });

    for (const status of [500, 502, 503, 504, 408]) {
      it(`${status}, then success`, async () => {
        const p = await setup({ script: [{ fault: 'status', status }, { content: 'ok' }] });
        assert.equal((await p.complete(request())).text, 'ok');
        assert.deepEqual(server!.requests.map((r) => r.outcome), [`status ${status}`, 'reply']);
      });
    }

    it('a connection reset, then success', async () => {
      const p = await setup({ script: [{ fault: 'reset' }, { fault: 'reset' }, { content: 'ok' }] });
      assert.equal((await p.complete(request())).text, 'ok');
      assert.equal(server!.requests.length, 3);
      assert.match(notices[0]!.reason, /could not reach 127\.0\.0\.1:\d+\/v1/);
    });

    it('a request timeout, then success', async () => {
      const p = await setup({ script: [{ fault: 'slow', delayMs: 5000 }, { content: 'ok' }] }, { requestTimeoutMs: 300 });
      assert.equal((await p.complete(request())).text, 'ok');
      assert.match(notices[0]!.reason, /no answer within the \d+ s request timeout/);
    });

    it('gives up after the policy\'s attempts with a fatal error that says what to do', async () => {
      const p = await setup({ script: Array.from({ length: 4 }, () => ({ fault: 'status' as const, status: 503, message: 'overloaded' })) });
      await assert.rejects(p.complete(request()), (e: unknown) => {
        assert.ok(e instanceof ProviderFatalError);
        assert.match(e.message, /still failing after 4 attempts/);
        assert.match(e.message, /503 overloaded/);
        assert.match(e.message, /fixUntilGreen\.model\.baseUrl|fixUntilGreen\.timeLimitSeconds/);
        return true;
      });
      assert.equal(server!.requests.length, 4, 'exactly the policy\'s attempts: the SDK does not retry on its own');
    });

    it('the SDK makes exactly one request per attempt', async () => {
      const p = await setup({ script: [{ fault: 'status', status: 500 }] }, { retry: { attempts: 1 } });
      await assert.rejects(p.complete(request()), ProviderFatalError);
      assert.equal(server!.requests.length, 1);
    });

    it('an abort during a slow call or a backoff wait ends it at once with the abort reason', async () => {
      const p = await setup({ script: [{ fault: 'slow' }] });
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('time-limit')), 100);
      const started = Date.now();
      await assert.rejects(p.complete(request({ signal: controller.signal })), /time-limit|abort/i);
      assert.ok(Date.now() - started < 5000);

      const q = await setup({ script: [{ fault: 'status', status: 503 }, { content: 'never' }] }, { retry: { attempts: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 } });
      const c2 = new AbortController();
      setTimeout(() => c2.abort(new Error('cancelled')), 100);
      await assert.rejects(q.complete(request({ signal: c2.signal })), /cancelled/);
      assert.equal(server!.requests.length, 1);
    });
  });

  describe('faults that stop the run name the fix', () => {
    it('401 from a server that was sent no key: it needs one (it did not refuse one)', async () => {
      const p = await setup({ apiKey: 'sk-the-right-one-000000' }, { apiKey: '' });
      await assert.rejects(p.complete(request()), (e: unknown) => {
        assert.ok(e instanceof ProviderFatalError);
        assert.match(e.message, /at 127\.0\.0\.1:\d+\/v1 needs an API key and none was sent/);
        assert.doesNotMatch(e.message, /refused/);
        return true;
      });
    });

    it('401: the key was refused; the message names the key\'s source and never the key', async () => {
      const p = await setup({ apiKey: 'sk-the-right-one-000000' });
      await assert.rejects(p.complete(request()), (e: unknown) => {
        assert.ok(e instanceof ProviderFatalError);
        assert.match(e.message, /refused the API key/);
        assert.match(e.message, /OPENAI_API_KEY/);
        assert.ok(!e.message.includes(KEY), e.message);
        return true;
      });
      assert.equal(server!.requests.length, 1, 'auth faults are not retried');
    });

    it('403: access denied names the key and fixUntilGreen.model.id', async () => {
      const p = await setup({ script: [{ fault: 'status', status: 403, message: 'no access to this model' }] });
      await assert.rejects(p.complete(request()), /denied access .*OPENAI_API_KEY.*fixUntilGreen\.model\.id/);
    });

    it('404 model not found names fixUntilGreen.model.id and the base URL setting', async () => {
      const p = await setup({ models: ['llama3'] });
      await assert.rejects(p.complete(request()), (e: unknown) => {
        assert.ok(e instanceof ProviderFatalError);
        assert.match(e.message, /model "fake-model" or the endpoint was not found/);
        assert.match(e.message, /fixUntilGreen\.model\.id \(CLI: --model\)/);
        assert.match(e.message, /fixUntilGreen\.model\.baseUrl \(CLI: --base-url\)/);
        return true;
      });
    });

    it('400 context too long points at contextTokenBudget', async () => {
      const p = await setup({ script: [{ fault: 'status', status: 400, message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens." }] });
      await assert.rejects(p.complete(request()), /rejected the request .*fixUntilGreen\.contextTokenBudget/);
    });

    it('400 other: a bad request names the model settings', async () => {
      const p = await setup({ script: [{ fault: 'status', status: 400, message: 'invalid temperature' }] });
      await assert.rejects(p.complete(request()), /rejected the request \(400 invalid temperature\)\. Fix: check fixUntilGreen\.model\.id/);
    });
  });

  it('switches to max_completion_tokens once when the server refuses max_tokens', async () => {
    const p = await setup({ replies: ['one', 'two'], requireMaxCompletionTokens: true });
    assert.equal((await p.complete(request())).text, 'one');
    assert.equal((await p.complete(request({ maxOutputTokens: 77 }))).text, 'two');
    assert.deepEqual(server!.requests.map((r) => r.outcome), ['status 400 max_tokens', 'reply', 'reply']);
    assert.equal((server!.requests[2]!.body as { max_completion_tokens?: number }).max_completion_tokens, 77);
  });

  describe('answers with nothing usable are reply errors, with their cost', () => {
    it('empty text', async () => {
      const p = await setup({ script: [{ content: '   \n' }] });
      await assert.rejects(p.complete(request()), (e: unknown) => e instanceof ProviderReplyError && e.problem === 'empty' && e.usageReported && e.usage.input > 0);
    });

    it('cut off at the output limit (the server honours max_tokens)', async () => {
      const long = 'word '.repeat(400);
      const p = await setup({ script: [{ content: long }] });
      await assert.rejects(p.complete(request({ maxOutputTokens: 50 })), (e: unknown) => {
        assert.ok(e instanceof ProviderReplyError);
        assert.equal(e.problem, 'truncated');
        assert.equal(e.usage.output, 50);
        assert.match(e.message, /cut off at the output limit of 50 tokens/);
        assert.ok(e.partialText && e.partialText.length > 0 && e.partialText.length < long.length);
        return true;
      });
    });

    it('a tool call instead of text', async () => {
      const p = await setup({ script: [{ content: null, toolCall: true }] });
      await assert.rejects(p.complete(request()), (e: unknown) => e instanceof ProviderReplyError && e.problem === 'not-text' && /tool call/.test(e.message));
    });

    it('no choices, or a body that is not JSON, is the server\'s fault, not a reply (retried; see providerFaults.test.ts)', async () => {
      const p = await setup({ script: [{ fault: 'raw', body: '{"id":"x","choices":[]}' }, { fault: 'raw', body: '{"choices": [' }] }, { retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
      await assert.rejects(p.complete(request()), (e: unknown) => e instanceof ProviderFatalError && /not complete JSON/.test(e.message));
      assert.match(notices[0]!.reason, /without a message in its choices/);
    });

    it('a content filter', async () => {
      const p = await setup({ script: [{ content: '', finishReason: 'content_filter' }] });
      await assert.rejects(p.complete(request()), (e: unknown) => e instanceof ProviderReplyError && e.problem === 'filtered');
    });
  });
});

// Answers that are not the API's (an HTML page with 200, cut-off JSON, no choices or no content
// blocks, a connection broken mid-body) are the server's faults: retried like a 5xx, then a fatal
// error that says what the server sent. Both providers, against the real local HTTP server.
import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../../src/core/model/anthropic';
import { OpenAICompatibleProvider } from '../../../src/core/model/openaiCompatible';
import type { ModelProvider } from '../../../src/core/model/provider';
import { ProviderFatalError, ProviderReplyError } from '../../../src/core/model/provider';
import type { RetryNotice } from '../../../src/core/model/retry';
import type { CompletionRequest } from '../../../src/core/types';
import type { FakeOpenAI, FakeStep } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { makeRun, ofType, project, values, SRC } from '../loop/harness';

const KEY = 'sk-faults-unit-5a4b3c2d1e0f';
const HTML = `<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body><h1>Bad Gateway</h1><p>upstream said ${KEY}</p>${'<p>filler</p>'.repeat(80)}</body></html>`;

function request(over: Partial<CompletionRequest> = {}): CompletionRequest {
  return { system: 'You fix code.', messages: [{ role: 'user', content: 'Make the tests pass.' }], maxOutputTokens: 300, signal: new AbortController().signal, ...over };
}

type Kind = 'openai-compatible' | 'anthropic';

function make(kind: Kind, server: FakeOpenAI, notices: RetryNotice[], attempts = 3, baseDelayMs = 5): ModelProvider {
  const common = { model: 'fake-model', baseUrl: server.url, apiKey: KEY, keyHint: 'set the key', retry: { attempts, baseDelayMs, maxDelayMs: baseDelayMs * 4 }, onRetry: (n: RetryNotice) => notices.push(n) };
  return kind === 'anthropic' ? new AnthropicProvider(common) : new OpenAICompatibleProvider(common);
}

for (const kind of ['openai-compatible', 'anthropic'] as const) {
  // What "no choices" is in each API: an OpenAI body without choices, an Anthropic body without content blocks.
  const empty = kind === 'anthropic' ? '{"id":"msg_x","type":"message","role":"assistant"}' : '{"id":"x","object":"chat.completion","choices":[]}';
  const truncated = kind === 'anthropic' ? '{"id":"msg_x","type":"message","content":[{"type":"text","text":"STATUS: do' : '{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"STATUS: do';

  describe(`${kind}: a 200 that is not the API's answer is a provider fault`, function () {
    this.timeout(20_000);
    let server: FakeOpenAI | undefined;
    let notices: RetryNotice[];
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    async function setup(script: FakeStep[], attempts = 3, baseDelayMs = 5): Promise<ModelProvider> {
      server = await startFakeOpenAI({ script });
      notices = [];
      return make(kind, server, notices, attempts, baseDelayMs);
    }

    const cases: [string, FakeStep, RegExp][] = [
      ['an HTML page', { fault: 'raw', body: HTML, contentType: 'text/html; charset=utf-8' }, /answered 200 \(text\/html; charset=utf-8\) with a body that is not JSON: "<!DOCTYPE html> <html><head><title>502 Bad Gateway/],
      ['cut-off JSON', { fault: 'raw', body: truncated }, /answered 200 \(application\/json\) with a body that is not complete JSON: "\{"id":"/],
      [kind === 'anthropic' ? 'no content blocks' : 'no choices', { fault: 'raw', body: empty }, kind === 'anthropic' ? /answered 200 \(application\/json\) without content blocks: "\{"id":"msg_x"/ : /answered 200 \(application\/json\) without a message in its choices: "\{"id":"x"/],
      ['an empty body', { fault: 'raw', body: '' }, /answered 200 \(application\/json\) with an empty body: \(an empty body\)/],
      ['a connection broken mid-body', { fault: 'cut', body: truncated }, /connection broke while the answer was being read \((ECONNRESET|UND_ERR_SOCKET)/],
    ];

    for (const [name, fault, said] of cases) {
      it(`${name}: retried with backoff, then the reply`, async () => {
        const p = await setup([fault, { content: 'STATUS: done' }]);
        const c = await p.complete(request());
        assert.equal(c.text, 'STATUS: done');
        assert.equal(server!.requests.filter((r) => r.index >= 0).length, 2);
        assert.equal(notices.length, 1);
        assert.match(notices[0]!.reason, said);
        assert.ok(notices[0]!.delayMs >= 0);
      });
    }

    it('persisting: a fatal error after the policy\'s attempts that says what the server sent, the key removed', async () => {
      const page: FakeStep = { fault: 'raw', body: HTML, contentType: 'text/html' };
      const p = await setup([page, page, page, page]);
      await assert.rejects(p.complete(request()), (e: unknown) => {
        assert.ok(e instanceof ProviderFatalError, String(e));
        assert.match(e.message, /still failing after 3 attempts/);
        assert.match(e.message, /answered 200 \(text\/html\) with a body that is not JSON: "<!DOCTYPE html>/);
        assert.match(e.message, /Bad Gateway/);
        assert.match(e.message, /…" \(\d+ characters\)/, 'the body is cut to its first characters');
        assert.ok(!e.message.includes(KEY), e.message);
        assert.ok(!e.message.includes('\n'), 'one line');
        assert.match(e.message, /fixUntilGreen\.model\.baseUrl/);
        assert.ok(e.message.length < 1200, `${e.message.length} characters`);
        return true;
      });
      assert.equal(server!.requests.filter((r) => r.index >= 0).length, 3);
    });

    it('an abort during the backoff after a fault ends the call at once with the abort reason', async () => {
      const p = await setup([{ fault: 'raw', body: empty }, { content: 'never' }], 3, 60_000);
      const c = new AbortController();
      setTimeout(() => c.abort(new Error('time-limit')), 100);
      const started = Date.now();
      await assert.rejects(p.complete(request({ signal: c.signal })), /time-limit/);
      assert.ok(Date.now() - started < 5000);
    });

    it('a reply cut off by the output limit is still the model\'s (a reply error, not retried)', async () => {
      const p = await setup([{ content: 'word '.repeat(300) }]);
      await assert.rejects(p.complete(request({ maxOutputTokens: 20 })), (e: unknown) => e instanceof ProviderReplyError && e.problem === 'truncated');
      assert.equal(notices.length, 0);
    });

    it('a run whose server keeps answering HTML stops with error naming what it sent, spending no step on it', async () => {
      const p = project({ [SRC]: values({ a: 'bad' }) });
      try {
        const page: FakeStep = { fault: 'raw', body: HTML, contentType: 'text/html' };
        server = await startFakeOpenAI({ script: [page, page, page] });
        notices = [];
        const { run, events } = makeRun(p, make(kind, server, notices));
        const report = await run.start();
        assert.equal(report.stopReason, 'error', report.detail);
        assert.match(report.detail, /answered 200 \(text\/html\) with a body that is not JSON/);
        // The model was never told its reply "could not be used": no step failed on the server's fault.
        assert.equal(ofType(events, 'edit').length, 0);
        assert.equal(ofType(events, 'model-retry').length, 2);
      } finally {
        p.cleanup();
      }
    });
  });
}

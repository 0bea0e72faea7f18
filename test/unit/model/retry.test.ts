import assert from 'node:assert/strict';
import { ProviderFatalError } from '../../../src/core/model/provider';
import type { RetryNotice, RetryPolicy } from '../../../src/core/model/retry';
import { DEFAULT_RETRY_POLICY, TransientProviderError, abortableSleep, backoffDelay, parseRetryAfter, withRetry } from '../../../src/core/model/retry';

const fast: Partial<RetryPolicy> = { attempts: 4, baseDelayMs: 5, maxDelayMs: 40 };

function headers(h: Record<string, string>): { get(name: string): string | null } {
  return { get: (n) => h[n.toLowerCase()] ?? null };
}

describe('retry policy', () => {
  describe('backoffDelay', () => {
    it('doubles per attempt up to the cap, with half of each step random', () => {
      const p: RetryPolicy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1000, maxDelayMs: 8000 };
      assert.deepEqual([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, p, () => 0)), [500, 1000, 2000, 4000, 4000, 4000]);
      assert.deepEqual([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, p, () => 0.999999)), [1000, 2000, 4000, 8000, 8000, 8000]);
      for (let i = 0; i < 200; i++) {
        const d = backoffDelay(3, p);
        assert.ok(d >= 2000 && d <= 4000, `attempt 3 waits 2-4 s, got ${d}`);
      }
    });
  });

  describe('parseRetryAfter', () => {
    it('reads seconds, milliseconds and HTTP dates, and ignores what it cannot read', () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      assert.equal(parseRetryAfter(headers({ 'retry-after': '7' }), now), 7000);
      assert.equal(parseRetryAfter(headers({ 'retry-after': '1.5' }), now), 1500);
      assert.equal(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now), 250);
      assert.equal(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now), 30_000);
      assert.equal(parseRetryAfter(headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now), 0);
      assert.equal(parseRetryAfter(headers({ 'retry-after': 'soon' }), now), undefined);
      assert.equal(parseRetryAfter(headers({}), now), undefined);
      assert.equal(parseRetryAfter(undefined, now), undefined);
    });
  });

  describe('withRetry', () => {
    it('retries transient faults with growing waits and returns the first success', async () => {
      const notices: RetryNotice[] = [];
      let calls = 0;
      const v = await withRetry(
        async () => {
          calls++;
          if (calls < 3) throw new TransientProviderError(`503 busy #${calls}`);
          return 'ok';
        },
        { signal: new AbortController().signal, policy: fast, describe: 'test', onRetry: (n) => notices.push(n), random: () => 0.5 },
      );
      assert.equal(v, 'ok');
      assert.equal(calls, 3);
      assert.deepEqual(notices.map((n) => [n.attempt, n.reason]), [[1, '503 busy #1'], [2, '503 busy #2']]);
      assert.ok(notices[1]!.delayMs > notices[0]!.delayMs);
    });

    it('waits at least what Retry-After asks, instead of the backoff', async () => {
      const notices: RetryNotice[] = [];
      let calls = 0;
      const started = Date.now();
      await withRetry(
        async () => {
          if (calls++ === 0) throw new TransientProviderError('429 slow down', 120);
          return 1;
        },
        { signal: new AbortController().signal, policy: fast, describe: 'test', onRetry: (n) => notices.push(n) },
      );
      assert.equal(notices[0]!.retryAfterMs, 120);
      assert.ok(notices[0]!.delayMs >= 120 && notices[0]!.delayMs <= 132, `delay ${notices[0]!.delayMs}`);
      assert.ok(Date.now() - started >= 115);
    });

    it('gives up after the last attempt with a fatal error naming the fault and the fix', async () => {
      let calls = 0;
      await assert.rejects(
        withRetry(
          async () => {
            calls++;
            throw new TransientProviderError('500 boom');
          },
          { signal: new AbortController().signal, policy: fast, describe: 'openai-compatible:m at h/v1', giveUpHint: 'Try later.' },
        ),
        (e: unknown) => e instanceof ProviderFatalError && /openai-compatible:m at h\/v1: still failing after 4 attempts .*last fault: 500 boom\. Try later\./.test(e.message),
      );
      assert.equal(calls, 4);
    });

    it('does not wait out a Retry-After longer than the policy allows', async () => {
      let calls = 0;
      await assert.rejects(
        withRetry(
          async () => {
            calls++;
            throw new TransientProviderError('429 quota', 3_600_000);
          },
          { signal: new AbortController().signal, policy: { ...fast, maxRetryAfterMs: 60_000 }, describe: 'x' },
        ),
        (e: unknown) => e instanceof ProviderFatalError && /asked to wait 3600 s .* longer than the 60 s/.test(e.message),
      );
      assert.equal(calls, 1);
    });

    it('passes other errors through at once', async () => {
      let calls = 0;
      const fatal = new ProviderFatalError('401 no');
      await assert.rejects(
        withRetry(
          async () => {
            calls++;
            throw fatal;
          },
          { signal: new AbortController().signal, policy: fast, describe: 'x' },
        ),
        (e: unknown) => e === fatal,
      );
      assert.equal(calls, 1);
    });

    it('stops waiting as soon as the run aborts, with the abort reason', async () => {
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(new Error('time-limit')), 50);
      await assert.rejects(
        withRetry(
          async () => {
            throw new TransientProviderError('503');
          },
          { signal: controller.signal, policy: { attempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 }, describe: 'x' },
        ),
        /time-limit/,
      );
      assert.ok(Date.now() - started < 10_000, 'the 30-60 s backoff was cut short');
    });

    it('makes no attempt when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort(new Error('cancelled'));
      let calls = 0;
      await assert.rejects(withRetry(async () => calls++, { signal: controller.signal, describe: 'x' }), /cancelled/);
      assert.equal(calls, 0);
      await assert.rejects(abortableSleep(10, controller.signal), /cancelled/);
    });
  });
});

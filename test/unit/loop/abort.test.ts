// Ending a wait when the run's signal aborts, whatever the awaited work does.
import assert from 'node:assert/strict';
import { raceAbort } from '../../../src/core/loop/abort';

describe('raceAbort', () => {
  it('passes the result and the failure of work that finishes first', async () => {
    const c = new AbortController();
    assert.equal(await raceAbort(Promise.resolve(7), c.signal), 7);
    await assert.rejects(raceAbort(Promise.reject(new Error('no')), c.signal), /no/);
  });

  it('rejects with the abort reason at once, even when the work never settles', async () => {
    const c = new AbortController();
    const p = raceAbort(new Promise(() => undefined), c.signal);
    c.abort(new Error('time-limit'));
    await assert.rejects(p, /time-limit/);
    const already = new AbortController();
    already.abort('cancelled');
    await assert.rejects(raceAbort(new Promise(() => undefined), already.signal), /cancelled/);
  });

  it('drops the late failure of abandoned work without an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => {
      unhandled.push(e);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const c = new AbortController();
      let fail!: (e: Error) => void;
      const work = new Promise<number>((_r, reject) => {
        fail = reject;
      });
      const p = raceAbort(work, c.signal);
      c.abort(new Error('cancelled'));
      await assert.rejects(p, /cancelled/);
      fail(new Error('late'));
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

// A pass of many checks with a cancel signal: Node warns when one AbortSignal holds more than 10
// listeners (MaxListenersExceededWarning), which a pass of 11 checks side by side used to print.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Verifier } from '../../../src/core/verify/verifier';

describe('verify: the cancel signal of a pass', function () {
  this.timeout(120000);
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'fug-abort-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('20 checks in one pass print no MaxListenersExceededWarning and leave no listener on the caller\'s signal', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w);
    };
    process.on('warning', onWarning);
    try {
      // Each check lasts long enough for all 20 to be running (and listening) at once.
      const checks = Array.from({ length: 20 }, (_, i) => ({ name: `c${i}`, command: 'sleep 1', parser: 'generic' as const }));
      const v = new Verifier({ root: tmp, checks, parallel: true, outputLimitKb: 64, flakyReruns: 0 });
      const ac = new AbortController();
      const r = await v.verify(ac.signal);
      assert.equal(r.green, true);
      assert.equal(r.checks.length, 20);
      assert.equal(getEventListeners(ac.signal, 'abort').length, 0, 'the pass removed its listener');
      // Warnings are emitted on the next tick.
      await new Promise((res) => setImmediate(res));
      assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message), []);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('cancelling the caller\'s signal still stops every check of the pass', async () => {
    const checks = Array.from({ length: 12 }, (_, i) => ({ name: `c${i}`, command: 'sleep 30', parser: 'generic' as const }));
    const v = new Verifier({ root: tmp, checks, parallel: true, outputLimitKb: 64, flakyReruns: 0, killGraceMs: 200 });
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 500);
    const r = await v.verify(ac.signal);
    assert.ok(Date.now() - started < 20000, 'stopped well before the checks would have ended');
    assert.ok(r.checks.every((c) => c.cancelled), 'every check is cancelled');
  });
});

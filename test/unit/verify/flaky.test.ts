// Flakes: re-run what changed, count what reproduces, report the rest apart; a pass is never re-run.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckSpec } from '../../../src/core/types';
import { failureIdentity } from '../../../src/core/verify/identity';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

describe('flaky re-runs', function () {
  this.timeout(180000);
  let s: Scratch;
  const runsFile = (): string => path.join(s.project, '.runs');
  const runs = (): number => (existsSync(runsFile()) ? Number(readFileSync(runsFile(), 'utf8')) : 0);
  const verifier = (checks: CheckSpec[], flakyReruns = 1): Verifier => new Verifier({ root: s.project, checks, parallel: false, outputLimitKb: 256, flakyReruns });
  const TEST: CheckSpec = { name: 'test', command: 'node --test' };

  beforeEach(() => {
    s = copyFixture('verify/flaky');
  });
  afterEach(() => s.cleanup());

  it('counts only failures that reproduce; the one that passed on re-run is flaky, apart and out of the identity', async () => {
    const r = await verifier([TEST]).verify();
    assert.equal(runs(), 2, 'ran once, then re-ran once (no previous state: everything is new)');
    const c = r.checks[0]!;
    assert.equal(c.runs, 2);
    assert.deepEqual(r.failures.map((f) => f.id).sort(), ['always fails', 'fails with a different number every time']);
    assert.deepEqual(r.flaky.map((f) => f.id), ['fails on odd runs']);
    assert.deepEqual(c.flaky, r.flaky);
    assert.equal(r.failureHash, failureIdentity(r.failures, { root: s.project }));
    assert.notEqual(r.failureHash, failureIdentity([...r.failures, ...r.flaky], { root: s.project }));
    assert.equal(r.green, false);
  });

  it('a test that fails every run with a different message still counts (same test, same file)', async () => {
    const r = await verifier([TEST]).verify();
    const random = r.failures.find((f) => f.id === 'fails with a different number every time');
    assert.ok(random, 'counted, not flaky');
  });

  it('does not re-run a check whose failures are the same as in the previous state', async () => {
    const v = verifier([TEST]);
    await v.verify(); // runs 1 and 2
    // Run 3 fails 'fails on odd runs' again: the failures differ from the previous state's, so run 4 confirms.
    const second = await v.verify();
    assert.equal(runs(), 4);
    assert.equal(second.checks[0]!.runs, 2);
    // Make every test deterministic: the same failures as the previous (confirmed) state, so no re-run.
    const file = path.join(s.project, 'test', 'flaky.test.js');
    // (The random-number test's message changes every run, which is a change: pin its value too.)
    writeFileSync(file, readFileSync(file, 'utf8').replace('runs % 2 === 0', 'true').replace('Math.random()', '0.5'));
    const third = await v.verify();
    assert.equal(third.checks[0]!.runs, 2, 'the pinned message differs from the previous one: re-run');
    const fourth = await v.verify();
    assert.equal(fourth.checks[0]!.runs, 1, 'same failures as the previous state: not re-run');
    assert.equal(runs(), 7);
    assert.equal(fourth.failureHash, third.failureHash);
  });

  // Issue 27, class 10: a re-run of a pass could only call a failure of its own flaky, never make one count.
  it('a run that passes is never re-run: not a first green, not a green after failures, not a green that stays green', async () => {
    const file = path.join(s.project, 'test', 'flaky.test.js');
    writeFileSync(file, "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { readFileSync, writeFileSync, existsSync } from 'node:fs';\nconst f = new URL('../.runs', import.meta.url);\nwriteFileSync(f, String((existsSync(f) ? Number(readFileSync(f, 'utf8')) : 0) + 1));\ntest('passes once fixed', () => {\n  assert.ok(!existsSync(new URL('../.broken', import.meta.url)), 'still broken');\n});\n");
    writeFileSync(path.join(s.project, '.broken'), '');
    const v = verifier([TEST]);
    const failing = await v.verify(undefined, { previous: null });
    assert.deepEqual(failing.failures.map((f) => f.id), ['passes once fixed']);
    assert.equal(failing.checks[0]!.runs, 2, 'a new failure is confirmed by a re-run');
    assert.equal(runs(), 2);
    rmSync(path.join(s.project, '.broken'));
    const fixed = await v.verify();
    assert.ok(fixed.green);
    assert.equal(fixed.checks[0]!.runs, 1, 'green after failing: the pass is not re-run');
    const again = await v.verify();
    assert.ok(again.green);
    assert.equal(again.checks[0]!.runs, 1, 'still green: nothing to confirm');
    const first = await v.verify(undefined, { previous: null });
    assert.ok(first.green);
    assert.equal(first.checks[0]!.runs, 1, 'a first green: nothing to confirm either');
    assert.equal(runs(), 5, 'five processes in all: 2 + 1 + 1 + 1');
  });

  it('a failing exit that names no failure is still confirmed: its re-run may pass', async () => {
    // Odd runs exit 1 printing nothing a parser reads; even runs pass.
    const check: CheckSpec = { name: 'odd', command: "node -e \"const fs=require('fs');const n=(fs.existsSync('.runs')?Number(fs.readFileSync('.runs','utf8')):0)+1;fs.writeFileSync('.runs',String(n));process.exit(n%2)\"", parser: 'node-test' };
    const r = await verifier([check]).verify(undefined, { previous: null });
    assert.equal(r.checks[0]!.runs, 2);
    assert.ok(r.green, 'the re-run passed: the failure was flaky');
    assert.equal(runs(), 2);
  });

  it('with flakyReruns 0 nothing is re-run and every failure counts', async () => {
    const r = await verifier([TEST], 0).verify();
    assert.equal(runs(), 1);
    assert.equal(r.failures.length, 3);
    assert.deepEqual(r.flaky, []);
  });

  it('static checks (tsc) are never re-run', async () => {
    const t = copyFixture('verify/tsc');
    try {
      const r = await new Verifier({ root: t.project, checks: [{ name: 'tsc', command: 'tsc --noEmit -p .' }], parallel: false, outputLimitKb: 256, flakyReruns: 3 }).verify();
      assert.equal(r.checks[0]!.runs, 1);
      assert.equal(r.failures.length, 3);
    } finally {
      t.cleanup();
    }
  });

  it('an explicit previous state overrides the verifier\'s own', async () => {
    const v = verifier([TEST]);
    const first = await v.verify(undefined, { previous: null });
    assert.equal(first.checks[0]!.runs, 2);
    // Against `first` (whose counted failures lack the odd-run test), run 3's failures differ: re-run.
    const second = await v.verify(undefined, { previous: first });
    assert.equal(second.checks[0]!.runs, 2);
  });
});

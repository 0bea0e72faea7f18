// Flakes: re-run what changed, count what reproduces, report the rest apart, confirm a first green.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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

  it('confirms a first green with a re-run; a green that stays green is not re-run', async () => {
    const file = path.join(s.project, 'test', 'flaky.test.js');
    writeFileSync(file, "import { test } from 'node:test';\nimport { readFileSync, writeFileSync, existsSync } from 'node:fs';\nconst f = new URL('../.runs', import.meta.url);\nwriteFileSync(f, String((existsSync(f) ? Number(readFileSync(f, 'utf8')) : 0) + 1));\ntest('passes', () => {});\n");
    const v = verifier([TEST]);
    const first = await v.verify(undefined, { previous: null });
    assert.ok(first.green);
    assert.equal(first.checks[0]!.runs, 2, 'first green confirmed');
    const again = await v.verify();
    assert.ok(again.green);
    assert.equal(again.checks[0]!.runs, 1, 'still green: nothing to confirm');
    assert.equal(runs(), 3);
  });

  it('a green that does not hold on the confirming run reports the failure as flaky', async () => {
    // Even runs fail here: run 1 passes (green, confirmed by run 2, which fails).
    const file = path.join(s.project, 'test', 'flaky.test.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/test\('always fails'[\s\S]*?\n}\);\n/, '').replace(/test\('fails with a different[\s\S]*?\n}\);\n/, '').replace('runs % 2 === 0', 'runs % 2 === 1'));
    const r = await verifier([TEST]).verify();
    assert.equal(r.checks[0]!.runs, 2);
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.flaky.map((f) => f.id), ['fails on odd runs']);
    assert.ok(r.green, 'nothing reproduced: green, with the flake reported');
    assert.equal(r.checks[0]!.exitCode, 0, 'the run shown is the one that passed');
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

// A failing chained test check is confirmed by re-running the step that failed (issue 39, klona:
// `pretest: bundt` then `uvu`; yargs-parser: `rimraf build && tsc` then `c8 mocha test/*.mjs`): the
// build before it runs once per pass, its output left in place, and the verdict (identity, counted
// failures, flakes) is the one the whole re-run gives. Real npm, uvu and node --test; the build and
// the step after the runner each leave a line in COUNT_LOG. `staged: false` is the whole re-run.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckResult, CheckSpec, Failure, Logger, VerifyResult } from '../../../src/core/types';
import { failingStep } from '../../../src/core/verify/confirmStep';
import { runCommand } from '../../../src/core/verify/runner';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const TEST: CheckSpec = { name: 'test', command: 'npm test' };
const UVU = { build: 'node build.js', pretest: 'npm run build', test: 'uvu test' };

describe('confirmation by the failing step of a chain', function () {
  this.timeout(240_000);
  let s: Scratch;
  beforeEach(() => (s = copyFixture('verify/confirmStep')));
  afterEach(() => s.cleanup());

  const scripts = (x: Record<string, string>): void => writeFileSync(path.join(s.project, 'package.json'), JSON.stringify({ name: 'confirm-step-fixture', private: true, version: '1.0.0', scripts: x }, null, 2));

  interface Pass {
    r: VerifyResult;
    check: CheckResult;
    counts: Record<string, number>;
    ran: string[];
  }

  async function pass(tag: string, staged: boolean, env: Record<string, string> = {}): Promise<Pass> {
    const log = path.join(s.dir, `${tag}.count`);
    const state = path.join(s.dir, `${tag}.state`);
    rmSync(state, { recursive: true, force: true });
    mkdirSync(state);
    const ran: string[] = [];
    const logger: Logger = { ...silent(), debug: (m: string) => (/^check test: (?!exit)/.test(m) ? ran.push(m.replace('check test: ', '')) : undefined) };
    const v = new Verifier({ root: s.project, checks: [TEST], parallel: false, outputLimitKb: 256, flakyReruns: 1, staged, logger, env: { COUNT_LOG: log, FLAKY_STATE: state, ...env }, storageDir: path.join(s.dir, `storage-${tag}`) });
    const r = await v.verify();
    await v.release();
    const counts: Record<string, number> = {};
    for (const l of existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) counts[l] = (counts[l] ?? 0) + 1;
    return { r, check: r.checks.find((c) => c.name === 'test')!, counts, ran };
  }

  const keys = (fs: readonly Failure[]): string[] => fs.map((f) => `${f.file} ${f.id}`).sort();
  function sameVerdict(a: Pass, b: Pass): void {
    assert.equal(a.r.green, b.r.green);
    assert.equal(a.r.failureHash, b.r.failureHash);
    assert.deepEqual(keys(a.r.failures), keys(b.r.failures));
    assert.deepEqual(keys(a.r.flaky), keys(b.r.flaky));
  }

  it('re-runs `uvu test` alone after a pretest build (built once), and decides as the whole re-run does', async () => {
    scripts(UVU);
    const step = await pass('step', true);
    const whole = await pass('whole', false);
    assert.equal(whole.counts.build, 2, 'the whole re-run builds again');
    assert.equal(step.counts.build, 1, step.ran.join('\n'));
    assert.deepEqual(step.ran, ['npm test', 'uvu test']);
    assert.deepEqual(keys(step.r.failures), ['test/sum.js sum adds']);
    assert.deepEqual(keys(step.r.flaky), ['test/flaky.js flaky settles']);
    sameVerdict(step, whole);
    assert.match(step.check.stagedNote ?? '', /confirmed by re-running `uvu test` alone: its pre script's `npm run build` ran once in this pass and passed/);
  });

  it('narrows a runner step whose targets are a glob (the shell expanded it) to the failing files and names, the build before it once', async () => {
    scripts({ test: 'node build.js && node --test spec/*.test.js' });
    const step = await pass('step', true);
    const whole = await pass('whole', false);
    assert.equal(whole.counts.build, 2);
    assert.equal(step.counts.build, 1, step.ran.join('\n'));
    assert.equal(step.ran.length, 2, step.ran.join('\n'));
    assert.match(step.ran[1]!, /^node --test-name-pattern=(flaky settles|sum adds)\|(flaky settles|sum adds) --test spec\/(flaky|sum)\.test\.js spec\/(flaky|sum)\.test\.js$/);
    assert.deepEqual(keys(step.r.failures), ['spec/sum.test.js sum adds']);
    assert.deepEqual(keys(step.r.flaky), ['spec/flaky.test.js flaky settles']);
    sameVerdict(step, whole);
  });

  it('confirms `c8 mocha` with a glob after a pretest build by mocha alone on the failing files, built once (yargs-parser\'s shape)', async () => {
    scripts({ pretest: 'node build.js', test: 'c8 --reporter=text mocha mspec/*.js' });
    const step = await pass('step', true);
    const whole = await pass('whole', false);
    assert.equal(whole.counts.build, 2);
    assert.equal(step.counts.build, 1, step.ran.join('\n'));
    const confirmRun = step.ran.filter((c) => / mspec\//.test(c));
    assert.equal(confirmRun.length, 1, step.ran.join('\n'));
    assert.match(confirmRun[0]!, /^mocha .*mspec\/(flaky|sum)\.spec\.js mspec\/(flaky|sum)\.spec\.js --grep /);
    assert.deepEqual(keys(step.r.failures), ['mspec/sum.spec.js sum adds']);
    assert.deepEqual(keys(step.r.flaky), ['mspec/flaky.spec.js flaky settles']);
    sameVerdict(step, whole);
  });

  it('re-runs a nested script step as written, its env assignment with it', async () => {
    scripts({ build: 'node build.js', unit: 'uvu test', test: 'npm run build && FOO=1 npm run unit' });
    const step = await pass('step', true, { EXPECT_FOO: '1' });
    const whole = await pass('whole', false, { EXPECT_FOO: '1' });
    assert.equal(whole.counts.build, 2);
    assert.equal(step.counts.build, 1, step.ran.join('\n'));
    assert.deepEqual(step.ran, ['npm test', 'FOO=1 npm run unit']);
    assert.deepEqual(keys(step.r.failures), ['test/sum.js sum adds']);
    sameVerdict(step, whole);
  });

  for (const runner of ['uvu test', 'node --test spec/flaky.test.js spec/sum.test.js']) {
    it(`runs the steps after the runner where its re-run passed, as the whole re-run does (${runner.split(' ')[0]})`, async () => {
      scripts({ test: `node build.js && ${runner} && node after.js` });
      // Only the flake fails, and the step after the tests fails once reached: the check passes in no run.
      const env = { SUM_OK: '1', AFTER_FAIL: '1' };
      const step = await pass('step', true, env);
      const whole = await pass('whole', false, env);
      assert.equal(step.counts.build, 1, step.ran.join('\n'));
      assert.equal(step.counts.after, 1, step.ran.join('\n'));
      assert.equal(step.r.green, false, 'never green without the chain\'s last step');
      sameVerdict(step, whole);
      assert.deepEqual(keys(step.r.failures).filter((k) => k.includes('flaky')), [`${runner === 'uvu test' ? 'test/flaky.js' : 'spec/flaky.test.js'} flaky settles`]);
    });
  }

  it('runs npm\'s `post` script after a re-run that passed, as npm runs it after the tests', async () => {
    scripts({ ...UVU, posttest: 'node after.js' });
    const env = { SUM_OK: '1', AFTER_FAIL: '1' };
    const step = await pass('step', true, env);
    const whole = await pass('whole', false, env);
    assert.equal(step.counts.build, 1, step.ran.join('\n'));
    assert.deepEqual(step.ran, ['npm test', 'uvu test && npm run posttest']);
    assert.equal(step.counts.after, 1);
    assert.equal(step.r.green, false);
    sameVerdict(step, whole);
  });

  it('calls a flake flaky and the check green where the steps after it pass', async () => {
    scripts({ test: 'node build.js && node --test spec/flaky.test.js spec/sum.test.js && node after.js' });
    const step = await pass('step', true, { SUM_OK: '1' });
    const whole = await pass('whole', false, { SUM_OK: '1' });
    assert.equal(step.counts.build, 1);
    assert.equal(step.counts.after, 1);
    assert.equal(step.r.green, true);
    sameVerdict(step, whole);
    assert.deepEqual(keys(step.r.flaky), ['spec/flaky.test.js flaky settles']);
  });

  const fallbacks: [string, Record<string, string>, Record<string, string>, RegExp][] = [
    ['a chain with `||`', { test: 'node build.js || node build.js && uvu test' }, {}, /whole chain: the chain uses more than `&&`/],
    ['a step before the runner that failed', UVU, { BUILD_FAIL: '1' }, /whole chain: (its output does not show uvu ran|the chain failed without a test failure)/],
    ['output that does not say which step failed (the step after the runner failed)', { test: 'node build.js && uvu test && node after.js' }, { SUM_OK: '1', AFTER_FAIL: '1', FLAKY_STATE: '' }, /whole chain: a failure is not one of uvu's tests/],
  ];
  for (const [what, x, env, why] of fallbacks) {
    it(`re-runs the whole chain, and says why, for ${what}`, async () => {
      scripts(x);
      const step = await pass('step', true, env);
      const whole = await pass('whole', false, env);
      assert.equal(step.counts.build, 2, step.ran.join('\n'));
      assert.deepEqual(step.ran, ['npm test', 'npm test']);
      assert.match(step.check.stagedNote ?? '', why);
      sameVerdict(step, whole);
      assert.equal(step.r.green, false);
    });
  }

  it('keeps a step that sets up state the tests may change in the re-run', async () => {
    // A real first run (the build, then uvu's real failure), and the decision read on it.
    scripts({ build: 'node build.js', test: 'npm run build && uvu test' });
    const r = await runCommand({ command: 'npm test', cwd: s.project, timeoutMs: 60_000, outputLimitBytes: 1 << 20, env: { ...process.env, FLAKY_STATE: '' } as Record<string, string> });
    const ctx = { check: 'test', root: s.project, cwd: s.project };
    const first = { r, failures: parseOutput('uvu', r.output, { ...ctx, exitCode: r.exitCode }) };
    assert.deepEqual(keys(first.failures), ['test/sum.js sum adds']);
    const ok = failingStep('npm test', 'uvu', first, ctx);
    assert.equal(ok.kind, 'step');
    scripts({ build: 'node build.js', test: 'docker compose up -d db && npm run build && uvu test', migrate: 'prisma migrate reset --force', t2: 'npm run migrate && uvu test' });
    const docker = failingStep('npm test', 'uvu', first, ctx);
    assert.deepEqual(docker, { kind: 'whole', reason: '`docker compose up -d db`, run before the tests, sets up state they may change (a service, a database, files reset from git): it runs again with them' });
    const prisma = failingStep('npm run t2', 'uvu', first, ctx);
    assert.match(prisma.kind === 'whole' ? prisma.reason : '', /^`prisma migrate reset --force`, run before the tests/);
    // A removal is a clean build's first half where a build follows it, else it clears what the tests may create.
    writeFileSync(path.join(s.project, 'tsconfig.json'), '{}\n');
    assert.equal(failingStep('rimraf dist && tsc && uvu test', 'uvu', first, ctx).kind, 'step');
    const cleared = failingStep('tsc && rimraf tmp && uvu test', 'uvu', first, ctx);
    assert.match(cleared.kind === 'whole' ? cleared.reason : '', /^`rimraf tmp`, run before the tests, removes files no build after it writes again/);
  });
});

function silent(): Logger {
  const none = (): void => undefined;
  return { info: none, warn: none, error: none, debug: none };
}

// Staged static checks on real projects: tsc kept warm in a child process (the command's own
// diagnostics and identity; falls back to the command where it cannot be warm, and says so; the
// child is gone after release, cancel and a crash of its own), ESLint on the changed files with the
// other files' failures carried.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Failure, VerifyResult } from '../../../src/core/types';
import { checkEnv } from '../../../src/core/verify/runner';
import { Verifier } from '../../../src/core/verify/verifier';
import { reapStrays } from '../../../src/core/verify/containment';
import { warmTscPlan } from '../../../src/core/verify/staged/warmTsc';
import { copyFixture, REPO } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { pnpmLayout } from '../../support/pnpmLayout';
import { liveRecorded } from '../../support/procs';

/** The warm workers of a storage's records still alive. */
const warmWorkers = (storage: string): number[] => liveRecorded(path.join(storage, 'processes'));

const keys = (fs: readonly Failure[]): string[] => fs.map((f) => `${f.file}:${f.line}:${f.id}`).sort();

describe('staged checks: warm tsc', function () {
  this.timeout(240000);
  let s: Scratch;
  let v: Verifier;
  const TSC = { name: 'tsc', command: 'tsc --noEmit -p tsconfig.json' };

  beforeEach(() => {
    s = copyFixture('verify/tsc');
    v = new Verifier({ root: s.project, checks: [TSC], parallel: false, outputLimitKb: 256, staged: true, storageDir: s.storage });
  });
  afterEach(async () => {
    await v.release();
    s.cleanup();
  });

  it('reports what the command reports, with the same identity, and sees an edit', async () => {
    const v0 = await v.verify(undefined, { previous: null });
    assert.equal(v0.failures.length, 3);
    v.warm();
    const same = await v.verify(undefined, { previous: v0, changed: [] });
    assert.equal(same.checks[0]!.mode, 'warm');
    assert.deepEqual(keys(same.failures), keys(v0.failures));
    assert.equal(same.failureHash, v0.failureHash, 'the warm check has the command\'s identity');

    const file = path.join(s.project, 'src', 'price.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace("shipping: number = 'free'", 'shipping: number = 0'));
    const fixed = await v.verify(undefined, { previous: same, changed: ['src/price.ts'] });
    assert.equal(fixed.checks[0]!.mode, 'warm');
    assert.equal(fixed.failures.length, 2);
    // The command on the same tree agrees, failure for failure.
    const cold = await new Verifier({ root: s.project, checks: [TSC], parallel: false, outputLimitKb: 256 }).verify();
    assert.equal(fixed.failureHash, cold.failureHash);
    assert.deepEqual(keys(fixed.failures), keys(cold.failures));
  });

  it('a step that passes warm is green from that run: the gate reuses it as the full type check and says why; the command agrees', async () => {
    const v0 = await v.verify(undefined, { previous: null });
    for (const [f, from, to] of [['src/price.ts', "'free'", '0'], ['src/price.ts', '{ name: item.name }', '{ name: 1 }'], ['src/cart.ts', "padStart('8')", 'padStart(8)']] as const) {
      const p = path.join(s.project, f);
      writeFileSync(p, readFileSync(p, 'utf8').replace(from, to));
    }
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/price.ts', 'src/cart.ts'] });
    assert.equal(v1.green, true);
    assert.equal(v1.checks[0]!.mode, 'warm');
    assert.equal(v1.checks[0]!.runs, 1, 'the command did not run again');
    assert.match(v1.checks[0]!.stagedNote ?? '', /the gate reused this run as the full type check: tsc's own diagnostics for the whole program, on the bytes it judges/);
    const cold = await new Verifier({ root: s.project, checks: [TSC], parallel: false, outputLimitKb: 256 }).verify();
    assert.equal(cold.green, true, 'the command on the same bytes is green too');

    // A warm check that fails is no gate: nothing is reused, the failure stands.
    const p = path.join(s.project, 'src/cart.ts');
    writeFileSync(p, readFileSync(p, 'utf8').replace('padStart(8)', "padStart('8')"));
    const v2 = await v.verify(undefined, { previous: v1, changed: ['src/cart.ts'] });
    assert.equal(v2.green, false);
    assert.doesNotMatch(v2.checks[0]!.stagedNote ?? '', /reused/);
  });

  it('step 0 of a run builds the warm program: its answer is the command\'s, and the first step finds it built', async () => {
    const command = await new Verifier({ root: s.project, checks: [TSC], parallel: false, outputLimitKb: 256 }).verify();
    const v0 = await v.verify(undefined, { previous: null, warmStart: true });
    assert.equal(v0.checks[0]!.mode, 'warm');
    assert.match(v0.checks[0]!.stagedNote ?? '', /checked by the warm checker, tsc's own diagnostics as the command prints them: the full type check/);
    assert.equal(v0.failureHash, command.failureHash);
    assert.deepEqual(keys(v0.failures), keys(command.failures));
    assert.equal(warmWorkers(s.storage).length, 1, 'the warm worker lives on for the steps');

    const file = path.join(s.project, 'src', 'price.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace("shipping: number = 'free'", 'shipping: number = 0'));
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/price.ts'] });
    assert.equal(v1.checks[0]!.mode, 'warm');
    assert.match(v1.checks[0]!.stagedNote ?? '', /re-checked warm in \d+ ms/, 'no second build');
    assert.equal(v1.failures.length, 2);
  });

  it('a warm check slower than the command gives way to it, saying why, this step and the next', async () => {
    const v0 = await v.verify(undefined, { previous: null });
    // The command's last full run as it would read on a project where tsc is quick: 1 ms.
    const quick = { ...v0, checks: v0.checks.map((c) => ({ ...c, durationMs: 1, runDurationsMs: [1] })) };
    await v.warm();
    const file = path.join(s.project, 'src', 'price.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace("shipping: number = 'free'", 'shipping: number = 0'));
    // Each step: the warm checker either answers (and, slower than 1 ms, gives way from the next step
    // on), or would answer later than the command's 1 ms while it settles (the command runs this step).
    let previous: VerifyResult = quick;
    let gaveWay = false;
    for (let step = 1; step <= 3; step++) {
      const r = await v.verify(undefined, { previous, changed: ['src/price.ts'] });
      const c = r.checks[0]!;
      assert.equal(r.failures.length, 2, 'either way the answer is tsc\'s');
      if (gaveWay) {
        assert.equal(c.mode, 'full');
        assert.match(c.stagedNote ?? '', /the command runs from now on: a warm check took \d+ ms, longer than the command's 1 ms/);
        break;
      }
      if (c.mode === 'warm') {
        assert.match(c.stagedNote ?? '', /slower than the command \(1 ms\): the command runs from the next step on/);
        gaveWay = true;
      } else {
        assert.equal(c.mode, 'full');
        assert.match(c.stagedNote ?? '', /the warm checker would answer in about \d+ ms \(still computing its signatures\), the command took 1 ms: the command runs this step/);
      }
      previous = { ...r, checks: r.checks.map((x) => ({ ...x, mode: 'full' as const, durationMs: 1, runDurationsMs: [1] })) };
    }
    assert.ok(gaveWay, 'the warm checker gave way for good');
    assert.deepEqual(warmWorkers(s.storage), [], 'and its worker is gone');
  });

  it('the warm worker is gone after release, after a cancel, and is reaped after its owner crashed', async () => {
    const v0 = await v.verify(undefined, { previous: null });
    await v.verify(undefined, { previous: v0, changed: [] });
    assert.equal(warmWorkers(s.storage).length, 1, 'one warm worker while the run lives');
    await v.release();
    assert.deepEqual(warmWorkers(s.storage), []);

    const ac = new AbortController();
    const pending = v.verify(ac.signal, { previous: v0, changed: ['src/cart.ts'] });
    setTimeout(() => ac.abort(), 50);
    const cancelled = await pending;
    assert.equal(cancelled.checks[0]!.cancelled, true);
    assert.deepEqual(warmWorkers(s.storage), [], 'a cancel kills the worker mid-check');
  });

  it('falls back to the command, saying why: build mode, a wrapper, a project that emits', async () => {
    const env = checkEnv(s.project);
    assert.match((warmTscPlan('tsc -b', s.project, env) as { fallback: string }).fallback, /build or watch/);
    assert.match((warmTscPlan('node scripts/typecheck.js', s.project, env) as { fallback: string }).fallback, /not a tsc call behind launchers only/);
    assert.match((warmTscPlan('tsc --noEmit && echo ok', s.project, env) as { fallback: string }).fallback, /shell/);
    assert.ok('args' in warmTscPlan('npx tsc --noEmit', s.project, env));

    const emits = new Verifier({ root: s.project, checks: [{ name: 'tsc', command: 'tsc -p tsconfig.json --noEmit false --outDir out' }], parallel: false, outputLimitKb: 256, staged: true, storageDir: s.storage });
    try {
      const v0 = await emits.verify(undefined, { previous: null });
      const v1 = await emits.verify(undefined, { previous: v0, changed: [] });
      assert.equal(v1.checks[0]!.mode, 'full');
      assert.match(v1.checks[0]!.stagedNote ?? '', /warm type check not possible.*emits files/);
    } finally {
      await emits.release();
    }
  });

  // Issue 37, item 6: pnpm's .bin entries are shell wrappers, not links; the wrapper names the package it runs.
  it('under pnpm (node_modules/.bin/tsc a shell wrapper into .pnpm): the workspace\'s typescript, kept warm', async () => {
    pnpmLayout(s.project, 'typescript', '5.9.3', 'bin/tsc', 'tsc');
    const env = checkEnv(s.project);
    const plan = warmTscPlan(TSC.command, s.project, env);
    assert.ok('args' in plan, `warm: ${JSON.stringify(plan)}`);
    const v0 = await v.verify(undefined, { previous: null });
    assert.equal(v0.failures.length, 3);
    v.warm();
    const v1 = await v.verify(undefined, { previous: v0, changed: [] });
    assert.equal(v1.checks[0]!.mode, 'warm', v1.checks[0]!.stagedNote);
    assert.equal(v1.failureHash, v0.failureHash);
  });

  it('a folder with no tsconfig.json is no warm program: the command runs (and fails as tsc does), saying why', async () => {
    rmSync(path.join(s.project, 'tsconfig.json'));
    const bare = new Verifier({ root: s.project, checks: [{ name: 'tsc', command: 'tsc --noEmit' }], parallel: false, outputLimitKb: 256, staged: true, storageDir: s.storage });
    try {
      const v0 = await bare.verify(undefined, { previous: null, warmStart: true });
      assert.equal(v0.checks[0]!.mode, 'full');
      assert.match(v0.checks[0]!.stagedNote ?? '', /no tsconfig\.json found and no files named/);
      assert.equal(v0.green, false, 'tsc with nothing to check prints its help and fails');
    } finally {
      await bare.release();
    }
  });

  it('project references fall back to the command', async () => {
    mkdirSync(path.join(s.project, 'lib'));
    writeFileSync(path.join(s.project, 'lib', 'tsconfig.json'), JSON.stringify({ compilerOptions: { composite: true }, files: [] }));
    const tsconfig = JSON.parse(readFileSync(path.join(s.project, 'tsconfig.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(s.project, 'tsconfig.json'), JSON.stringify({ ...tsconfig, references: [{ path: './lib' }] }));
    const v0 = await v.verify(undefined, { previous: null });
    const v1 = await v.verify(undefined, { previous: v0, changed: [] });
    assert.equal(v1.checks[0]!.mode, 'full');
    assert.match(v1.checks[0]!.stagedNote ?? '', /references/);
  });

  it('a worker whose owner died is reaped from its record', async function () {
    if (process.platform !== 'linux') this.skip();
    // A worker started by a process that is then killed outright: its record names a dead owner.
    const owner = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'test', 'support', 'warmOwner.mts'), s.project, s.storage], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    const said = await new Promise<string>((resolve) => owner.stdout.on('data', (c: Buffer) => resolve(c.toString().trim())));
    assert.equal(said, 'warm');
    assert.equal(warmWorkers(s.storage).length, 1);
    const exited = new Promise((r) => owner.once('exit', r));
    owner.kill('SIGKILL');
    await exited;
    // The worker exits by itself when its parent's channel closes; reaping ends whatever is left.
    await reapStrays(s.storage);
    assert.deepEqual(warmWorkers(s.storage), []);
  });
});

describe('staged checks: eslint on the changed files', function () {
  this.timeout(120000);

  it('lints the changed files, carries the others\' failures marked, and the full lint decides green', async () => {
    const s = copyFixture('verify/eslint');
    const v = new Verifier({ root: s.project, checks: [{ name: 'eslint', command: 'eslint --format json src' }], parallel: false, outputLimitKb: 256, staged: true, storageDir: s.storage });
    try {
      const v0 = await v.verify(undefined, { previous: null });
      const inventory = v0.failures.filter((f) => f.file === 'src/inventory.js');
      assert.ok(inventory.length >= 3);
      const file = path.join(s.project, 'src', 'inventory.js');
      writeFileSync(file, readFileSync(file, 'utf8').replace('  const unused = 42;\n', ''));
      const v1 = await v.verify(undefined, { previous: v0, changed: ['src/inventory.js'] });
      const c = v1.checks[0]!;
      assert.equal(c.mode, 'targeted');
      assert.equal(v1.failures.filter((f) => f.file === 'src/inventory.js').length, inventory.length - 1);
      const carried = v1.failures.filter((f) => f.carried);
      assert.deepEqual(keys(carried), keys(v0.failures.filter((f) => f.file !== 'src/inventory.js')), 'the untouched files\' failures, carried');
      // The same failures as a full lint of the same tree: the identity compares like with like.
      const full = await new Verifier({ root: s.project, checks: [{ name: 'eslint', command: 'eslint --format json src' }], parallel: false, outputLimitKb: 256 }).verify();
      assert.equal(v1.failureHash, full.failureHash);
      assert.match(c.stagedNote ?? '', /1 changed file\(s\) linted/);
    } finally {
      await v.release();
      s.cleanup();
    }
  });
});

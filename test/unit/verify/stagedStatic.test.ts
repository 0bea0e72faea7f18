// Staged static checks on real projects: tsc kept warm in a child process (the command's own
// diagnostics and identity; falls back to the command where it cannot be warm, and says so; the
// child is gone after release, cancel and a crash of its own), ESLint on the changed files with the
// other files' failures carried.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Failure } from '../../../src/core/types';
import { checkEnv } from '../../../src/core/verify/runner';
import { Verifier } from '../../../src/core/verify/verifier';
import { findProcesses, reapStrays } from '../../../src/core/verify/containment';
import { warmTscPlan } from '../../../src/core/verify/staged/warmTsc';
import { copyFixture, REPO } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

/** The warm workers of a storage's records still alive. */
function warmWorkers(storage: string): number[] {
  const dir = path.join(storage, 'processes');
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return names.flatMap((n) => findProcesses({ marker: n.replace(/\.json$/, '') }));
}

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

  it('a step that passes warm is decided by the command: green only from the full run', async () => {
    const v0 = await v.verify(undefined, { previous: null });
    for (const [f, from, to] of [['src/price.ts', "'free'", '0'], ['src/price.ts', '{ name: item.name }', '{ name: 1 }'], ['src/cart.ts', "padStart('8')", 'padStart(8)']] as const) {
      const p = path.join(s.project, f);
      writeFileSync(p, readFileSync(p, 'utf8').replace(from, to));
    }
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/price.ts', 'src/cart.ts'] });
    assert.equal(v1.green, true);
    assert.equal(v1.checks[0]!.mode, 'full');
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
    assert.match((warmTscPlan('node scripts/typecheck.js', s.project, env) as { fallback: string }).fallback, /not a plain tsc/);
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

// The pre-started Jest (src/core/verify/staged/preStarted.ts): import-only, its CLI's packages
// loaded ahead, then the command's own bin run in it with whatever arguments the run has (a targeted
// run's --findRelatedTests, --testRunner, -t). On real Jest from our node_modules and small projects
// under the temp folder: the verdict is the command's (a pass, a failure, a file that does not parse,
// no tests, a config error, a targeted step with in-run retries); a package it loaded that changed
// sends the command cold; timeout, cancel and release leave nothing behind (Jest's workers
// included); an `env` launcher that only sets variables (cross-env's is alike, not installed here) is served
// with them.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../../src/core/types';
import { checkEnv, runCommand } from '../../../src/core/verify/runner';
import { PreStartedRunners, preStartPlan } from '../../../src/core/verify/staged/preStarted';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';
import { assertSameVerdict } from '../../support/sameVerdict';
import { liveRecorded } from '../../support/procs';

const LIMIT = 256 * 1024;
const READY = /^pre-started jest ready/;

/**
 * A logger whose `ready()` resolves once a pre-started Jest said it loaded the runner (and returns
 * that line), and rejects once a check was not pre-started or its process said it is not ready.
 */
function readyLogger(): { logger: Logger; ready(): Promise<string>; lines: string[] } {
  const lines: string[] = [];
  let waiting: ((l: string) => void) | undefined;
  const NOT = /: not pre-started: |^pre-started jest not ready/;
  const note = (m: string): void => {
    lines.push(m);
    if (READY.test(m) || NOT.test(m)) waiting?.(m);
  };
  const logger = { debug: note, info: note, warn: note, error: note } as Logger;
  return {
    logger,
    lines,
    ready: () =>
      new Promise<string>((resolve) => {
        const seen = lines.find((l) => READY.test(l) || NOT.test(l));
        if (seen !== undefined) return resolve(seen);
        waiting = resolve;
      }).then((l) => {
        lines.splice(0, lines.length, ...lines.filter((x) => !READY.test(x) && !NOT.test(x)));
        if (!READY.test(l)) throw new Error(l);
        return l;
      }),
  };
}

const CART = (off = 0): string => `function total(lines) {\n  return lines.reduce((acc, l) => acc + l.price * l.quantity, ${off});\n}\n\nmodule.exports = { total };\n`;
const TEST = (i: number, expected = (i + 1) * 2): string => `const { total } = require("../src/cart.js");\n\ntest("total ${i}", () => {\n  expect(total([{ price: ${i + 1}, quantity: 2 }])).toBe(${expected});\n});\n`;
const CONFIG = 'module.exports = {\n  testEnvironment: "node",\n  roots: ["<rootDir>"],\n  coverageDirectory: "build/coverage",\n  transform: {},\n};\n';

/**
 * A small Jest project (the bench's coverage shape). `node_modules`: ours linked in; with `ownJest`,
 * a folder of links to ours but for copies of the `jest` and `jest-cli` packages, whose files the
 * test may edit (jest's bin requires jest-cli from where it really is).
 */
function project(ownJest = false, extra: Record<string, string> = {}): { dir: string; put(rel: string, text: string): void; cleanup(): void } {
  const t = tempTree({ 'package.json': '{ "name": "pre-started-jest", "private": true, "scripts": { "test": "jest --coverage" } }\n', 'jest.config.js': CONFIG, 'src/cart.js': CART(), 'test/t0.test.js': TEST(0), 'test/t1.test.js': TEST(1), ...extra }, 'fug-prejest-');
  const nm = path.join(t.dir, 'node_modules');
  if (!ownJest) {
    symlinkSync(path.join(REPO, 'node_modules'), nm, 'dir');
  } else {
    mkdirSync(path.join(nm, '.bin'), { recursive: true });
    for (const name of readdirSync(path.join(REPO, 'node_modules'))) {
      if (name !== 'jest' && name !== 'jest-cli' && name !== '.bin') symlinkSync(path.join(REPO, 'node_modules', name), path.join(nm, name));
    }
    for (const name of ['jest', 'jest-cli']) cpSync(path.join(REPO, 'node_modules', name), path.join(nm, name), { recursive: true });
    symlinkSync('../jest/bin/jest.js', path.join(nm, '.bin', 'jest'));
  }
  return { dir: t.dir, put: (rel, text) => (mkdirSync(path.dirname(path.join(t.dir, rel)), { recursive: true }), writeFileSync(path.join(t.dir, rel), text)), cleanup: t.cleanup };
}

/** Jest's output with what differs between two runs of the same command (timings, the order of files) taken out. */
function stableJestOutput(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => !/^Time:/.test(l))
    .map((l) => l.replace(/\(\d+(\.\d+)? m?s\)/g, '(N ms)').replace(/\d+(\.\d+)? s\b/g, 'N s'))
    .sort();
}

describe('pre-started Jest: the command itself, run in a process with Jest loaded ahead', function () {
  this.timeout(180000);
  let p: ReturnType<typeof project>;
  let runners: PreStartedRunners;
  let log: ReturnType<typeof readyLogger>;
  const ARGV = ['jest', '--coverage'];
  const records = (): string => `${p.dir}-records`;
  const opts = (extra: { timeoutMs?: number; signal?: AbortSignal; env?: Record<string, string> } = {}) => ({ cwd: p.dir, env: extra.env ?? checkEnv(p.dir), timeoutMs: extra.timeoutMs ?? 120000, outputLimitBytes: LIMIT, killGraceMs: 500, ...(extra.signal ? { signal: extra.signal } : {}) });
  const cold = (argv = ARGV) => runCommand({ command: argv.join(' '), argv, ...opts() });

  function start(ownJest = false, extra: Record<string, string> = {}): void {
    p = project(ownJest, extra);
    log = readyLogger();
    runners = new PreStartedRunners({ logger: log.logger, recordDir: records() });
  }
  async function primed(argv = ARGV): Promise<string> {
    runners.prime('test', 'jest', argv, p.dir, checkEnv(p.dir));
    return log.ready();
  }

  afterEach(async () => {
    await runners.release();
    assert.deepEqual(liveRecorded(records()), [], 'nothing of a pre-started process left');
    p.cleanup();
    rmSync(records(), { recursive: true, force: true });
  });

  it('import-only: any argv of the check runs in it (a targeted run of one file, a name filter), printing and exiting as the command', async () => {
    start();
    p.put('test/t1.test.js', TEST(1, 5));
    assert.match(await primed(), /jest ready \(\d+ files loaded; not held/);
    const narrowed = ['jest', '--coverage', '--runTestsByPath', 'test/t1.test.js', '-t', 'total'];
    const w = await runners.run('test', 'jest', narrowed, opts());
    assert.ok(w && 'r' in w, `pre-started: ${w && 'fallback' in w ? w.fallback : 'none'}`);
    assert.match(w.note, /jest [\d.]+ loaded ahead/);
    const c = await cold(narrowed);
    assert.equal(w.r.exitCode, 1);
    assert.equal(w.r.exitCode, c.exitCode);
    assert.match(w.r.output, /Expected: 5/);
    assert.deepEqual(stableJestOutput(w.r.output), stableJestOutput(c.output));
    assert.deepEqual(w.r.strays, []);
    // Single use: the next run of the check has none.
    assert.equal(await runners.run('test', 'jest', ARGV, opts()), undefined);
  });

  it('a Jest file it loaded changed since it loaded it: not used, the command runs cold and prints what the changed file prints', async () => {
    start(true);
    await primed();
    const file = path.join(p.dir, 'node_modules', 'jest-cli', 'build', 'index.js');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nconsole.error('jest-cli as edited');\n`);
    const w = await runners.run('test', 'jest', ARGV, opts());
    assert.ok(w);
    // What the check gets: the pre-started run, or (as the verifier does on a fallback) the command's.
    const got = 'r' in w ? w.r : await cold();
    assert.match(got.output, /jest-cli as edited/, 'the edited module ran');
    assert.ok('fallback' in w);
    assert.match(w.fallback, /jest-cli[\\/]build[\\/]index\.js, which it loaded, changed/);
  });

  it('timeout: the CLI and its workers are killed, nothing left', async () => {
    const hang = 'test("hangs", async () => { await new Promise(() => undefined); }, 600000);\n';
    start(false, { 'test/t0.test.js': hang, 'test/t1.test.js': hang });
    // Two workers (Jest runs in band on a machine of two cores otherwise).
    const argv = ['jest', '--maxWorkers=2'];
    await primed(argv);
    let during = 0;
    const look = setTimeout(() => (during = liveRecorded(records()).length), 5000);
    const w = await runners.run('test', 'jest', argv, opts({ timeoutMs: 7000 }));
    clearTimeout(look);
    assert.ok(w && 'r' in w, w && 'fallback' in w ? w.fallback : 'none');
    assert.equal(w.r.timedOut, true);
    assert.ok(during >= 2, `the CLI and its worker(s) ran (${during} processes)`);
    assert.deepEqual(liveRecorded(records()), [], 'nothing left after the timeout');
  });

  it('cancel: the run reports cancelled and nothing of it is left', async () => {
    start(false, { 'test/t0.test.js': 'test("hangs", async () => { await new Promise(() => undefined); }, 600000);\n' });
    await primed();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 3000);
    const w = await runners.run('test', 'jest', ARGV, opts({ signal: ac.signal }));
    assert.ok(w && 'r' in w);
    assert.equal(w.r.cancelled, true);
    assert.deepEqual(liveRecorded(records()), [], 'nothing left after the cancel');
  });

  it('release ends a process never used', async () => {
    start();
    await primed();
    assert.equal(liveRecorded(records()).length > 0, true);
    await runners.release();
    assert.deepEqual(liveRecorded(records()), []);
  });

  it('a launcher that only sets variables (cross-env, env): started with them, used only for the same ones', async () => {
    start(false, { 'test/env.test.js': 'test("mode", () => {\n  expect(`${process.env.MODE}/${process.env.NODE_ENV}`).toBe("fast/test");\n});\n' });
    const argv = ['env', 'MODE=fast', 'jest', 'test/env.test.js'];
    await primed(argv);
    const w = await runners.run('test', 'jest', argv, opts());
    assert.ok(w && 'r' in w, w && 'fallback' in w ? w.fallback : 'none');
    const c = await cold(argv);
    assert.equal(c.exitCode, 0, c.output);
    assert.equal(w.r.exitCode, 0, w.r.output);
    // Another value: the process, started with MODE=fast, is not the command's.
    await primed(['env', 'MODE=fast', 'jest', 'test/env.test.js']);
    const other = await runners.run('test', 'jest', ['env', 'MODE=slow', 'jest', 'test/env.test.js'], opts());
    assert.ok(other && 'fallback' in other);
    assert.match(other.fallback, /launcher sets \{"MODE":"slow"\}, it was started with \{"MODE":"fast"\}/);
  });

  it("plans: the jest package's own bin, behind cross-env/env assignments at most", () => {
    start();
    const env = checkEnv(p.dir);
    const plan = preStartPlan('jest', ['jest', '--ci'], p.dir, env);
    assert.ok('bin' in plan, JSON.stringify(plan));
    assert.equal(plan.bin, path.join(REPO, 'node_modules', 'jest', 'bin', 'jest.js'));
    assert.ok(plan.preload.some((f) => f.endsWith(path.join('@jest', 'core', 'build', 'index.js'))), plan.preload.join('\n'));
    const launched = preStartPlan('jest', ['env', 'A=1', 'env', 'B=2', 'jest'], p.dir, env);
    assert.ok('bin' in launched);
    assert.deepEqual(launched.vars, { A: '1', B: '2' });
    // What cross-env rewrites ($VAR, a list delimiter), env's flags, npx, node: not served.
    for (const argv of [['cross-env', 'A=$HOME', 'jest'], ['cross-env', 'P=a;b', 'jest'], ['env', '-i', 'jest'], ['npx', 'jest'], ['node', 'node_modules/jest/bin/jest.js'], ['cross-env-shell', 'A=1', 'jest']]) {
      const f = preStartPlan('jest', argv, p.dir, env);
      assert.ok('fallback' in f, argv.join(' '));
      assert.match(f.fallback, /not a plain jest call/);
    }
    // A launcher that is not installed fails cold ("not found"): never served.
    const missing = preStartPlan('jest', ['cross-env', 'A=1', 'jest'], p.dir, { ...env, PATH: [path.join(p.dir, 'node_modules', '.bin'), path.dirname(process.execPath)].join(path.delimiter) });
    assert.ok('fallback' in missing);
    assert.match(missing.fallback, /not a plain jest call/);
  });
});

describe('pre-started Jest in the verifier: the verdict is the command\'s', function () {
  this.timeout(300000);

  const CHECK = { name: 'test', command: 'jest --coverage', parser: 'jest' as const };
  const variants: [string, (put: (rel: string, text: string) => void) => void, boolean][] = [
    ['passing', () => undefined, true],
    ['a failing test', (put) => put('test/t0.test.js', TEST(0, 3)), false],
    ['a test file that does not parse', (put) => put('test/t1.test.js', 'test("broken", () => {\n'), false],
    ['no tests found', (put) => put('jest.config.js', CONFIG.replace('roots: ["<rootDir>"]', 'roots: ["<rootDir>"], testMatch: ["**/nothing/*.test.js"]')), false],
    ['a config that throws', (put) => put('jest.config.js', 'throw new Error("the config is broken");\n'), false],
    ['a config Jest rejects', (put) => put('jest.config.js', 'module.exports = { roots: 5 };\n'), false],
  ];

  for (const [name, edit, green] of variants) {
    it(`${name}: same failures, identity, green and exit code as with staged checks off`, async () => {
      const p = project();
      edit(p.put);
      const storage = `${p.dir}-storage`;
      const log = readyLogger();
      const staged = new Verifier({ root: p.dir, checks: [CHECK], parallel: false, outputLimitKb: 256, staged: true, storageDir: storage, logger: log.logger });
      const plain = new Verifier({ root: p.dir, checks: [CHECK], parallel: false, outputLimitKb: 256, staged: false });
      try {
        await staged.warm();
        await log.ready();
        const v = await staged.verify(undefined, { previous: null });
        const c = await plain.verify(undefined, { previous: null });
        assert.match(v.checks[0]!.stagedNote ?? '', /run in a pre-started process \(jest [\d.]+ loaded ahead/, log.lines.join('\n'));
        assert.equal(v.green, c.green);
        assert.equal(v.green, green);
        assert.equal(v.checks[0]!.exitCode, c.checks[0]!.exitCode);
        assert.deepEqual(v.failures.map((f) => `${f.file}:${f.line}:${f.id}:${f.message}`), c.failures.map((f) => `${f.file}:${f.line}:${f.id}:${f.message}`));
        assert.equal(v.failureHash, c.failureHash);
      } finally {
        await staged.release();
        assert.deepEqual(liveRecorded(path.join(storage, 'processes')), []);
        p.cleanup();
        rmSync(storage, { recursive: true, force: true });
      }
    });
  }

  // A targeted step: the edit touches cart.js, so the run is t0's alone (--findRelatedTests and our
  // retry runner as --testRunner), in the process pre-started for `jest --coverage`.
  const FLAKY = 'const { existsSync, writeFileSync } = require("node:fs");\nconst { total } = require("../src/cart.js");\n\ntest("flaky once", () => {\n  const first = !existsSync("flaky-ran");\n  writeFileSync("flaky-ran", "");\n  expect(first ? -1 : total([])).toBe(0);\n});\n';
  // The check's command an npm script (`npm test`): primed with the runner's own command in it, as the staged runs call it.
  const steps: [string, (put: (rel: string, text: string) => void) => string[], string][] = [
    ['a new failure in a targeted step', (put) => (put('src/cart.js', CART(1)), ['src/cart.js']), 'jest --coverage'],
    ['a new flaky failure in a targeted step (retried in the run)', (put) => (put('test/flaky.test.js', FLAKY), put('src/cart.js', `${CART()}// edited\n`), ['src/cart.js', 'test/flaky.test.js']), 'jest --coverage'],
    ['a new failure in a targeted step of `npm test`', (put) => (put('src/cart.js', CART(1)), ['src/cart.js']), 'npm test --silent'],
  ];
  for (const [name, edit, command] of steps) {
    it(`${name}: run in the pre-started process, same failures, flakes, identity and green as an unstaged pass`, async () => {
      // Other tests that do not import cart.js: the step's selection is not the whole suite.
      const p = project(false, { 'src/other.js': 'module.exports = { one: () => 1 };\n', 'test/other.test.js': 'const { one } = require("../src/other.js");\ntest("one", () => expect(one()).toBe(1));\n' });
      const storage = `${p.dir}-storage`;
      const log = readyLogger();
      const checks = [{ ...CHECK, command }];
      const staged = new Verifier({ root: p.dir, checks, parallel: false, outputLimitKb: 256, staged: true, storageDir: storage, logger: log.logger });
      const plain = new Verifier({ root: p.dir, checks, parallel: false, outputLimitKb: 256, staged: false });
      try {
        await staged.warm();
        await log.ready();
        const first = await staged.verify(undefined, { previous: null });
        assert.equal(first.green, true);
        await staged.warm();
        // `npm test` itself ran cold (another command than the process's): the process stays, ready, for the step.
        if (command.startsWith('npm')) assert.match(log.lines.join('\n'), /check test: the command runs cold: the command is not a plain jest call/);
        else await log.ready();
        const changed = edit(p.put);
        const v = await staged.verify(undefined, { previous: first, changed });
        // The targeted run (with the in-run retry runner) ran in it; a passing one is followed by the full run, cold.
        assert.match(log.lines.join('\n'), /--findRelatedTests src\/cart\.js.* --testRunner \S+retry-runner\.cjs\ncheck test: run in a pre-started process \(jest [\d.]+ loaded ahead/, log.lines.join('\n'));
        rmSync(path.join(p.dir, 'flaky-ran'), { force: true });
        const c = await plain.verify(undefined, { previous: null });
        assertSameVerdict(v, c);
        if (command.startsWith('npm')) assert.match(log.lines.join('\n'), /check test: jest --coverage --passWithNoTests --findRelatedTests/);
        if (name.includes('flaky')) assert.deepEqual(v.flaky.map((f) => f.file), ['test/flaky.test.js']);
        else assert.equal(v.green, false);
      } finally {
        await staged.release();
        assert.deepEqual(liveRecorded(path.join(storage, 'processes')), []);
        p.cleanup();
        rmSync(storage, { recursive: true, force: true });
      }
    });
  }
});

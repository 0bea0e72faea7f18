// The pre-started Vitest held just before its test run (src/core/verify/staged/preStarted.ts,
// ./programs/preStartedRunner.mjs), on real Vitest from our node_modules and small projects under the
// temp folder. The held process ran the command at prime up to the run's start: config loaded, Vite
// server created. It is used only where nothing it observed while doing that changed: the config,
// what the config imports, the `.env` files Vite looks for, a file the config reads with `fs`. Each
// change here makes a cold run print something else, so a held process used in spite of it would give
// another verdict. The verdict held is the verdict cold (a config that throws included), and the
// config's globalSetup runs once per run, held or cold.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Failure, Logger } from '../../../src/core/types';
import { checkEnv, runCommand } from '../../../src/core/verify/runner';
import { PreStartedRunners } from '../../../src/core/verify/staged/preStarted';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';
import { assertSameVerdict } from '../../support/sameVerdict';
import { liveRecorded, stableVitestOutput } from '../../support/procs';

const ARGV = ['vitest', 'run', '--typecheck'];
const READY = /^pre-started vitest ready/;

const TEST = (i: number, expected = (i + 1) * 2): string => `import { expect, test } from 'vitest';\nimport { total } from '#cart';\n\ntest('total ${i}', () => {\n  expect(total([{ price: ${i + 1}, quantity: 2 }])).toBe(${expected});\n});\n`;
const CONFIG = (extra = ''): string =>
  [
    "import { readFileSync } from 'node:fs';",
    "import { defineConfig } from 'vitest/config';",
    "import { include } from './vitest.shared';",
    '// The aliases of tsconfig.json, read as a config does it.',
    "const paths: Record<string, string[]> = JSON.parse(readFileSync('tsconfig.json', 'utf8')).compilerOptions.paths;",
    'const alias = Object.fromEntries(Object.entries(paths).map(([k, [v]]) => [k, new URL(v!, import.meta.url).pathname]));',
    `export default defineConfig({ resolve: { alias }, test: { include, typecheck: { include: ['test/**/*.test-d.ts'] }${extra} } });`,
    '',
  ].join('\n');
const TSCONFIG = (cart: string): string => JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'esnext', moduleResolution: 'bundler', strict: true, noEmit: true, skipLibCheck: true, types: [], paths: { '#cart': [cart] } }, include: ['src/**/*.ts', 'test/**/*.ts'] });

function project(): { dir: string; put(rel: string, text: string): void; read(rel: string): string; cleanup(): void } {
  const t = tempTree(
    {
      'package.json': '{ "name": "pre-started-held", "private": true, "type": "module" }\n',
      'tsconfig.json': TSCONFIG('./src/cart.ts'),
      'vitest.config.ts': CONFIG(),
      'vitest.shared.ts': "export const include = ['test/**/*.test.ts'];\n",
      'src/cart.ts': 'export interface Line {\n  price: number;\n  quantity: number;\n}\n\nexport function total(lines: Line[]): number {\n  return lines.reduce((acc, l) => acc + l.price * l.quantity, 0);\n}\n',
      'src/cartOff.ts': "export function total(lines: { price: number; quantity: number }[]): number {\n  return lines.reduce((acc, l) => acc + l.price * l.quantity, 1);\n}\n",
      'test/t0.test.ts': TEST(0),
      'test/t1.test.ts': TEST(1),
      'test/env.test.ts': "import { expect, test } from 'vitest';\n\ntest('no VITE_FLAG', () => {\n  expect((import.meta as unknown as { env: Record<string, unknown> }).env.VITE_FLAG).toBeUndefined();\n});\n",
      'test/cart.test-d.ts': "import { expectTypeOf, test } from 'vitest';\nimport { total } from '#cart';\n\ntest('total returns a number', () => {\n  expectTypeOf(total).returns.toEqualTypeOf<number>();\n});\n",
    },
    'fug-prehold-',
  );
  symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
  return { dir: t.dir, put: (rel, text) => writeFileSync(path.join(t.dir, rel), text), read: (rel) => readFileSync(path.join(t.dir, rel), 'utf8'), cleanup: t.cleanup };
}

function readyLogger(): { logger: Logger; ready(): Promise<string>; lines: string[] } {
  const lines: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  const note = (m: string): void => {
    lines.push(m);
    if (READY.test(m)) waiting?.(m);
  };
  return {
    logger: { debug: note, info: note, warn: note, error: note } as Logger,
    lines,
    ready: () =>
      new Promise<string>((resolve) => {
        const have = lines.find((l) => READY.test(l));
        if (have !== undefined) return resolve(have);
        waiting = resolve;
      }).then((line) => {
        lines.splice(0, lines.length, ...lines.filter((l) => !READY.test(l)));
        return line;
      }),
  };
}

describe('pre-started Vitest held before its test run: used only where nothing it observed changed', function () {
  this.timeout(180000);
  let p: ReturnType<typeof project>;
  let runners: PreStartedRunners;
  let log: ReturnType<typeof readyLogger>;
  const records = (): string => `${p.dir}-records`;
  const opts = () => ({ cwd: p.dir, env: checkEnv(p.dir), timeoutMs: 120000, outputLimitBytes: 256 * 1024, killGraceMs: 500 });
  const cold = () => runCommand({ command: ARGV.join(' '), argv: ARGV, ...opts() });

  beforeEach(() => {
    p = project();
    log = readyLogger();
    runners = new PreStartedRunners({ logger: log.logger, recordDir: records() });
  });
  afterEach(async () => {
    await runners.release();
    assert.deepEqual(liveRecorded(records()), [], 'nothing of a pre-started process left');
    p.cleanup();
    rmSync(records(), { recursive: true, force: true });
  });

  async function primed(): Promise<void> {
    runners.prime('test', 'vitest', ARGV, p.dir, checkEnv(p.dir));
    assert.match(await log.ready(), /held before its test run/);
  }

  it('held: the output it printed while preparing comes first, and the run is the command', async () => {
    await primed();
    const w = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(w && 'r' in w, `held: ${w && 'fallback' in w ? w.fallback : 'none'}`);
    assert.match(w.note, /run ahead up to its test run/);
    assert.equal(w.r.exitCode, 0);
    // Vitest warns about type testing while it loads the config: before the run, as a cold run prints it.
    assert.match(w.r.output, /^Testing types with tsc[\s\S]*RUN\s+v3/);
    const c = await cold();
    assert.deepEqual(stableVitestOutput(w.r.output), stableVitestOutput(c.output));
  });

  // Each edit makes the command print another verdict; the held process, prepared before it, would not see it.
  const stale: [string, (q: typeof p) => void, RegExp, RegExp][] = [
    ['the config file edited', (q) => q.put('vitest.config.ts', CONFIG(", passWithNoTests: false, exclude: ['test/t1.test.ts']")), /vitest\.config\.ts, which it read while preparing the run, changed/, /Test Files {2}3 passed \(3\)/],
    ['a file the config imports edited', (q) => q.put('vitest.shared.ts', "export const include = ['test/t0.test.ts'];\n"), /vitest\.shared\.ts, which it read while preparing the run, changed/, /Test Files {2}2 passed \(2\)/],
    ['a .env.test file created (Vite loads it for the test mode)', (q) => q.put('.env.test', 'VITE_FLAG=on\n'), /\.env\.test, absent when it prepared the run, appeared/, /expected 'on' to be undefined/],
    ['tsconfig.json, which the config reads with fs, edited', (q) => q.put('tsconfig.json', TSCONFIG('./src/cartOff.ts')), /tsconfig\.json, which it read while preparing the run, changed/, /expected 3 to be 2/],
  ];
  for (const [name, edit, why, shows] of stale) {
    it(`${name} after prime: not used, the command runs cold`, async () => {
      await primed();
      edit(p);
      const w = await runners.run('test', 'vitest', ARGV, opts());
      assert.ok(w);
      const command = await cold();
      assert.match(command.output, shows, 'the edit changes what the command prints');
      assert.ok('fallback' in w, `the held process was used: ${'r' in w ? w.r.output : ''}`);
      assert.match(w.fallback, why);
    });
  }

  it("a run of the command in between (it rewrites Vitest's results cache): still used, and the cache read again at the run, as a fresh process reads it", async () => {
    await primed();
    const between = await cold();
    assert.equal(between.exitCode, 0);
    // The cache the run in between wrote (under node_modules/.vite/vitest, shared through the link
    // with every project here), with an entry of ours added: a name of this test's own, taken out after.
    const base = path.join(p.dir, 'node_modules', '.vite', 'vitest');
    const file = readdirSync(base).map((d) => path.join(base, d, 'results.json')).filter((f) => existsSync(f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
    type Cache = { results: [string, unknown][]; version: string };
    const ghost = `:ghost/${path.basename(p.dir)}.test.ts`;
    const cache = JSON.parse(readFileSync(file, 'utf8')) as Cache;
    cache.results.push([ghost, { duration: 1, failed: false }]);
    writeFileSync(file, JSON.stringify(cache));
    try {
      const w = await runners.run('test', 'vitest', ARGV, opts());
      assert.ok(w && 'r' in w, `held: ${w && 'fallback' in w ? w.fallback : 'none'}`);
      assert.match(w.note, /run ahead up to its test run/);
      assert.deepEqual(stableVitestOutput(w.r.output), stableVitestOutput(between.output));
      // Vitest writes back what it read plus this run's: the entry written in between is there.
      assert.ok((JSON.parse(readFileSync(file, 'utf8')) as Cache).results.some(([k]) => k === ghost), 'the cache was read again at the run');
    } finally {
      const now = JSON.parse(readFileSync(file, 'utf8')) as Cache;
      writeFileSync(file, JSON.stringify({ ...now, results: now.results.filter(([k]) => k !== ghost) }));
    }
  });

  it('a narrowed run (other arguments) runs cold and leaves the held process for the full command', async () => {
    await primed();
    const narrowed = await runners.run('test', 'vitest', [...ARGV, 'test/t0.test.ts'], opts());
    assert.ok(narrowed && 'fallback' in narrowed);
    assert.match(narrowed.fallback, /it holds `run --typecheck` \(kept for it\), this run is `run --typecheck test\/t0\.test\.ts`/);
    const full = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(full && 'r' in full, `kept: ${full && 'fallback' in full ? full.fallback : 'none'}`);
    assert.equal(full.r.exitCode, 0);
  });

  it("the config's globalSetup runs once per run, held or cold, and never for a process not used", async () => {
    p.put('setup.ts', "import { appendFileSync } from 'node:fs';\nexport default function setup(): void {\n  appendFileSync('setup-runs.txt', 'run\\n');\n}\n");
    p.put('vitest.config.ts', CONFIG(", globalSetup: ['./setup.ts']"));
    const runs = (): number => {
      try {
        return p.read('setup-runs.txt').split('\n').filter(Boolean).length;
      } catch {
        return 0;
      }
    };
    await primed();
    assert.equal(runs(), 0, 'not while held');
    const w = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(w && 'r' in w);
    assert.equal(w.r.exitCode, 0);
    assert.equal(runs(), 1);
    await cold();
    assert.equal(runs(), 2);
    await primed();
    await runners.release();
    assert.equal(runs(), 2, 'a held process released never set up');
  });
});

describe('pre-started Vitest held: the verdict is the command\'s', function () {
  this.timeout(300000);

  const CHECK = { name: 'test', command: 'vitest run --typecheck', parser: 'vitest' as const };
  const variants: [string, (q: ReturnType<typeof project>) => void, boolean][] = [
    ['passing', () => undefined, true],
    ['a failing test', (q) => q.put('test/t0.test.ts', TEST(0, 3)), true],
    ['a type test that does not type-check', (q) => q.put('test/cart.test-d.ts', "import { expectTypeOf, test } from 'vitest';\nimport { total } from '#cart';\n\ntest('t', () => {\n  expectTypeOf(total).returns.toEqualTypeOf<string>();\n});\n"), true],
    ['no test files', (q) => q.put('vitest.config.ts', CONFIG().replace("include: ['test/**/*.test-d.ts']", "include: ['nothing/**']").replace('{ include,', "{ include: ['nothing/**'],")), true],
    ['a test file that does not parse', (q) => q.put('test/t1.test.ts', "import { test } from 'vitest';\ntest('broken', () => {\n"), true],
    // It exits while loading the config, before any hold: the command runs cold.
    ['a config that throws', (q) => q.put('vitest.shared.ts', "throw new Error('config broken');\nexport const include = [];\n"), false],
  ];
  for (const [name, edit, held] of variants) {
    it(`${name}: same failures, identity, green and exit code as with staged checks off`, async () => {
      const q = project();
      edit(q);
      const storage = `${q.dir}-storage`;
      const log = readyLogger();
      const staged = new Verifier({ root: q.dir, checks: [CHECK], parallel: false, outputLimitKb: 256, staged: true, storageDir: storage, logger: log.logger });
      const plain = new Verifier({ root: q.dir, checks: [CHECK], parallel: false, outputLimitKb: 256, staged: false });
      try {
        await staged.warm();
        if (held) assert.match(await log.ready(), /held before its test run/);
        else await new Promise((resolve) => setTimeout(resolve, 4000));
        const v = await staged.verify(undefined, { previous: null });
        const c = await plain.verify(undefined, { previous: null });
        if (held) assert.match(v.checks[0]!.stagedNote ?? '', /run ahead up to its test run/, log.lines.join('\n'));
        else assert.doesNotMatch(v.checks[0]!.stagedNote ?? '', /run in a pre-started process/);
        assert.equal(v.green, c.green);
        assert.equal(v.checks[0]!.exitCode, c.checks[0]!.exitCode);
        // A config error's stack names the temp file Vite bundled the config to, another at each run
        // (two cold runs differ in it too): compared without it; the identity leaves it out itself.
        const shown = (f: Failure): string => `${f.file}:${f.line}:${f.id}:${f.message}`.replace(/\.timestamp-\d+-[0-9a-f]+\.mjs/g, '.timestamp-N.mjs');
        assert.deepEqual(v.failures.map(shown), c.failures.map(shown));
        assert.equal(v.failureHash, c.failureHash);
        assert.equal(v.green, name === 'passing');
      } finally {
        await staged.release();
        assert.deepEqual(liveRecorded(path.join(storage, 'processes')), []);
        q.cleanup();
        rmSync(storage, { recursive: true, force: true });
      }
    });
  }
});

// A step whose selection is every test file runs the command itself (the full test run). Where the
// check's pre-started process holds that command, the step runs it there as it is: no in-run retry
// arguments, which would leave it unused. Known failures stand as they are; new ones are re-run
// apart, by file; the verdict is the one a cold, unstaged pass gives.
describe('pre-started Vitest held: a step that selects the whole suite runs in it, and the verdict is the command\'s', function () {
  this.timeout(300000);

  const CHECKS = [
    { name: 'types', command: 'tsc -p tsconfig.json', parser: 'tsc' as const },
    { name: 'test', command: 'vitest run --typecheck', parser: 'vitest' as const },
  ];
  const CART = (off = 0): string => `export function total(lines: { price: number; quantity: number }[]): number {\n  return lines.reduce((acc, l) => acc + l.price * l.quantity, ${off});\n}\n`;
  const FILE_TEST = (i: number, expected = (i + 1) * 2): string => `import { expect, test } from 'vitest';\nimport { total } from '../src/cart';\n\ntest('total ${i}', () => {\n  expect(total([{ price: ${i + 1}, quantity: 2 }])).toBe(${expected});\n});\n`;
  // Fails in the first process that runs it (a marker file says one did), passes after: a flake.
  const FLAKY = "import { existsSync, writeFileSync } from 'node:fs';\nimport { expect, test } from 'vitest';\nimport { total } from '../src/cart';\n\ntest('flaky once', () => {\n  const first = !existsSync('flaky-ran');\n  writeFileSync('flaky-ran', '');\n  expect(first ? -1 : total([])).toBe(0);\n});\n";
  const wholeProject = (): ReturnType<typeof tempTree> => {
    const t = tempTree(
      {
        'package.json': '{ "name": "pre-started-whole", "private": true, "type": "module" }\n',
        'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'esnext', moduleResolution: 'bundler', strict: true, noEmit: true, skipLibCheck: true, types: [] }, include: ['src/**/*.ts', 'test/**/*.ts'] }),
        'vitest.config.ts': "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.ts'], typecheck: { include: ['test/**/*.test-d.ts'] } } });\n",
        'src/cart.ts': CART(),
        'test/t0.test.ts': FILE_TEST(0),
        'test/t1.test.ts': FILE_TEST(1, 5),
        'test/cart.test-d.ts': "import { expectTypeOf, test } from 'vitest';\nimport { total } from '../src/cart';\n\ntest('total returns a number', () => {\n  expectTypeOf(total).returns.toEqualTypeOf<number>();\n});\n",
      },
      'fug-prewhole-',
    );
    symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
    return t;
  };
  // [name, the step's edit (the files it changed), what the step's note says of the re-run]
  const steps: [string, (dir: string) => string[], RegExp | undefined][] = [
    // t1 fails before and after: a known failure, not re-run.
    ['the known failure stays', (dir) => (writeFileSync(path.join(dir, 'src/cart.ts'), `${CART()}// edited\n`), ['src/cart.ts']), undefined],
    // Off by one: t0 fails anew (re-run apart, by its file, fails again), t1 still fails.
    ['a new failure, confirmed apart', (dir) => (writeFileSync(path.join(dir, 'src/cart.ts'), CART(1)), ['src/cart.ts']), /re-run \(not in the same run: the run was the pre-started process's own command\)/],
    // A new test that fails once: flaky by its re-run apart, as the unstaged pass's re-run finds it.
    ['a new flaky failure', (dir) => (writeFileSync(path.join(dir, 'test/flaky.test.ts'), FLAKY), writeFileSync(path.join(dir, 'src/cart.ts'), `${CART()}// edited\n`), ['src/cart.ts', 'test/flaky.test.ts']), /re-run \(not in the same run: the run was the pre-started process's own command\)/],
  ];
  for (const [name, edit, rerun] of steps) {
    it(`${name}: run in the held process, same failures, flakes, identity and green as an unstaged pass`, async () => {
      const t = wholeProject();
      const storage = `${t.dir}-storage`;
      const log = readyLogger();
      const staged = new Verifier({ root: t.dir, checks: CHECKS, parallel: false, outputLimitKb: 256, staged: true, storageDir: storage, logger: log.logger });
      const plain = new Verifier({ root: t.dir, checks: CHECKS, parallel: false, outputLimitKb: 256, staged: false });
      try {
        await staged.warm();
        await log.ready();
        const first = await staged.verify(undefined, { previous: null });
        assert.deepEqual(first.failures.map((f) => f.file), ['test/t1.test.ts']);
        await staged.warm();
        assert.match(await log.ready(), /held before its test run/);
        const changed = edit(t.dir);
        const v = await staged.verify(undefined, { previous: first, changed });
        const test = v.checks.find((c) => c.name === 'test')!;
        assert.equal(test.mode, 'full', test.stagedNote);
        assert.match(test.stagedNote ?? '', /the command ran itself, the full test run/);
        assert.match(test.stagedNote ?? '', /run ahead up to its test run/, log.lines.join('\n'));
        assert.doesNotMatch(log.lines.join('\n'), /--retry=/, 'no in-run retry arguments');
        if (rerun) assert.match(test.stagedNote ?? '', rerun);
        else assert.doesNotMatch(test.stagedNote ?? '', /re-run/);
        rmSync(path.join(t.dir, 'flaky-ran'), { force: true });
        const c = await plain.verify(undefined, { previous: null });
        assertSameVerdict(v, c);
        if (name === 'a new flaky failure') assert.deepEqual(v.flaky.map((f) => f.file), ['test/flaky.test.ts']);
      } finally {
        await staged.release();
        assert.deepEqual(liveRecorded(path.join(storage, 'processes')), []);
        t.cleanup();
        rmSync(storage, { recursive: true, force: true });
      }
    });
  }
});

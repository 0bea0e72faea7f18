// The pre-started test runner (src/core/verify/staged/preStarted.ts) on real Vitest from our
// node_modules, on small projects written under the temp folder: a check run by a process started at
// prime is the command itself (same failures, identity, green and exit code as staged checks off,
// for a pass, a failure, a type test's error, no tests, a test file that does not parse); what is
// edited between prime and run is seen; a file it loaded that changed, another environment, a
// process not ready yet: the command runs cold, saying why. Timeout, cancel and release leave no
// process behind (Vitest's forks and tsc included).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import * as path from 'node:path';
import type { Logger } from '../../../src/core/types';
import { checkEnv, runCommand } from '../../../src/core/verify/runner';
import { PreStartedRunners, preStartPlan } from '../../../src/core/verify/staged/preStarted';
import { programFile } from '../../../src/core/verify/staged/programFile';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';
import { liveRecorded, stableVitestOutput } from '../../support/procs';

const LIMIT = 256 * 1024;
const ARGV = ['vitest', 'run', '--typecheck'];

/** A logger whose `ready()` resolves once a pre-started process said it loaded the runner. */
function readyLogger(): { logger: Logger; ready(): Promise<void>; lines: string[] } {
  const lines: string[] = [];
  let waiting: (() => void) | undefined;
  const note = (m: string): void => {
    lines.push(m);
    if (/^pre-started vitest ready/.test(m)) waiting?.();
  };
  const logger = { debug: note, info: note, warn: note, error: note } as Logger;
  return {
    logger,
    lines,
    ready: () =>
      new Promise<void>((resolve) => {
        if (lines.some((l) => /^pre-started vitest ready/.test(l))) return resolve();
        waiting = resolve;
      }).then(() => {
        lines.splice(0, lines.length, ...lines.filter((l) => !/^pre-started vitest ready/.test(l)));
      }),
  };
}

const TEST = (i: number, expected = (i + 1) * 2): string => `import { expect, test } from 'vitest';\nimport { total } from '../src/cart';\n\ntest('total ${i}', () => {\n  expect(total([{ price: ${i + 1}, quantity: 2 }])).toBe(${expected});\n});\n`;
const TYPE_TEST = (t: string): string => `import { expectTypeOf, test } from 'vitest';\nimport { total } from '../src/cart';\n\ntest('total returns a number', () => {\n  expectTypeOf(total).returns.toEqualTypeOf<${t}>();\n});\n`;

/**
 * A small Vitest project with type tests. `node_modules`: ours linked in; with `ownVitest`, a folder
 * of links to ours but for a copy of the vitest package, whose files the test may edit.
 */
function project(ownVitest = false): { dir: string; put(rel: string, text: string): void; cleanup(): void } {
  const t = tempTree(
    {
      'package.json': '{ "name": "pre-started", "private": true, "type": "module" }\n',
      // Vitest's typecheck runs tsc on this project: the type tests must be in it.
      'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'esnext', moduleResolution: 'bundler', strict: true, noEmit: true, skipLibCheck: true, types: [] }, include: ['src/**/*.ts', 'test/**/*.ts'] }),
      'vitest.config.ts': "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.ts'], typecheck: { include: ['test/**/*.test-d.ts'] } } });\n",
      'src/cart.ts': 'export interface Line {\n  price: number;\n  quantity: number;\n}\n\nexport function total(lines: Line[]): number {\n  return lines.reduce((acc, l) => acc + l.price * l.quantity, 0);\n}\n',
      'test/t0.test.ts': TEST(0),
      'test/t1.test.ts': TEST(1),
      'test/cart.test-d.ts': TYPE_TEST('number'),
    },
    'fug-prestart-',
  );
  const nm = path.join(t.dir, 'node_modules');
  if (!ownVitest) {
    symlinkSync(path.join(REPO, 'node_modules'), nm, 'dir');
  } else {
    mkdirSync(path.join(nm, '.bin'), { recursive: true });
    for (const name of readdirSync(path.join(REPO, 'node_modules'))) {
      if (name !== 'vitest' && name !== '.bin') symlinkSync(path.join(REPO, 'node_modules', name), path.join(nm, name));
    }
    cpSync(path.join(REPO, 'node_modules', 'vitest'), path.join(nm, 'vitest'), { recursive: true });
    symlinkSync('../vitest/vitest.mjs', path.join(nm, '.bin', 'vitest'));
  }
  return { dir: t.dir, put: (rel, text) => writeFileSync(path.join(t.dir, rel), text), cleanup: t.cleanup };
}

describe('pre-started Vitest: where it is used and where the command runs cold', function () {
  this.timeout(180000);
  let p: ReturnType<typeof project>;
  let runners: PreStartedRunners;
  let log: ReturnType<typeof readyLogger>;
  const records = (): string => `${p.dir}-records`;
  const opts = (extra: { timeoutMs?: number; signal?: AbortSignal; env?: Record<string, string> } = {}) => ({ cwd: p.dir, env: extra.env ?? checkEnv(p.dir), timeoutMs: extra.timeoutMs ?? 120000, outputLimitBytes: LIMIT, killGraceMs: 500, ...(extra.signal ? { signal: extra.signal } : {}) });
  const cold = () => runCommand({ command: ARGV.join(' '), argv: ARGV, ...opts() });

  function start(ownVitest = false): void {
    p = project(ownVitest);
    log = readyLogger();
    runners = new PreStartedRunners({ logger: log.logger, recordDir: records() });
  }
  async function primed(): Promise<void> {
    runners.prime('test', 'vitest', ARGV, p.dir, checkEnv(p.dir));
    await log.ready();
  }

  afterEach(async () => {
    await runners.release();
    assert.deepEqual(liveRecorded(records()), [], 'nothing of a pre-started process left');
    p.cleanup();
    rmSync(records(), { recursive: true, force: true });
  });

  it('edits to a test and a source between prime and run are seen (the CLI reads them after go); the config, read at prime, sends the command cold', async () => {
    start();
    await primed();
    p.put('test/t1.test.ts', TEST(1, 5));
    p.put('src/cart.ts', readFileSync(path.join(p.dir, 'src/cart.ts'), 'utf8').replace('l.price * l.quantity', 'l.price * l.quantity + 0'));
    const w = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(w && 'r' in w, `pre-started: ${w && 'fallback' in w ? w.fallback : 'none'}`);
    assert.equal(w.r.exitCode, 1);
    assert.match(w.r.output, /expected 4 to be 5/);
    assert.deepEqual(stableVitestOutput(w.r.output), stableVitestOutput((await cold()).output));
    // The config, which the held process loaded at prime: only t0 included now; it runs cold.
    await primed();
    p.put('vitest.config.ts', "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/t0.test.ts'], typecheck: { include: ['test/**/*.test-d.ts'] } } });\n");
    const c = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(c && 'fallback' in c);
    assert.match(c.fallback, /vitest\.config\.ts, which it read while preparing the run, changed/);
    const command = await cold();
    assert.equal(command.exitCode, 0);
    assert.doesNotMatch(command.output, /t1\.test/);
  });

  it('single use: after its run it is gone; the next run of the check runs cold', async () => {
    start();
    await primed();
    const w = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(w && 'r' in w);
    assert.deepEqual(w.r.strays, []);
    assert.equal(await runners.run('test', 'vitest', ARGV, opts()), undefined);
  });

  it('a file it loaded changed since it loaded it: not used, the command runs cold and prints what the changed file prints', async () => {
    start(true);
    await primed();
    // A chunk both `vitest/node` and the CLI load (its argument parser); the line is printed by the
    // command's own process only (not by its workers).
    const chunks = path.join(p.dir, 'node_modules', 'vitest', 'dist', 'chunks');
    const file = path.join(chunks, readdirSync(chunks).find((n) => /^cac\..*\.js$/.test(n))!);
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nif (/vitest$/.test(process.argv[1] ?? '')) console.log('vitest/node as edited');\n`);
    const w = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(w);
    // What the check gets: the pre-started run, or (as the verifier does on a fallback) the command's.
    const got = 'r' in w ? w.r : await cold();
    assert.match(got.output, /vitest\/node as edited/, 'the edited module ran');
    assert.ok('fallback' in w);
    assert.match(w.fallback, /cac\.[\w-]+\.js, which it loaded, changed/);
  });

  it('a package installed since where a fresh process resolves it first (a nested node_modules): not used, the command runs cold', async () => {
    start(true);
    await primed();
    // Vitest imports tinyrainbow; a copy nested under vitest's own folder is the one a fresh process loads.
    const nested = path.join(p.dir, 'node_modules', 'vitest', 'node_modules', 'tinyrainbow');
    cpSync(path.join(REPO, 'node_modules', 'tinyrainbow'), nested, { recursive: true });
    // Its colours mark what they colour: the reporter's lines show which copy the reporter uses.
    const file = path.join(nested, 'dist', 'node.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace('var u = o(r);', "var u = Object.fromEntries(Object.entries(o(r)).map(([k, f]) => [k, typeof f === 'function' ? (...a) => '«' + f(...a) : f]));"));
    const w = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(w);
    // What the check gets (on a fallback the verifier runs the command) is what the command prints.
    const got = 'r' in w ? w.r : await cold();
    const command = await cold();
    assert.match(command.output, /«/, 'the command loads the nested copy');
    assert.deepEqual(stableVitestOutput(got.output), stableVitestOutput(command.output));
    assert.ok('fallback' in w);
    assert.match(w.fallback, /the entries of .*node_modules[\\/]vitest changed/);
  });

  it("another environment, cwd or bin than it was started with: the command runs cold and the process is killed", async () => {
    start();
    await primed();
    const w = await runners.run('test', 'vitest', ARGV, opts({ env: { ...checkEnv(p.dir), NO_COLOR: '1' } }));
    assert.ok(w && 'fallback' in w);
    assert.match(w.fallback, /environment differs/);
    await runners.release();
    assert.deepEqual(liveRecorded(records()), []);
  });

  it('not ready yet when the check runs: cold at once (never slower), and the process killed', async () => {
    start();
    runners.prime('test', 'vitest', ARGV, p.dir, checkEnv(p.dir));
    const w = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(w && 'fallback' in w);
    assert.match(w.fallback, /had not loaded the runner yet/);
  });

  it('another command of the check (its whole chain, a shell line) runs cold and leaves the process for its own command', async () => {
    start();
    await primed();
    const other = await runners.run('test', 'vitest', ['npx', 'vitest', 'run'], opts());
    assert.ok(other && 'fallback' in other);
    assert.match(other.fallback, /not a plain vitest call/);
    const w = await runners.run('test', 'vitest', ARGV, opts());
    assert.ok(w && 'r' in w, 'still there for the command');
  });

  it('timeout: the whole process group (the forks, tsc) is killed', async () => {
    start();
    p.put('test/t0.test.ts', "import { test } from 'vitest';\ntest('hangs', async () => { await new Promise(() => undefined); }, 600000);\n");
    await primed();
    let during = 0;
    const look = setTimeout(() => (during = liveRecorded(records()).length), 3500);
    const w = await runners.run('test', 'vitest', ARGV, opts({ timeoutMs: 5000 }));
    clearTimeout(look);
    assert.ok(w && 'r' in w);
    assert.equal(w.r.timedOut, true);
    assert.ok(during >= 2, `the CLI and its fork(s) ran (${during} processes)`);
    assert.deepEqual(liveRecorded(records()), [], 'nothing left after the timeout');
  });

  it('cancel: the run reports cancelled and nothing of it is left', async () => {
    start();
    p.put('test/t0.test.ts', "import { test } from 'vitest';\ntest('hangs', async () => { await new Promise(() => undefined); }, 600000);\n");
    await primed();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 3000);
    const w = await runners.run('test', 'vitest', ARGV, opts({ signal: ac.signal }));
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

  it('the process exits by itself when its parent goes before the run (its control pipe closes)', async () => {
    start();
    const plan = preStartPlan('vitest', ARGV, p.dir, checkEnv(p.dir));
    assert.ok('bin' in plan);
    const child = spawn(plan.node, [programFile('preStartedRunner.mjs'), JSON.stringify({ preload: plan.preload })], { cwd: p.dir, env: checkEnv(p.dir), stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    const control = child.stdio[3] as Socket;
    const ready = await new Promise<string>((resolve) => control.once('data', (c: Buffer) => resolve(c.toString('utf8'))));
    assert.match(ready, /^\{"type":"ready"/);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    control.destroy();
    assert.equal(await exited, 0);
  });

  it('plans: a plain call of the package\'s own bin only', () => {
    start();
    const env = checkEnv(p.dir);
    const plan = preStartPlan('vitest', ARGV, p.dir, env);
    assert.ok('bin' in plan, JSON.stringify(plan));
    assert.equal(plan.bin, path.join(REPO, 'node_modules', 'vitest', 'vitest.mjs'));
    for (const argv of [['npx', 'vitest', 'run'], ['pnpm', 'exec', 'vitest'], ['node', 'node_modules/vitest/vitest.mjs', 'run']]) {
      assert.ok('fallback' in preStartPlan('vitest', argv, p.dir, env), argv.join(' '));
    }
    assert.ok('fallback' in preStartPlan('vitest', undefined, p.dir, env), 'a shell line');
    assert.ok('fallback' in preStartPlan('mocha', ['mocha'], p.dir, env), 'no runner for mocha');
    // A pnpm-style shell wrapper sets its own environment: not a link to the bin.
    mkdirSync(path.join(p.dir, 'bin'));
    writeFileSync(path.join(p.dir, 'bin', 'vitest'), `#!/bin/sh\nbasedir=$(dirname "$0")\nexport NODE_PATH="x"\nexec node "$basedir/../node_modules/vitest/vitest.mjs" "$@"\n`, { mode: 0o755 });
    const wrapped = preStartPlan('vitest', ['bin/vitest', 'run'], p.dir, env);
    assert.ok('fallback' in wrapped);
    assert.match(wrapped.fallback, /no link to the vitest package's bin/);
  });
});

describe('pre-started Vitest in the verifier: the verdict is the command\'s', function () {
  this.timeout(300000);

  const CHECK = { name: 'test', command: 'vitest run --typecheck', parser: 'vitest' as const };
  const variants: [string, (put: (rel: string, text: string) => void) => void][] = [
    ['passing', () => undefined],
    ['a failing test', (put) => put('test/t0.test.ts', TEST(0, 3))],
    ['a type test that does not type-check', (put) => put('test/cart.test-d.ts', TYPE_TEST('string'))],
    ['no test files', (put) => put('vitest.config.ts', "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['nothing/**/*.test.ts'], typecheck: { include: ['nothing/**/*.test-d.ts'] } } });\n")],
    ['a test file that does not parse', (put) => put('test/t1.test.ts', "import { test } from 'vitest';\ntest('broken', () => {\n")],
    // Worker threads beside the load hook the process registered (passive by then).
    [
      'a failing test in the threads pool',
      (put) => {
        put('test/t0.test.ts', TEST(0, 3));
        put('vitest.config.ts', "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { pool: 'threads', include: ['test/**/*.test.ts'], typecheck: { include: ['test/**/*.test-d.ts'] } } });\n");
      },
    ],
  ];

  for (const [name, edit] of variants) {
    it(`${name}: same failures, identity, green and exit code as with staged checks off`, async () => {
      const p = project();
      edit(p.put);
      const storage = `${p.dir}-storage`;
      const log = readyLogger();
      const staged = new Verifier({ root: p.dir, checks: [CHECK], parallel: false, outputLimitKb: 256, staged: true, storageDir: storage, logger: log.logger });
      const plain = new Verifier({ root: p.dir, checks: [CHECK], parallel: false, outputLimitKb: 256, staged: false });
      try {
        if (name === 'passing') {
          // A one-shot pass (never primed) starts none.
          const once = await staged.verify(undefined, { previous: null });
          assert.doesNotMatch(once.checks[0]!.stagedNote ?? '', /pre-started/);
          assert.deepEqual(liveRecorded(path.join(storage, 'processes')), []);
        }
        await staged.warm();
        await log.ready();
        const v = await staged.verify(undefined, { previous: null });
        const c = await plain.verify(undefined, { previous: null });
        assert.match(v.checks[0]!.stagedNote ?? '', /run in a pre-started process/, log.lines.join('\n'));
        assert.equal(v.green, c.green);
        assert.equal(v.checks[0]!.exitCode, c.checks[0]!.exitCode);
        assert.deepEqual(v.failures.map((f) => `${f.file}:${f.line}:${f.id}:${f.message}`), c.failures.map((f) => `${f.file}:${f.line}:${f.id}:${f.message}`));
        assert.equal(v.failureHash, c.failureHash);
        if (name === 'passing') assert.equal(v.green, true);
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

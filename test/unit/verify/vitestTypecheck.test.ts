// Vitest's typecheck answered by the warm type checker (src/core/verify/staged/vitestTypecheck.ts), on
// real Vitest and real tsc from our node_modules, on small projects written under the temp folder:
// - the verdict (the Vitest check's failures, exit code, the pass's failure hash) with the shim is
//   the verdict without it: green, a type test's expectTypeOf failure, a source's type error (Vitest's
//   source errors), an error edited in after the warm program was built; and the note says it was
//   answered warm (so a stale program, or a print that differs, fails these);
// - the shim prints byte for byte what tsc prints for Vitest's arguments, from Vitest's root or below
//   it, with tsc's exit status; the check and the typecheck asking at once get the same answer;
// - where it cannot answer exactly, tsc itself runs and the verdict is the same: another tsconfig
//   (`typecheck.tsconfig`), allowJs, no socket; and no flag where there is no tsc check, the config
//   names its own checker, or the command does.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CheckSpec, Logger, VerifyResult } from '../../../src/core/types';
import { checkEnv } from '../../../src/core/verify/runner';
import { programFile } from '../../../src/core/verify/staged/programFile';
import { typecheckLeftAlone, VitestTypecheck } from '../../../src/core/verify/staged/vitestTypecheck';
import { WarmTsc, warmTscPlan } from '../../../src/core/verify/staged/warmTsc';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';

const TEST = (i: number): string => `import { expect, test } from 'vitest';\nimport { total } from '../src/cart';\n\ntest('total ${i}', () => {\n  expect(total([{ price: ${i + 1}, quantity: 2 }])).toBe(${(i + 1) * 2});\n});\n`;
const TYPE_TEST = (t: string): string => `import { expectTypeOf, test } from 'vitest';\nimport { total } from '../src/cart';\n\ntest('total returns a number', () => {\n  expectTypeOf(total).returns.toEqualTypeOf<${t}>();\n});\n`;
const CART = 'export interface Line {\n  price: number;\n  quantity: number;\n}\n\nexport function total(lines: Line[]): number {\n  return lines.reduce((acc, l) => acc + l.price * l.quantity, 0);\n}\n';
const CONFIG = (typecheck = ''): string => `import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.ts'], typecheck: { include: ['test/**/*.test-d.ts']${typecheck} } } });\n`;
const TSCONFIG = { compilerOptions: { target: 'ES2022', module: 'esnext', moduleResolution: 'bundler', strict: true, noEmit: true, skipLibCheck: true, types: [] }, include: ['src/**/*.ts', 'test/**/*.ts'] };

function project(): { dir: string; put(rel: string, text: string): void; cleanup(): void } {
  const t = tempTree(
    {
      'package.json': '{ "name": "warm-typecheck", "private": true, "type": "module" }\n',
      'tsconfig.json': JSON.stringify(TSCONFIG),
      'vitest.config.ts': CONFIG(),
      'src/cart.ts': CART,
      'test/t0.test.ts': TEST(0),
      'test/t1.test.ts': TEST(1),
      'test/cart.test-d.ts': TYPE_TEST('number'),
    },
    'fug-vtc-',
  );
  symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
  return { dir: t.dir, put: (rel, text) => writeFileSync(path.join(t.dir, rel), text), cleanup: t.cleanup };
}

function logger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const note = (m: string): void => void lines.push(m);
  return { logger: { debug: note, info: note, warn: note, error: note } as Logger, lines };
}

const TSC: CheckSpec = { name: 'typecheck', command: 'tsc -p tsconfig.json', parser: 'tsc' };
const VITEST: CheckSpec = { name: 'test', command: 'vitest run --typecheck', parser: 'vitest' };

/** What the verdict is made of, for the Vitest check: its failures, exit code, and the pass's identity. */
function verdict(v: VerifyResult): { failures: string[]; exitCode: number | null; hash: string; green: boolean } {
  const c = v.checks.find((x) => x.name === 'test')!;
  // An `exit` failure carries the output's end: its timings and the order files finished in differ between any two runs.
  const message = (m: string): string => m.split('\n').filter((l) => !/Start at|Duration/.test(l)).map((l) => l.replace(/\d+ms/g, 'Nms')).sort().join('\n');
  return { failures: c.failures.map((f) => `${f.file}:${f.line}:${f.id}:${message(f.message)}`).sort(), exitCode: c.exitCode, hash: v.failureHash, green: v.green };
}

/**
 * The pass with the shim (staged checks on, primed: the warm tsc program built) and without it
 * (staged checks off), on the same tree; `between` runs after the prime, before the pass.
 */
async function both(p: ReturnType<typeof project>, checks: CheckSpec[], between?: () => void): Promise<{ shim: VerifyResult; plain: VerifyResult; note: string; log: string[] }> {
  const storage = `${p.dir}-storage`;
  const log = logger();
  const staged = new Verifier({ root: p.dir, checks, parallel: true, outputLimitKb: 256, staged: true, storageDir: storage, logger: log.logger });
  const plain = new Verifier({ root: p.dir, checks, parallel: false, outputLimitKb: 256, staged: false });
  try {
    await staged.warm();
    between?.();
    const shim = await staged.verify(undefined, { previous: null });
    const c = await plain.verify(undefined, { previous: null });
    return { shim, plain: c, note: shim.checks.find((x) => x.name === 'test')!.stagedNote ?? '', log: log.lines };
  } finally {
    await staged.release();
    rmSync(storage, { recursive: true, force: true });
  }
}

const ANSWERED = /Vitest's typecheck answered by typecheck's warm type checker/;

describe('Vitest typecheck answered by the warm type checker: the verdict is the same', function () {
  this.timeout(240000);
  let p: ReturnType<typeof project>;
  afterEach(() => p.cleanup());

  const answered: [string, (put: (rel: string, text: string) => void) => void, boolean][] = [
    ['green', () => undefined, true],
    ['an expectTypeOf failure in a *.test-d.ts', (put) => put('test/cart.test-d.ts', TYPE_TEST('string')), false],
    ['a type error in a source file (Vitest\'s source errors)', (put) => put('src/cart.ts', `${CART}export const wrong: number = 'x';\n`), false],
  ];
  for (const [name, edit, green] of answered) {
    it(`${name}: answered warm, the same failures, exit code and failure hash as tsc's own run`, async () => {
      p = project();
      edit(p.put);
      const r = await both(p, [TSC, VITEST]);
      assert.match(r.note, ANSWERED, r.log.join('\n'));
      assert.deepEqual(verdict(r.shim), verdict(r.plain));
      assert.equal(r.shim.green, green);
      if (!green) assert.ok(r.shim.checks.find((c) => c.name === 'test')!.failures.length > 0);
    });
  }

  it('an edit after the warm program was built: the type error it brings is seen (the program is re-read)', async () => {
    p = project();
    const r = await both(p, [TSC, VITEST], () => p.put('test/cart.test-d.ts', TYPE_TEST('string')));
    assert.match(r.note, ANSWERED, r.log.join('\n'));
    assert.equal(r.shim.green, false);
    assert.deepEqual(verdict(r.shim), verdict(r.plain));
    assert.ok(verdict(r.shim).failures.some((f) => f.startsWith('test/cart.test-d.ts:')), verdict(r.shim).failures.join('\n'));
  });

  it('another tsconfig for the typecheck (typecheck.tsconfig): tsc itself runs, saying why; the same verdict', async () => {
    p = project();
    p.put('tsconfig.vitest.json', JSON.stringify({ ...TSCONFIG, compilerOptions: { ...TSCONFIG.compilerOptions, noUnusedLocals: true } }));
    p.put('test/cart.test-d.ts', `${TYPE_TEST('number')}function unused(): void {}\n`);
    p.put('vitest.config.ts', CONFIG(", tsconfig: 'tsconfig.vitest.json'"));
    const r = await both(p, [TSC, VITEST]);
    assert.match(r.note, /Vitest's typecheck ran tsc itself \(typecheck: it reads .*tsconfig\.vitest\.json/, r.log.join('\n'));
    assert.deepEqual(verdict(r.shim), verdict(r.plain));
    // The unused function fails only under that config: tsc really ran on it.
    assert.equal(r.shim.green, false);
  });

  it('allowJs: the shim does not know the arguments, tsc itself runs; the same verdict', async () => {
    p = project();
    p.put('vitest.config.ts', CONFIG(', allowJs: true'));
    p.put('test/cart.test-d.ts', TYPE_TEST('string'));
    const r = await both(p, [TSC, VITEST]);
    assert.doesNotMatch(r.note, ANSWERED);
    assert.deepEqual(verdict(r.shim), verdict(r.plain));
    assert.equal(r.shim.green, false);
  });

  it('no tsc check in the project: the command is left as it is; the same verdict', async () => {
    p = project();
    p.put('test/cart.test-d.ts', TYPE_TEST('string'));
    const r = await both(p, [VITEST]);
    assert.doesNotMatch(r.note, /typecheck/);
    assert.ok(r.log.some((l) => /Vitest's typecheck runs tsc itself: no tsc check of the project is kept warm/.test(l)), r.log.join('\n'));
    assert.doesNotMatch(r.log.join('\n'), /--typecheck\.checker/);
    assert.deepEqual(verdict(r.shim), verdict(r.plain));
  });
});

describe('the tsc shim: what it prints and when it runs tsc itself', function () {
  this.timeout(120000);
  let p: ReturnType<typeof project>;
  let w: WarmTsc | undefined;
  let tc: VitestTypecheck | undefined;
  let scratch: string;
  beforeEach(() => {
    p = project();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fug-vtc-info-'));
  });
  afterEach(async () => {
    await tc?.release();
    await w?.stop();
    tc = undefined;
    w = undefined;
    p.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Vitest's arguments for tsc (3.2 and 4.0), with a fresh build info file each time. */
  let n = 0;
  const vitestArgs = (extra: string[] = []): string[] => ['--noEmit', '--pretty', 'false', '--incremental', '--tsBuildInfoFile', path.join(scratch, `${n++}.tsbuildinfo`), ...extra];
  // Not spawnSync: the shim asks this very process, which must go on serving.
  const run = (file: string, args: string[], cwd: string): Promise<{ stdout: string; status: number | null }> =>
    new Promise((resolve, reject) => {
      const c = spawn(file, args, { cwd, env: checkEnv(p.dir), stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      c.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      c.on('error', reject);
      c.on('close', (status) => resolve({ stdout, status }));
    });
  const tsc = (args: string[], cwd = p.dir) => run(path.join(REPO, 'node_modules', '.bin', 'tsc'), args, cwd);

  async function warm(): Promise<{ shim: string; lines: string[] }> {
    const env = checkEnv(p.dir);
    const plan = warmTscPlan(TSC.command, p.dir, env);
    assert.ok(!('fallback' in plan));
    const log = logger();
    const warmTsc = new WarmTsc({ cwd: p.dir, plan, logger: log.logger });
    w = warmTsc;
    assert.equal((await warmTsc.check(undefined, 60000, true)).kind, 'result');
    tc = new VitestTypecheck({ logger: log.logger, sources: () => [{ name: 'typecheck', timeoutMs: 60000, coldMs: () => undefined, warm: () => warmTsc }] });
    const a = await tc.argv('test', ['vitest', 'run', '--typecheck'], p.dir);
    assert.ok(a);
    const flag = a.argv.at(-1)!;
    assert.match(flag, /^--typecheck\.checker=/);
    return { shim: flag.slice('--typecheck.checker='.length), lines: log.lines };
  }

  it('prints byte for byte what tsc prints for Vitest\'s arguments, with its exit status, from the root and from below it; sees edits', async () => {
    p.put('src/cart.ts', `${CART}export const wrong: number = 'x';\n`);
    p.put('test/cart.test-d.ts', TYPE_TEST('string'));
    const { shim, lines } = await warm();
    const sub = path.join(p.dir, 'test');
    for (const [cwd, extra] of [[p.dir, []], [p.dir, ['-p', path.join(p.dir, 'tsconfig.json')]], [sub, ['-p', path.join(p.dir, 'tsconfig.json')]]] as const) {
      const ours = await run(shim, vitestArgs([...extra]), cwd);
      const theirs = await tsc(vitestArgs([...extra]), cwd);
      assert.match(ours.stdout, /error TS/);
      assert.equal(ours.stdout, theirs.stdout, `from ${cwd}`);
      assert.equal(ours.status, theirs.status);
    }
    assert.match((await run(shim, vitestArgs(['-p', path.join(p.dir, 'tsconfig.json')]), sub)).stdout, /^\.\.\/src\/cart\.ts\(/m);
    assert.equal(lines.filter((l) => /answered by typecheck's warm type checker/.test(l)).length, 4, lines.join('\n'));
    // An edit: seen at the next call.
    p.put('src/cart.ts', CART);
    p.put('test/cart.test-d.ts', TYPE_TEST('number'));
    const green = await run(shim, vitestArgs(), p.dir);
    assert.deepEqual(green, await tsc(vitestArgs()));
    assert.deepEqual(green, { stdout: '', status: 0 });
  });

  it('the check and the typecheck asking at once get the same diagnostics', async () => {
    await warm();
    p.put('test/cart.test-d.ts', TYPE_TEST('string'));
    const [a, b, c] = await Promise.all([w!.check(undefined, 60000), w!.checkAs({ cwd: p.dir, args: vitestArgs(), vars: {} }, 60000), w!.check(undefined, 60000)]);
    assert.ok(a.kind === 'result' && b.kind === 'result' && c.kind === 'result');
    assert.match(a.output, /cart\.test-d\.ts/);
    assert.equal(b.output, a.output);
    assert.equal(c.output, a.output);
  });

  it('another shape or no answer: tsc itself runs with the same arguments, printing and exiting as tsc does', async () => {
    p.put('test/cart.test-d.ts', TYPE_TEST('string'));
    const { shim, lines } = await warm();
    // allowJs (an argument shape it does not know) and another config: tsc's own output.
    assert.deepEqual(await run(shim, vitestArgs(['--allowJs', '--checkJs']), p.dir), await tsc(vitestArgs(['--allowJs', '--checkJs'])));
    p.put('tsconfig.other.json', JSON.stringify({ ...TSCONFIG, include: ['src/**/*.ts'] }));
    const other = vitestArgs(['-p', path.join(p.dir, 'tsconfig.other.json')]);
    const o = await run(shim, other, p.dir);
    assert.deepEqual(o, await tsc(vitestArgs(['-p', path.join(p.dir, 'tsconfig.other.json')])));
    assert.deepEqual(o, { stdout: '', status: 0 });
    assert.ok(lines.some((l) => /ran tsc itself \(typecheck: it reads .*tsconfig\.other\.json/.test(l)), lines.join('\n'));
    // Compiler options that differ from the warm program's (a strict flag off).
    p.put('tsconfig.json', JSON.stringify({ ...TSCONFIG, compilerOptions: { ...TSCONFIG.compilerOptions, strict: false } }));
    const loose = await run(shim, vitestArgs(), p.dir);
    assert.deepEqual(loose, await tsc(vitestArgs()));
    // No socket beside it (the run is over): tsc itself.
    const alone = path.join(scratch, 'alone');
    mkdirSync(alone);
    copyFileSync(programFile('vitestTscShim.cjs'), path.join(alone, 'c0.cjs'));
    assert.deepEqual(await run(path.join(alone, 'c0.cjs'), vitestArgs(), p.dir), await tsc(vitestArgs()));
  });

  it('leaves alone a command that names its own checker or root, a config that sets a checker or has projects, a Vitest run with no typecheck', () => {
    assert.equal(typecheckLeftAlone(['vitest', 'run', '--typecheck'], p.dir), undefined);
    assert.match(typecheckLeftAlone(['vitest', 'run', '--typecheck', '--typecheck.checker=vue-tsc'], p.dir) ?? '', /names its own typecheck checker/);
    assert.match(typecheckLeftAlone(['npm', 'test'], p.dir) ?? '', /not a plain vitest call/);
    p.put('vitest.config.ts', "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.ts'] } });\n");
    assert.match(typecheckLeftAlone(['vitest', 'run'], p.dir) ?? '', /no typecheck/);
    assert.match(typecheckLeftAlone(['vitest', 'run', '--typecheck', '--root', 'packages/a'], p.dir) ?? '', /its own root/);
    p.put('vitest.config.ts', "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { projects: ['packages/*'] } });\n");
    assert.match(typecheckLeftAlone(['vitest', 'run', '--typecheck'], p.dir) ?? '', /projects of their own/);
    p.put('vitest.config.ts', CONFIG());
    p.put('vitest.workspace.ts', "export default ['packages/*'];\n");
    assert.match(typecheckLeftAlone(['vitest', 'run', '--typecheck'], p.dir) ?? '', /projects of their own/);
    rmSync(path.join(p.dir, 'vitest.workspace.ts'));
    p.put('vitest.config.ts', CONFIG(", checker: 'vue-tsc'"));
    assert.match(typecheckLeftAlone(['vitest', 'run', '--typecheck'], p.dir) ?? '', /config names its own typecheck checker/);
    assert.equal(readFileSync(path.join(p.dir, 'vitest.config.ts'), 'utf8').includes('vue-tsc'), true);
  });
});

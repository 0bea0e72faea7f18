// The warm linter (src/core/verify/staged/warmEslint.ts) on real ESLint 9 and typescript-eslint from
// our node_modules, on small projects written under the temp folder: whatever changes between runs
// (a linted file, a new or deleted one, the config, a local plugin the config imports, a file the
// config reads, a non-linted .ts file a typed rule looks through), its answer is the cold command's,
// byte for byte. Where it cannot be warm it says why; a hung config is killed at the timeout; a
// cancel and a release leave no process behind. And a verifier with warm lint gives the same verdict
// and identity as one with staged checks off.
import assert from 'node:assert/strict';
import { rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../../src/core/types';
import { checkEnv, runCommand } from '../../../src/core/verify/runner';
import { warmEslintPlan, WarmLinters } from '../../../src/core/verify/staged/warmEslint';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';
import { liveRecorded as live } from '../../support/procs';

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const LIMIT = 256 * 1024;

/** A project of these files with our node_modules linked in. */
function project(files: Record<string, string>): { dir: string; put(rel: string, text: string): void; rm(rel: string): void; cleanup(): void } {
  const t = tempTree({ 'package.json': '{ "name": "warm-lint", "private": true, "type": "module" }\n', ...files }, 'fug-warmlint-');
  symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
  return {
    dir: t.dir,
    // A later mtime for certain: two writes within the clock's step must not look alike.
    put: (rel, text) => writeFileSync(path.join(t.dir, rel), text),
    rm: (rel) => unlinkSync(path.join(t.dir, rel)),
    cleanup: t.cleanup,
  };
}

const BASE_CONFIG = `export default [{ files: ['**/*.js'], languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { console: 'readonly' } }, rules: { 'no-unused-vars': 'error' } }];\n`;

describe('warm ESLint: the verdict is the cold command\'s', function () {
  this.timeout(120000);
  let p: ReturnType<typeof project>;
  let linters: WarmLinters;
  const records = (): string => path.join(p.dir, '..', `${path.basename(p.dir)}-records`);

  const opts = (timeoutMs = 60000, signal?: AbortSignal) => ({ cwd: p.dir, env: checkEnv(p.dir), timeoutMs, outputLimitBytes: LIMIT, stdoutLimitBytes: 16 * 1024 * 1024, ...(signal ? { signal } : {}) });

  async function warm(argv: string[]) {
    const w = await linters.run('lint', argv, opts());
    assert.ok(w && 'r' in w, `warm: ${w && 'fallback' in w ? w.fallback : 'not enabled'}`);
    return w.r;
  }
  /** The warm and the cold run of `argv` agree, byte for byte; the cold one is returned. */
  async function same(argv: string[]) {
    const w = await warm(argv);
    const c = await runCommand({ command: argv.join(' '), argv, cwd: p.dir, timeoutMs: 60000, outputLimitBytes: LIMIT, stdoutLimitBytes: 16 * 1024 * 1024, env: checkEnv(p.dir) });
    assert.equal(w.output, c.output);
    assert.equal(w.stdout, c.stdout);
    assert.equal(w.exitCode, c.exitCode);
    return c;
  }
  const JSON_ALL = ['eslint', 'src', '--format', 'json'];
  const errors = (stdout: string | undefined): string[] => (JSON.parse(stdout ?? '[]') as { filePath: string; messages: { ruleId: string | null; line: number }[] }[]).flatMap((r) => r.messages.map((m) => `${path.basename(r.filePath)}:${m.line}:${m.ruleId}`)).sort();

  afterEach(async () => {
    await linters.release();
    assert.deepEqual(live(records()), [], 'no warm linter left after release');
    p.cleanup();
    rmSync(records(), { recursive: true, force: true });
  });

  function start(files: Record<string, string>): void {
    p = project(files);
    linters = new WarmLinters({ logger: quiet, recordDir: records() });
  }

  it('an edit to a linted file: the new error appears, then goes', async () => {
    start({ 'eslint.config.js': BASE_CONFIG, 'src/cart.js': 'export const total = 1;\n', 'src/price.js': 'export const price = 2;\n' });
    await linters.prime('lint', JSON_ALL, opts());
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), []);
    p.put('src/cart.js', 'const unused = 1;\nexport const total = 1;\n');
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), ['cart.js:1:no-unused-vars']);
    assert.deepEqual(errors((await same(['eslint', '--format', 'json', 'src/cart.js'])).stdout), ['cart.js:1:no-unused-vars'], 'a narrowed run');
    p.put('src/cart.js', 'export const total = 1;\n');
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), []);
  });

  it('a file created under the linted folder, then deleted', async () => {
    start({ 'eslint.config.js': BASE_CONFIG, 'src/cart.js': 'export const total = 1;\n' });
    await linters.prime('lint', JSON_ALL, opts());
    p.put('src/extra.js', 'const unused = 1;\n');
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), ['extra.js:1:no-unused-vars']);
    p.rm('src/extra.js');
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), []);
    // The plain (stylish) output too, where the file list is printed.
    p.put('src/other.js', 'const unused = 2;\n');
    assert.equal((await same(['eslint', 'src'])).exitCode, 1);
  });

  it('an edit to eslint.config.js turns a rule on', async () => {
    start({ 'eslint.config.js': BASE_CONFIG, 'src/cart.js': 'export const total = 1 == 1;\n' });
    await linters.prime('lint', JSON_ALL, opts());
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), []);
    p.put('eslint.config.js', BASE_CONFIG.replace("'no-unused-vars': 'error'", "'no-unused-vars': 'error', eqeqeq: 'error'"));
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), ['cart.js:1:eqeqeq']);
  });

  it('an edit to a local plugin the config imports (an ES module the loader keeps)', async () => {
    const rule = (word: string): string =>
      `export default { rules: { 'no-word': { meta: { type: 'problem', schema: [] }, create(context) { return { Identifier(node) { if (node.name === '${word}') context.report({ node, message: 'no ${word}' }); } }; } } } };\n`;
    start({
      'eslint.config.js': `import local from './rules/local.js';\nexport default [{ files: ['**/*.js'], plugins: { local }, rules: { 'local/no-word': 'error' } }];\n`,
      'rules/local.js': rule('foo'),
      'src/cart.js': 'export const bar = 1;\n',
    });
    await linters.prime('lint', JSON_ALL, opts());
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), []);
    p.put('rules/local.js', rule('bar'));
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), ['cart.js:1:local/no-word']);
  });

  it('an edit to a file the config reads with fs (its ignores)', async () => {
    start({
      'eslint.config.js': `import { readFileSync } from 'node:fs';\nconst ignores = JSON.parse(readFileSync(new URL('./ignores.json', import.meta.url), 'utf8'));\nexport default [{ ignores }, ${BASE_CONFIG.replace(/^export default \[/, '').replace(/\];\n$/, '')}];\n`,
      'ignores.json': '["src/legacy.js"]\n',
      'src/cart.js': 'export const total = 1;\n',
      'src/legacy.js': 'const unused = 1;\n',
    });
    await linters.prime('lint', JSON_ALL, opts());
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), []);
    p.put('ignores.json', '[]\n');
    assert.deepEqual(errors((await same(JSON_ALL)).stdout), ['legacy.js:1:no-unused-vars']);
  });

  it('typed linting: an edit to an imported, non-linted .ts file changes a typed rule on the linted one', async () => {
    start({
      'eslint.config.js': `import parser from '@typescript-eslint/parser';\nimport plugin from '@typescript-eslint/eslint-plugin';\nexport default [{ files: ['src/**/*.ts'], languageOptions: { parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } }, plugins: { '@typescript-eslint': plugin }, rules: { '@typescript-eslint/no-floating-promises': 'error' } }];\n`,
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', noEmit: true }, include: ['src', 'lib'] }),
      'lib/dep.ts': 'export function work(): void {}\n',
      'src/main.ts': "import { work } from '../lib/dep';\nwork();\n",
    });
    const argv = ['eslint', 'src', '--format', 'json'];
    await linters.prime('lint', argv, opts());
    p.put('lib/dep.ts', 'export async function work(): Promise<void> {}\n');
    assert.deepEqual(errors((await same(argv)).stdout), ['main.ts:2:@typescript-eslint/no-floating-promises']);
  });

  it('typed linting (`project`, a single run as under CI): an edit to another linted .ts file is seen by the file that imports it, warm', async () => {
    start({
      'eslint.config.js': `import parser from '@typescript-eslint/parser';\nimport plugin from '@typescript-eslint/eslint-plugin';\nexport default [{ files: ['src/**/*.ts'], languageOptions: { parser, parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } }, plugins: { '@typescript-eslint': plugin }, rules: { '@typescript-eslint/no-floating-promises': 'error' } }];\n`,
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', noEmit: true }, include: ['src'] }),
      'src/dep.ts': 'export function work(): void {}\n',
      'src/main.ts': "import { work } from './dep';\nwork();\n",
    });
    const argv = ['eslint', 'src', '--format', 'json'];
    await linters.prime('lint', argv, opts());
    p.put('src/dep.ts', 'export async function work(): Promise<void> {}\n');
    assert.deepEqual(errors((await same(argv)).stdout), ['main.ts:2:@typescript-eslint/no-floating-promises']);
    // The narrowed run of the one file not edited sees the edit too.
    p.put('src/dep.ts', 'export function work(): void {}\n');
    assert.deepEqual(errors((await same(['eslint', '--format', 'json', 'src/main.ts'])).stdout), []);
    // Only linted files changed: the same process answered every run (it stays warm).
    const byCheck = (linters as unknown as { byCheck: Map<string, { restarts: number }> }).byCheck;
    assert.equal([...byCheck.values()][0]!.restarts, 0);
  });

  it('reuses the warm process while only the linted files change', async () => {
    start({ 'eslint.config.js': BASE_CONFIG, 'src/cart.js': 'export const total = 1;\n' });
    await linters.prime('lint', JSON_ALL, opts());
    const first = await warm(JSON_ALL);
    p.put('src/cart.js', 'const unused = 1;\nexport const total = 1;\n');
    const started = Date.now();
    const again = await warm(JSON_ALL);
    assert.notEqual(again.stdout, first.stdout);
    // Observable, not timed: the same process answered (no fresh one was started).
    const w = (linters as unknown as { byCheck: Map<string, { restarts: number }> }).byCheck;
    assert.equal([...w.values()][0]!.restarts, 0, `restarted (${Date.now() - started} ms)`);
  });

  it('with --cache: the cache file it writes itself does not count as a change, and the answer is the command\'s', async () => {
    start({ 'eslint.config.js': BASE_CONFIG, 'src/cart.js': 'export const total = 1;\n' });
    const argv = ['eslint', '--cache', '--cache-location', 'cache/', 'src', '--format', 'json'];
    await linters.prime('lint', argv, opts());
    await warm(argv);
    p.put('src/cart.js', 'const unused = 1;\nexport const total = 1;\n');
    const w = await warm(argv);
    const byCheck = (linters as unknown as { byCheck: Map<string, { restarts: number }> }).byCheck;
    assert.equal([...byCheck.values()][0]!.restarts, 0);
    assert.deepEqual(errors(w.stdout), ['cart.js:1:no-unused-vars']);
    const c = await runCommand({ command: argv.join(' '), argv, cwd: p.dir, timeoutMs: 60000, outputLimitBytes: LIMIT, env: checkEnv(p.dir) });
    assert.equal(w.output, c.output);
    assert.equal(w.exitCode, c.exitCode);
  });
});

describe('warm ESLint: where it is not used, timeouts, cancel, release', function () {
  this.timeout(120000);
  let p: ReturnType<typeof project>;
  let linters: WarmLinters;
  let records: string;
  beforeEach(() => {
    p = project({ 'eslint.config.js': BASE_CONFIG, 'src/cart.js': 'export const total = 1;\n' });
    records = `${p.dir}-records`;
    linters = new WarmLinters({ logger: quiet, recordDir: records });
  });
  afterEach(async () => {
    await linters.release();
    assert.deepEqual(live(records), []);
    p.cleanup();
    rmSync(records, { recursive: true, force: true });
  });
  const opts = (timeoutMs = 60000, signal?: AbortSignal) => ({ cwd: p.dir, env: checkEnv(p.dir), timeoutMs, outputLimitBytes: LIMIT, ...(signal ? { signal } : {}) });

  it('falls back, saying why, for --fix, a wrapper, --print-config, and another package\'s eslint', () => {
    const env = checkEnv(p.dir);
    assert.match((warmEslintPlan(['eslint', 'src', '--fix'], p.dir, env) as { fallback: string }).fallback, /--fix is run as the command/);
    assert.match((warmEslintPlan(['eslint', '--print-config', 'x.js'], p.dir, env) as { fallback: string }).fallback, /--print-config/);
    assert.match((warmEslintPlan(['node', 'lint.js'], p.dir, env) as { fallback: string }).fallback, /not an eslint call behind launchers only/);
    assert.match((warmEslintPlan(['npm', 'run', 'lint'], p.dir, env) as { fallback: string }).fallback, /not an eslint call behind launchers only/);
    assert.match((warmEslintPlan(['/usr/local/bin/eslint', 'src'], p.dir, env) as { fallback: string }).fallback, /not the workspace's eslint package/);
    const ok = warmEslintPlan(['npx', 'eslint', 'src'], p.dir, env);
    assert.ok('args' in ok && ok.args.join(' ') === 'src' && ok.cli.endsWith(path.join('eslint', 'lib', 'cli.js')));
  });

  it('is not used before it is primed (a one-shot pass), nor for a fallback command', async () => {
    assert.equal(await linters.run('lint', ['eslint', 'src'], opts()), undefined);
    await linters.prime('lint', ['eslint', 'src'], opts());
    const fix = await linters.run('lint', ['eslint', 'src', '--fix'], opts());
    assert.ok(fix && 'fallback' in fix);
  });

  it('a hung config: the run times out and the child is killed', async () => {
    await linters.prime('lint', ['eslint', 'src'], opts());
    p.put('eslint.config.js', `while (true) {}\n${BASE_CONFIG}`);
    const w = await linters.run('lint', ['eslint', 'src'], opts(3000));
    assert.ok(w && 'r' in w);
    assert.equal(w.r.timedOut, true);
    assert.deepEqual(live(records), [], 'the hung child is gone');
  });

  it('cancel: the run reports cancelled and the child is gone', async () => {
    await linters.prime('lint', ['eslint', 'src'], opts());
    p.put('eslint.config.js', `await new Promise((r) => setTimeout(r, 60000));\n${BASE_CONFIG}`);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 1500);
    const w = await linters.run('lint', ['eslint', 'src'], opts(60000, ac.signal));
    assert.ok(w && 'r' in w);
    assert.equal(w.r.cancelled, true);
    assert.deepEqual(live(records), []);
  });

  it('a process warning (which a fresh process prints again, with its own pid): it falls back for good', async () => {
    p.put('eslint.config.js', `process.emitWarning('from the config');\n${BASE_CONFIG}`);
    await linters.prime('lint', ['eslint', 'src'], opts());
    const w = await linters.run('lint', ['eslint', 'src'], opts());
    assert.ok(w && 'fallback' in w);
    assert.match(w.fallback, /from the config/);
    assert.deepEqual(live(records), []);
  });

  it('a child that died between runs: that run falls back, the next one is warm in a fresh child', async () => {
    await linters.prime('lint', ['eslint', 'src'], opts());
    const w = [...(linters as unknown as { byCheck: Map<string, { pid: number | undefined }> }).byCheck.values()][0]!;
    process.kill(w.pid!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const dead = await linters.run('lint', ['eslint', 'src'], opts());
    assert.ok(dead && 'fallback' in dead);
    assert.match(dead.fallback, /exited/);
    const again = await linters.run('lint', ['eslint', 'src'], opts());
    assert.ok(again && 'r' in again && again.r.exitCode === 0);
  });

  it('a config that throws: the run falls back (the command prints ESLint\'s own crash text)', async () => {
    await linters.prime('lint', ['eslint', 'src'], opts());
    assert.ok(live(records).length > 0, 'a warm linter runs after priming');
    p.put('eslint.config.js', `throw new Error('bad config');\n`);
    const w = await linters.run('lint', ['eslint', 'src'], opts());
    assert.ok(w && 'fallback' in w, 'no invented crash text');
    assert.match(w.fallback, /bad config/);
  });
});

describe('warm ESLint in the verifier', function () {
  this.timeout(180000);

  it('a staged pass and its gate give the same verdict and identity with warm lint as with staged checks off', async () => {
    const p = project({ 'eslint.config.js': BASE_CONFIG, 'src/cart.js': 'const unused = 1;\nexport const total = 1;\n', 'src/price.js': 'export const price = 2;\n' });
    const storage = `${p.dir}-storage`;
    const LINT = { name: 'lint', command: 'eslint src --format json' };
    const staged = new Verifier({ root: p.dir, checks: [LINT], parallel: false, outputLimitKb: 256, staged: true, storageDir: storage });
    const plain = (): Verifier => new Verifier({ root: p.dir, checks: [LINT], parallel: false, outputLimitKb: 256, staged: false });
    try {
      const v0 = await staged.verify(undefined, { previous: null });
      assert.deepEqual(live(path.join(storage, 'processes')), [], 'a pass that was not primed (a one-shot check) starts no warm linter');
      assert.doesNotMatch(v0.checks[0]!.stagedNote ?? '', /warm linter/);
      await staged.warm();
      const c0 = await plain().verify();
      assert.equal(v0.failureHash, c0.failureHash);
      // A step that fixes the failure: staged (narrowed, warm), then the gate (full, warm).
      p.put('src/cart.js', 'export const total = 1;\n');
      const v1 = await staged.verify(undefined, { previous: v0, changed: ['src/cart.js'] });
      const c1 = await plain().verify();
      assert.equal(v1.green, true);
      assert.equal(v1.green, c1.green);
      assert.equal(v1.failureHash, c1.failureHash);
      assert.match(v1.checks[0]!.stagedNote ?? '', /answered by the warm linter/);
      // A step that breaks another file: the narrowed run fails warm; the verdict is the command's.
      p.put('src/price.js', 'const unused = 3;\nexport const price = 2;\n');
      const v2 = await staged.verify(undefined, { previous: v1, changed: ['src/price.js'] });
      const c2 = await plain().verify();
      assert.equal(v2.checks[0]!.mode, 'targeted');
      assert.match(v2.checks[0]!.stagedNote ?? '', /answered by the warm linter/);
      assert.equal(v2.green, c2.green);
      assert.deepEqual(v2.failures.map((f) => `${f.file}:${f.line}:${f.id}:${f.message}`), c2.failures.map((f) => `${f.file}:${f.line}:${f.id}:${f.message}`));
      assert.equal(v2.failureHash, c2.failureHash);
    } finally {
      await staged.release();
      assert.deepEqual(live(path.join(storage, 'processes')), []);
      p.cleanup();
      rmSync(storage, { recursive: true, force: true });
    }
  });
});

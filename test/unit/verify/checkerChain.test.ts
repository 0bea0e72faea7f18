// A chain of static checkers run part by part (src/core/verify/checkerChain), on real ESLint 9 and
// Prettier 3 from our node_modules: in every state (all pass, the lint fails so the format check
// never runs, the format check fails, ESLint's own exit 2, scripts that call scripts) the output and the exit code are `npm run lint --silent`'s, byte for byte; a part
// that cannot start or is ended by a signal (where the shell adds words of its own), and every shape
// it cannot run exactly, runs through npm as written; a hung part
// is stopped at the check's timeout with nothing left behind. In the verifier, a later pass answers
// the ESLint part from its warm linter with the verdict and identity of a cold pass.
import assert from 'node:assert/strict';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { checkerChain } from '../../../src/core/verify/checkerChain/plan';
import type { PartRunners } from '../../../src/core/verify/checkerChain/run';
import { runInParts } from '../../../src/core/verify/checkerChain/run';
import type { RunCommandResult } from '../../../src/core/verify/runner';
import { checkEnv, runCommand } from '../../../src/core/verify/runner';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';
import { liveRecorded as live } from '../../support/procs';
import { assertSameVerdict } from '../../support/sameVerdict';

const CONFIG = `export default [{ files: ['**/*.js'], languageOptions: { ecmaVersion: 2022, sourceType: 'module' }, rules: { 'no-unused-vars': 'error' } }];\n`;
const SCRIPTS = {
  lint: 'eslint src && prettier --check src',
  'lint:nested': 'npm run lint:js && npm run lint:format --silent',
  'lint:js': 'eslint src',
  'lint:format': 'prettier --check src',
  'lint:missing': 'eslint src && ./bin/prettier --check src',
};

function project(scripts: Record<string, string> = SCRIPTS, extra: Record<string, string> = {}) {
  const t = tempTree({ 'package.json': JSON.stringify({ name: 'chain', private: true, type: 'module', scripts }), 'eslint.config.js': CONFIG, 'src/cart.js': 'export const total = 1;\n', 'src/price.js': 'export const price = 2;\n', ...extra }, 'fug-chain-');
  symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
  return { dir: t.dir, put: (rel: string, text: string) => writeFileSync(path.join(t.dir, rel), text), cleanup: t.cleanup };
}

const LIMIT = 256 * 1024;
const options = (dir: string, command: string, timeoutMs = 60000) => ({ command, cwd: dir, timeoutMs, outputLimitBytes: LIMIT, env: checkEnv(dir) });
const cold: PartRunners = { warm: async () => undefined, cold: runCommand, debug: () => undefined };

/** The check's command run part by part and through npm: the same bytes and exit code; the part-by-part result is returned. */
async function sameAsNpm(dir: string, command: string): Promise<{ r: RunCommandResult; note: string }> {
  const parts = await runInParts('lint', 'prettier', options(dir, command), cold);
  assert.ok(parts, `${command} runs part by part`);
  const npm = await runCommand(options(dir, command));
  assert.equal(parts.r.output, npm.output);
  assert.equal(parts.r.exitCode, npm.exitCode);
  assert.equal(parts.r.timedOut, false);
  return parts;
}

describe('a chain of static checkers, part by part: the bytes and exit code of npm', function () {
  this.timeout(120000);
  let p: ReturnType<typeof project>;
  afterEach(() => p.cleanup());

  for (const command of ['npm run lint --silent', 'npm run lint:nested --silent']) {
    it(`${command}: passing, the lint failing (the format check never runs), the format check failing`, async () => {
      p = project();
      const green = await sameAsNpm(p.dir, command);
      assert.equal(green.r.exitCode, 0);
      assert.match(green.note, /`eslint src`, then `prettier --check src`/);
      p.put('src/cart.js', 'const unused = 1;\nexport const total = 1;\n');
      const lint = await sameAsNpm(p.dir, command);
      assert.equal(lint.r.exitCode, 1);
      assert.match(lint.r.output, /no-unused-vars/);
      assert.doesNotMatch(lint.r.output, /prettier|Checking formatting/i, '`&&` stops at the failing part');
      assert.match(lint.note, /stopped there \(exit 1\)/);
      p.put('src/cart.js', 'export   const total = 1\n');
      const format = await sameAsNpm(p.dir, command);
      assert.equal(format.r.exitCode, 1);
      assert.match(format.r.output, /\[warn\] src\/cart\.js/);
    });
  }

  it("ESLint's own exit 2 (a rule that does not exist)", async () => {
    p = project();
    p.put('eslint.config.js', `export default [{ rules: { 'no-such-rule': 'error' } }];\n`);
    assert.equal((await sameAsNpm(p.dir, 'npm run lint --silent')).r.exitCode, 2);
  });

  it('a part that cannot start, or is ended by a signal: the command runs as written (its shell says what is missing, or "Terminated")', async () => {
    p = project();
    const lines: string[] = [];
    const debug = { ...cold, debug: (l: string) => lines.push(l) };
    assert.equal(await runInParts('lint', 'prettier', options(p.dir, 'npm run lint:missing --silent'), debug), undefined);
    assert.match(lines.join('\n'), /`\.\/bin\/prettier --check src` could not start/);
    p.put('eslint.config.js', `process.kill(process.pid, 'SIGTERM');\nexport default [];\n`);
    assert.equal(await runInParts('lint', 'prettier', options(p.dir, 'npm run lint --silent'), debug), undefined);
    assert.match(lines.join('\n'), /`eslint src` was ended by SIGTERM/);
    assert.match((await runCommand(options(p.dir, 'npm run lint --silent'))).output, /Terminated/, 'what the shell adds, which a run part by part could not know');
  });

  it('a hung part is stopped at what is left of the timeout: the next part never runs, nothing is left behind', async () => {
    p = project();
    p.put('eslint.config.js', `setInterval(() => undefined, 1000);\nawait new Promise(() => undefined);\nexport default [];\n`);
    const records = `${p.dir}-records`;
    try {
      const r = await runInParts('lint', 'prettier', { ...options(p.dir, 'npm run lint --silent', 3000), recordDir: records }, cold);
      assert.ok(r);
      assert.equal(r.r.timedOut, true);
      assert.equal(r.r.exitCode, null);
      assert.doesNotMatch(r.note, /prettier/);
      assert.deepEqual(live(records), []);
    } finally {
      rmSync(records, { recursive: true, force: true });
    }
  });
});

describe('which commands run part by part', () => {
  const p = project({ ...SCRIPTS, prelinthooked: 'true', linthooked: 'eslint src && prettier --check src', glob: 'eslint src && prettier --check src/*.js', quoted: 'eslint src && prettier --check "src"', or: 'eslint src || prettier --check src', other: 'eslint src && node check.js', one: 'eslint src', pnpm: 'eslint src && pnpm lint:js', postlint2: 'true', lint2: 'eslint src && prettier -c src' });
  after(() => p.cleanup());
  const reason = (command: string, parser: Parameters<typeof checkerChain>[2] = 'prettier'): string => {
    const c = checkerChain(command, p.dir, parser);
    return 'reason' in c ? c.reason : c.parts.map((x) => x.line).join(' | ');
  };

  it('npm run … --silent of a chain of checkers, scripts called through npm followed, and a chain given as the command', () => {
    assert.equal(reason('npm run lint --silent'), 'eslint src | prettier --check src');
    assert.equal(reason('npm run lint:nested -s'), 'eslint src | prettier --check src');
    assert.equal(reason('eslint src && npx prettier --check src'), 'eslint src | npx prettier --check src');
  });

  it('not where npm prints lines of its own, runs a hook, or a shell would change the line; not for other tools or checks', () => {
    assert.match(reason('npm run lint'), /no `npm run <script> --silent`/);
    assert.match(reason('pnpm run lint --silent'), /no `npm run <script> --silent`/);
    assert.match(reason('npm run linthooked --silent'), /scripts\.prelinthooked/);
    assert.match(reason('npm run lint2 --silent'), /scripts\.postlint2/);
    assert.match(reason('npm run glob --silent'), /needs a shell/);
    assert.match(reason('npm run quoted --silent'), /needs a shell/);
    assert.match(reason('npm run or --silent'), /needs a shell for more than `&&`/);
    assert.match(reason('npm run other --silent'), /`node check\.js` runs no static checker/);
    assert.match(reason('npm run pnpm --silent'), /`pnpm lint:js` runs no static checker/);
    assert.match(reason('npm run one --silent'), /no chain/);
    assert.match(reason('npm run lint --silent', 'vitest'), /no chain of static checkers/);
  });

  it("not where npm's settings change how it runs a script (`node-options` sets NODE_OPTIONS for it, `script-shell`)", () => {
    writeFileSync(path.join(p.dir, '.npmrc'), 'fund=false\nnode-options=--max-old-space-size=4096\n');
    try {
      assert.match(reason('npm run lint --silent'), /\.npmrc sets node-options/);
    } finally {
      rmSync(path.join(p.dir, '.npmrc'));
    }
    process.env.npm_config_script_shell = '/bin/bash';
    try {
      assert.match(reason('npm run lint --silent'), /npm_config_script_shell is set/);
    } finally {
      delete process.env.npm_config_script_shell;
    }
    assert.equal(reason('npm run lint --silent'), 'eslint src | prettier --check src');
  });
});

describe('a chain of checkers in the verifier', function () {
  this.timeout(180000);

  it('a later pass answers its ESLint part warm, with the verdict and identity of a cold pass', async () => {
    const p = project();
    const storage = `${p.dir}-storage`;
    const LINT = { name: 'lint', command: 'npm run lint --silent' };
    const staged = new Verifier({ root: p.dir, checks: [LINT], parallel: false, outputLimitKb: 256, staged: true, storageDir: storage });
    const plain = (): Verifier => new Verifier({ root: p.dir, checks: [LINT], parallel: false, outputLimitKb: 256, staged: false });
    try {
      p.put('src/cart.js', 'const unused = 1;\nexport const total = 1;\n');
      const v0 = await staged.verify(undefined, { previous: null });
      assertSameVerdict(v0, await plain().verify());
      assert.equal(v0.green, false);
      await staged.warm();
      // Fixed: the gate's full run, the ESLint part warm, then Prettier.
      p.put('src/cart.js', 'export const total = 1;\n');
      const v1 = await staged.verify(undefined, { previous: v0, changed: ['src/cart.js'] });
      assertSameVerdict(v1, await plain().verify());
      assert.equal(v1.green, true);
      assert.match(v1.checks[0]!.stagedNote ?? '', /`eslint src` \(answered by the warm linter.*\), then `prettier --check src`/);
      // Unformatted: the warm lint passes and the format check fails, as in a cold pass.
      p.put('src/price.js', 'export   const price = 2\n');
      const v2 = await staged.verify(undefined, { previous: v1, changed: ['src/price.js'] });
      assertSameVerdict(v2, await plain().verify());
      assert.equal(v2.green, false);
      // The lint fails warm: the format check does not run, as `&&` stops.
      p.put('src/price.js', 'const unused = 3;\nexport const price = 2;\n');
      const v3 = await staged.verify(undefined, { previous: v2, changed: ['src/price.js'] });
      assertSameVerdict(v3, await plain().verify());
      assert.match(v3.checks[0]!.stagedNote ?? '', /answered by the warm linter.*stopped there \(exit 1\)/);
    } finally {
      await staged.release();
      assert.deepEqual(live(path.join(storage, 'processes')), []);
      p.cleanup();
      rmSync(storage, { recursive: true, force: true });
    }
  });
});

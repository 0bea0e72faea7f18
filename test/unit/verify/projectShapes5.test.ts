// Wrong verdicts found on real repositories (validation classes A, E, F, G, H), each on a small real
// project in the system's temp folder with the repo's own tools: a Yarn Plug'n'Play project (its
// scripts and tools run through its own yarn release), a format check under another name, a root
// whose type check fans out (no root-wide tsc), a fan-out behind a script alias to packages' `test:*`
// scripts, and an example app whose tool is not installed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { discoverChecks } from '../../../src/core/verify/discover';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';

const json = (v: unknown): string => JSON.stringify(v, null, 2);

function project(files: Record<string, string>, modules = true): { dir: string; cleanup(): void } {
  const t = tempTree(files, 'fug-shapes5-');
  if (modules) symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
  return t;
}

async function verify(dir: string, checks = discoverChecks(dir).checks) {
  return new Verifier({ root: dir, checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
}

describe('project shapes, round five (validation classes A, E, F, G, H)', function () {
  this.timeout(300000);

  describe('E: a format check under another name', () => {
    it('`check: biome check` beside `lint: biome lint` is a check: a formatting-only change is not green', async () => {
      const t = project({
        'package.json': json({ name: 'e', private: true, scripts: { lint: 'biome lint src', check: 'biome check src' } }),
        'biome.json': json({ formatter: { enabled: true, indentStyle: 'space', indentWidth: 2 }, linter: { enabled: true } }),
        'src/index.js': 'export const a = 1;\n',
      });
      try {
        const d = discoverChecks(t.dir);
        assert.deepEqual(d.checks.map((c) => c.name), ['lint', 'check']);
        assert.equal((await verify(t.dir)).green, true);
        execFileSync('sh', ['-c', "printf 'export const   a = 1;\\n' > src/index.js"], { cwd: t.dir });
        const v = await verify(t.dir);
        assert.equal(v.green, false);
        assert.ok(v.failures.some((f) => f.check === 'check' && f.file === 'src/index.js'), JSON.stringify(v.failures));
        assert.equal(v.failures.filter((f) => f.check === 'lint').length, 0, 'biome lint itself passes: only the format check sees it');
      } finally {
        t.cleanup();
      }
    });

    it('`format-check: prettier --check` is a check; one the lint script already runs is not run twice; a writer is not a check', async () => {
      const t = project({
        'package.json': json({ name: 'e2', private: true, scripts: { test: 'node -e 0', 'format-check': 'prettier --check src', format: 'prettier --write src' } }),
        'src/index.js': 'export const a = 1;\n',
      });
      const u = project({
        'package.json': json({ name: 'e3', private: true, scripts: { lint: 'npm run lint:format', 'lint:format': 'prettier --check src', 'format:check': 'npm run lint:format' } }),
        'src/index.js': 'export const a = 1;\n',
      });
      try {
        assert.deepEqual(discoverChecks(t.dir).checks.map((c) => c.name), ['format-check', 'test']);
        assert.equal((await verify(t.dir)).green, true);
        execFileSync('sh', ['-c', "printf 'export const   a = 1\\n' > src/index.js"], { cwd: t.dir });
        const v = await verify(t.dir);
        assert.equal(v.green, false);
        assert.ok(v.failures.every((f) => f.check === 'format-check'), JSON.stringify(v.failures));
        assert.deepEqual(discoverChecks(u.dir).checks.map((c) => c.name), ['lint'], 'prettier --check runs once, inside lint');
      } finally {
        t.cleanup();
        u.cleanup();
      }
    });
  });

  describe('F: a root whose type check and lint fan out', () => {
    const files = {
      'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'], scripts: { typecheck: 'turbo typecheck', lint: 'turbo lint', test: 'turbo test' } }),
      // A base config with no `include`: a root-wide tsc would check every package's build output.
      'tsconfig.json': json({ compilerOptions: { allowJs: true, checkJs: true, strict: true, noEmit: true, module: 'nodenext', target: 'es2022' } }),
      'eslint.config.js': 'export default [{ rules: { "no-unused-vars": "error" } }];\n',
      'packages/a/package.json': json({ name: 'a', version: '1.0.0', type: 'module', scripts: { typecheck: 'tsc --noEmit -p tsconfig.json' } }),
      'packages/a/tsconfig.json': json({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', target: 'es2022' }, include: ['src'] }),
      'packages/a/src/index.ts': 'export const a = (x: number): number => x + 1;\n',
      'packages/a/dist/x.js': 'export function f(x) { const unused = 1; return x; }\n',
    };

    it('adds no root-wide tsc or eslint: the packages\' own checks stand in, and the project is green as its CI says', async () => {
      const t = project(files);
      try {
        const d = discoverChecks(t.dir);
        assert.deepEqual(d.checks.map((c) => c.name), ['a:typecheck']);
        assert.ok(d.notes.some((n) => /^tsc: tsconfig\.json found, but the root's scripts\.typecheck runs each package's own/.test(n)), d.notes.join('\n'));
        assert.ok(d.notes.some((n) => /^eslint: eslint\.config\.js found, but the root's scripts\.lint runs each package's own/.test(n)), d.notes.join('\n'));
        assert.equal((await verify(t.dir)).green, true);
      } finally {
        t.cleanup();
      }
    });

    it('a root with no typecheck script whose packages carry their own adds no root tsc either', () => {
      const t = project({ ...files, 'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'] }) });
      try {
        const d = discoverChecks(t.dir);
        // No package lints on its own: the root's ESLint config is the project's lint.
        assert.deepEqual(d.checks.map((c) => c.name), ['eslint', 'a:typecheck']);
        assert.ok(d.notes.some((n) => /^tsc: .*package a has its own/.test(n)), d.notes.join('\n'));
      } finally {
        t.cleanup();
      }
    });
  });

  describe('G: a fan-out behind a script alias, to packages\' `test:*` scripts', () => {
    it('`test: pnpm run test:ci` → `nx run-many --targets=test:lib`: the root test is left to the packages, each package\'s test:lib is a check', async () => {
      const t = project({
        'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'], scripts: { test: 'pnpm run test:ci', 'test:ci': 'nx run-many --targets=test:lib,build' } }),
        'packages/a/package.json': json({ name: 'a', version: '1.0.0', scripts: { 'test:lib': 'node --test', build: 'node -e 0' } }),
        'packages/a/test/a.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => {\n  assert.strictEqual(1 + 1, 3);\n});\n",
      });
      try {
        const d = discoverChecks(t.dir);
        assert.deepEqual(d.checks.map((c) => c.name), ['a:test:lib'], 'the build target is no check; the root test not run a second time');
        assert.equal(d.checks[0]!.parser, 'node-test');
        const v = await verify(t.dir);
        assert.equal(v.green, false);
        assert.deepEqual(v.failures.map((f) => [f.check, f.file, f.line]), [['a:test:lib', 'packages/a/test/a.test.js', 4]]);
      } finally {
        t.cleanup();
      }
    });
  });

  describe('H: a package whose tool is not installed', () => {
    it('an example app\'s `ng test` is "not installed, not checked", never an exit-127 failure in the verdict', async () => {
      const t = project({
        'package.json': json({ name: 'root', private: true, workspaces: ['packages/*', 'examples/*'] }),
        'packages/a/package.json': json({ name: 'a', version: '1.0.0', scripts: { test: 'node --test' } }),
        'packages/a/test/a.test.js': "require('node:test')('ok', () => {});\n",
        'examples/app/package.json': json({ name: 'app', private: true, scripts: { test: 'ng test', lint: 'next lint' } }),
      });
      try {
        const d = discoverChecks(t.dir);
        assert.deepEqual(d.checks.map((c) => c.name), ['a:test']);
        assert.ok(d.notes.includes('app:test: examples/app/package.json scripts.test ("ng test") runs `ng`, which is not installed (not in node_modules/.bin or on PATH): not installed, not checked'), d.notes.join('\n'));
        assert.ok(d.notes.some((n) => n.startsWith('app:lint: ') && /`next`, which is not installed/.test(n)));
        assert.equal((await verify(t.dir)).green, true);
      } finally {
        t.cleanup();
      }
    });
  });

  describe('A: Yarn Berry Plug\'n\'Play', () => {
    it('a .yarnrc.yml yaml cannot read names no release: discovery goes on (yarn on PATH, else a note), it does not throw', () => {
      const t = project({
        'package.json': json({ name: 'pnp-bad', private: true, scripts: { test: 'node --test' } }),
        '.yarnrc.yml': 'yarnPath: [unclosed\n',
        '.pnp.cjs': '',
      }, false);
      try {
        const d = discoverChecks(t.dir);
        assert.equal(d.checks.length, 1);
        assert.ok(/ run test$/.test(d.checks[0]!.command) || d.notes.some((n) => n.startsWith('yarn: the project installs with Yarn Plug')), JSON.stringify(d));
      } finally {
        t.cleanup();
      }
    });

    const release = path.join(REPO, 'node_modules', '@yarnpkg', 'cli-dist', 'bin', 'yarn.js');

    it('runs the scripts and the inferred tsc through the project\'s yarnPath release: a failing test is the test\'s, not `mocha: not found`', async () => {
      const t = project({
        'package.json': json({
          name: 'pnp', private: true, packageManager: 'yarn@4.18.1',
          // `run-node` exists only through Plug'n'Play: `npm test` would say `run-node: not found` (exit 127).
          scripts: { test: 'run-node --test' },
          devDependencies: { typescript: `portal:${path.join(REPO, 'node_modules', 'typescript')}`, 'run-node': 'portal:./tools/run-node' },
        }),
        '.yarnrc.yml': 'yarnPath: .yarn/releases/yarn.cjs\nenableTelemetry: false\nenableGlobalCache: false\n',
        'yarn.lock': '',
        'tools/run-node/package.json': json({ name: 'run-node', version: '1.0.0', bin: { 'run-node': 'run.js' } }),
        'tools/run-node/run.js': "#!/usr/bin/env node\nconst r = require('node:child_process').spawnSync(process.execPath, process.argv.slice(2), { stdio: 'inherit' });\nprocess.exit(r.status ?? 1);\n",
        'tsconfig.json': json({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', target: 'es2022' }, include: ['src'] }),
        'src/index.ts': 'export const n: number = 1;\n',
        'test/a.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => {\n  assert.strictEqual(1 + 1, 2);\n});\n",
      }, false);
      try {
        mkdirSync(path.join(t.dir, '.yarn', 'releases'), { recursive: true });
        copyFileSync(release, path.join(t.dir, '.yarn', 'releases', 'yarn.cjs'));
        // The fixture's lockfile is written by this install: under CI (CI=true) Yarn would refuse to write it.
        execFileSync(process.execPath, ['.yarn/releases/yarn.cjs', 'install'], { cwd: t.dir, env: { ...process.env, YARN_ENABLE_NETWORK: '0', COREPACK_ENABLE_STRICT: '0', YARN_ENABLE_IMMUTABLE_INSTALLS: 'false' }, stdio: 'pipe' });
        const yarn = `node ${path.join(t.dir, '.yarn', 'releases', 'yarn.cjs')}`;
        const d = discoverChecks(t.dir);
        assert.deepEqual(d.checks.map((c) => [c.name, c.command]), [['tsc', `${yarn} run tsc --noEmit -p tsconfig.json`], ['test', `${yarn} run test`]]);
        assert.equal((await verify(t.dir)).green, true);
        execFileSync('sh', ['-c', "printf 'export const n: number = \"x\";\\n' > src/index.ts"], { cwd: t.dir });
        execFileSync('sh', ['-c', "sed -i 's/1 + 1, 2/1 + 1, 3/' test/a.test.js"], { cwd: t.dir });
        const v = await verify(t.dir);
        assert.deepEqual(v.failures.map((f) => [f.check, f.file, f.line]).sort(), [['test', 'test/a.test.js', 4], ['tsc', 'src/index.ts', 1]]);
      } finally {
        t.cleanup();
      }
    });
  });
});

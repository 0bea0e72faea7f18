// Wrong verdicts found on TanStack/store (issue 37, classes F′ and H), each on a small real project in
// the system's temp folder with the repo's own tools (eslint, tsc, mocha, node:test, sh):
// F′: a root-wide eslint/tsc was guessed beside an Nx fan-out whose targets are named `test:eslint`
//     and `test:types`; a check's kind is read from what it runs, not from its name.
// H:  a tool a script launches that is not installed (`sh: karma: not found`, a tool's own `Cannot
//     find module` for a plugin) is an environment problem, never a failure; a missing module the
//     project's own code imports still is. And the fan-out's target list decides which package
//     scripts are checks: an example's plain `test` beside `--targets=test:lib` is not CI's.
import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { discoverChecks } from '../../../src/core/verify/discover';
import { Verifier } from '../../../src/core/verify/verifier';
import { summarizeChecks } from '../../../src/core/loop/state';
import { checkWords } from '../../../src/vscode/common/stepWords';
import type { CheckSpec } from '../../../src/core/types';
import { REPO, tempTree } from '../../support/fixtures';

const json = (v: unknown): string => JSON.stringify(v, null, 2);

function project(files: Record<string, string>): { dir: string; cleanup(): void } {
  const t = tempTree(files, 'fug-shapes6-');
  symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
  return t;
}

async function verify(dir: string, checks: CheckSpec[] = discoverChecks(dir).checks) {
  return new Verifier({ root: dir, checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
}

const names = (dir: string): string[] => discoverChecks(dir).checks.map((c) => c.name);

const STRICT_JS = { compilerOptions: { allowJs: true, checkJs: true, strict: true, noEmit: true, module: 'nodenext', target: 'es2022' } };

describe('project shapes, round six (issue 37: F′ and H on TanStack/store\'s shape)', function () {
  this.timeout(300000);

  describe('F′ + H2: an Nx fan-out whose targets are test:eslint, test:lib, test:types', () => {
    // The store's shape: the root has no lint or typecheck script; `test` runs `test:ci`, which fans
    // out to the packages' targets; examples are packages too, with what CI never runs.
    const files = {
      'package.json': json({
        name: 'root',
        private: true,
        workspaces: ['packages/*', 'examples/*'],
        scripts: {
          test: 'npm run test:ci',
          'test:ci': 'nx run-many --targets=test:eslint,test:lib,test:types,build',
          'test:eslint': 'nx affected --target=test:eslint',
          'test:types': 'nx affected --target=test:types --exclude=examples/**',
        },
      }),
      'nx.json': json({ targetDefaults: { 'test:lib': { dependsOn: ['^build'] } } }),
      'eslint.config.mjs': 'export default [{ rules: { "no-unused-vars": "error" } }];\n',
      'tsconfig.json': json({ ...STRICT_JS, include: ['packages', 'examples'] }),
      'packages/a/package.json': json({ name: 'a', version: '1.0.0', scripts: { 'test:eslint': 'eslint src', 'test:types': 'tsc --noEmit -p tsconfig.json', 'test:lib': 'node --test', build: 'node -e 0' } }),
      'packages/a/tsconfig.json': json({ ...STRICT_JS, include: ['src'] }),
      'packages/a/src/index.js': '/** @param {number} x */\nexport const inc = (x) => x + 1;\n',
      'packages/a/test/a.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.strictEqual(1 + 1, 2));\n",
      // Neither linted, type-checked nor tested by CI: a root-wide eslint/tsc would fail here, and so its test.
      'examples/app/package.json': json({ name: 'app', private: true, scripts: { test: 'node --test' } }),
      'examples/app/src/main.js': "const unused = 1;\n/** @type {number} */\nexport const n = 'x';\n",
      'examples/app/test/app.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\ntest('demo', () => assert.strictEqual(1, 2));\n",
    };

    it('adds no root eslint or tsc and runs no example `test`: the packages\' targets are the checks, green as CI says; a real lint finding is still seen', async () => {
      const t = project(files);
      try {
        const d = discoverChecks(t.dir);
        assert.deepEqual(d.checks.map((c) => c.name), ['a:test:types', 'a:test:eslint', 'a:test:lib']);
        assert.ok(d.notes.includes("tsc: tsconfig.json found, but the root's scripts.test runs each package's own (test:types: a type check): no root-wide tsc is added (it would check what no package's own type check covers)"), d.notes.join('\n'));
        assert.ok(d.notes.includes("eslint: eslint.config.mjs found, but the root's scripts.test runs each package's own (test:eslint: a lint): no root-wide eslint is added (it would lint what no package's own lint covers)"), d.notes.join('\n'));
        assert.ok(d.notes.includes('app:test: examples/app/package.json scripts.test ("node --test") is not run: the workspace root\'s fan-out runs its own tests (test:lib) in each package, not scripts.test'), d.notes.join('\n'));
        const v = await verify(t.dir);
        assert.equal(v.green, true, JSON.stringify(v.failures));
        writeFileSync(path.join(t.dir, 'packages/a/src/index.js'), '/** @param {number} x */\nexport const inc = (x) => { const y = 2; return x + 1; };\n');
        const r = await verify(t.dir);
        assert.deepEqual(r.failures.map((f) => [f.check, f.file, f.id]), [['a:test:eslint', 'packages/a/src/index.js', 'no-unused-vars']]);
      } finally {
        t.cleanup();
      }
    });

    it('the kind comes from what a target runs: `test:eslint-plugin` running node:test is no lint (the root eslint and tsc are still guessed)', () => {
      const t = project({
        'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'], scripts: { test: 'nx run-many -t test:eslint-plugin' } }),
        'eslint.config.mjs': 'export default [];\n',
        'tsconfig.json': json({ ...STRICT_JS, include: ['packages'] }),
        'packages/a/package.json': json({ name: 'a', version: '1.0.0', scripts: { 'test:eslint-plugin': 'node --test' } }),
      });
      try {
        assert.deepEqual(names(t.dir), ['tsc', 'eslint', 'a:test:eslint-plugin']);
      } finally {
        t.cleanup();
      }
    });

    it('a target no package defines as a script (an nx executor) is read by its name: `nx run-many -t typecheck` covers the type check', () => {
      const t = project({
        'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'], scripts: { 'test:static': 'nx run-many -t typecheck' } }),
        'tsconfig.json': json({ ...STRICT_JS, include: ['packages'] }),
        'packages/a/package.json': json({ name: 'a', version: '1.0.0', scripts: { test: 'node --test' } }),
      });
      try {
        const d = discoverChecks(t.dir);
        assert.deepEqual(d.checks.map((c) => c.name), ['a:test']);
        assert.ok(d.notes.some((n) => n.startsWith("tsc: tsconfig.json found, but the root's scripts.test:static runs each package's own (typecheck: a type check)")), d.notes.join('\n'));
      } finally {
        t.cleanup();
      }
    });

    it('a package script of a kind the fan-out does not cover stays a check: `turbo run test` leaves each package\'s `lint` as it was', () => {
      const t = project({
        'package.json': json({ name: 'root', private: true, workspaces: ['packages/*'], scripts: { test: 'turbo run test' } }),
        'packages/a/package.json': json({ name: 'a', version: '1.0.0', scripts: { test: 'node --test', lint: 'eslint src', 'test:e2e': 'node --test e2e' } }),
      });
      try {
        const d = discoverChecks(t.dir);
        assert.deepEqual(d.checks.map((c) => c.name), ['a:lint', 'a:test']);
      } finally {
        t.cleanup();
      }
    });
  });

  describe('F′ in one package: a type check under another name', () => {
    it('`types: tsc --noEmit -p tsconfig.json` is the type check (no tsc guessed beside it); `build: tsc` and `lint:fix` are not, so tsc and eslint are still guessed', () => {
      const t = project({
        'package.json': json({ name: 'one', private: true, scripts: { types: 'tsc --noEmit -p tsconfig.json', test: 'node --test' } }),
        'tsconfig.json': json({ ...STRICT_JS, include: ['src'] }),
      });
      const u = project({
        'package.json': json({ name: 'two', private: true, scripts: { build: 'tsc -p tsconfig.json', 'lint:fix': 'eslint --fix .', 'build:types': 'tsc --noEmit' } }),
        'tsconfig.json': json({ ...STRICT_JS, include: ['src'] }),
        'eslint.config.mjs': 'export default [];\n',
      });
      try {
        const d = discoverChecks(t.dir);
        assert.deepEqual(d.checks.map((c) => c.name), ['types', 'test']);
        assert.ok(d.notes.includes('tsc: tsconfig.json found, but the project type-checks with its own script (types): that is what runs'), d.notes.join('\n'));
        assert.deepEqual(names(u.dir), ['tsc', 'eslint']);
        writeFileSync(path.join(u.dir, 'package.json'), json({ name: 'three', private: true, scripts: { 'lint:types': 'tsc --noEmit -p tsconfig.json' } }));
        assert.deepEqual(names(u.dir), ['lint:types'], 'a lint script that type-checks is one check, not two');
      } finally {
        t.cleanup();
        u.cleanup();
      }
    });
  });

  describe('H1: a tool a script launches that is not installed', () => {
    it('`sh: karma: not found` (exit 127) behind a shell script is "not installed: karma", not a failure: green', async () => {
      const t = project({
        'package.json': json({ name: 'app', private: true, scripts: { test: 'sh scripts/ci.sh' } }),
        'scripts/ci.sh': 'node --test\nkarma start karma.conf.js\n',
        'test/a.test.js': "require('node:test')('ok', () => {});\n",
      });
      try {
        const v = await verify(t.dir);
        const c = v.checks[0]!;
        assert.equal(c.exitCode, 127);
        assert.deepEqual(c.failures, []);
        assert.deepEqual(c.notInstalled, { tools: ['karma'], note: 'not installed: karma (test)' });
        assert.equal(v.green, true);
        // The run's trace and the panel say so, never "failed".
        const s = summarizeChecks(v)[0]!;
        assert.equal(s.notInstalled, 'not installed: karma (test)');
        assert.equal(checkWords(s), 'test: not installed');
      } finally {
        t.cleanup();
      }
    });

    it('a plugin the tool loads (`mocha --require @babel/register-missing`, as `ng test` loads karma-jasmine) is not installed, in a package\'s folder', async () => {
      const t = project({
        'package.json': json({ name: 'root', private: true, workspaces: ['examples/*'] }),
        'examples/app/package.json': json({ name: 'app', private: true, scripts: { test: 'mocha --require @babel/register-missing test' } }),
        'examples/app/test/a.test.js': "it('ok', () => {});\n",
      });
      try {
        const v = await verify(t.dir);
        const c = v.checks.find((x) => x.name === 'app:test')!;
        assert.notEqual(c.exitCode, 0);
        assert.deepEqual(c.failures, []);
        assert.equal(c.notInstalled?.note, 'not installed: @babel/register-missing (examples/app test)');
        assert.equal(v.green, true);
      } finally {
        t.cleanup();
      }
    });

    it('Jest\'s `testEnvironment: jsdom` with jest-environment-jsdom not installed is not installed, not a failure', async () => {
      const t = project({
        'package.json': json({ name: 'app', private: true, jest: { testEnvironment: 'jsdom' }, scripts: { test: 'jest' } }),
        'a.test.js': "test('a', () => {});\n",
      });
      try {
        const v = await verify(t.dir);
        assert.deepEqual(v.checks[0]!.notInstalled?.tools, ['jest-environment-jsdom']);
        assert.deepEqual(v.failures, []);
        assert.equal(v.green, true);
      } finally {
        t.cleanup();
      }
    });

    it('a package the project declares but that is not installed, imported by a test: an install is missing, not the code', async () => {
      const t = project({
        'package.json': json({ name: 'app', private: true, devDependencies: { 'left-pad-missing': '^1.0.0' }, scripts: { test: 'mocha test' } }),
        'test/a.test.js': "const pad = require('left-pad-missing');\nit('pads', () => {});\n",
      });
      try {
        const v = await verify(t.dir);
        assert.deepEqual(v.checks[0]!.notInstalled?.tools, ['left-pad-missing']);
        assert.equal(v.green, true);
      } finally {
        t.cleanup();
      }
    });

    it('a missing module the project\'s own code imports stays a failure: a wrong relative path, an undeclared package name', async () => {
      const t = project({
        'package.json': json({ name: 'app', private: true, scripts: { test: 'node --test' } }),
        'src/stock.js': 'exports.qty = () => 1;\n',
        'test/a.test.js': "const test = require('node:test');\nconst { qty } = require('../src/stok');\ntest('qty', () => qty());\n",
      });
      const u = project({
        'package.json': json({ name: 'app2', private: true, scripts: { test: 'mocha test' } }),
        'test/a.test.js': "const pad = require('lodash-typo');\nit('pads', () => {});\n",
      });
      try {
        const v = await verify(t.dir);
        assert.equal(v.green, false);
        assert.equal(v.checks[0]!.notInstalled, undefined);
        assert.ok(v.failures.some((f) => f.file === 'test/a.test.js'), JSON.stringify(v.failures));
        const w = await verify(u.dir);
        assert.equal(w.green, false);
        assert.equal(w.checks[0]!.notInstalled, undefined);
        assert.ok(w.failures.length > 0);
      } finally {
        t.cleanup();
        u.cleanup();
      }
    });
  });
});

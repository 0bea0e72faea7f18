// Checks that write files as they run (issue 27, class 3) and lint entry points found by what they
// run (class 2): read from the project's scripts, no process started. And every reader of a package.json, given
// one a cloned repository planted (JSON, but null, an array, a number): read as absent, never a throw.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { discoverChecks } from '../../../src/core/verify/discover';
import { scriptsIn } from '../../../src/core/verify/infer';
import { notInstalled } from '../../../src/core/verify/notInstalled';
import { eslintInstall, packageScripts, testCommand } from '../../../src/core/verify/staged/commands';
import { writesFiles } from '../../../src/core/verify/writers';
import { tempTree } from '../../support/fixtures';

describe('checks that write files as they run', () => {
  const t = tempTree({
    'package.json': JSON.stringify({
      scripts: {
        pretest: 'npm run clean && npm run compile',
        clean: 'gts clean',
        compile: 'tsc',
        test: 'node --test build/test/',
        typecheck: 'tsc --noEmit',
        refs: 'tsc -b',
        cov: 'c8 --reporter lcov mocha',
        jcov: 'jest --coverage',
        lint: 'eslint src',
        bundle: 'esbuild src/index.ts --outdir=dist',
      },
    }),
  });
  after(() => t.cleanup());

  it('names what writes: a pre script\'s build, emitting tsc, build mode, a bundler, coverage', () => {
    assert.match(writesFiles('npm test --silent', t.dir) ?? '', /`gts clean` \(scripts\.clean\) writes files/);
    assert.match(writesFiles('npm run refs', t.dir) ?? '', /`tsc -b` \(scripts\.refs\) writes its build output/);
    assert.match(writesFiles('npm run cov', t.dir) ?? '', /c8 --reporter lcov mocha.*coverage/);
    assert.match(writesFiles('npm run jcov', t.dir) ?? '', /coverage/);
    assert.match(writesFiles('npm run bundle', t.dir) ?? '', /esbuild/);
    assert.match(writesFiles('tsc -p tsconfig.json', t.dir) ?? '', /writes its build output/);
  });

  it('finds nothing written by a type check, a lint or plain tests', () => {
    assert.equal(writesFiles('npm run typecheck', t.dir), undefined);
    // A tsconfig that sets noEmit itself (JSONC, as tsc reads it): the call writes nothing, and runs beside the others.
    const cfg = tempTree({ 'tsconfig.json': '{\n  // checks only\n  "compilerOptions": { "noEmit": true, },\n}\n', 'emit/tsconfig.json': '{ "compilerOptions": { "outDir": "out" } }', 'types/tsconfig.check.json': '{ "compilerOptions": { "noEmit": true } }' });
    try {
      assert.equal(writesFiles('tsc -p tsconfig.json', cfg.dir), undefined);
      assert.equal(writesFiles('tsc', cfg.dir), undefined);
      assert.equal(writesFiles('tsc --project types/tsconfig.check.json', cfg.dir), undefined);
      assert.match(writesFiles('tsc -p emit', cfg.dir) ?? '', /writes its build output/);
      assert.match(writesFiles('tsc -p tsconfig.json --noEmit false', cfg.dir) ?? '', /writes its build output/);
      assert.match(writesFiles('tsc -b', cfg.dir) ?? '', /writes its build output/);
    } finally {
      cfg.cleanup();
    }
    assert.equal(writesFiles('tsc --noEmit -p tsconfig.json', t.dir), undefined);
    assert.equal(writesFiles('npm run lint', t.dir), undefined);
    assert.equal(writesFiles('eslint --format json src', t.dir), undefined);
    assert.equal(writesFiles('node --test test/', t.dir), undefined);
  });
});

describe('lint entry points found by what they run', () => {
  const discover = (scripts: Record<string, string>): { checks: string[]; notes: string } => {
    const d = tempTree({ 'package.json': JSON.stringify({ scripts }) });
    try {
      const r = discoverChecks(d.dir);
      return { checks: r.checks.map((c) => `${c.name}=${c.command}:${c.parser}`), notes: r.notes.join('\n') };
    } finally {
      d.cleanup();
    }
  };

  it('a lint under another name is the lint check, and the notes say why', () => {
    const gts = discover({ check: 'gts check', fix: 'gts fix', clean: 'gts clean' });
    assert.deepEqual(gts.checks, ['check=npm run check --silent:eslint']);
    assert.match(gts.notes, /check: scripts\.check \("gts check"\) runs the linter \(gts check\): the project's lint entry point, found by what it runs/);
    assert.deepEqual(discover({ 'eslint:check': 'eslint src --max-warnings 0' }).checks, ['eslint:check=eslint src --max-warnings 0 --format json:eslint']);
  });

  it('one that another runs is not checked twice; fixing, formatting and test scripts are not lints', () => {
    assert.deepEqual(discover({ check: 'npm run eslint', eslint: 'eslint src' }).checks, ['check=npm run check --silent:eslint']);
    assert.deepEqual(discover({ 'fix': 'eslint --fix src', 'format': 'prettier --write .', verify: 'eslint src && node --test' }).checks, []);
  });

  it('a `lint` script wins: nothing else is looked for', () => {
    assert.deepEqual(discover({ lint: 'eslint src', check: 'gts check' }).checks, ['lint=eslint src --format json:eslint']);
  });
});

describe('a package.json that is JSON but no package (a cloned repository can plant one)', () => {
  for (const [what, text] of [
    ['null', 'null'],
    ['an array', '[]'],
    ['a number', '7'],
    ['scripts as an array', JSON.stringify({ scripts: ['prettier --check .'] })],
    ['scripts as a string', JSON.stringify({ scripts: 'tsc' })],
  ] as const) {
    it(`${what}: every reader of the scripts reads none, and none throws`, () => {
      const t = tempTree({ 'package.json': text, 'tsconfig.json': '{}' });
      try {
        assert.equal(writesFiles('npm test', t.dir), undefined);
        assert.deepEqual(scriptsIn(t.dir) ?? {}, {});
        assert.deepEqual(packageScripts(t.dir) ?? {}, {});
        assert.deepEqual(discoverChecks(t.dir).checks.map((c) => c.name), ['tsc']);
      } finally {
        t.cleanup();
      }
    });
  }
});

describe('an installed package.json that is JSON but no object (planted under node_modules)', () => {
  it('the ESLint version, tap\'s major and an undeclared import are read as absent, never a TypeError', () => {
    const t = tempTree({
      'package.json': JSON.stringify({ scripts: { test: 'tap' } }),
      'node_modules/eslint/package.json': 'null',
      'node_modules/tap/package.json': '[]',
      'pkg/package.json': 'null',
      'pkg/a.js': '',
    });
    try {
      assert.equal(eslintInstall(t.dir, {}), undefined);
      assert.doesNotThrow(() => testCommand('tap', t.dir, 'tap'));
      const out = `Error: Cannot find module 'left-pad'\nRequire stack:\n- ${path.join(t.dir, 'pkg/a.js')}\n`;
      assert.doesNotThrow(() => notInstalled(out, 1, { cwd: path.join(t.dir, 'pkg'), root: t.dir }));
    } finally {
      t.cleanup();
    }
  });
});

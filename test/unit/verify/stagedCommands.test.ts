// How staged checks narrow a command (through npm scripts, keeping the tool's flags), which test
// files relate to a change by their imports, and what a targeted flake re-run concludes.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Failure } from '../../../src/core/types';
import type { Attempt } from '../../../src/core/verify/staged/attempt';
import { confirmTargeted } from '../../../src/core/verify/staged/attempt';
import type { LintCommand, TestCommand } from '../../../src/core/verify/staged/commands';
import { lintCommand, nameFilterArgv, outsideTargets, resolveArgv, testCommand } from '../../../src/core/verify/staged/commands';
import { withoutLauncher } from '../../../src/core/verify/staged/launchers';
import { relatedTestFiles } from '../../../src/core/verify/staged/related';
import { splitCommand } from '../../../src/core/verify/runner';
import { tempTree } from '../../support/fixtures';

const tree = (files: Record<string, string>): { dir: string; cleanup(): void } => tempTree(files, 'fug-staged-');

describe('staged checks: narrowing commands', () => {
  const t = tree({ 'package.json': JSON.stringify({ scripts: { test: 'jest --ci', lint: 'eslint --cache src', chain: 'tsc && jest', via: 'npm run test', spec: 'mocha "test/**/*.js"', nt: 'node --test --test-reporter spec test/' } }), 'node_modules/eslint/package.json': '{"name":"eslint","version":"9.39.5"}' });
  after(() => t.cleanup());

  it('follows npm scripts to the line they run, with the arguments passed after --', () => {
    assert.deepEqual(resolveArgv('npm test --silent', t.dir), { argv: ['jest', '--ci'] });
    assert.deepEqual(resolveArgv('npm run lint -- --max-warnings 0', t.dir), { argv: ['eslint', '--cache', 'src', '--max-warnings', '0'] });
    assert.deepEqual(resolveArgv('npx jest', t.dir), { argv: ['npx', 'jest'] });
    assert.match((resolveArgv('npm run chain', t.dir) as { reason: string }).reason, /shell/);
    assert.match((resolveArgv('npm run via', t.dir) as { reason: string }).reason, /another script/);
    assert.match((resolveArgv('npm run nope', t.dir) as { reason: string }).reason, /no script "nope"/);
    assert.match((resolveArgv('jest && eslint .', t.dir) as { reason: string }).reason, /shell/);
  });

  it('narrows a script the manager runs a pre script before (a build the tests read): the pre script runs first, for every runner', () => {
    const d = tree({ 'package.json': JSON.stringify({ scripts: { pretest: 'npm run compile', compile: 'tsc', test: 'node --test build/test/', lint: 'eslint src', postlint: 'echo done' } }) });
    try {
      assert.deepEqual(resolveArgv('npm test --silent', d.dir), { argv: ['node', '--test', 'build/test/'], pre: { name: 'pretest', body: 'npm run compile', argv: ['npm', 'run', 'pretest'] } });
      assert.deepEqual((lintCommand('npm run lint', d.dir) as LintCommand).post, { name: 'postlint', body: 'echo done' });
      assert.deepEqual(resolveArgv('npm run compile', d.dir), { argv: ['tsc'] });
      for (const [runner, body] of [['vitest', 'vitest run'], ['jest', 'jest'], ['mocha', 'mocha'], ['node-test', 'node --test'], ['tap', 'tap']] as const) {
        const p = tree({ 'package.json': JSON.stringify({ scripts: { pretest: 'tshy', test: body } }) });
        try {
          const cmd = testCommand('pnpm test', p.dir, runner);
          assert.ok(!('reason' in cmd), `${runner}: ${JSON.stringify(cmd)}`);
          assert.deepEqual(cmd.pre?.argv, ['pnpm', 'run', 'pretest'], runner);
        } finally {
          p.cleanup();
        }
      }
    } finally {
      d.cleanup();
    }
  });

  it('a file outside the command\'s own targets is never narrowed to (a failure mapped to test/x.ts while build/test/ runs)', () => {
    assert.deepEqual(outsideTargets(['test/x.ts', 'build/test/x.js'], ['build/test/']), ['test/x.ts']);
    assert.deepEqual(outsideTargets(['test/a/x.js', 'src/x.js'], ['test/**/*.js']), ['src/x.js']);
    assert.deepEqual(outsideTargets(['test/x.ts'], []), [], 'no targets: the runner\'s defaults');
    assert.deepEqual(outsideTargets(['test/x.ts'], ['.']), []);
  });

  it('calls a locally installed tool directly where the command launches it with npx or pnpm exec', () => {
    const local = tree({
      'package.json': JSON.stringify({ scripts: { test: 'npx --no-install jest --ci', lint: 'pnpm exec eslint src', other: 'npx cowsay hi' } }),
      'node_modules/.bin/jest': '#!/usr/bin/env node\n',
      'node_modules/.bin/eslint': '#!/usr/bin/env node\n',
      'packages/app/package.json': JSON.stringify({ scripts: { test: 'npx jest' } }),
    });
    try {
      assert.deepEqual(resolveArgv('npx jest', local.dir), { argv: ['jest'] }, 'the local bin, found first on the check\'s PATH');
      assert.deepEqual(resolveArgv('npm test', local.dir), { argv: ['jest', '--ci'] }, 'inside a script too, npx\'s own flags dropped');
      assert.deepEqual(resolveArgv('npm run lint', local.dir), { argv: ['eslint', 'src'] });
      assert.deepEqual(resolveArgv('npm test', path.join(local.dir, 'packages', 'app')), { argv: ['jest'] }, 'a bin of a parent folder, as npx finds it');
      assert.deepEqual(resolveArgv('npm run other', local.dir), { argv: ['npx', 'cowsay', 'hi'] }, 'not installed: npx may fetch it, so it stays');
      assert.deepEqual(withoutLauncher(['npx', 'jest@29', '--ci'], local.dir), ['npx', 'jest@29', '--ci'], 'a pinned version is npx\'s to resolve');
      assert.deepEqual(withoutLauncher(['npx', '-p', 'jest', 'jest'], local.dir), ['npx', '-p', 'jest', 'jest'], 'a --package is npx\'s too');
      assert.deepEqual(withoutLauncher(['pnpm', 'exec', 'jest'], local.dir), ['jest']);
      const jest = testCommand('npx jest', local.dir, 'jest') as TestCommand;
      assert.deepEqual(jest.files(['test/a.test.js']), ['jest', '--runTestsByPath', 'test/a.test.js']);
    } finally {
      local.cleanup();
    }
  });

  it('lints the changed files under the command\'s own targets, with its flags (and its cache)', () => {
    const l = lintCommand('npm run lint', t.dir) as LintCommand;
    assert.deepEqual(l.forFiles(['src/a.js']), ['eslint', '--cache', '--no-warn-ignored', 'src/a.js']);
    assert.equal(l.covers('src/a.js'), true);
    assert.equal(l.covers('scripts/b.js'), false, 'outside the targets: not the check\'s to lint');
    const json = lintCommand('eslint --format json .', t.dir) as LintCommand;
    assert.deepEqual(json.forFiles(['x.js']), ['eslint', '--format', 'json', '--no-warn-ignored', 'x.js']);
    assert.match((lintCommand('eslint -o report.json .', t.dir) as { reason: string }).reason, /writes/);
    assert.match((lintCommand('eslint src/**/*.js', t.dir) as { reason: string }).reason, /shell/, 'a glob is the shell\'s');
    assert.match((lintCommand('npx tsc', t.dir) as { reason: string }).reason, /does not run eslint/);
  });

  it('takes `--flag=value` as the literal it is to the shell, and a leading NAME=value as the shell\'s assignment', () => {
    assert.deepEqual(splitCommand('jest --maxWorkers=2 --coverage=false'), ['jest', '--maxWorkers=2', '--coverage=false']);
    assert.deepEqual(splitCommand('node --test --test-reporter=spec test/'), ['node', '--test', '--test-reporter=spec', 'test/']);
    assert.equal(splitCommand('NODE_ENV=test jest'), undefined, 'an assignment before the command word: the shell\'s');
    assert.equal(splitCommand('jest --testNamePattern=$NAME'), undefined);
    // Narrowed like any other command: before, each of these ran its whole suite at every step.
    assert.deepEqual((testCommand('jest --maxWorkers=2', t.dir, 'jest') as TestCommand).files(['test/a.test.js']), ['jest', '--maxWorkers=2', '--runTestsByPath', 'test/a.test.js']);
    assert.deepEqual((testCommand('vitest run --pool=forks', t.dir, 'vitest') as TestCommand).files(['test/a.test.ts']), ['vitest', 'run', '--pool=forks', 'test/a.test.ts']);
    assert.deepEqual((testCommand('mocha --timeout=10000 test/', t.dir, 'mocha') as TestCommand).files(['test/a.js']), ['mocha', '--timeout=10000', 'test/a.js']);
    assert.deepEqual((lintCommand('eslint --max-warnings=0 src', t.dir) as LintCommand).forFiles(['src/a.js']), ['eslint', '--max-warnings=0', '--no-warn-ignored', 'src/a.js']);
    assert.match((testCommand('NODE_ENV=test jest', t.dir, 'jest') as { reason: string }).reason, /shell/);
  });

  it("narrows a Vitest command with filters of its own to the files whose names hold one (what Vitest's filter selects from any folder)", () => {
    const c = testCommand('vitest test', t.dir, 'vitest') as TestCommand;
    assert.deepEqual(c.files(['packages/a/src/__tests__/runner.test.ts']), ['vitest', 'run', 'packages/a/src/__tests__/runner.test.ts'], 'the filter gives way to the files');
    assert.equal(c.related, undefined, 'no related run: its file arguments would be taken as more filters');
    assert.equal(c.inside!('packages/a/src/__tests__/runner.test.ts'), true);
    assert.equal(c.inside!('test/helpers/setup.ts'), false, 'a folder named like the filter: not certain the filter selects it from the project root');
    const unit = testCommand('vitest run Unit --reporter verbose', t.dir, 'vitest') as TestCommand;
    assert.deepEqual(unit.files(['src/a.unit.ts']), ['vitest', 'run', '--reporter', 'verbose', 'src/a.unit.ts']);
    assert.equal(unit.inside!('src/a.unit.ts'), true, 'case aside, as Vitest matches');
    for (const own of ['vitest related src/a.ts', 'vitest run src/a.test.ts', 'vitest run a.test.ts:12', 'vitest list']) assert.match((testCommand(own, t.dir, 'vitest') as { reason: string }).reason, /subcommand or filter of its own/, own);
  });

  it("narrows a Jest command with path patterns of its own to the files a pattern matches, as the installed Jest matches them", () => {
    const j = (version: string | undefined, extra: Record<string, string> = {}): { dir: string; cleanup(): void } =>
      tree({ 'package.json': JSON.stringify({ jest: { testEnvironment: 'node' } }), ...(version !== undefined ? { 'node_modules/jest/package.json': JSON.stringify({ name: 'jest', version }) } : {}), ...extra });
    const cmd = (command: string, dir: string): TestCommand => {
      const c = testCommand(command, dir, 'jest');
      assert.ok(!('reason' in c), `${command}: ${'reason' in c ? c.reason : ''}`);
      return c;
    };
    const reason = (command: string, dir: string): string => (testCommand(command, dir, 'jest') as { reason: string }).reason ?? 'narrowed';
    const v30 = j('30.5.2');
    const v29 = j('29.7.0');
    const none = j(undefined);
    try {
      const unit = cmd('jest unit --ci', v30.dir);
      assert.deepEqual(unit.files(['test/unit/a.test.js']), ['jest', '--ci', '--runTestsByPath', 'test/unit/a.test.js'], 'the patterns give way to the files: --runTestsByPath takes positional arguments as paths');
      assert.equal(unit.related, undefined, '--findRelatedTests applies no pattern: it would run related tests the command does not');
      assert.deepEqual(unit.targets, ['unit']);
      assert.equal(unit.inside!('test/unit/a.test.js'), true);
      assert.equal(unit.inside!('test/Unit/c.test.js'), true, 'case aside, as Jest matches');
      assert.equal(unit.inside!('test/integration/b.test.js'), false);
      assert.equal(unit.inside!('src/community.test.js'), true, 'a regular expression on the whole path, no folder name: "community" holds "unit"');
      assert.deepEqual(nameFilterArgv(unit, unit.files(['test/unit/a.test.js']), ['math › adds']), ['jest', '--ci', '--runTestsByPath', 'test/unit/a.test.js', '-t', 'math adds'], 'the name filter of a confirmation still applies');
      // --testPathPatterns takes every argument up to the next flag (yargs' array), with `=` too.
      const flags = cmd('jest --testPathPatterns unit api -w 2 --testPathPatterns=e2e', v30.dir);
      assert.deepEqual(flags.targets, ['unit', 'api', 'e2e']);
      assert.deepEqual(flags.files(['test/api/x.test.js']), ['jest', '-w', '2', '--runTestsByPath', 'test/api/x.test.js']);
      assert.equal(flags.inside!('test/e2e/y.test.js'), true, 'any pattern: they are alternatives');
      // Another array option's values and a flag's value are no patterns: no patterns, the plain narrowing.
      assert.ok(cmd('jest --roots src test', v30.dir).related, 'yargs gives --roots both: no pattern (the old reading took `test` for one)');
      assert.ok(cmd('jest --coverageDirectory out --ci false', v30.dir).related);
      assert.ok(cmd('jest --no-cache -i', v30.dir).related);
      // Jest 30 tests a pattern on the path relative to the rootDir too; `./` anchors it there.
      const anchored = cmd('jest ./test/unit', v30.dir);
      assert.equal(anchored.inside!('test/unit/a.test.js'), true);
      assert.equal(anchored.inside!('packages/p/test/unit/a.test.js'), false);
      assert.equal(cmd('jest ^test/unit', v30.dir).inside!('test/unit/a.test.js'), true);
      // Jest 29 tests one expression on the absolute path alone: `./` is any character and a slash.
      const anchored29 = cmd('jest ./test/unit', v29.dir);
      assert.equal(anchored29.inside!('packages/p/test/unit/a.test.js'), true);
      assert.equal(cmd('jest ^test/unit', v29.dir).inside!('test/unit/a.test.js'), false, 'never at the start of an absolute path');
      // The version unknown: a file only both versions would run.
      assert.equal(cmd('jest ./test/unit', none.dir).inside!('packages/p/test/unit/a.test.js'), false);
      assert.equal(cmd('jest ./test/unit', none.dir).inside!('test/unit/a.test.js'), true);
      assert.equal(cmd('jest ^test/unit', none.dir).inside!('test/unit/a.test.js'), false, 'Jest 29 would not run it');
      assert.equal(cmd('jest unit', none.dir).inside!('test/unit/a.test.js'), true);
      // The rootDir not certain (set by the config, or a config of code that may): the absolute path alone, which can only leave a file out.
      const rooted = j('30.5.2', { 'package.json': JSON.stringify({ jest: { rootDir: 'src' } }) });
      try {
        assert.equal(cmd('jest ^test/unit', rooted.dir).inside!('test/unit/a.test.js'), false);
      } finally {
        rooted.cleanup();
      }
      assert.equal(cmd('jest ^test/unit --config jest.other.js', v30.dir).inside!('test/unit/a.test.js'), false);
      // What cannot be read keeps the command whole, and says why.
      assert.match(reason('jest --testPathPatterns=a++', v30.dir), /no regular expression Jest can use \(it would run every test\)/);
      assert.match(reason('jest unit --onlyChanged', v30.dir), /own test paths, and selects its tests by --onlyChanged/);
      assert.match(reason('jest unit --runTestsByPath', v30.dir), /--runTestsByPath/);
      assert.match(reason('jest unit -o', v30.dir), /--onlyChanged/);
      assert.match(reason('jest unit --someFlag value', v30.dir), /passes --someFlag, no Jest option this can read/);
      assert.match(reason('jest --testPathPattern=unit', v30.dir), /--testPathPattern, which Jest 30 rejects/);
      assert.match(reason('jest --testPathPatterns=unit', v29.dir), /--testPathPatterns, which Jest 29 does not know/);
      assert.deepEqual(cmd('jest --testPathPattern unit', v29.dir).files(['test/unit/a.test.js']), ['jest', '--runTestsByPath', 'test/unit/a.test.js']);
      assert.ok(!('reason' in testCommand('jest --someFlag', v30.dir, 'jest')), 'an unknown flag with no pattern beside it: narrowed as before');
    } finally {
      for (const d of [v30, v29, none]) d.cleanup();
    }
  });

  it('reaches a runner through the launchers that only launch it: cross-env and env with their variables, node running a package\'s bin file', () => {
    const files = (command: string, parser: 'jest' | 'mocha' | 'vitest' | 'node-test', use: 'run' | 'confirm' = 'run'): string[] | string => {
      const c = testCommand(command, t.dir, parser, use);
      return 'reason' in c ? c.reason : c.files(['test/a.test.js']);
    };
    assert.deepEqual(files('cross-env NODE_ENV=test jest --ci', 'jest'), ['cross-env', 'NODE_ENV=test', 'jest', '--ci', '--runTestsByPath', 'test/a.test.js'], 'the variable is set for the narrowed run too');
    assert.deepEqual(files('env TZ=UTC LANG=C mocha test/', 'mocha'), ['env', 'TZ=UTC', 'LANG=C', 'mocha', 'test/a.test.js']);
    assert.deepEqual(files('node --experimental-vm-modules node_modules/jest/bin/jest.js', 'jest'), ['node', '--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--runTestsByPath', 'test/a.test.js'], "Jest's own command for ES modules");
    assert.deepEqual(files('cross-env CI=1 node --test test/', 'node-test'), ['cross-env', 'CI=1', 'node', '--test', 'test/a.test.js']);
    // A confirmation leaves the coverage wrapper off; the variables set for it stay set for the runner.
    assert.deepEqual(files('cross-env NODE_ENV=test c8 --100 mocha test/', 'mocha', 'confirm'), ['cross-env', 'NODE_ENV=test', 'mocha', 'test/a.test.js']);
    assert.deepEqual(files('node node_modules/c8/bin/c8.js -r text mocha test/', 'mocha', 'confirm'), ['mocha', 'test/a.test.js'], 'node launched the wrapper and goes with it');
    // Anything else before the runner may change what it runs: not narrowed.
    assert.match(files('node scripts/jest.js', 'jest') as string, /does not run jest/, "a project's own script named like the runner");
    assert.match(files('node -r node_modules/jest/bin/jest.js', 'jest') as string, /does not run jest/, "the bin file as a flag's value is node's, not the runner");
    assert.match(files('env -i jest', 'jest') as string, /does not run jest/);
    assert.match(files('dotenv -e .env.test -- vitest run', 'vitest') as string, /does not run vitest/);
    assert.match(files('cross-env TS_NODE_SKIP_PROJECT=true node ./bin/c8.js mocha test/', 'mocha', 'confirm') as string, /does not run mocha/, "a wrapper's own bin outside node_modules (c8 testing itself)");
  });

  it('adds --no-warn-ignored only where the installed ESLint accepts it: 8.56+ in flat config mode', () => {
    const eslint = (version: string, files: Record<string, string> = {}, env: Record<string, string> = {}): string[] => {
      const d = tree({ 'package.json': JSON.stringify({ scripts: { lint: 'eslint src' } }), 'node_modules/eslint/package.json': JSON.stringify({ name: 'eslint', version }), ...files });
      try {
        return (lintCommand('npm run lint', d.dir, env) as LintCommand).forFiles(['src/a.js']);
      } finally {
        d.cleanup();
      }
    };
    const rc = { '.eslintrc.json': '{}' };
    const flat = { 'eslint.config.js': 'export default [];' };
    assert.deepEqual(eslint('8.57.0', rc), ['eslint', 'src/a.js'], 'ESLint 8 with .eslintrc: eslintrc mode rejects the option');
    assert.deepEqual(eslint('8.57.0', flat), ['eslint', '--no-warn-ignored', 'src/a.js'], 'ESLint 8.57 with eslint.config.js: flat mode');
    assert.deepEqual(eslint('8.57.0', rc, { ESLINT_USE_FLAT_CONFIG: 'true' }), ['eslint', '--no-warn-ignored', 'src/a.js']);
    assert.deepEqual(eslint('8.50.0', flat), ['eslint', 'src/a.js'], 'flat, but before 8.56: no such option');
    assert.deepEqual(eslint('9.39.5', rc, { ESLINT_USE_FLAT_CONFIG: 'false' }), ['eslint', 'src/a.js'], 'ESLint 9 told to use .eslintrc');
    assert.deepEqual(eslint('9.39.5', flat), ['eslint', '--no-warn-ignored', 'src/a.js']);
    assert.deepEqual(eslint('7.32.0', rc), ['eslint', 'src/a.js']);
    const none = tree({ 'package.json': JSON.stringify({ scripts: { lint: 'eslint src' } }) });
    try {
      assert.deepEqual((lintCommand('npm run lint', none.dir, {}) as LintCommand).forFiles(['src/a.js']), ['eslint', 'src/a.js'], 'no ESLint found: nothing assumed');
    } finally {
      none.cleanup();
    }
  });

  it('narrows each runner through its own filter', () => {
    const jest = testCommand('npm test', t.dir, 'jest') as TestCommand;
    assert.deepEqual(jest.related!(['src/a.js']), ['jest', '--ci', '--passWithNoTests', '--findRelatedTests', 'src/a.js']);
    assert.deepEqual(jest.files(['test/a.test.js']), ['jest', '--ci', '--runTestsByPath', 'test/a.test.js']);
    const vitest = testCommand('npx vitest run --reporter verbose', t.dir, 'vitest') as TestCommand;
    assert.deepEqual(vitest.related!(['src/a.ts']), ['npx', 'vitest', 'related', '--run', '--passWithNoTests', '--reporter', 'verbose', 'src/a.ts']);
    assert.deepEqual(vitest.files(['test/a.test.ts']), ['npx', 'vitest', 'run', '--reporter', 'verbose', 'test/a.test.ts']);
    const node = testCommand('npm run nt', t.dir, 'node-test') as TestCommand;
    assert.deepEqual(node.files(['test/a.test.js']), ['node', '--test', '--test-reporter', 'spec', 'test/a.test.js'], 'its own target (test/) replaced');
    assert.deepEqual(node.targets, ['test/']);
    assert.match((testCommand('npm run spec', t.dir, 'mocha') as { reason: string }).reason, /shell/);
    assert.deepEqual((testCommand('jest test/unit', t.dir, 'jest') as TestCommand).targets, ['test/unit'], 'its own path pattern: narrowed within it');
    // A TAP check that is not node-tap (here jest's own script read as TAP) has no file filter of tap's.
    assert.match((testCommand('npm test', t.dir, 'tap') as { reason: string }).reason, /does not run node-tap itself/);
    assert.match((testCommand('npm test', t.dir, 'generic') as { reason: string }).reason, /no file filter/);
  });
});

describe('staged checks: related test files', () => {
  it('finds the test files that import a changed module, directly or through others', () => {
    const t = tree({
      'src/a.ts': "export const a = 1;\n",
      'src/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      'src/c.js': "const x = require('./lib');\nmodule.exports = x;\n",
      'src/lib/index.js': "module.exports = 1;\n",
      'test/b.test.ts': "import { b } from '../src/b.js';\n",
      'test/c.test.js': "const c = require('../src/c');\n",
      'test/other.test.js': "import('../src/unrelated.js');\n",
      'node_modules/x/test/a.test.js': "require('../../../src/a');\n",
    });
    try {
      assert.deepEqual(relatedTestFiles(t.dir, ['src/a.ts']), ['test/b.test.ts'], 'through src/b.ts; node_modules is not looked in');
      assert.deepEqual(relatedTestFiles(t.dir, ['src/lib/index.js']), ['test/c.test.js'], 'a folder import resolves to its index');
      assert.deepEqual(relatedTestFiles(t.dir, ['test/other.test.js']), ['test/other.test.js'], 'a changed test file is its own');
      assert.deepEqual(relatedTestFiles(t.dir, ['README.md']), []);
    } finally {
      t.cleanup();
    }
  });
});

describe('staged checks: targeted flake confirmation', () => {
  const f = (id: string, file = 'test/a.test.js'): Failure => ({ check: 'test', file, id, message: `${id} failed` });
  const attempt = (failures: Failure[], exitCode = failures.length > 0 ? 1 : 0): Attempt => ({ r: { exitCode, signal: null, output: '', truncated: false, timedOut: false, cancelled: false, durationMs: 1, pid: undefined, strays: [] }, failures });

  it('counts a failure seen before without a re-run, a new one that reproduces, and calls one that does not flaky', () => {
    const before = [f('old')];
    const first = attempt([f('old'), f('new'), f('flaky', 'test/b.test.js')]);
    const c = confirmTargeted(first, [attempt([f('new')])], before);
    assert.deepEqual(c.counted.map((x) => x.id), ['old', 'new']);
    assert.deepEqual(c.flaky.map((x) => x.id), ['flaky']);
  });

  it('a green whose fixed test fails on its re-run reports it flaky; a re-run that failed naming no test proves nothing', () => {
    const c = confirmTargeted(attempt([]), [attempt([f('old')])], [f('old')]);
    assert.deepEqual(c.counted, []);
    assert.deepEqual(c.flaky.map((x) => x.id), ['old']);
    const inconclusive = confirmTargeted(attempt([f('new')]), [attempt([], 1)], []);
    assert.deepEqual(inconclusive.counted.map((x) => x.id), ['new']);
    assert.deepEqual(inconclusive.flaky, []);
  });

  it('a run whose only new failure was flaky is shown by the re-run that passed', () => {
    const c = confirmTargeted(attempt([f('new')]), [attempt([])], []);
    assert.deepEqual(c.counted, []);
    assert.equal(c.shown.r.exitCode, 0);
  });
});

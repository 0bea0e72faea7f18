// In-run flake confirmation for Jest and mocha: when Jest's may be used (the project's own
// jest-circus, new enough, and no test runner of the project's own), where the project's runner is
// found (hoisted or nested as pnpm lays it out), mocha's own retry count kept, and what the records
// of a run's retries say. The real runs are in stagedTests.test.ts.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { flakyFromRecords, JestRetry, projectCircusRunner, retriedFailures, setsOwnTestRunner } from '../../../src/core/verify/staged/jestRetry';
import { MochaRetry } from '../../../src/core/verify/staged/mochaRetry';
import { VitestRetry } from '../../../src/core/verify/staged/vitestRetry';
import { tempTree } from '../../support/fixtures';

const tree = (files: Record<string, string>): { dir: string; cleanup(): void } => tempTree(files, 'fug-jest-retry-');

const pkg = (name: string, version: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ name, version, main: 'index.js', ...extra });
const circus = (version: string): Record<string, string> => ({
  'package.json': pkg('jest-circus', version, { exports: { '.': './index.js', './package.json': './package.json', './runner': './build/runner.js' } }),
  'index.js': '',
  'build/runner.js': 'module.exports = async () => ({ testResults: [] });',
});
const under = (prefix: string, files: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(files).map(([k, v]) => [`${prefix}/${k}`, v]));

describe('in-run retries', () => {
  it('finds a hoisted jest-circus next to jest', () => {
    const t = tree({ 'package.json': pkg('app', '1.0.0'), 'node_modules/jest/package.json': pkg('jest', '30.0.0'), 'node_modules/jest/index.js': '', ...under('node_modules/jest-circus', circus('30.1.0')) });
    try {
      const r = projectCircusRunner(t.dir);
      assert.ok('runner' in r, JSON.stringify(r));
      assert.equal(r.version, '30.1.0');
      assert.equal(path.relative(t.dir, r.runner), path.join('node_modules', 'jest-circus', 'build', 'runner.js'));
    } finally {
      t.cleanup();
    }
  });

  it('follows jest → jest-cli → jest-config to a nested jest-circus (a pnpm-like layout)', () => {
    const t = tree({
      'package.json': pkg('app', '1.0.0'),
      'node_modules/jest/package.json': pkg('jest', '29.7.0'),
      'node_modules/jest/index.js': '',
      'node_modules/jest/node_modules/jest-cli/package.json': pkg('jest-cli', '29.7.0'),
      'node_modules/jest/node_modules/jest-cli/index.js': '',
      'node_modules/jest/node_modules/jest-cli/node_modules/jest-config/package.json': pkg('jest-config', '29.7.0'),
      'node_modules/jest/node_modules/jest-cli/node_modules/jest-config/index.js': '',
      ...under('node_modules/jest/node_modules/jest-cli/node_modules/jest-config/node_modules/jest-circus', circus('29.7.0')),
    });
    try {
      const r = projectCircusRunner(t.dir);
      assert.ok('runner' in r, JSON.stringify(r));
      assert.equal(r.version, '29.7.0');
      assert.match(r.runner, /jest-config[\\/]node_modules[\\/]jest-circus[\\/]build[\\/]runner\.js$/);
    } finally {
      t.cleanup();
    }
  });

  it('refuses a jest-circus too old to report retries, and a project without jest', () => {
    const old = tree({ 'package.json': pkg('app', '1.0.0'), 'node_modules/jest/package.json': pkg('jest', '27.5.1'), 'node_modules/jest/index.js': '', ...under('node_modules/jest-circus', circus('27.5.1')) });
    const none = tree({ 'package.json': pkg('app', '1.0.0') });
    try {
      assert.deepEqual(projectCircusRunner(old.dir), { reason: 'jest-circus 27.5.1 does not report retries (29 or later does)' });
      assert.deepEqual(projectCircusRunner(none.dir), { reason: 'the project has no jest package of its own' });
      assert.deepEqual(JestRetry.plan(none.dir, ['jest'], path.join(none.dir, 'st'), 1), { reason: 'the project has no jest package of its own' });
    } finally {
      old.cleanup();
      none.cleanup();
    }
  });

  it('sees a test runner or projects of the project\'s own, in package.json, a config file, the named config or the command', () => {
    const t = tree({
      'plain/package.json': JSON.stringify({ jest: { testEnvironment: 'node' } }),
      'pkg/package.json': JSON.stringify({ jest: { testRunner: 'jest-jasmine2' } }),
      'multi/package.json': JSON.stringify({ jest: { projects: ['a', 'b'] } }),
      'file/package.json': '{}',
      'file/jest.config.ts': "export default { testRunner: 'jest-jasmine2' };",
      'named/package.json': '{}',
      'named/jest.config.js': "module.exports = { testRunner: 'x' };",
      'named/ci.jest.js': 'module.exports = { verbose: true };',
    });
    try {
      assert.equal(setsOwnTestRunner(path.join(t.dir, 'plain'), ['jest']), false);
      assert.equal(setsOwnTestRunner(path.join(t.dir, 'pkg'), ['jest']), true);
      assert.equal(setsOwnTestRunner(path.join(t.dir, 'multi'), ['jest']), true);
      assert.equal(setsOwnTestRunner(path.join(t.dir, 'file'), ['jest', '--ci']), true);
      assert.equal(setsOwnTestRunner(path.join(t.dir, 'named'), ['jest', '-c', 'ci.jest.js']), false, 'only the config the command names is read');
      assert.equal(setsOwnTestRunner(path.join(t.dir, 'named'), ['jest', '--config=jest.config.js']), true);
      assert.equal(setsOwnTestRunner(path.join(t.dir, 'plain'), ['jest', '--testRunner=jest-jasmine2']), true);
      assert.equal(setsOwnTestRunner(path.join(t.dir, 'plain'), ['jest', '--projects', 'a']), true);
    } finally {
      t.cleanup();
    }
  });

  it('is off with flakyReruns 0, and with no records it says nothing (the changed tests are then re-run apart)', () => {
    const t = tree({ 'package.json': pkg('app', '1.0.0'), 'node_modules/jest/package.json': pkg('jest', '30.0.0'), 'node_modules/jest/index.js': '', ...under('node_modules/jest-circus', circus('30.0.0')) });
    try {
      assert.deepEqual(JestRetry.plan(t.dir, ['jest'], path.join(t.dir, 'st'), 0), { reason: 'flakyReruns is 0' });
      const r = JestRetry.plan(t.dir, ['jest', '--ci'], path.join(t.dir, 'st'), 2);
      assert.ok(r instanceof JestRetry);
      assert.deepEqual(r.argv(['jest', '--ci'], []), ['jest', '--ci', '--testRunner', path.join(t.dir, 'st', 'retry-runner.cjs')]);
      const ctx = { check: 'test', root: t.dir, cwd: t.dir, exitCode: 1 };
      assert.equal(r.outcome(ctx), undefined);
      writeFileSync(path.join(t.dir, 'st', 'results', '1.jsonl'), '{"testPath":"/a.test.js","retried":[]}\n');
      assert.deepEqual(r.outcome(ctx), { retried: [], flaky: [] });
      writeFileSync(path.join(t.dir, 'st', 'results', '2.jsonl'), '{"testPath":');
      assert.equal(r.outcome(ctx), undefined, 'a record cut short proves nothing');
      r.argv(['jest'], []);
      assert.equal(r.outcome(ctx), undefined, 'a new run clears the records of the last');
      const known = [
        { file: '/w/a.test.js', id: 'slow › waits', message: 'thrown: "Exceeded timeout of 5000 ms for a test.' },
        { file: '/w/a.test.js', id: 'adds', message: 'expect(received).toBe(expected)' },
      ];
      r.argv(['jest'], known);
      assert.deepEqual(JSON.parse(readFileSync(path.join(t.dir, 'st', 'known.json'), 'utf8')), [{ file: '/w/a.test.js', id: 'slow › waits' }], 'Jest keeps only a timed-out test (and its describe block) from retries');
    } finally {
      t.cleanup();
    }
  });

  it('makes a test that passed on a retry a flaky failure with the id and place the Jest parser gives its failure', () => {
    const root = '/w';
    const records = [
      {
        testPath: '/w/test/a.test.js',
        retried: [
          { ancestorTitles: ['math'], title: 'adds', status: 'passed', invocations: 2, retryReasons: ['Error: expect(received).toBe(expected)\n\nExpected: 3\nReceived: 4\n    at Object.<anonymous> (/w/test/a.test.js:7:19)'], location: null },
          { ancestorTitles: [], title: 'always fails', status: 'failed', invocations: 2, retryReasons: ['Error: no'], location: null },
        ],
      },
      { testPath: '/w/test/b.test.js', retried: [] },
    ];
    const flaky = flakyFromRecords(records, { check: 'test', root, cwd: root, exitCode: 1 });
    assert.equal(flaky.length, 1, 'a test that failed every time is no flake: it counts, from the output');
    assert.equal(flaky[0]!.id, 'math › adds');
    assert.equal(flaky[0]!.file, 'test/a.test.js');
    assert.equal(flaky[0]!.line, 7);
    assert.match(flaky[0]!.message, /Expected: 3/);
    assert.deepEqual(retriedFailures(records, { check: 'test', root, cwd: root, exitCode: 1 }).map((f) => f.id), ['math › adds', 'always fails']);
  });

  it('Vitest: --retry and our reporter beside the default one, or beside the command\'s own; none with a known timeout, an old Vitest, or reporters in the config', () => {
    const t = tree({
      'package.json': pkg('app', '1.0.0'),
      'node_modules/vitest/package.json': pkg('vitest', '3.2.0'),
      'node_modules/vitest/index.js': '',
      'old/package.json': pkg('old', '1.0.0'),
      'old/node_modules/vitest/package.json': pkg('vitest', '2.1.9'),
      'old/node_modules/vitest/index.js': '',
      'own/package.json': pkg('own', '1.0.0'),
      'own/vite.config.ts': "export default { test: { reporters: ['dot'] } };",
    });
    try {
      const r = VitestRetry.plan(t.dir, ['vitest', 'run'], path.join(t.dir, 'st'), 1);
      assert.ok(r instanceof VitestRetry);
      const reporter = `--reporter=${path.join(t.dir, 'st', 'retry-reporter.mjs')}`;
      assert.deepEqual(r.argv(['vitest', 'related', '--run', 'src/a.js'], []), ['vitest', 'related', '--run', 'src/a.js', '--reporter=default', reporter, '--retry=1']);
      assert.deepEqual(r.argv(['vitest', 'run', '--reporter=verbose', '--retry=2'], []), ['vitest', 'run', '--reporter=verbose', '--retry=2', reporter], 'the command\'s reporter and retry count stand');
      assert.deepEqual(r.argv(['vitest', 'run'], [{ file: '/w/a.test.js', id: 'waits', message: 'Error: Test timed out in 5000ms.' }]), ['vitest', 'run'], 'a known timeout: no retries this run');
      assert.deepEqual(VitestRetry.plan(path.join(t.dir, 'old'), ['vitest'], path.join(t.dir, 'st2'), 1), { reason: 'Vitest 2.1.9 has no per-test reporter hook (3 or later has)' });
      assert.deepEqual(VitestRetry.plan(path.join(t.dir, 'own'), ['vitest'], path.join(t.dir, 'st3'), 1), { reason: 'the Vitest config names its own reporters' });
      assert.ok(VitestRetry.plan(path.join(t.dir, 'own'), ['vitest', '--reporter=dot'], path.join(t.dir, 'st3'), 1) instanceof VitestRetry, 'a reporter the command names is kept beside ours');
    } finally {
      t.cleanup();
    }
  });

  it('mocha: --retries and the hook plugin added, the project\'s own retry count kept', () => {
    const t = tree({ 'own.json': JSON.stringify({ retries: 3, spec: [] }), 'none.json': JSON.stringify({ timeout: 100 }) });
    try {
      assert.deepEqual(MochaRetry.plan(path.join(t.dir, 'st'), 0), { reason: 'flakyReruns is 0' });
      const r = MochaRetry.plan(path.join(t.dir, 'st'), 2);
      assert.ok(r instanceof MochaRetry);
      const hook = path.join(t.dir, 'st', 'retry-hooks.cjs');
      assert.deepEqual(r.argv(['mocha', '--config', path.join(t.dir, 'none.json'), 'test/a.js'], []), ['mocha', '--config', path.join(t.dir, 'none.json'), 'test/a.js', '--require', hook, '--retries', '2']);
      assert.deepEqual(r.argv(['mocha', '--config', path.join(t.dir, 'own.json'), 'test/a.js'], []), ['mocha', '--config', path.join(t.dir, 'own.json'), 'test/a.js', '--require', hook]);
      assert.deepEqual(r.argv(['mocha', '--retries=1', 'test/a.js'], []), ['mocha', '--retries=1', 'test/a.js', '--require', hook]);
      const ctx = { check: 'test', root: t.dir, cwd: t.dir, exitCode: 1 };
      writeFileSync(path.join(t.dir, 'st', 'results', '7.jsonl'), [{ ran: true }, { file: path.join(t.dir, 'test/a.js'), id: 's flaky', state: 'passed', retry: 1 }, { file: path.join(t.dir, 'test/a.js'), id: 's bad', state: 'failed', retry: 2 }].map((o) => JSON.stringify(o)).join('\n') + '\n');
      const o = r.outcome(ctx)!;
      assert.deepEqual(o.retried.map((f) => [f.file, f.id]), [['test/a.js', 's flaky'], ['test/a.js', 's bad']]);
      assert.deepEqual(o.flaky.map((f) => [f.file, f.id]), [['test/a.js', 's flaky']]);
      assert.match(o.flaky[0]!.message, /passed on retry 1/);
      r.argv(['mocha'], [{ file: '/w/a.js', id: 's bad', message: 'always' }]);
      assert.deepEqual(JSON.parse(readFileSync(path.join(t.dir, 'st', 'known.json'), 'utf8')), [{ file: '/w/a.js', id: 's bad' }], 'mocha keeps every known failure from retries (it decides per test)');
    } finally {
      t.cleanup();
    }
  });
});

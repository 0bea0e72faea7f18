// Issue 37's shapes, run with the real tools: a package whose `npm test` is a chain of AVA and tsd
// (AVA's own reporter placed test by test, then tsd's type errors at their lines once AVA passes),
// AVA's failures outside a test (a thrown error, an uncaught exception, a file with no tests, a
// timeout), node-tap 21's TAP, and a failure no parser places naming the tool that printed it
// (a coverage gate's too, which no chain step names: fastify-cors's `c8 --100 node --test` then tsd).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Failure } from '../../../src/core/types';
import { discoverChecks } from '../../../src/core/verify/discover';
import { commandTools } from '../../../src/core/verify/infer';
import { parseGeneric } from '../../../src/core/verify/parsers/generic';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';

type Row = [check: string, file: string | undefined, line: number | undefined, id: string | undefined];

const rows = (fs: readonly Failure[]): Row[] =>
  fs.map((f): Row => [f.check, f.file, f.line, f.id]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('project shapes, round four (issue 37)', function () {
  this.timeout(300000);

  it('`ava && tsd`: AVA\'s reporter read test by test at file and line; once AVA passes, tsd\'s type errors at theirs; green when both are', async () => {
    const s = copyFixture('verify/ava-tsd');
    try {
      const edit = (rel: string, from: string, to: string): void => {
        const p = path.join(s.project, rel);
        const text = readFileSync(p, 'utf8');
        assert.ok(text.includes(from), `${rel} holds ${from}`);
        writeFileSync(p, text.replace(from, to));
      };
      const d = discoverChecks(s.project);
      assert.deepEqual(d.checks, [{ name: 'test', command: 'npm test --silent', parser: 'ava' }]);
      assert.match(d.origins.test!.reason, /the test runner in the chain \(`ava` in scripts\.test\)/);
      const v = new Verifier({ root: s.project, checks: d.checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 });
      const v0 = await v.verify();
      assert.deepEqual(rows(v0.failures), [
        ['test', 'test/cents.test.js', 9, 'cents › rounds to the nearest cent'],
        ['test', 'test/format.test.js', 5, 'format › two decimals and the currency'],
        ['test', 'test/format.test.js', 9, 'format › another currency'],
      ]);
      assert.deepEqual(v0.checks[0]!.passed?.map((t) => t.id), ['cents › whole euros'], 'the passing test, by the id it has when it fails');
      assert.match(v0.failures.find((f) => f.line === 5)!.message, /Difference \(- actual, \+ expected\):\n\n- '12\.50EUR'\n\+ '12\.50 EUR'/);
      assert.equal((await v.verify()).failureHash, v0.failureHash, 'one hash over two runs');

      edit('index.js', 'Math.floor(amount * 100)', 'Math.round(amount * 100)');
      edit('index.js', '}${currency}`', '} ${currency}`');
      const v1 = await v.verify();
      // tsd runs once AVA passes: its errors (eslint-formatter-pretty, as xo prints) placed at their lines.
      assert.deepEqual(rows(v1.failures), [['test', 'index.test-d.ts', 5, 'error']]);
      assert.match(v1.failures[0]!.message, /Parameter type string is declared too wide for argument type number|not assignable|string/);

      edit('index.d.ts', 'currency?: string): number;', 'currency?: string): string;');
      const v2 = await v.verify();
      assert.equal(v2.green, true, v2.checks[0]!.output);
    } finally {
      s.cleanup();
    }
  });

  it('AVA outside a test: an error thrown by a helper of the test file at the test\'s call of it, an uncaught exception, a file with no tests, the tests pending at a timeout', async () => {
    const s = copyFixture('verify/ava');
    try {
      const write = (rel: string, text: string): void => writeFileSync(path.join(s.project, rel), text);
      write('test/price.test.js', "import test from 'ava';\n\nfunction price(n) {\n  if (n < 0) throw new TypeError(`negative price: ${n}`);\n  return n.toFixed(2);\n}\n\ntest('throws on a negative', (t) => {\n  price(-1);\n  t.pass();\n});\n");
      write('test/crash.test.js', "import test from 'ava';\n\nsetTimeout(() => {\n  throw new Error('boom outside');\n}, 10);\ntest('waits', async (t) => {\n  await new Promise((r) => setTimeout(r, 300));\n  t.pass();\n});\n");
      write('test/empty.test.js', 'export const x = 1;\n');
      const v = new Verifier({ root: s.project, checks: [{ name: 'test', command: 'ava' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 });
      const r = await v.verify();
      assert.equal(r.checks[0]!.parser, 'ava');
      assert.deepEqual(rows(r.failures), [
        ['test', 'test/crash.test.js', 4, 'Uncaught exception in test/crash.test.js'],
        ['test', 'test/empty.test.js', undefined, 'No tests found in test/empty.test.js'],
        // `price` is a named helper of the test file: its throw is placed where the test called it (class P').
        ['test', 'test/price.test.js', 9, 'price › throws on a negative'],
        ['test', 'test/slug.test.js', 13, 'slug › trims'],
        ['test', 'test/slug.test.js', 5, 'slug › spaces become dashes'],
      ]);
      assert.match(r.failures.find((f) => f.file === 'test/price.test.js')!.message, /TypeError: negative price: -1/);

      write('test/slow.test.js', "import test from 'ava';\n\ntest('slow one', async (t) => {\n  await new Promise((r) => setTimeout(r, 5000));\n  t.pass();\n});\n");
      const slow = await new Verifier({ root: s.project, checks: [{ name: 'test', command: 'ava --timeout=1s test/slow.test.js' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
      assert.deepEqual(rows(slow.failures), [['test', 'test/slow.test.js', 3, 'slow one']], 'found by its title in its file');
    } finally {
      s.cleanup();
    }
  });

  it('node-tap 21 with TypeScript tests: each failed assertion at its line, no run-to-run time in its id (one hash over two runs), green when fixed', async () => {
    const s = copyFixture('verify/node-tap-ts');
    try {
      const d = discoverChecks(s.project);
      assert.deepEqual(d.checks.filter((c) => c.name === 'test'), [{ name: 'test', command: 'npm test --silent', parser: 'tap' }]);
      const v = new Verifier({ root: s.project, checks: [{ name: 'test', command: 'npm test --silent', parser: 'tap' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 });
      const v0 = await v.verify();
      // The file's and the test's own `not ok` (failed by their subtest, with `# time=…`) are not failures of their own.
      assert.deepEqual(rows(v0.failures), [['test', 'test/seconds.test.ts', 9, 'test/seconds.test.ts > hours and minutes > should be equal']]);
      assert.match(v0.failures[0]!.message, /-5400\n\+3780/);
      assert.equal((await v.verify()).failureHash, v0.failureHash, 'one hash over two runs');
      const file = path.join(s.project, 'src', 'duration.ts');
      writeFileSync(file, readFileSync(file, 'utf8').replace("unit === 'm' ? 6 :", "unit === 'm' ? 60 :"));
      const v1 = await v.verify();
      assert.equal(v1.green, true, v1.checks[0]!.output);
    } finally {
      s.cleanup();
    }
  });

  it('a failure no parser places names the tool that printed it, never a bare exit', async () => {
    // A test program no parser reads (uvu has its own parser now): its failure names the program.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-unplaced-'));
    try {
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'unplaced', private: true, scripts: { test: 'node test/run.js' } }));
      mkdirSync(path.join(dir, 'test'));
      writeFileSync(path.join(dir, 'test', 'run.js'), "console.log('checking the totals');\nconsole.log('totals differ: 12.5 vs 12.05');\nprocess.exit(1);\n");
      const r = await new Verifier({ root: dir, checks: [{ name: 'test', command: 'npm test --silent' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
      assert.equal(r.failures.length, 1, JSON.stringify(r.failures));
      assert.match(r.failures[0]!.message, /^node test\/run\.js failed \(exit code 1\); its output ends:\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const ctx = { check: 'test', root: '/nowhere', exitCode: 1 };
    assert.match(parseGeneric('  ✘ [fail]: x\n\n  1 test failed\n', { ...ctx, tools: ['xo', 'ava', 'tsd'] })[0]!.message, /^ava failed \(exit code 1\)/);
    assert.match(parseGeneric('Segmentation fault\n', { ...ctx, tools: ['xo', 'ava', 'tsd'] })[0]!.message, /^one of xo, ava, tsd failed \(exit code 1; the command runs them in turn\)/);
    assert.equal(parseGeneric('oops\n', ctx)[0]!.message, 'oops', 'a command of unknown tools: the tail as it was');
    assert.equal(parseGeneric('', { ...ctx, tools: ['uvu'] })[0]!.message, 'test failed with exit code 1 and no output (uvu)');
    // The tools of a command: its script's chain followed, builds and hooks left out, a launched file named with its launcher.
    assert.deepEqual(commandTools('xo && ava && tsd', '/nowhere'), ['xo', 'ava', 'tsd']);
    assert.deepEqual(commandTools('rimraf dist && node test/run.js && node -e "process.exit(1)"', '/nowhere'), ['node test/run.js']);
  });

  it('a coverage gate that fails a chain is named, not the chain\'s next tool that never ran', async () => {
    // fastify-cors: `unit: c8 --100 node --test` then `types: tsd`. Every test passes, c8 exits 1 on a line no
    // test reaches, `&&` stops before tsd; the one tool left in the chain's names (tsd) must not be blamed.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-covgate-'));
    try {
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'covgate', private: true, scripts: { test: 'npm run unit && npm run types', unit: 'c8 --100 node --test', types: 'tsd' } }));
      writeFileSync(path.join(dir, 'index.js'), "exports.f = (x) => {\n  if (x === 'never') {\n    return 0;\n  }\n  return 1;\n};\n");
      mkdirSync(path.join(dir, 'test'));
      writeFileSync(path.join(dir, 'test', 'f.test.js'), "const test = require('node:test');\nconst assert = require('node:assert');\nconst { f } = require('../index.js');\ntest('f', () => assert.equal(f(1), 1));\n");
      mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(path.resolve('node_modules', 'c8', 'bin', 'c8.js'), path.join(dir, 'node_modules', '.bin', 'c8'));
      const r = await new Verifier({ root: dir, checks: [{ name: 'test', command: 'npm test --silent' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
      assert.equal(r.green, false, r.checks[0]!.output);
      assert.equal(r.failures.length, 1, JSON.stringify(r.failures));
      // Placed at the file and line the coverage table names (./coverageGate.test.ts), tsd nowhere.
      assert.equal(`${r.failures[0]!.file}:${r.failures[0]!.line} ${r.failures[0]!.id}`, 'index.js:3 coverage');
      assert.doesNotMatch(r.failures[0]!.message, /tsd/);
      // Without a table to place it by (a reporter other than text), the gate is named.
      const gate = 'ERROR: Coverage for lines (83.33%) does not meet global threshold (100%)\n';
      assert.match(parseGeneric(gate, { check: 'test', root: dir, exitCode: 1, tools: ['node --test', 'tsd'] })[0]!.message, /^the coverage threshold failed \(exit code 1\); its output ends:\n[\s\S]*does not meet global threshold \(100%\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Jest's own gate (`coverageThreshold`) when Jest's failures are all passes: the same rule.
    const jestGate = 'Test Suites: 1 passed, 1 total\nJest: "global" coverage threshold for lines (80%) not met: 70%\n';
    assert.match(parseGeneric(jestGate, { check: 'test', root: '/nowhere', exitCode: 1, tools: ['tsd'] })[0]!.message, /^the coverage threshold failed/);
  });
});

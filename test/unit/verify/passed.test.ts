// The passing tests a check's output names (verify/parsers/passed.ts): on the real captured outputs
// (test/fixtures/verify/outputs) and small outputs in each runner's shape, each named as the
// runner's failure parser names the same test when it fails, and the failures left as they were.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ParserId, PassedTest } from '../../../src/core/types';
import { failureIdentity } from '../../../src/core/verify/identity';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import { MAX_PASSED_TESTS, passingTests } from '../../../src/core/verify/parsers/passed';
import { checkResult } from '../../../src/core/verify/staged/attempt';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO } from '../../support/fixtures';

interface Capture {
  name: string;
  file: string;
  parser: ParserId;
  root: string;
  exitCode: number;
}

const OUTPUTS = path.join(REPO, 'test', 'fixtures', 'verify', 'outputs');
const captures: Capture[] = JSON.parse(readFileSync(path.join(OUTPUTS, 'index.json'), 'utf8')) as Capture[];
const ROOT = path.resolve('/work/shop');

function passed(parser: ParserId, output: string, opts: { root?: string; truncated?: boolean; stdout?: string } = {}): PassedTest[] {
  const root = opts.root ?? ROOT;
  return passingTests(parser, output, { root, cwd: root, ...(opts.stdout !== undefined ? { stdout: opts.stdout } : {}) }, opts.truncated ?? false).tests;
}

function failureIds(parser: ParserId, output: string, exitCode = 1): string[] {
  return parseOutput(parser, output, { check: 't', root: ROOT, cwd: ROOT, exitCode, readText: () => undefined }).map((f) => f.id ?? '');
}

/** The output with one test's result turned: a failing test of `failing` passes in `passing`. */
function sameTest(parser: ParserId, failing: string, passing: string, id: string): void {
  assert.ok(failureIds(parser, failing).includes(id), `${id} fails in the failing output: ${failureIds(parser, failing).join(' | ')}`);
  assert.ok(passed(parser, passing).some((t) => t.id === id), `${id} passes in the passing output: ${JSON.stringify(passed(parser, passing))}`);
  assert.ok(!passed(parser, failing).some((t) => t.id === id), `${id} is not passed while it fails`);
}

describe('passing tests on captured real outputs', () => {
  const want: Record<string, PassedTest[]> = {
    'mocha-spec': [{ id: 'Queue counts what it holds' }],
    'mocha-spec-color': [{ id: 'Queue counts what it holds' }],
    'mocha-json': [{ id: 'Queue counts what it holds', file: 'test/queue.test.js' }],
    'mocha-tap': [{ id: 'Queue counts what it holds' }],
    'jest-json': [{ id: 'wallet › currency knows the euro', file: '__tests__/wallet.test.js' }],
    // Jest's default reporter lists no test when more than one file ran (not verbose).
    'jest-text': [],
    'vitest-text': [{ id: 'parseReading > reads degrees', file: 'test/temperature.test.js' }],
    'vitest-text-color': [{ id: 'parseReading > reads degrees', file: 'test/temperature.test.js' }],
    'vitest-json': [{ id: 'parseReading > reads degrees', file: 'test/temperature.test.js' }],
    'node-test-tap': [{ id: 'cart > discount takes a percentage off' }, { id: 'slugify keeps digits' }],
    'node-test-spec': [{ id: 'cart > discount takes a percentage off' }, { id: 'slugify keeps digits' }],
    'node-test-spec-color': [{ id: 'cart > discount takes a percentage off' }, { id: 'slugify keeps digits' }],
  };
  for (const [name, tests] of Object.entries(want)) {
    it(`${name}: the passing tests, none of them among the failures, which are as the failure parser gives them`, () => {
      const c = captures.find((x) => x.name === name)!;
      const output = readFileSync(path.join(OUTPUTS, c.file), 'utf8');
      const ctx = { check: 'x', root: c.root, cwd: c.root, exitCode: c.exitCode, readText: () => undefined };
      const before = JSON.stringify(parseOutput(c.parser, output, ctx));
      assert.deepEqual(passed(c.parser, output, { root: c.root }), tests);
      assert.equal(JSON.stringify(parseOutput(c.parser, output, ctx)), before);
      const failing = new Set(parseOutput(c.parser, output, ctx).map((f) => f.id));
      assert.ok(failing.size > 0);
      for (const t of tests) assert.ok(!failing.has(t.id), `${t.id} both passed and failed`);
    });
  }

  it('lists none for a tool that is no test runner', () => {
    const c = captures.find((x) => x.name === 'tsc-plain')!;
    assert.deepEqual(passed('tsc', readFileSync(path.join(OUTPUTS, c.file), 'utf8'), { root: c.root }), []);
  });
});

describe('passing tests named as their failures are', () => {
  it('node:test spec: suites by `▶`, a suite\'s closing `✔` is no test, SKIP and TODO are not passed', () => {
    const fail = ['▶ cart', '  ✖ adds tax (1.2ms)', '    AssertionError [ERR_ASSERTION]: 1 !== 2', '        at TestContext.<anonymous> (test/cart.test.js:5:12)', '  ✔ sums lines (0.3ms)', '✖ cart (2ms)', '✔ top level (0.1ms)', '﹣ later (0.1ms) # SKIP', 'ℹ tests 4', 'ℹ fail 1'].join('\n');
    const pass = ['▶ cart', '  ✔ adds tax (1.2ms)', '  ✔ sums lines (0.3ms)', '✔ cart (2ms)', '✔ top level (0.1ms)', '✔ maybe (0.1ms) # TODO', 'ℹ tests 4', 'ℹ fail 0'].join('\n');
    assert.deepEqual(passed('node-test', fail), [{ id: 'cart > sums lines' }, { id: 'top level' }]);
    assert.deepEqual(passed('node-test', pass), [{ id: 'cart > adds tax' }, { id: 'cart > sums lines' }, { id: 'top level' }]);
    sameTest('node-test', fail, pass, 'cart > adds tax');
  });

  it('node:test TAP: `ok N - name` under its subtests, with the file of its location; a passing suite is no test', () => {
    const tap = (ok: boolean): string =>
      ['TAP version 13', '# Subtest: cart', '    # Subtest: adds tax', `    ${ok ? 'ok' : 'not ok'} 1 - adds tax`, '      ---', '      duration_ms: 1.1', `      location: '${ROOT}/test/cart.test.js:4:3'`, ...(ok ? [] : ["      failureType: 'testCodeFailure'", "      error: '1 !== 2'"]), '      ...', '    1..1', `${ok ? 'ok' : 'not ok'} 1 - cart`, '  ---', '  duration_ms: 2', "  type: 'suite'", ...(ok ? [] : ["  failureType: 'subtestsFailed'"]), '  ...', '1..1', '# tests 1', `# fail ${ok ? 0 : 1}`].join('\n');
    assert.deepEqual(passed('node-test', tap(true)), [{ id: 'cart > adds tax', file: 'test/cart.test.js' }]);
    assert.deepEqual(passed('node-test', tap(false)), []);
    sameTest('node-test', tap(false), tap(true), 'cart > adds tax');
  });

  it('TAP (tape): `ok` lines, not `# SKIP` ones', () => {
    const out = (ok: boolean): string => ['TAP version 13', '# sums', `${ok ? 'ok' : 'not ok'} 1 should be equal`, ...(ok ? [] : ['  ---', '    operator: equal', '    expected: 2', '    actual: 1', '  ...']), 'ok 2 adds one', 'ok 3 later # SKIP', '', '1..3', `# tests 3`, `# pass  ${ok ? 3 : 2}`].join('\n');
    assert.deepEqual(passed('tap', out(true)), [{ id: 'should be equal' }, { id: 'adds one' }]);
    sameTest('tap', out(false), out(true), 'should be equal');
  });

  it('mocha spec: `✔ name` under its suites (console output at the margin is no suite), joined as the epilogue names failures', () => {
    const fail = ['', '  Queue', 'log line from a test', '    1) pops in order', '    ✔ counts (2ms)', '    peek', '      ✔ shows the head', '    - pending one', '', '  2 passing (5ms)', '  1 pending', '  1 failing', '', '  1) Queue', '       pops in order:', '     AssertionError [ERR_ASSERTION]: 1 == 2', '      at Context.<anonymous> (test/queue.test.js:9:12)', ''].join('\n');
    const pass = ['', '  Queue', '    ✔ pops in order', '    ✓ counts (2ms)', '    peek', '      ✔ shows the head', '', '  3 passing (5ms)', ''].join('\n');
    assert.deepEqual(passed('mocha', fail), [{ id: 'Queue counts' }, { id: 'Queue peek shows the head' }]);
    sameTest('mocha', fail, pass, 'Queue pops in order');
  });

  it('Jest verbose text: `✓ name (N ms)` under its file and suites, joined with ` › `', () => {
    const fail = ['FAIL src/money.test.ts', '  money', '    ✕ formats euros (3 ms)', '    ✓ formats dollars (1 ms)', '    nested', '      ✓ rounds', '  ✓ top level (1 ms)', '  ○ skipped later', '', '  ● money › formats euros', '', '    expect(received).toBe(expected) // Object.is equality', '', '    Expected: "12.05 EUR"', '    Received: "12.5 EUR"', '', '      at Object.<anonymous> (src/money.test.ts:4:13)', '', 'Test Suites: 1 failed, 1 total', 'Tests:       1 failed, 3 passed, 4 total'].join('\n');
    const pass = ['PASS src/money.test.ts (1.2 s)', '  money', '    ✓ formats euros (3 ms)', '    ✓ formats dollars (1 ms)', '', 'Test Suites: 1 passed, 1 total', 'Tests:       2 passed, 2 total'].join('\n');
    assert.deepEqual(passed('jest', fail), [
      { id: 'money › formats dollars', file: 'src/money.test.ts' },
      { id: 'money › nested › rounds', file: 'src/money.test.ts' },
      { id: 'top level', file: 'src/money.test.ts' },
    ]);
    sameTest('jest', fail, pass, 'money › formats euros');
  });

  it('Vitest text: `✓ file > suite > name` (verbose) and the tree under a file\'s line', () => {
    const verbose = [' RUN  v2.1.8 /work/shop', '', ' ✓ src/a.test.ts > sum > adds 1ms', ' × src/a.test.ts > sum > carries 2ms', '   → expected 3 to be 4', ' ↓ src/a.test.ts > sum > later', '', ' Test Files  1 failed (1)', '      Tests  1 failed | 1 passed | 1 skipped (3)'].join('\n');
    assert.deepEqual(passed('vitest', verbose), [{ id: 'sum > adds', file: 'src/a.test.ts' }]);
    const tree = (ok: boolean): string =>
      [' RUN  v3.2.7 /work/shop', '', ` ${ok ? '✓' : '❯'} src/a.test.ts (2 tests${ok ? '' : ' | 1 failed'}) 5ms`, `   ${ok ? '✓' : '×'} sum > carries 2ms`, '   ✓ sum > adds 1ms', ' ✓ src/b.test.ts (4 tests) 3ms', '', ...(ok ? [] : ['⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯', '', ' FAIL  src/a.test.ts > sum > carries', 'AssertionError: expected 3 to be 4', ' ❯ src/a.test.ts:7:15', '', '⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯', '']), ` Test Files  ${ok ? '2 passed' : '1 failed | 1 passed'} (2)`].join('\n');
    assert.deepEqual(passed('vitest', tree(false)), [{ id: 'sum > adds', file: 'src/a.test.ts' }]);
    sameTest('vitest', tree(false), tree(true), 'sum > carries');
  });

  it('Jest JSON from stdout: each passed assertion, with its file', () => {
    const json = JSON.stringify({ numFailedTests: 0, testResults: [{ name: `${ROOT}/src/a.test.ts`, assertionResults: [{ ancestorTitles: ['sum'], title: 'adds', status: 'passed' }, { ancestorTitles: [], title: 'later', status: 'pending' }] }] });
    assert.deepEqual(passed('jest', 'npm chatter', { stdout: json }), [{ id: 'sum › adds', file: 'src/a.test.ts' }]);
    assert.deepEqual(passed('vitest', json), [{ id: 'sum > adds', file: 'src/a.test.ts' }]);
  });
});

describe('passing tests: bounds', () => {
  it('reads no text report cut in the middle, but a whole JSON report whatever the cut', () => {
    const spec = ['▶ cart', '  ✔ adds tax (1.2ms)', '✔ cart (2ms)', 'ℹ tests 1'].join('\n');
    assert.deepEqual(passed('node-test', spec, { truncated: true }), []);
    assert.deepEqual(passed('node-test', spec), [{ id: 'cart > adds tax' }]);
    const json = JSON.stringify({ numFailedTests: 0, testResults: [{ name: `${ROOT}/a.test.ts`, assertionResults: [{ title: 'adds', status: 'passed' }] }] });
    assert.deepEqual(passed('jest', json, { truncated: true }), [{ id: 'adds', file: 'a.test.ts' }]);
  });

  it(`keeps at most ${MAX_PASSED_TESTS} and says so; lists a test printed twice once`, () => {
    const lines = ['TAP version 13', 'ok 1 - same', 'ok 2 - same', ...Array.from({ length: MAX_PASSED_TESTS + 5 }, (_, i) => `ok ${i + 3} - t${i}`), '# tests 1'];
    const r = passingTests('tap', lines.join('\n'), { root: ROOT }, false);
    assert.equal(r.tests.length, MAX_PASSED_TESTS);
    assert.equal(r.capped, true);
    assert.deepEqual(r.tests.slice(0, 2), [{ id: 'same' }, { id: 't0' }]);
    assert.equal(passingTests('tap', lines.slice(0, 10).join('\n'), { root: ROOT }, false).capped, false);
  });
});

describe('passing tests in a check\'s result', () => {
  const r = { exitCode: 1, signal: null, output: '', truncated: false, timedOut: false, cancelled: false, durationMs: 5, pid: undefined, strays: [] };
  const spec = { name: 'test', command: 'node --test' };

  it('keeps the shown run\'s passing tests, leaving out any that counts as failing or flaky, and says when capped', () => {
    const fail = { check: 'test', id: 'cart > adds tax', message: 'failed' };
    const flake = { check: 'test', id: 'slow one', message: 'timed out' };
    const shown = { r, failures: [fail], passed: { tests: [{ id: 'cart > sums' }, { id: 'slow one' }, { id: 'cart > adds tax' }], capped: true } };
    const c = checkResult(spec, 'node-test', { attempts: [shown], counted: [fail], flaky: [flake], shown }, 'full');
    assert.deepEqual(c.passed, [{ id: 'cart > sums' }]);
    assert.equal(c.passedCapped, true);
    assert.deepEqual(c.failures, [fail]);
  });

  it('has no passed list when the run named none', () => {
    const shown = { r, failures: [] };
    const c = checkResult(spec, 'node-test', { attempts: [shown], counted: [], flaky: [], shown }, 'full');
    assert.equal('passed' in c, false);
    assert.equal('passedCapped' in c, false);
  });
});

describe('passing tests through the verifier (node --test)', function () {
  this.timeout(60000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-passed-'));
    mkdirSync(path.join(dir, 'test'));
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(dir, 'test', 'cart.test.js'), "import test, { describe } from 'node:test';\nimport assert from 'node:assert/strict';\ndescribe('cart', () => {\n  test('sums lines', () => assert.equal(1 + 1, 2));\n  test('adds tax', () => assert.equal(1, 2));\n});\ntest('top level', () => {});\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the check\'s result lists the passing tests; the failures, the identity and the verdict are the failure parser\'s', async () => {
    const r = await new Verifier({ root: dir, checks: [{ name: 'test', command: 'node --test' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
    const c = r.checks[0]!;
    assert.deepEqual(r.failures.map((f) => f.id), ['cart > adds tax']);
    assert.deepEqual((c.passed ?? []).map((t) => t.id).sort(), ['cart > sums lines', 'top level']);
    assert.equal(r.green, false);
    assert.equal(r.failureHash, failureIdentity(r.failures, { root: dir }));
    const again = parseOutput('node-test', c.output, { check: 'test', root: dir, cwd: dir, exitCode: c.exitCode });
    assert.deepEqual(again.map((f) => f.id), ['cart > adds tax']);
  });
});

// What Test Results shows of a test run (src/vscode/common/testOutput.ts): the checks' own output,
// CRLF for VS Code's terminal, the lines a runner wrote under a test's name given to that test; and
// the verification of a run's stop found again among those the run made (its output and passing
// tests are the ones shown). The outputs are real node:test runs (TAP and spec reporters).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Failure, VerifyResult } from '../../../src/core/types';
import { MAX_KEPT_FAILURES } from '../../../src/vscode/common/runState';
import { checkHeading, crlf, keepVerifications, observedVerifier, outputBlocks, verificationOf } from '../../../src/vscode/common/testOutput';

const TESTS = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "test('adds', () => { assert.equal(1 + 1, 2); });",
  "test('adds twice', () => { console.log('adding twice'); assert.equal(2 + 2, 5); });",
  "test('parsePrice reads dollars', () => { assert.equal('4.50', 4.5); });",
  '',
].join('\n');
const NAMED = ['adds', 'adds twice', 'parsePrice reads dollars'].map((n) => ({ key: `test::${n}`, names: [n] }));

/** The output node:test prints for TESTS with `reporter` (it exits 1: two tests fail). */
function nodeTest(reporter: 'tap' | 'spec'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-test-output-'));
  try {
    writeFileSync(path.join(dir, 'cart.test.mjs'), TESTS);
    try {
      execFileSync(process.execPath, ['--test', `--test-reporter=${reporter}`, 'cart.test.mjs'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      return (e as { stdout: string }).stdout;
    }
    throw new Error('node:test passed: two of its tests should fail');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const f = (id: string, message = `${id} failed`): Failure => ({ check: 'test', id, file: 'test/a.test.ts', line: 3, message });
const verification = (failures: Failure[], output = ''): VerifyResult => ({ green: failures.length === 0, failures, flaky: [], failureHash: failures.map((x) => x.id).join(','), durationMs: 1, checks: [{ name: 'test', command: 'node --test', exitCode: failures.length > 0 ? 1 : 0, durationMs: 1, timedOut: false, cancelled: false, output, truncated: false, failures, flaky: [] }] });

describe("a test run's output", function () {
  this.timeout(30000);

  for (const reporter of ['tap', 'spec'] as const) {
    it(`gives each test the lines node:test's ${reporter} reporter wrote under its name, each line once, the summary to none`, () => {
      const out = nodeTest(reporter);
      const blocks = outputBlocks(out, NAMED);
      assert.equal(blocks.map((b) => b.text).join(''), out.endsWith('\n') ? out : `${out}\n`, 'every line, once, in order');
      const of = (key: string): string => blocks.filter((b) => b.test === key).map((b) => b.text).join('');
      assert.match(of('test::adds twice'), /adds twice[\s\S]*4 !== 5/, 'the failing test holds its assertion');
      assert.match(of('test::parsePrice reads dollars'), /'4\.50' !== 4\.5/);
      assert.doesNotMatch(of('test::parsePrice reads dollars'), /4 !== 5/, "not another test's lines");
      // The longest name wins: `adds` does not take `adds twice`'s lines.
      assert.match(of('test::adds'), /adds/);
      assert.doesNotMatch(of('test::adds'), /adds twice|4 !== 5/);
      const none = blocks.filter((b) => b.test === undefined).map((b) => b.text).join('');
      assert.match(none, /(#|ℹ) tests 3/, "the runner's summary belongs to no test");
    });
  }

  it('is CRLF throughout (VS Code writes it to a terminal), whatever the output used', () => {
    assert.equal(crlf('a\nb\r\nc\n'), 'a\r\nb\r\nc\r\n');
    assert.doesNotMatch(crlf(nodeTest('tap')), /[^\r]\n/);
  });

  it('heads each check with its command and how it ended', () => {
    const c = { name: 'test', command: 'node --test', exitCode: 1, timedOut: false, cancelled: false, truncated: false };
    assert.equal(checkHeading(c), '── test: node --test (exit code 1) ──');
    assert.match(checkHeading({ ...c, timedOut: true }), /\(timed out\)/);
    assert.match(checkHeading({ ...c, exitCode: null }), /did not start/);
    assert.match(checkHeading({ ...c, truncated: true }), /its output was cut/);
  });
});

describe("the verification of a run's stop", () => {
  it('is the newest the run made whose failures the state shows (the state keeps a copy, at most MAX_KEPT_FAILURES)', () => {
    const a = verification([f('one'), f('two')], 'first');
    const b = verification([f('one')], 'second');
    const c = verification([f('one'), f('two')], 'third');
    assert.equal(verificationOf([f('one'), f('two')], [a, b]), a);
    assert.equal(verificationOf([f('one'), f('two')], [a, b, c]), c, 'the newest of equal states');
    assert.equal(verificationOf([f('one')], [a, c]), undefined, 'a state with fewer failures is another state');
    assert.equal(verificationOf([], [a, b]), undefined);
    const green = verification([]);
    assert.equal(verificationOf([], [a, green, b]), green);
    assert.equal(verificationOf([f('one', 'another message')], [b]), undefined);
    const many = verification(Array.from({ length: MAX_KEPT_FAILURES + 3 }, (_, i) => f(`t${i}`)));
    assert.equal(verificationOf(many.failures.slice(0, MAX_KEPT_FAILURES), [many]), many, 'a state cut to its first failures');
  });

  it('keeps a bounded few, always the one with the fewest failures', () => {
    let kept: VerifyResult[] = [];
    const best = verification([f('one')], 'best');
    kept = keepVerifications(kept, verification([f('one'), f('two')]), 3);
    kept = keepVerifications(kept, best, 3);
    for (let i = 0; i < 5; i++) kept = keepVerifications(kept, verification([f('one'), f('two'), f(`x${i}`)]), 3);
    assert.equal(kept.length, 3);
    assert.ok(kept.includes(best), 'the fewest failures stays');
    assert.deepEqual(kept.slice(1).map((v) => v.failures[2]!.id), ['x3', 'x4'], 'then the newest');
  });

  it("is seen through the run's verifier, which passes everything else through", async () => {
    const seen: VerifyResult[] = [];
    const v = verification([f('one')], 'out');
    let warmed = 0;
    const port = observedVerifier({ preflight: () => ['p'], verify: async () => v, warm: async () => void warmed++ }, (x) => seen.push(x));
    assert.deepEqual(await port.preflight(), ['p']);
    assert.equal(await port.verify(), v);
    await port.warm!();
    assert.deepEqual(seen, [v]);
    assert.equal(warmed, 1);
    assert.equal(port.release, undefined, 'no release where the verifier has none');
  });
});

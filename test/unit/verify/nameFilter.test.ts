// Confirmation re-runs by the failing tests' names (issue 39): a failing test is re-run alone, by
// the runner's own name filter over its file (node --test-name-pattern here, a real node:test
// project), its title escaped; where the filter selects nothing (a subtest node 20 does not reach by
// its own name) or the test does not fail again there, its file runs as before. The verdict is the
// one the whole re-run gives.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckSpec, Logger, VerifyResult } from '../../../src/core/types';
import type { TestCommand } from '../../../src/core/verify/staged/commands';
import { literalPattern, nameFilterArgv } from '../../../src/core/verify/staged/commands';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const TEST: CheckSpec = { name: 'test', command: 'node --test', parser: 'node-test' };

describe('confirmation by the failing tests\' names', function () {
  this.timeout(120_000);
  let s: Scratch;
  beforeEach(() => (s = copyFixture('verify/nameFilter')));
  afterEach(() => s.cleanup());

  async function verifyOnce(staged: boolean): Promise<{ r: VerifyResult; commands: string[]; ran: string[] }> {
    const log = path.join(s.dir, `ran-${staged}.log`);
    rmSync(log, { force: true });
    const commands: string[] = [];
    const logger: Logger = { ...silent(), debug: (m: string) => (/^check test: (?!exit)/.test(m) ? commands.push(m.replace('check test: ', '')) : undefined) };
    const v = new Verifier({ root: s.project, checks: [TEST], parallel: false, outputLimitKb: 256, flakyReruns: 1, staged, logger, env: { PRICE_RAN_LOG: log } });
    const r = await v.verify();
    await v.release();
    return { r, commands, ran: existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [] };
  }
  const keys = (r: VerifyResult, k: 'failures' | 'flaky'): string[] => r[k].map((f) => `${f.file}:${f.id}`).sort();

  it('re-runs the failing test alone, its title escaped, and decides as the whole re-run does', async () => {
    const whole = await verifyOnce(false);
    const named = await verifyOnce(true);
    assert.deepEqual(named.commands, ['node --test', 'node --test-name-pattern=price \\(a\\+b\\) \\[rate\\]\\? \\* 1\\.5 --test test/price.test.js']);
    // The re-run ran that test alone; the whole re-run ran every test again.
    assert.deepEqual(named.ran, ['regex', 'keeps', 'nested', 'regex']);
    assert.equal(whole.ran.length, 6);
    assert.deepEqual(keys(named.r, 'failures'), ['test/price.test.js:price (a+b) [rate]? * 1.5']);
    assert.deepEqual(keys(named.r, 'failures'), keys(whole.r, 'failures'));
    assert.deepEqual(keys(named.r, 'flaky'), []);
    assert.equal(named.r.failureHash, whole.r.failureHash);
  });

  it('runs the file where the name filter selects nothing: the failure still counts, as in the whole re-run', async () => {
    const file = path.join(s.project, 'test', 'price.test.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Math.max(0, price(10, -2))', 'price(10, -2)'));
    const whole = await verifyOnce(false);
    const named = await verifyOnce(true);
    assert.equal(named.commands.length, 4, named.commands.join('\n'));
    assert.match(named.commands[1]!, /^node --test-name-pattern=.*never below zero.* --test test\/price\.test\.js$/);
    assert.match(named.commands[2]!, /name-filtered re-run; re-run by their files/);
    assert.equal(named.commands[3], 'node --test test/price.test.js');
    assert.deepEqual(keys(named.r, 'failures'), ['test/price.test.js:discounts > never below zero', 'test/price.test.js:price (a+b) [rate]? * 1.5']);
    assert.deepEqual(keys(named.r, 'failures'), keys(whole.r, 'failures'));
    assert.deepEqual(keys(named.r, 'flaky'), keys(whole.r, 'flaky'));
    assert.equal(named.r.failureHash, whole.r.failureHash);
  });

  it('gives each runner its own filter, keeps a command\'s own, and escapes titles', () => {
    const cmd = (runner: TestCommand['runner'], argv: string[]): TestCommand => ({ runner, argv, targets: [], files: (f) => [...argv, ...f] });
    assert.equal(literalPattern('a.b (c) [d]? e+ f* ^$ | / \\'), 'a\\.b \\(c\\) \\[d\\]\\? e\\+ f\\* \\^\\$ \\| \\/ \\\\');
    assert.deepEqual(nameFilterArgv(cmd('jest', ['jest']), ['jest', '--runTestsByPath', 'a.test.ts'], ['sum › adds (1+1)', 'other']), ['jest', '--runTestsByPath', 'a.test.ts', '-t', 'sum adds \\(1\\+1\\)|other']);
    assert.deepEqual(nameFilterArgv(cmd('vitest', ['vitest']), ['vitest', 'run', 'a.test.ts'], ['sum > adds']), ['vitest', 'run', 'a.test.ts', '-t', 'sum adds']);
    assert.deepEqual(nameFilterArgv(cmd('mocha', ['mocha']), ['mocha', 'a.test.js'], ['sum adds']), ['mocha', 'a.test.js', '--grep', 'sum adds']);
    assert.deepEqual(nameFilterArgv(cmd('tap', ['tap']), ['tap', 'a.test.js'], ['adds?']), ['tap', 'a.test.js', '--grep=adds\\?']);
    // A nested tap test: tap filters level by level, and one pattern cannot say which level.
    assert.equal(nameFilterArgv(cmd('tap', ['tap']), ['tap', 'a.test.js'], ['sum > adds']), undefined);
    // The command's own name filter is kept: none is added.
    assert.equal(nameFilterArgv(cmd('jest', ['jest', '-t', 'x']), ['jest', '-t', 'x', 'a.test.ts'], ['y']), undefined);
    assert.equal(nameFilterArgv(cmd('mocha', ['mocha', '--grep=x']), ['mocha', '--grep=x', 'a.js'], ['y']), undefined);
    assert.equal(nameFilterArgv(cmd('node-test', ['node', '--test-name-pattern=x', '--test']), ['node', '--test-name-pattern=x', '--test', 'a.js'], ['y']), undefined);
    // No title known: no filter.
    assert.equal(nameFilterArgv(cmd('jest', ['jest']), ['jest', 'a.test.ts'], ['Test suite failed to run']), undefined);
  });
});

function silent(): Logger {
  const none = (): void => undefined;
  return { debug: none, info: none, warn: none, error: none } as Logger;
}

// A failing test check is confirmed by its runner alone, on the failing tests' files (issue 39): a
// chained test script (`node lint.mjs && node --test`) no longer repeats its lint, and the verdict
// (identity, counted failures, flakes) is the one the whole re-run gives.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CheckSpec, Logger, VerifyResult } from '../../../src/core/types';
import { chainRunnerCommand } from '../../../src/core/verify/staged/commands';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const TEST: CheckSpec = { name: 'test', command: 'npm test' };

describe('confirmation by the runner alone', function () {
  this.timeout(180_000);
  let s: Scratch;
  let scratch: string;
  beforeEach(() => {
    s = copyFixture('verify/chainConfirm');
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fug-chain-'));
  });
  afterEach(() => {
    s.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function verifyOnce(staged: boolean, tag: string): Promise<{ r: VerifyResult; lints: number; commands: string[] }> {
    const lintLog = path.join(scratch, `${tag}.lint`);
    const state = path.join(scratch, tag);
    rmSync(state, { recursive: true, force: true });
    mkdirSync(state);
    const commands: string[] = [];
    const logger: Logger = { ...silent(), debug: (m: string) => (/^check test: (?!exit)/.test(m) ? commands.push(m.replace('check test: ', '')) : undefined) };
    const v = new Verifier({ root: s.project, checks: [TEST], parallel: false, outputLimitKb: 256, flakyReruns: 1, staged, logger, env: { CHAIN_LINT_LOG: lintLog, FLAKY_STATE: state } });
    const r = await v.verify();
    await v.release();
    const lints = existsSync(lintLog) ? readFileSync(lintLog, 'utf8').trim().split('\n').length : 0;
    return { r, lints, commands };
  }

  it('re-runs only the failing test files with the runner alone, and decides as the whole re-run does', async () => {
    const whole = await verifyOnce(false, 'whole');
    const alone = await verifyOnce(true, 'alone');
    // The whole re-run repeats the chain's lint; the runner alone does not.
    assert.equal(whole.lints, 2);
    assert.equal(alone.lints, 1);
    const ran = alone.commands.filter((c) => !c.startsWith('the tests named'));
    assert.equal(ran.length, 2, alone.commands.join('\n'));
    assert.equal(ran[0], 'npm test');
    assert.ok(ran.every((c) => !/lint/.test(c)));
    // By the tests' names: the runner reports the flaky one passed there, a real re-run that calls it
    // flaky (as its file's re-run would); no test went unselected, so no file runs again.
    assert.match(ran[1]!, /^node --test-name-pattern=(flaky settles|sum adds)\|(flaky settles|sum adds) --test test\/(flaky|sum)\.test\.js test\/(flaky|sum)\.test\.js$/);
    // The same verdict: identity, counted failures, flakes.
    const keys = (r: VerifyResult, k: 'failures' | 'flaky'): string[] => r[k].map((f) => `${f.file}:${f.id}`).sort();
    assert.equal(alone.r.failureHash, whole.r.failureHash);
    assert.deepEqual(keys(alone.r, 'failures'), ['test/sum.test.js:sum adds']);
    assert.deepEqual(keys(alone.r, 'failures'), keys(whole.r, 'failures'));
    assert.deepEqual(keys(alone.r, 'flaky'), ['test/flaky.test.js:flaky settles']);
    assert.deepEqual(keys(alone.r, 'flaky'), keys(whole.r, 'flaky'));
    assert.equal(alone.r.green, whole.r.green);
  });

  it('finds the one step of a chain that runs the runner, and says why where there is none or more', () => {
    const ok = chainRunnerCommand('npm test', s.project, 'node-test');
    assert.ok(!('reason' in ok));
    assert.deepEqual(ok.files(['test/a.test.js']), ['node', '--test', 'test/a.test.js']);
    assert.ok(!('reason' in chainRunnerCommand('node lint.mjs && node --test', s.project, 'node-test')));
    assert.match((chainRunnerCommand('node --test', s.project, 'node-test') as { reason: string }).reason, /not a chain/);
    assert.match((chainRunnerCommand('node lint.mjs || node --test', s.project, 'node-test') as { reason: string }).reason, /not a chain of plain steps/);
    assert.match((chainRunnerCommand('node --test a && node --test b', s.project, 'node-test') as { reason: string }).reason, /2 steps of the chain/);
    assert.match((chainRunnerCommand('node lint.mjs && node x.js', s.project, 'node-test') as { reason: string }).reason, /no step of the chain runs node-test/);
    assert.match((chainRunnerCommand('npm test -- --x', s.project, 'node-test') as { reason: string }).reason, /passes arguments/);
  });
});

function silent(): Logger {
  const none = (): void => undefined;
  return { debug: none, info: none, warn: none, error: none } as Logger;
}

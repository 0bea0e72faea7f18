// Issue 37, item 7: node-tap checks narrowed as the other runners' are. A real node-tap project (the
// staged fixture's shape): a step runs the failing and related test files (`tap FILE…`, coverage off
// for the part), then the full suite decides green; a step that breaks a test stops at its file.
// Each test file logs its loading to `.ran`, which is what the assertions read.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { VerifyResult } from '../../../src/core/types';
import { testCommand } from '../../../src/core/verify/staged/commands';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

describe('staged tests: node-tap', function () {
  this.timeout(300000);
  let s: Scratch;
  let v: Verifier;
  const file = (rel: string): string => path.join(s.project, rel);
  const ran = (): string[] => {
    const log = file('.ran');
    const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
    rmSync(log, { force: true });
    return lines;
  };
  const edit = (rel: string, from: string, to: string): void => {
    const text = readFileSync(file(rel), 'utf8');
    assert.ok(text.includes(from), `${rel} holds ${from}`);
    writeFileSync(file(rel), text.replace(from, to));
  };
  const rows = (r: VerifyResult): string[] => r.failures.map((f) => `${f.file}:${f.line} ${f.id ?? ''}`).sort();

  beforeEach(() => {
    s = copyFixture('staged/tap');
    v = new Verifier({ root: s.project, checks: [{ name: 'test', command: 'npm test --silent' }], parallel: false, outputLimitKb: 256, flakyReruns: 1, staged: true, storageDir: s.storage });
  });
  afterEach(async () => {
    await v.release();
    s.cleanup();
  });

  it('the command narrowed: node-tap\'s own flags kept, its targets replaced, coverage off for a part; other TAP producers are not tap', () => {
    const cmd = testCommand('tap --reporter tap --jobs 1 test/', s.project, 'tap');
    assert.ok(!('reason' in cmd), JSON.stringify(cmd));
    assert.deepEqual(cmd.files(['test/math.test.js']), ['tap', '--reporter', 'tap', '--jobs', '1', '--disable-coverage', 'test/math.test.js']);
    assert.deepEqual(cmd.targets, ['test/']);
    const npm = testCommand('npm test --silent', s.project, 'tap');
    assert.ok(!('reason' in npm));
    assert.deepEqual(npm.files(['a.test.js']), ['tap', '--disable-coverage', 'a.test.js']);
    assert.match((testCommand('ava --tap', s.project, 'tap') as { reason: string }).reason, /does not run node-tap itself/);
    assert.match((testCommand('tap --changed', s.project, 'tap') as { reason: string }).reason, /selects its own tests/);
    assert.match((testCommand('tap replay', s.project, 'tap') as { reason: string }).reason, /tap replay/);
  });

  it('a step that fixes the failing test runs that file alone, then the full suite, green only then; one that breaks a test stops at its file', async () => {
    const v0 = await v.verify(undefined, { previous: null });
    assert.deepEqual(rows(v0), ['test/math.test.js:7 test/math.test.js > add adds > should be equal']);
    assert.equal(v0.checks[0]!.mode, 'full');
    ran();

    edit('src/math.js', 'a - b', 'a + b');
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/math.js'] });
    assert.equal(v1.green, true, v1.checks[0]!.output);
    const order = ran();
    assert.equal(order[0], 'math', `the targeted run: the failing file (related to the change) alone: ${order.join(',')}`);
    assert.deepEqual(order.slice(1).sort(), ['flaky', 'math', 'text'], `then the whole suite: ${order.join(',')}`);

    edit('src/text.js', "+ '!'", "+ '?'");
    const v2 = await v.verify(undefined, { previous: v1, changed: ['src/text.js'] });
    assert.equal(v2.green, false);
    assert.deepEqual(rows(v2), ['test/text.test.js:7 test/text.test.js > shout shouts > should be equal']);
    const c = v2.checks[0]!;
    assert.equal(c.mode, 'targeted', c.stagedNote);
    assert.deepEqual(ran(), ['text', 'text'], 'only the related test file, then its re-run (node-tap has no in-run retry here)');
  });
});

// Issue 37, item 7: node-tap checks narrowed as the other runners' are. A real node-tap project (the
// staged fixture's shape): a step runs the failing and related test files (`tap FILE…`, coverage off
// for the part), then the full suite decides green; a step that breaks a test stops at its file.
// Each test file logs its loading to `.ran`, which is what the assertions read.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { VerifyResult } from '../../../src/core/types';
import { testCommand } from '../../../src/core/verify/staged/commands';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { scratchFiles } from '../../support/scratchFiles';

describe('staged tests: node-tap', function () {
  this.timeout(300000);
  let s: Scratch;
  let v: Verifier;
  const { ran, edit } = scratchFiles(() => s.project);
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

// The exact shape: TypeScript tests and a `tshy` build as `pretest` (npm runs it before
// `tap`). The build runs first, through npm as the command runs it, then tap alone on the files;
// a build that fails sends the check to its full run, which stops at the build as the command does.
describe('staged tests: node-tap behind a tshy pretest', function () {
  this.timeout(300000);
  let s: Scratch;
  let v: Verifier;
  const { file, ran, edit } = scratchFiles(() => s.project);
  const rows = (r: VerifyResult): string[] => r.failures.map((f) => `${f.file}:${f.line} ${f.id ?? ''}`).sort();

  beforeEach(() => {
    s = copyFixture('staged/tap-tshy');
    v = new Verifier({ root: s.project, checks: [{ name: 'test', command: 'npm test' }], parallel: false, outputLimitKb: 256, flakyReruns: 1, staged: true, storageDir: s.storage });
  });
  afterEach(async () => {
    await v.release();
    s.cleanup();
  });

  it('the command keeps its pretest: run first through npm, then tap alone on the files', () => {
    const cmd = testCommand('npm test', s.project, 'tap');
    assert.ok(!('reason' in cmd), JSON.stringify(cmd));
    assert.deepEqual(cmd.pre, { name: 'pretest', body: 'tshy', argv: ['npm', 'run', 'pretest'] });
    assert.deepEqual(cmd.files(['test/math.test.ts']), ['tap', '--disable-coverage', 'test/math.test.ts']);
  });

  it('a step builds, then runs the failing or related TypeScript test file alone; a build that fails runs the check in full', async () => {
    const v0 = await v.verify(undefined, { previous: null });
    assert.deepEqual(rows(v0), ['test/math.test.ts:7 test/math.test.ts > add adds > should be equal']);
    ran();

    edit('src/math.ts', 'a - b', 'a + b');
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/math.ts'] });
    assert.equal(v1.green, true, v1.checks[0]!.output);
    const order = ran();
    assert.equal(order[0], 'math', `the targeted run: the failing file alone: ${order.join(',')}`);
    assert.deepEqual(order.slice(1).sort(), ['built', 'math', 'text'], `then the whole suite: ${order.join(',')}`);

    edit('src/text.ts', "+ '!'", "+ '?'");
    const v2 = await v.verify(undefined, { previous: v1, changed: ['src/text.ts'] });
    const c = v2.checks[0]!;
    assert.equal(c.mode, 'targeted', c.stagedNote);
    assert.match(c.stagedNote ?? '', /scripts\.pretest \("tshy"\) ran first/);
    assert.deepEqual(rows(v2), ['test/text.test.ts:7 test/text.test.ts > shout shouts > should be equal']);
    assert.deepEqual(ran(), ['text', 'text'], 'only the related test file, then its re-run');
    assert.match(readFileSync(file('dist/esm/text.js'), 'utf8'), /'\?'/, 'the build ran before the narrowed run');

    edit('src/text.ts', "s.toUpperCase() + '?'", 's.length');
    const v3 = await v.verify(undefined, { previous: v2, changed: ['src/text.ts'] });
    assert.equal(v3.green, false);
    assert.equal(v3.checks[0]!.mode, 'full', v3.checks[0]!.stagedNote);
    assert.deepEqual(ran(), [], 'the build failed: no test ran, as under the command');
  });
});

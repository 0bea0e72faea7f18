// A Jest check whose command names its own test path patterns (`jest unit`), on a real project run
// by the real Jest: a step runs only the affected files a pattern matches (never a test the command
// does not run), reaches the verdict and failure identity an unstaged run reaches, runs in full
// (saying why) where an affected file lies outside the patterns, and confirms a flake by its file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { VerifyResult } from '../../../src/core/types';
import type { TestCommand } from '../../../src/core/verify/staged/commands';
import { testCommand } from '../../../src/core/verify/staged/commands';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { scratchFiles } from '../../support/scratchFiles';

describe('staged tests: a Jest command with path patterns of its own', function () {
  this.timeout(240000);
  let s: Scratch;
  let v: Verifier;
  const { file, ran, edit } = scratchFiles(() => s.project);
  const ids = (r: VerifyResult): string[] => r.failures.map((f) => f.id ?? '').sort();
  const verifier = (staged: boolean): Verifier => new Verifier({ root: s.project, checks: [{ name: 'test', command: 'npm test --silent' }], parallel: false, outputLimitKb: 256, flakyReruns: 1, staged, storageDir: s.storage });

  beforeEach(() => {
    // The staged Jest fixture, its tests moved under test/unit/, and an integration test the
    // command (`jest unit`) never runs: it fails whenever it runs, and logs that it ran.
    s = copyFixture('staged/jest');
    mkdirSync(file('test/unit'));
    for (const t of ['math', 'text', 'flaky']) {
      renameSync(file(`test/${t}.test.js`), file(`test/unit/${t}.test.js`));
      edit(`test/unit/${t}.test.js`, "require('../support/ran')", "require('../../support/ran')");
    }
    edit('test/unit/math.test.js', "require('../src/math')", "require('../../src/math')");
    edit('test/unit/text.test.js', "require('../src/text')", "require('../../src/text')");
    mkdirSync(file('test/integration'));
    writeFileSync(file('test/integration/text.test.js'), "const { ran } = require('../../support/ran');\nconst { shout } = require('../../src/text');\n\nran('integration');\ntest('shout in a sentence', () => {\n  expect(shout('hi')).toBe('never');\n});\n");
    const pkg = JSON.parse(readFileSync(file('package.json'), 'utf8')) as { scripts: Record<string, string> };
    pkg.scripts.test = 'jest unit';
    writeFileSync(file('package.json'), JSON.stringify(pkg, null, 2));
    v = verifier(true);
  });
  afterEach(async () => {
    await v.release();
    s.cleanup();
  });

  const greenStart = async (): Promise<VerifyResult> => {
    edit('src/math.js', 'a - b', 'a + b');
    const v0 = await v.verify(undefined, { previous: null });
    assert.equal(v0.green, true, v0.checks[0]!.output);
    assert.deepEqual(ran().sort(), ['flaky', 'math', 'text'], 'the command runs test/unit only');
    return v0;
  };

  it('takes a test file for one the command runs exactly where the installed Jest lists it for the command', () => {
    const listed = (args: readonly string[]): string[] => {
      const r = spawnSync(process.execPath, [file('node_modules/jest/bin/jest.js'), '--listTests', ...args], { cwd: s.project, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const root = realpathSync(s.project);
      return r.stdout.split('\n').filter(Boolean).map((p) => path.relative(root, p).split(path.sep).join('/')).sort();
    };
    const all = listed([]);
    assert.equal(all.length, 4);
    // The project lies in a folder named `project`: a pattern is tested on the absolute path too.
    for (const args of [['unit'], ['UNIT'], ['./test/unit'], ['^test/int'], ['^unit'], ['--testPathPatterns', 'math', 'flaky'], ['--testPathPatterns=text'], ['project'], ['^project'], ['/project/test/unit/'], ['s.test'], ['integration', '--ci']]) {
      const c = testCommand(['jest', ...args].join(' '), s.project, 'jest') as TestCommand;
      assert.ok(c.inside, `${args.join(' ')}: ${(c as unknown as { reason?: string }).reason ?? ''}`);
      assert.deepEqual(all.filter((f) => c.inside!(f)), listed(args), args.join(' '));
    }
  });

  it('a step runs only the affected files a pattern matches, with the verdict and failure identity of an unstaged run', async () => {
    const v0 = await greenStart();

    edit('src/math.js', 'a + b', 'a + b + 1');
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/math.js'] });
    const c = v1.checks[0]!;
    assert.equal(c.mode, 'targeted', c.stagedNote);
    assert.deepEqual(ids(v1), ['add adds']);
    assert.deepEqual([...new Set(ran())], ['math'], 'test/unit/math.test.js alone; test/integration never');

    const plain = verifier(false);
    try {
      const full = await plain.verify(undefined, { previous: null });
      assert.equal(full.green, v1.green);
      assert.deepEqual(ids(full), ids(v1));
      assert.equal(full.failureHash, v1.failureHash, 'the same failures, named alike');
      assert.deepEqual([...new Set(ran())].sort(), ['flaky', 'math', 'text'], 'the unstaged run: the command itself (its failure confirmed by a second whole run)');
    } finally {
      await plain.release();
    }
  });

  it('a step whose affected files include one outside the patterns runs the command in full, saying which file', async () => {
    const v0 = await greenStart();

    edit('src/text.js', "+ '!'", "+ '?'");
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/text.js'] });
    const c = v1.checks[0]!;
    assert.equal(c.mode, 'full');
    assert.match(c.stagedNote ?? '', /test\/integration\/text\.test\.js lies outside what the command runs \(unit\)/);
    assert.deepEqual(ids(v1), ['shout shouts'], 'the command\'s own failures: the integration test is none of them');
    assert.ok(!ran().includes('integration'), 'test/integration never ran');
  });

  it('a flake in the full run is confirmed by re-running its file alone, not the whole command', async () => {
    const v0 = await greenStart();

    writeFileSync(file('.fail-next'), '');
    edit('src/math.js', 'a * b', 'b * a');
    const v1 = await v.verify(undefined, { previous: v0, changed: ['src/math.js'] });
    assert.equal(v1.green, true, v1.checks[0]!.output);
    assert.deepEqual(v1.flaky.map((f) => [f.id, f.file]), [['sometimes fails', 'test/unit/flaky.test.js']]);
    const order = ran();
    assert.equal(order[0], 'math', order.join(','));
    assert.deepEqual(order.slice(1, 4).sort(), ['flaky', 'math', 'text'], order.join(','));
    assert.deepEqual(order.slice(4), ['flaky'], `the flaky file re-run alone: ${order.join(',')}`);
  });
});

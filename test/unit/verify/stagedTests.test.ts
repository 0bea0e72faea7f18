// Staged test checks on real projects, one per runner: a step that fixes a test runs the failing and
// related test files, then (that set green) the full suite, and is green only once the full suite
// passed; a step that breaks a test stops at the targeted set; a flake is confirmed by re-running
// only its test file. Each test file logs its loading to `.ran`, which is what the assertions read.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { VerifyResult } from '../../../src/core/types';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { scratchFiles } from '../../support/scratchFiles';

const RUNNERS = ['jest', 'vitest', 'mocha', 'node-test'] as const;

for (const runner of RUNNERS) {
  describe(`staged tests: ${runner}`, function () {
    this.timeout(240000);
    let s: Scratch;
    let v: Verifier;
    const { file, ran, edit } = scratchFiles(() => s.project);
    const ids = (r: VerifyResult): string[] => r.failures.map((f) => f.id ?? '').sort();
    /** The project made green (its failing test fixed) and verified in full: the state a step starts from. */
    const greenStart = async (): Promise<VerifyResult> => {
      edit('src/math.js', 'a - b', 'a + b');
      const v0 = await v.verify(undefined, { previous: null });
      assert.equal(v0.green, true, v0.checks[0]!.output);
      ran();
      return v0;
    };

    beforeEach(() => {
      s = copyFixture(`staged/${runner}`);
      v = new Verifier({ root: s.project, checks: [{ name: 'test', command: 'npm test --silent' }], parallel: false, outputLimitKb: 256, flakyReruns: 1, staged: true, storageDir: s.storage });
    });
    afterEach(async () => {
      await v.release();
      s.cleanup();
    });

    it('a step that fixes the failing test runs the targeted set, then the full suite, and is green only then', async () => {
      const v0 = await v.verify(undefined, { previous: null });
      assert.deepEqual(ids(v0), ['add adds']);
      assert.equal(v0.checks[0]!.mode, 'full');
      ran();

      edit('src/math.js', 'a - b', 'a + b');
      const v1 = await v.verify(undefined, { previous: v0, changed: ['src/math.js'] });
      assert.equal(v1.green, true, v1.checks[0]!.output);
      assert.equal(v1.checks[0]!.mode, 'full', 'green is decided by the full suite');
      const order = ran();
      assert.equal(order[0], 'math', `the targeted set (the failing file, related to the change) runs first: ${order.join(',')}`);
      const full = order.slice(1, 4);
      assert.deepEqual([...full].sort(), ['flaky', 'math', 'text'], `then the whole suite: ${order.join(',')}`);
      // A pass is not re-run: the targeted run, then the full one decides green.
      assert.deepEqual(order.slice(4), [], order.join(','));
      assert.equal(v1.checks[0]!.runs, 1);
    });

    it('a selection that holds every test file runs the command itself: the full test run, which the gate reuses, saying so', async () => {
      rmSync(file('test/text.test.js'));
      rmSync(file('test/flaky.test.js'));
      const v0 = await v.verify(undefined, { previous: null });
      assert.deepEqual(ids(v0), ['add adds']);
      ran();

      edit('src/math.js', 'a - b', 'a + b');
      const v1 = await v.verify(undefined, { previous: v0, changed: ['src/math.js'] });
      assert.equal(v1.green, true, v1.checks[0]!.output);
      const c = v1.checks[0]!;
      assert.equal(c.mode, 'full');
      assert.match(c.stagedNote ?? '', /the failing and related test files are all 1 test file\(s\) there are: the command ran itself, the full test run/);
      assert.match(c.stagedNote ?? '', /the gate reused this run: it was the check's full run, on the bytes it judges/);
      assert.deepEqual(ran(), ['math'], 'the suite ran once');
    });

    it('a step that breaks a test stops at the targeted set: no full run, the failure confirmed by its file alone', async () => {
      const v0 = await greenStart();

      edit('src/text.js', "+ '!'", "+ '?'");
      const v1 = await v.verify(undefined, { previous: v0, changed: ['src/text.js'] });
      assert.equal(v1.green, false);
      assert.deepEqual(ids(v1), ['shout shouts']);
      const c = v1.checks[0]!;
      assert.equal(c.mode, 'targeted');
      if (runner !== 'node-test') {
        // Jest, Vitest and mocha retry the failing test in the same run (no second start): it failed every time, so it counts.
        assert.equal(c.runs, 1, 'one process');
        assert.deepEqual(ran(), ['text'], 'only the related test file, loaded once');
        assert.match(c.stagedNote ?? '', /1 failing test\(s\) retried in the same run \(up to 1×\): 0 passed on a retry/);
      } else {
        assert.equal(c.runs, 2, 'the newly failing test re-run once');
        assert.deepEqual(ran(), ['text', 'text'], 'only the related test file, then its re-run');
        assert.match(c.stagedNote ?? '', /the tests whose result changed re-run/);
      }
    });

    it('a runner launched through env with its variables is narrowed as well, the variables set for the narrowed run too', async () => {
      const pkg = JSON.parse(readFileSync(file('package.json'), 'utf8')) as { scripts: Record<string, string> };
      pkg.scripts.test = `env FUG_STAGED_VIA=env ${pkg.scripts.test}`;
      writeFileSync(file('package.json'), JSON.stringify(pkg, null, 2));
      // The test reads the variable: a narrowed run without it would fail otherwise than the full run.
      edit(`test/text.test.js`, "shout('hi')", "shout(process.env.FUG_STAGED_VIA === 'env' ? 'hi' : 'unset')");
      const v0 = await greenStart();

      edit('src/text.js', "+ '!'", "+ '?'");
      const v1 = await v.verify(undefined, { previous: v0, changed: ['src/text.js'] });
      assert.deepEqual(ids(v1), ['shout shouts']);
      const c = v1.checks[0]!;
      assert.equal(c.mode, 'targeted', c.stagedNote);
      assert.match(c.failures[0]!.message, /HI\?/, 'the variable reached the narrowed run');
      assert.doesNotMatch(c.failures[0]!.message, /UNSET/);
      assert.deepEqual([...new Set(ran())], ['text'], 'only the related test file');
    });

    if (runner === 'vitest') {
      it('a Vitest command with a filter of its own (`vitest run test`) is narrowed to the files the filter selects', async () => {
        const pkg = JSON.parse(readFileSync(file('package.json'), 'utf8')) as { scripts: Record<string, string> };
        pkg.scripts.test = 'vitest run test';
        writeFileSync(file('package.json'), JSON.stringify(pkg, null, 2));
        const v0 = await greenStart();

        edit('src/text.js', "+ '!'", "+ '?'");
        const v1 = await v.verify(undefined, { previous: v0, changed: ['src/text.js'] });
        assert.deepEqual(ids(v1), ['shout shouts']);
        assert.equal(v1.checks[0]!.mode, 'targeted', v1.checks[0]!.stagedNote);
        assert.deepEqual([...new Set(ran())], ['text'], 'only the related test file');
      });
    }

    it('a flake in the full suite is confirmed by re-running its test by name: a pass the runner reports is a real re-run, and calls it flaky', async () => {
      const v0 = await greenStart();

      writeFileSync(file('.fail-next'), '');
      edit('src/math.js', 'a * b', 'b * a');
      const v1 = await v.verify(undefined, { previous: v0, changed: ['src/math.js'] });
      assert.equal(v1.green, true, v1.checks[0]!.output);
      assert.deepEqual(v1.flaky.map((f) => f.id), ['sometimes fails']);
      assert.equal(v1.failures.length, 0);
      const order = ran();
      assert.equal(order[0], 'math', order.join(','));
      assert.deepEqual(order.slice(1, 4).sort(), ['flaky', 'math', 'text'], order.join(','));
      // Vitest's default reporter names no passing test: its pass by name cannot show the test ran, so the file re-runs too.
      assert.deepEqual(order.slice(4), runner === 'vitest' ? ['flaky', 'flaky'] : ['flaky'], `the flaky file re-run by the test's name (then whole where the pass names no test): ${order.join(',')}`);
    });

    it('a first green without a staged run is not re-run: a pass has nothing to confirm', async () => {
      const v0 = await v.verify(undefined, { previous: null });
      ran();
      edit('src/math.js', 'a - b', 'a + b');
      // No `changed`: every check runs in full, as a verification outside a step does.
      const v1 = await v.verify(undefined, { previous: v0 });
      assert.equal(v1.green, true, v1.checks[0]!.output);
      const order = ran();
      assert.deepEqual(order.slice(0, 3).sort(), ['flaky', 'math', 'text'], order.join(','));
      assert.deepEqual(order.slice(3), [], `the suite ran once: ${order.join(',')}`);
      assert.equal(v1.checks[0]!.runs, 1);
    });

    if (runner !== 'node-test') {
      it('a test that flakes in the targeted run passes on its retry in the same run: flaky, not a failure, and still flaky once green', async () => {
        const v0 = await greenStart();

        writeFileSync(file('.fail-next'), '');
        edit('test/flaky.test.js', 'sometimes fails', 'sometimes fails');
        const v1 = await v.verify(undefined, { previous: v0, changed: ['test/flaky.test.js'] });
        assert.equal(v1.green, true, v1.checks[0]!.output);
        assert.deepEqual(v1.failures, []);
        assert.deepEqual(v1.flaky.map((f) => [f.id, f.file]), [['sometimes fails', 'test/flaky.test.js']], 'the flake of the targeted run is reported after the full run');
        assert.match(v1.flaky[0]!.message, runner === 'mocha' ? /passed on retry 1/ : /toBe|expected/);
        const order = ran();
        assert.equal(order[0], 'flaky', `the targeted run loads the changed test file once: ${order.join(',')}`);
        assert.deepEqual(order.slice(1).sort(), ['flaky', 'math', 'text'], `then the full suite, and no re-run process: ${order.join(',')}`);
      });

      it('a new failure beside a test that keeps failing is confirmed in the same run', async () => {
        const v0 = await v.verify(undefined, { previous: null });
        assert.deepEqual(ids(v0), ['add adds']);
        ran();
        edit('src/math.js', 'a * b', 'a * b + 1');
        const v1 = await v.verify(undefined, { previous: v0, changed: ['src/math.js'] });
        assert.deepEqual(ids(v1), ['add adds', 'mul multiplies']);
        const c = v1.checks[0]!;
        assert.equal(c.runs, 1);
        assert.deepEqual(ran(), ['math'], 'the new failure confirmed in the same run');
        if (runner !== 'mocha') {
          // jest-circus sets retries per describe block, Vitest per run: a known failure that is no timeout is retried along.
          assert.match(c.stagedNote ?? '', /2 failing test\(s\) retried in the same run \(up to 1×\): 0 passed on a retry/);
        } else {
          // mocha sets them per test: only the new failure is retried.
          assert.match(c.stagedNote ?? '', /1 failing test\(s\) retried in the same run \(up to 1×\): 0 passed on a retry/);
        }
      });
    }

    if (runner === 'vitest') {
      it('a run whose known failures include a timeout is not retried in place: its new failures are re-run in a second process', async () => {
        writeFileSync(
          file('test/slow.test.js'),
          `import { existsSync } from 'node:fs';
import { expect, test } from 'vitest';
import { ran } from '../support/ran.js';
import { shout } from '../src/text.js';

ran('slow');
test('waits', async () => {
  if (existsSync(new URL('../.hang', import.meta.url))) await new Promise((r) => setTimeout(r, 1500));
}, 300);
test('sibling', () => {
  expect(shout('a')).toBe('A!');
});
`,
        );
        writeFileSync(file('.hang'), '');
        const v0 = await v.verify(undefined, { previous: null });
        assert.deepEqual(ids(v0), ['add adds', 'waits']);
        assert.match(v0.failures.find((f) => f.id === 'waits')!.message, /Test timed out in 300ms/);
        ran();
        edit('src/text.js', "+ '!'", "+ '?'");
        const v1 = await v.verify(undefined, { previous: v0, changed: ['src/text.js'] });
        assert.deepEqual(ids(v1), ['add adds', 'shout shouts', 'sibling', 'waits']);
        const c = v1.checks[0]!;
        assert.equal(c.runs, 2);
        const order = ran();
        assert.deepEqual([...order.slice(0, 3)].sort(), ['math', 'slow', 'text'], order.join(','));
        assert.deepEqual([...order.slice(3)].sort(), ['slow', 'text'], `the new failures' files re-run: ${order.join(',')}`);
        assert.doesNotMatch(c.stagedNote ?? '', /retried in the same run/);
      });

      it('a project whose Vitest config names its own reporters gets its changed tests re-run in a second process, and the note says why', async () => {
        writeFileSync(file('vitest.config.mjs'), "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/**/*.test.js'], cache: false, reporters: ['default'] } });\n");
        const v0 = await greenStart();
        edit('src/text.js', "+ '!'", "+ '?'");
        const v1 = await v.verify(undefined, { previous: v0, changed: ['src/text.js'] });
        assert.deepEqual(ids(v1), ['shout shouts']);
        assert.equal(v1.checks[0]!.runs, 2);
        assert.deepEqual(ran(), ['text', 'text']);
        assert.match(v1.checks[0]!.stagedNote ?? '', /re-run \(not in the same run: the Vitest config names its own reporters\)/);
      });
    }

    if (runner === 'jest') {
      it('a test that failed by its timeout is not retried, nor its describe block: a new failure there is re-run in a second process', async () => {
        writeFileSync(
          file('test/slow.test.js'),
          `const { existsSync } = require('node:fs');
const path = require('node:path');
const { ran } = require('../support/ran');
const { shout } = require('../src/text');

ran('slow');
describe('slow', () => {
  test('waits', async () => {
    if (existsSync(path.join(__dirname, '..', '.hang'))) await new Promise((r) => setTimeout(r, 1500));
  }, 300);
  test('sibling', () => {
    expect(shout('a')).toBe('A!');
  });
});
`,
        );
        writeFileSync(file('.hang'), '');
        const v0 = await v.verify(undefined, { previous: null });
        assert.deepEqual(ids(v0), ['add adds', 'slow › waits']);
        assert.match(v0.failures.find((f) => f.id === 'slow › waits')!.message, /Exceeded timeout of 300 ms/);
        ran();
        edit('src/text.js', "+ '!'", "+ '?'");
        const v1 = await v.verify(undefined, { previous: v0, changed: ['src/text.js'] });
        assert.deepEqual(ids(v1), ['add adds', 'shout shouts', 'slow › sibling', 'slow › waits']);
        const c = v1.checks[0]!;
        assert.equal(c.runs, 2);
        const order = ran();
        assert.deepEqual([...order.slice(0, 3)].sort(), ['math', 'slow', 'text'], order.join(','));
        assert.deepEqual(order.slice(3), ['slow'], `only the timed-out test's file re-run, for its new neighbour: ${order.join(',')}`);
        assert.match(c.stagedNote ?? '', /2 failing test\(s\) retried in the same run \(up to 1×\): 0 passed on a retry \(flaky\); the tests whose result changed re-run \(those the run did not retry\)/);
      });

      it('a project that names its own test runner gets its changed tests re-run in a second process, and the note says why', async () => {
        const pkg = JSON.parse(readFileSync(file('package.json'), 'utf8')) as { jest: Record<string, unknown> };
        pkg.jest.testRunner = 'jest-circus/runner';
        writeFileSync(file('package.json'), JSON.stringify(pkg, null, 2));
        const v0 = await greenStart();
        edit('src/text.js', "+ '!'", "+ '?'");
        const v1 = await v.verify(undefined, { previous: v0, changed: ['src/text.js'] });
        assert.deepEqual(ids(v1), ['shout shouts']);
        assert.equal(v1.checks[0]!.runs, 2);
        assert.deepEqual(ran(), ['text', 'text']);
        assert.match(v1.checks[0]!.stagedNote ?? '', /re-run \(not in the same run: the Jest configuration names its own test runner/);
      });
    }

    it('with staging off every step runs the whole suite (a pass not re-run)', async () => {
      const off = new Verifier({ root: s.project, checks: [{ name: 'test', command: 'npm test --silent' }], parallel: false, outputLimitKb: 256, flakyReruns: 1, storageDir: s.storage });
      const v0 = await off.verify(undefined, { previous: null });
      ran();
      edit('src/math.js', 'a - b', 'a + b');
      const v1 = await off.verify(undefined, { previous: v0, changed: ['src/math.js'] });
      assert.equal(v1.green, true);
      assert.equal(v1.checks[0]!.mode, 'full');
      assert.deepEqual(ran().sort(), ['flaky', 'math', 'text']);
      assert.equal(v1.checks[0]!.runs, 1);
    });
  });
}

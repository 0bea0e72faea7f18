// A staged step whose affected tests are the whole Jest suite runs the command as it is, without our
// retry runner (src/core/verify/staged/stager.ts): Jest keys its transform cache on the project
// config, which `--testRunner` changes, so a whole-suite run with it transformed every file again
// (luxon: a Stop after an edit 12 s slower than the command). Known failures stand; new ones are
// re-run apart, by file; the verdict is an unstaged pass's. On real Jest from our node_modules.
import assert from 'node:assert/strict';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../../src/core/types';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';
import { assertSameVerdict } from '../../support/sameVerdict';

const CART = (off = 0): string => `exports.total = (lines) => lines.reduce((acc, l) => acc + l.price * l.quantity, ${off});\n`;
const TEST = (i: number, expected = (i + 1) * 2): string => `const { total } = require('../src/cart');\n\ntest('total ${i}', () => {\n  expect(total([{ price: ${i + 1}, quantity: 2 }])).toBe(${expected});\n});\n`;
// Fails in the first process that runs it (a marker file says one did), passes after: a flake.
const FLAKY = "const { existsSync, writeFileSync } = require('node:fs');\nconst { total } = require('../src/cart');\n\ntest('flaky once', () => {\n  const first = !existsSync('flaky-ran');\n  writeFileSync('flaky-ran', '');\n  expect(first ? -1 : total([])).toBe(0);\n});\n";

describe('staged tests: a step that selects the whole Jest suite runs the command as it is', function () {
  this.timeout(240000);
  const CHECKS = [{ name: 'test', command: 'jest', parser: 'jest' as const }];
  const steps: [string, (dir: string) => string[], RegExp | undefined][] = [
    ['the known failure stays', (dir) => (writeFileSync(path.join(dir, 'src/cart.js'), `${CART()}// edited\n`), ['src/cart.js']), undefined],
    ['a new failure, confirmed apart', (dir) => (writeFileSync(path.join(dir, 'src/cart.js'), CART(1)), ['src/cart.js']), /re-run \(not in the same run: the run was the command itself: Jest keys its transform cache on the config/],
    ['a new flaky failure', (dir) => (writeFileSync(path.join(dir, 'test/flaky.test.js'), FLAKY), writeFileSync(path.join(dir, 'src/cart.js'), `${CART()}// edited\n`), ['src/cart.js', 'test/flaky.test.js']), /re-run \(not in the same run: the run was the command itself/],
  ];
  for (const [name, edit, rerun] of steps) {
    it(`${name}: no retry runner, same failures, flakes, identity and green as an unstaged pass`, async () => {
      const t = tempTree({ 'package.json': '{ "name": "whole-jest", "private": true, "jest": { "testEnvironment": "node" } }\n', 'src/cart.js': CART(), 'test/t0.test.js': TEST(0), 'test/t1.test.js': TEST(1, 5) }, 'fug-wholejest-');
      symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
      const storage = `${t.dir}-storage`;
      const lines: string[] = [];
      const note = (m: string): number => lines.push(m);
      const staged = new Verifier({ root: t.dir, checks: CHECKS, parallel: false, outputLimitKb: 256, staged: true, storageDir: storage, logger: { debug: note, info: note, warn: note, error: note } as Logger });
      const plain = new Verifier({ root: t.dir, checks: CHECKS, parallel: false, outputLimitKb: 256, staged: false });
      try {
        const first = await staged.verify(undefined, { previous: null });
        assert.deepEqual(first.failures.map((f) => f.file), ['test/t1.test.js']);
        lines.length = 0;
        const v = await staged.verify(undefined, { previous: first, changed: edit(t.dir) });
        const test = v.checks[0]!;
        assert.equal(test.mode, 'full', test.stagedNote);
        assert.match(test.stagedNote ?? '', /the command ran itself, the full test run/);
        assert.doesNotMatch(lines.join('\n'), /--testRunner/, 'no retry runner in any run of the step');
        if (rerun) assert.match(test.stagedNote ?? '', rerun);
        else assert.doesNotMatch(test.stagedNote ?? '', /re-run/);
        rmSync(path.join(t.dir, 'flaky-ran'), { force: true });
        const c = await plain.verify(undefined, { previous: null });
        assertSameVerdict(v, c);
        if (name === 'a new flaky failure') assert.deepEqual(v.flaky.map((f) => f.file), ['test/flaky.test.js']);
      } finally {
        await staged.release();
        t.cleanup();
        rmSync(storage, { recursive: true, force: true });
      }
    });
  }
});

// Wrong verdicts found on real repositories (validation classes B, C, D), each on a small real
// project run with the real tool: uvu's failures placed at their test's line, a formatter in check
// mode inside a lint chain read as a check whose failures name files, and a test check whose runner
// ran no test reported as such instead of green.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { discoverChecks } from '../../../src/core/verify/discover';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';

type Row = [check: string, file: string | undefined, line: number | undefined, id: string | undefined];

async function verifyFixture(fixture: string, edit?: (project: string) => void) {
  const scratch = copyFixture(`verify/${fixture}`);
  try {
    edit?.(scratch.project);
    const d = discoverChecks(scratch.project);
    const v = new Verifier({ root: scratch.project, checks: d.checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 });
    const r = await v.verify();
    const rows = r.failures.map((f): Row => [f.check, f.file, f.line, f.id]);
    return { d, r, rows };
  } finally {
    scratch.cleanup();
  }
}

describe('verdicts on real project shapes (validation classes B, C, D)', function () {
  this.timeout(300000);

  it('B. uvu: each failing assert.equal is placed at its test file and line, named by its suite and test', async () => {
    const { d, r, rows } = await verifyFixture('uvu');
    assert.deepEqual(d.checks, [{ name: 'test', command: 'npm test --silent', parser: 'uvu' }]);
    assert.deepEqual(rows, [
      ['test', 'test/range.test.js', 6, 'includes both ends'],
      ['test', 'test/suite.test.js', 8, 'range > single value'],
    ]);
    assert.match(r.failures[0]!.message, /^Expected values to be deeply equal:/);
    assert.doesNotMatch(r.failures[0]!.message, /node_modules/);
  });

  it('B. uvu: green once the code is fixed (its summary says every test passed)', async () => {
    const { r } = await verifyFixture('uvu', (p) => {
      const f = path.join(p, 'src', 'range.js');
      writeFileSync(f, readFileSync(f, 'utf8').replace('i < to', 'i <= to'));
    });
    assert.equal(r.green, true, JSON.stringify(r.failures));
  });

  it('C. `eslint . && prettier -c src`: the file Prettier would reformat is the failure, and explain names both tools', async () => {
    const { d, rows } = await verifyFixture('prettier-chain');
    assert.deepEqual(d.checks, [{ name: 'lint', command: 'npm run lint --silent', parser: 'prettier' }]);
    assert.deepEqual(rows, [['lint', 'src/label.js', undefined, 'prettier']]);
    const reason = d.origins.lint!.reason;
    assert.match(reason, /`eslint \.`/);
    assert.match(reason, /`prettier -c src`/);
  });

  it('C. the same chain with ESLint failing: ESLint\'s failure at its line (the chain stops there)', async () => {
    const { rows } = await verifyFixture('prettier-chain', (p) => {
      writeFileSync(path.join(p, 'src', 'eq.js'), 'export const same = (a, b) => a == b;\n');
    });
    assert.deepEqual(rows, [['lint', 'src/eq.js', 1, 'eqeqeq']]);
  });

  it('C. `eslint . ; prettier -c src` with both failing: each part read by its own parser (ESLint\'s line, Prettier\'s file)', async () => {
    const { rows } = await verifyFixture('prettier-chain', (p) => {
      writeFileSync(path.join(p, 'package.json'), JSON.stringify({ type: 'module', scripts: { lint: 'eslint . ; prettier -c src' } }));
      writeFileSync(path.join(p, 'src', 'eq.js'), 'export const same = (a, b) => a == b;\n');
    });
    assert.deepEqual(rows.sort(), [['lint', 'src/eq.js', 1, 'eqeqeq'], ['lint', 'src/label.js', undefined, 'prettier']]);
  });

  it('C. `prettier -l src` (--list-different): each listed file is a failure; a file Prettier cannot parse is one at its line', async () => {
    const { r, rows } = await verifyFixture('prettier-chain', (p) => {
      writeFileSync(path.join(p, 'package.json'), JSON.stringify({ type: 'module', scripts: { lint: 'prettier -l src' } }));
      writeFileSync(path.join(p, 'src', 'broken.js'), 'export const x = ;\n');
    });
    assert.deepEqual(r.checks.map((c) => c.parser), ['prettier']);
    assert.deepEqual(rows.sort(), [['lint', 'src/broken.js', 1, 'prettier'], ['lint', 'src/label.js', undefined, 'prettier']]);
    assert.match(r.failures.find((f) => f.file === 'src/broken.js')!.message, /^SyntaxError: /);
  });

  it('C. `biome format src` is a check: run with its GitHub reporter, the failure names the file', async () => {
    const { d, rows } = await verifyFixture('biome-format');
    assert.deepEqual(d.checks, [{ name: 'lint', command: 'biome format src --reporter=github', parser: 'biome' }]);
    assert.deepEqual(rows, [['lint', 'src/label.js', 1, 'format']]);
  });

  it('D. `tsx --test` finding no test file (Node 20) is not green: one failure says node:test ran no tests, with the command', async function () {
    if (Number(process.versions.node.split('.')[0]) >= 21) this.skip(); // Node 21+ finds .ts test files through tsx's loader
    const { r, rows } = await verifyFixture('node-test-none');
    assert.equal(r.green, false);
    assert.deepEqual(rows, [['test', undefined, undefined, 'no-tests']]);
    assert.match(r.failures[0]!.message, /node:test ran no tests \(`npm test --silent`; its summary: "# tests 0"\)/);
  });

  for (const [runner, script, file, line] of [
    ['mocha', 'mocha test/empty.spec.cjs', 'empty.spec.cjs', '0 passing (', ],
    ['uvu', 'uvu none', undefined, 'Total: 0'],
    // Discovery runs a one-call ava script with --tap: read as TAP, whose plan says 1..0.
    ['ava', 'ava none/', undefined, '1..0'],
  ] as const) {
    it(`D. ${runner} running no test is a no-tests failure, not green`, async () => {
      const { r, rows } = await verifyFixture('node-test-none', (p) => {
        writeFileSync(path.join(p, 'package.json'), JSON.stringify({ type: 'module', scripts: { test: script } }));
        if (file !== undefined) writeFileSync(path.join(p, 'test', file), "describe('nothing yet', () => {});\n");
        else mkdirSync(path.join(p, 'none'));
      });
      assert.deepEqual(r.checks.map((c) => c.exitCode), [runner === 'ava' ? 1 : 0]);
      assert.deepEqual(rows, [['test', undefined, undefined, 'no-tests']]);
      assert.ok(r.failures[0]!.message.includes(`${runner === 'ava' ? 'tap' : runner} ran no tests`) && r.failures[0]!.message.includes(line), r.failures[0]!.message);
    });
  }

  it('D. Vitest finding no test file is a failure saying so; with --passWithNoTests, as the project asked, it passes', async () => {
    const none = (flag: string) => (p: string) => {
      rmSync(path.join(p, 'test'), { recursive: true });
      writeFileSync(path.join(p, 'package.json'), JSON.stringify({ type: 'module', scripts: { test: `vitest run${flag}` } }));
    };
    const strict = await verifyFixture('node-test-none', none(''));
    assert.deepEqual(strict.rows, [['test', undefined, undefined, 'no-tests']]);
    assert.match(strict.r.failures[0]!.message, /vitest ran no tests \(`npm test --silent`; its summary: "No test files found, exiting with code 1"\)/);
    const allowed = await verifyFixture('node-test-none', none(' --passWithNoTests'));
    assert.equal(allowed.r.green, true, JSON.stringify(allowed.r.failures));
  });
});

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import type { ParserId } from '../../../src/core/types';
import { REPO, copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const BIN = path.join(REPO, 'node_modules', '.bin');

function run(cwd: string, argv: string[]): { output: string; exitCode: number } {
  try {
    const out = execFileSync(argv[0]!, argv.slice(1), { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}`, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' } });
    return { output: out, exitCode: 0 };
  } catch (e) {
    const err = e as { stdout: string; stderr: string; status: number };
    return { output: err.stdout + err.stderr, exitCode: err.status };
  }
}

function parseLive(parser: ParserId, s: Scratch, argv: string[]): ReturnType<typeof parseOutput> {
  const r = run(s.project, argv);
  return parseOutput(parser, r.output, { check: parser, root: s.project, cwd: s.project, exitCode: r.exitCode });
}

describe('parsers on live tool output', function () {
  this.timeout(120000);
  let tsc: Scratch;
  let nodeTest: Scratch;
  before(() => {
    tsc = copyFixture('verify/tsc');
    nodeTest = copyFixture('verify/node-test');
  });
  after(() => {
    tsc.cleanup();
    nodeTest.cleanup();
  });

  it('tsc, plain and pretty, reads every error with its file, position and code', () => {
    for (const extra of [[], ['--pretty']]) {
      const f = parseLive('tsc', tsc, ['tsc', '--noEmit', '-p', '.', ...extra]);
      assert.deepEqual(
        f.map((x) => [x.file, x.line, x.column, x.id]),
        [
          ['src/cart.ts', 6, 34, 'TS2345'],
          ['src/price.ts', 11, 14, 'TS2322'],
          ['src/price.ts', 15, 42, 'TS2322'],
        ],
      );
      assert.match(f[1]!.message, /Type 'string' is not assignable to type 'number'/);
    }
  });

  it('node:test, TAP and spec reporters, give the same failures with full titles', () => {
    const tap = parseLive('node-test', nodeTest, ['node', '--test']);
    const spec = parseLive('node-test', nodeTest, ['node', '--test', '--test-reporter=spec']);
    assert.deepEqual(tap, spec);
    assert.deepEqual(
      tap.map((x) => [x.file, x.line, x.id]),
      [
        ['test/shop.test.js', 7, 'cart > subtotal multiplies by quantity'],
        ['test/shop.test.js', 15, 'cart > discount refuses more than everything'],
        ['test/shop.test.js', 20, 'slugify joins words with dashes'],
      ],
    );
    assert.match(tap[0]!.message, /^AssertionError: Expected values to be strictly equal:\n\n7 !== 10/);
    assert.match(tap[1]!.message, /at discount \(src\/shop\.js:7:28\)/);
    assert.ok(!tap.some((x) => x.message.includes(nodeTest.project)), 'no absolute path in messages');
  });
});

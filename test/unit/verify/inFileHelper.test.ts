// A failure thrown in a named helper declared in the test file itself (`function check(v) {
// expect(v)… }`, prop-types' `typeCheckFail`) is placed at the test that called it, as a helper in a
// file of its own is; an assertion inside an anonymous callback (`forEach((v) => expect(v)…)`) stays
// at the assertion. Real runners' output, every parser that places by the test file's frames.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { ParserId } from '../../../src/core/types';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import { REPO, copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const BIN = path.join(REPO, 'node_modules', '.bin');

const cases: { parser: ParserId; argv: string[]; at: string[] }[] = [
  { parser: 'jest', argv: ['jest', '--rootDir', '.', '--testMatch', '**/jest.test.cjs'], at: ['tests/jest.test.cjs:5', 'tests/jest.test.cjs:9'] },
  { parser: 'mocha', argv: ['mocha', 'tests/mocha.test.cjs'], at: ['tests/mocha.test.cjs:10', 'tests/mocha.test.cjs:6'] },
  { parser: 'mocha', argv: ['mocha', '--reporter', 'json', 'tests/mocha.test.cjs'], at: ['tests/mocha.test.cjs:10', 'tests/mocha.test.cjs:6'] },
  { parser: 'node-test', argv: ['node', '--test', '--test-reporter=spec', 'tests/node.test.cjs'], at: ['tests/node.test.cjs:11', 'tests/node.test.cjs:7'] },
  { parser: 'tap', argv: ['node', '--test', '--test-reporter=tap', 'tests/node.test.cjs'], at: ['tests/node.test.cjs:11', 'tests/node.test.cjs:7'] },
  { parser: 'vitest', argv: ['vitest', 'run', 'tests/vitest.test.mjs'], at: ['tests/vitest.test.mjs:10', 'tests/vitest.test.mjs:6'] },
];

describe('a failure thrown in a helper declared in the test file is placed at the test that called it', function () {
  this.timeout(180000);
  let s: Scratch;
  before(() => {
    s = copyFixture('verify/in-file-helper');
  });
  after(() => s.cleanup());

  for (const c of cases) {
    it(`${c.parser} on \`${c.argv.join(' ')}\``, () => {
      const r = spawnSync(c.argv[0]!, c.argv.slice(1), { cwd: s.project, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}`, CI: 'true' } });
      assert.notEqual(r.status, 0, 'the fixture fails');
      const f = parseOutput(c.parser, r.stdout + r.stderr, { check: 'test', root: s.project, cwd: s.project, exitCode: r.status, stdout: r.stdout });
      assert.deepEqual(f.map((x) => `${x.file}:${x.line}`).sort(), c.at, r.stdout + r.stderr);
    });
  }
});

// Issue 37: a failure thrown from a shared helper (tests/tools.cjs, called by every spec) is placed at
// the spec's own frame, the test that called it, by every runner's parser on the real runner's
// output; the helper's frames stay in the message.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { ParserId } from '../../../src/core/types';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import { REPO, copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const BIN = path.join(REPO, 'node_modules', '.bin');

const cases: { parser: ParserId; argv: string[]; at: string[] }[] = [
  { parser: 'mocha', argv: ['mocha', 'tests/specs/mocha.test.cjs', 'tests/plain/usage.cjs'], at: ['tests/plain/usage.cjs:6', 'tests/specs/mocha.test.cjs:5'] },
  { parser: 'mocha', argv: ['mocha', '--reporter', 'json', 'tests/specs/mocha.test.cjs', 'tests/plain/usage.cjs'], at: ['tests/plain/usage.cjs:6', 'tests/specs/mocha.test.cjs:5'] },
  { parser: 'tap', argv: ['mocha', '--reporter', 'tap', 'tests/specs/mocha.test.cjs', 'tests/plain/usage.cjs'], at: ['tests/plain/usage.cjs:6', 'tests/specs/mocha.test.cjs:5'] },
  { parser: 'node-test', argv: ['node', '--test', '--test-reporter=spec', 'tests/specs/node.test.cjs'], at: ['tests/specs/node.test.cjs:5'] },
  { parser: 'tap', argv: ['node', '--test', '--test-reporter=tap', 'tests/specs/node.test.cjs'], at: ['tests/specs/node.test.cjs:5'] },
  { parser: 'jest', argv: ['jest', '--rootDir', '.', '--testMatch', '**/jest.test.cjs'], at: ['tests/specs/jest.test.cjs:4'] },
  { parser: 'vitest', argv: ['vitest', 'run', 'tests/specs/vitest.test.mjs'], at: ['tests/specs/vitest.test.mjs:5'] },
  { parser: 'tap', argv: ['tap', '--disable-coverage', 'tests/specs/tap.test.cjs'], at: ['tests/specs/tap.test.cjs:5'] },
];

describe('a failure thrown in a shared helper is placed at the spec that called it', function () {
  this.timeout(180000);
  let s: Scratch;
  before(() => {
    s = copyFixture('verify/shared-helper');
  });
  after(() => s.cleanup());

  for (const c of cases) {
    it(`${c.parser} on \`${c.argv.join(' ')}\``, () => {
      const r = spawnSync(c.argv[0]!, c.argv.slice(1), { cwd: s.project, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}`, CI: 'true' } });
      assert.notEqual(r.status, 0, 'the fixture fails');
      const f = parseOutput(c.parser, r.stdout + r.stderr, { check: 'test', root: s.project, cwd: s.project, exitCode: r.status, stdout: r.stdout });
      assert.deepEqual(f.map((x) => `${x.file}:${x.line}`).sort(), c.at, r.stdout + r.stderr);
      for (const x of f.filter((y) => y.file?.startsWith('tests/specs/'))) assert.match(x.message, /tests\/tools\.cjs:5/, 'the helper frame kept in the message');
    });
  }
});

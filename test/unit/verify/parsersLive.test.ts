// Every parser on the live output of the real, pinned tool, run on a copy of its fixture project.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { ParserId } from '../../../src/core/types';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import { REPO, copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { EXPECTED, VITEST_JSON, rows, sorted } from './expected';
import type { Row } from './expected';

const BIN = path.join(REPO, 'node_modules', '.bin');

function runTool(cwd: string, argv: string[]): { output: string; stdout: string; exitCode: number | null } {
  const r = spawnSync(argv[0]!, argv.slice(1), {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}`, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
  });
  return { output: r.stdout + r.stderr, stdout: r.stdout, exitCode: r.status };
}

const cases: { fixture: string; parser: ParserId; argv: string[]; expected?: Row[] }[] = [
  { fixture: 'tsc', parser: 'tsc', argv: ['tsc', '--noEmit', '-p', '.'] },
  { fixture: 'tsc', parser: 'tsc', argv: ['tsc', '--noEmit', '-p', '.', '--pretty'] },
  { fixture: 'eslint', parser: 'eslint', argv: ['eslint', '.'] },
  { fixture: 'eslint', parser: 'eslint', argv: ['eslint', '--format', 'json', '.'] },
  { fixture: 'mocha', parser: 'mocha', argv: ['mocha'] },
  { fixture: 'mocha', parser: 'mocha', argv: ['mocha', '--reporter', 'json'] },
  { fixture: 'mocha', parser: 'tap', argv: ['mocha', '--reporter', 'tap'] },
  { fixture: 'jest', parser: 'jest', argv: ['jest'] },
  { fixture: 'jest', parser: 'jest', argv: ['jest', '--json'] },
  { fixture: 'vitest', parser: 'vitest', argv: ['vitest', 'run'] },
  { fixture: 'vitest', parser: 'vitest', argv: ['vitest', 'run', '--reporter=json'], expected: VITEST_JSON },
  { fixture: 'node-test', parser: 'node-test', argv: ['node', '--test'] },
  { fixture: 'node-test', parser: 'node-test', argv: ['node', '--test', '--test-reporter=spec'] },
  { fixture: 'node-test', parser: 'tap', argv: ['node', '--test', '--test-reporter=tap'] },
];

describe('parsers on live tool output', function () {
  this.timeout(180000);
  const scratch = new Map<string, Scratch>();
  before(() => {
    for (const f of new Set(cases.map((c) => c.fixture))) scratch.set(f, copyFixture(`verify/${f}`));
  });
  after(() => {
    for (const s of scratch.values()) s.cleanup();
  });

  for (const c of cases) {
    it(`${c.parser} reads \`${c.argv.join(' ')}\` on the ${c.fixture} fixture`, () => {
      const s = scratch.get(c.fixture)!;
      const r = runTool(s.project, c.argv);
      assert.notEqual(r.exitCode, 0, 'the fixture fails');
      const f = parseOutput(c.parser, r.output, { check: c.fixture, root: s.project, cwd: s.project, exitCode: r.exitCode, stdout: r.stdout });
      assert.deepEqual(rows(f), sorted(c.expected ?? EXPECTED[c.fixture]!));
      for (const x of f) assert.ok(!x.message.includes(s.project), `no absolute path in ${x.message}`);
    });
  }

  it('relative paths printed by a check running in a subdirectory come out workspace-relative', () => {
    const s = scratch.get('tsc')!;
    // The workspace root is the fixture's parent: tsc prints `src/cart.ts`, the failure says `project/src/cart.ts`.
    const r = runTool(s.project, ['tsc', '--noEmit', '-p', '.']);
    const f = parseOutput('tsc', r.output, { check: 'tsc', root: s.dir, cwd: s.project, exitCode: r.exitCode });
    assert.deepEqual(f.map((x) => x.file), ['project/src/cart.ts', 'project/src/price.ts', 'project/src/price.ts']);
  });
});

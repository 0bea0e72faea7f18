// Issue 13's acceptance: small real projects in the shapes real users have (scripts, chains,
// monorepos, project references, TypeScript configs, mocha configs, ava, uvu, Biome, tests of the build
// output), each run with the real tools: discovery picks the project's own scripts and the right
// parser, every location the raw output gives is kept, and two runs of the same state give one hash.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckSpec, Failure } from '../../../src/core/types';
import { discoverChecks } from '../../../src/core/verify/discover';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';

type Row = [check: string, file: string | undefined, line: number | undefined, id: string | undefined];

interface Shape {
  title: string;
  fixture: string;
  /** The folder the run is in, inside the fixture (a monorepo's package). */
  sub?: string;
  checks: CheckSpec[];
  /** Failures as (check, file, line, id), sorted. */
  failures: Row[];
  /** What discovery's notes must say (why a parser, what is needed). */
  notes?: RegExp[];
  /** Parser reasons, per check, as `check --explain` shows them. */
  reasons?: Record<string, RegExp>;
}

const rows = (fs: readonly Failure[]): Row[] =>
  fs.map((f): Row => [f.check, f.file, f.line, f.id]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

const shapes: Shape[] = [
  {
    title: 'ts-jest: a suite that fails to run on a type error reports it at its file and line',
    fixture: 'ts-jest',
    checks: [
      { name: 'tsc', command: 'tsc --noEmit -p tsconfig.json', parser: 'tsc' },
      { name: 'test', command: 'npm test --silent', parser: 'jest' },
    ],
    failures: [
      ['test', 'src/invoice.ts', 11, 'TS2322'],
      ['test', 'test/discount.test.ts', 5, 'ten percent off'],
      ['tsc', 'src/invoice.ts', 11, 'TS2322'],
    ],
  },
  {
    title: 'vitest: several tests failing in one error block (a beforeEach) each get its location',
    fixture: 'vitest-shared-block',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'vitest' }],
    failures: [
      ['test', 'test/money.test.js', 17, 'cents of 1'],
      ['test', 'test/money.test.js', 17, 'cents of 2'],
      ['test', 'test/money.test.js', 6, 'with a connection > loads an order'],
      ['test', 'test/money.test.js', 6, 'with a connection > saves an order'],
    ],
  },
  {
    title: 'jest.config.ts, loaded by Jest with the project\'s own ts-node',
    fixture: 'jest-config-ts',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'jest' }],
    failures: [['test', 'test/queue.test.js', 8, 'queue › first in, first out']],
    notes: [/jest\.config\.ts: Jest loads it with the project's own ts-node/],
  },
  {
    title: 'mocha configured by .mocharc.yml (its spec folder, a setup file, the dot reporter)',
    fixture: 'mocharc',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'mocha' }],
    failures: [
      ['test', 'spec/week.spec.cjs', 10, 'week a Sunday is weekend'],
      ['test', 'spec/week.spec.cjs', 6, 'week a Monday is day 1'],
    ],
    reasons: { test: /reporter `dot` \(from \.mocharc\.yml\)/ },
  },
  {
    title: 'ava: run with --tap, read by the tap parser, each test found in its file',
    fixture: 'ava',
    checks: [{ name: 'test', command: 'ava --tap', parser: 'tap' }],
    failures: [
      ['test', 'test/slug.test.js', 12, 'trims'],
      ['test', 'test/slug.test.js', 4, 'spaces become dashes'],
    ],
    reasons: { test: /ava, run with `--tap`/ },
  },
  {
    title: 'Biome instead of ESLint: its lint script run with --reporter=github, each diagnostic at its file, line and rule',
    fixture: 'biome',
    checks: [
      { name: 'lint', command: 'biome lint ./src --reporter=github', parser: 'biome' },
      { name: 'test', command: 'npm test --silent', parser: 'node-test' },
    ],
    failures: [
      ['lint', 'src/cart.js', 16, 'lint/suspicious/noDoubleEquals'],
      ['lint', 'src/cart.js', 8, 'lint/suspicious/noDebugger'],
    ],
    reasons: { lint: /^Biome, its reporter replaced by `--reporter=github`/ },
  },
  {
    title: 'oxlint instead of ESLint: its lint script run with --format=github, each diagnostic at its file, line and rule',
    fixture: 'oxlint',
    checks: [
      { name: 'lint', command: 'oxlint src --format=github', parser: 'oxlint' },
      { name: 'test', command: 'npm test --silent', parser: 'node-test' },
    ],
    failures: [
      ['lint', 'src/cart.js', 16, 'eslint(eqeqeq)'],
      ['lint', 'src/cart.js', 8, 'eslint(no-debugger)'],
    ],
    reasons: { lint: /^oxlint, its format replaced by `--format=github`/ },
  },
  {
    title: 'uvu: read by its own parser, the failing test at its line',
    fixture: 'uvu',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'uvu' }],
    failures: [
      ['test', 'test/range.test.js', 6, 'includes both ends'],
      ['test', 'test/suite.test.js', 8, 'range > single value'],
    ],
    reasons: { test: /^the tool it runs \(`uvu test` in scripts\.test\)/ },
  },
  {
    title: 'TypeScript project references: the project\'s `tsc -b`',
    fixture: 'tsc-references',
    checks: [{ name: 'typecheck', command: 'tsc -b', parser: 'tsc' }],
    failures: [['typecheck', 'packages/map/src/route.ts', 11, 'TS2322']],
  },
  {
    title: 'tests of the build output: npm runs the project\'s pretest build first',
    fixture: 'pretest-build',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'node-test' }],
    failures: [['test', 'test/temperature.test.js', 7, 'boiling point in fahrenheit']],
    notes: [/tsc: the project's scripts already run tsc: not run a second time/],
  },
  {
    title: 'npm workspaces, run at the root: each package by its own scripts, in its folder',
    fixture: 'monorepo',
    checks: [
      { name: '@fx/report:test', command: 'npm test --silent', parser: 'node-test', cwd: 'packages/report' },
      { name: '@fx/units:test', command: 'npm test --silent', parser: 'node-test', cwd: 'packages/units' },
    ],
    failures: [
      ['@fx/report:test', 'packages/report/test/report.test.js', 10, 'a long distance line'],
      ['@fx/units:test', 'packages/units/test/units.test.js', 10, 'round half up'],
    ],
    notes: [/^test: scripts\.test \("npm test --workspaces --if-present"\) runs each package's own script/m, /workspace: 3 package\(s\) from package\.json workspaces/],
  },
  {
    title: 'npm workspaces, run in a package: its own scripts and those of the packages that depend on it',
    fixture: 'monorepo',
    sub: 'packages/units',
    checks: [
      { name: 'test', command: 'npm test --silent', parser: 'node-test' },
      { name: '@fx/report:test', command: 'npm test --silent', parser: 'node-test', cwd: '../report' },
    ],
    // The dependent's files lie outside the run's folder: named in the message, never as an editable file.
    failures: [
      ['@fx/report:test', undefined, undefined, 'a long distance line'],
      ['test', 'test/units.test.js', 10, 'round half up'],
    ],
    notes: [/@fx\/units is a package of the workspace at \.\.\/\.\.; the packages that depend on it are checked too: @fx\/report/],
  },
];

describe('project shapes (issue 13): discovery, parser, locations, one hash for two runs', function () {
  this.timeout(600000);
  for (const s of shapes) {
    it(s.title, async () => {
      const scratch = copyFixture(`verify/${s.fixture}`);
      try {
        const root = path.join(scratch.project, s.sub ?? '');
        const d = discoverChecks(root);
        assert.deepEqual(d.checks, s.checks, d.notes.join('\n'));
        for (const re of s.notes ?? []) assert.match(d.notes.join('\n'), re);
        for (const [name, re] of Object.entries(s.reasons ?? {})) assert.match(d.origins[name]!.reason, re);
        const v = new Verifier({ root, checks: d.checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 });
        assert.deepEqual(v.preflight(), []);
        const a = await v.verify();
        assert.deepEqual(rows(a.failures), s.failures, JSON.stringify(a.failures, null, 1));
        const b = await v.verify();
        assert.equal(b.failureHash, a.failureHash, `two runs, one hash:\n${JSON.stringify([a.failures, b.failures], null, 1)}`);
      } finally {
        scratch.cleanup();
      }
    });
  }

  it('a fix in a package turns the packages that depend on it green too, as their checks show', async () => {
    const scratch = copyFixture('verify/monorepo');
    try {
      const root = path.join(scratch.project, 'packages', 'units');
      const file = path.join(root, 'src', 'units.js');
      writeFileSync(file, readFileSync(file, 'utf8').replace('Math.floor(n * f)', 'Math.round(n * f)'));
      const r = await new Verifier({ root, checks: discoverChecks(root).checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
      assert.deepEqual(r.checks.map((c) => [c.name, c.exitCode]), [['test', 0], ['@fx/report:test', 0]]);
      assert.equal(r.green, true);
    } finally {
      scratch.cleanup();
    }
  });

  it('tests of the build output see a source fix: the pretest build runs before every check', async () => {
    const scratch = copyFixture('verify/pretest-build');
    try {
      const file = path.join(scratch.project, 'src', 'temperature.ts');
      const v = new Verifier({ root: scratch.project, checks: discoverChecks(scratch.project).checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 });
      assert.equal((await v.verify()).green, false);
      writeFileSync(file, readFileSync(file, 'utf8').replace('+ 23', '+ 32'));
      assert.equal((await v.verify()).green, true);
    } finally {
      scratch.cleanup();
    }
  });
});

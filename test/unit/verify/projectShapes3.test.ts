// Issue 27's acceptance: real projects, round three. Each class is a small real project in the shape
// real ones have, run with the real tools (ESLint 8 with .eslintrc, gts, Jest with console output,
// npm workspaces with a dependent), tested as projectShapes.test.ts does: discovery, parser, every
// location the raw output gives, one hash over two runs, green on the fixed state, and a real fix
// kept by the loop with staged checks on.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { Run } from '../../../src/core/loop/run';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { TimedEvent } from '../../../src/core/trace/events';
import type { CheckSpec, Failure } from '../../../src/core/types';
import { discoverChecks } from '../../../src/core/verify/discover';
import { Verifier } from '../../../src/core/verify/verifier';
import type { FixtureOptions, Scratch } from '../../support/fixtures';
import { copyFixture } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';

type Row = [check: string, file: string | undefined, line: number | undefined, id: string | undefined];

const rows = (fs: readonly Failure[]): Row[] =>
  fs.map((f): Row => [f.check, f.file, f.line, f.id]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

interface Shape {
  title: string;
  fixture: string;
  options?: FixtureOptions;
  /** The folder the run is in, inside the fixture (a monorepo's package). */
  sub?: string;
  checks: CheckSpec[];
  /** Failures as (check, file, line, id), sorted. */
  failures: Row[];
  notes?: RegExp[];
  reasons?: Record<string, RegExp>;
  /** The real fix: file (relative to the run's folder) → [from, to]. */
  fix: Record<string, [string, string]>;
}

const shapes: Shape[] = [
  {
    title: 'ESLint 8 with .eslintrc (and an .eslintignore): a lint the staged run can narrow without options ESLint 8 rejects',
    fixture: 'eslint8-eslintrc',
    options: { hoist: 'gts' },
    checks: [
      { name: 'lint', command: 'eslint src test --format json', parser: 'eslint' },
      { name: 'test', command: 'npm test --silent', parser: 'node-test' },
    ],
    failures: [
      ['lint', 'src/shipping.js', 6, 'no-unused-vars'],
      ['lint', 'src/shipping.js', 7, 'eqeqeq'],
      ['test', 'test/shipping.test.js', 7, 'free from 5000 cents of goods'],
    ],
    fix: { 'src/shipping.js': ['  const freeFrom = 5000;\n  if (orderCents == 5000) return 0;', '  const freeFrom = 5000;\n  if (orderCents >= freeFrom) return 0;'] },
  },
  {
    title: 'Jest with console output in passing and failing suites: a `● Console` block is never a failure',
    fixture: 'jest-console',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'jest' }],
    failures: [['test', 'test/tax.test.js', 6, 'vat › rounds half a cent up']],
    fix: { 'src/tax.js': ['Math.floor(', 'Math.round('] },
  },
  {
    title: 'npm workspaces, run in a package whose dependent maps it to source: the dependent\'s failures placed in the changed package',
    fixture: 'workspace-dependent',
    sub: 'packages/core',
    checks: [
      { name: 'test', command: 'npm test --silent', parser: 'node-test' },
      { name: '@wd/app:test', command: 'npm test --silent', parser: 'mocha', cwd: '../app' },
    ],
    failures: [
      ['@wd/app:test', 'src/tree.js', 5, 'stock report counts a catalog of one leaf'],
      ['@wd/app:test', 'src/tree.js', 5, 'stock report counts a deep catalog'],
      ['test', 'test/tree.test.js', 11, 'a leaf may leave out its children'],
    ],
    notes: [/the packages that depend on it are checked too: @wd\/app/],
    fix: { 'src/tree.js': ['node.children.reduce(', '(node.children ?? []).reduce('] },
  },
  {
    title: 'gts: linted through `npm run check`, tests of a build that `pretest` deletes and rebuilds while the lint reads it',
    fixture: 'gts-check',
    options: { hoist: 'gts' },
    checks: [
      { name: 'check', command: 'npm run check --silent', parser: 'eslint' },
      { name: 'test', command: 'npm test --silent', parser: 'node-test' },
    ],
    failures: [
      ['check', 'src/names.ts', 3, 'eqeqeq'],
      ['test', 'test/names.test.js', 10, 'a tab between names'],
    ],
    notes: [/^check: scripts\.check \("gts check"\) runs the linter \(gts check\): the project's lint entry point/m, /tsc: the project's scripts already run tsc/],
    reasons: { check: /`gts check` in scripts\.check/ },
    fix: { 'src/names.ts': ["if (name.trim() == '') return '';\n  const parts = name.trim().split(' ');", "if (name.trim() === '') return '';\n  const parts = name.trim().split(/\\s+/);"] },
  },
  {
    title: 'Jest with a received dump holding clock readings (performance.now(), Date.now()): one hash over two runs',
    fixture: 'volatile-received',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'jest' }],
    failures: [['test', 'test/jobs.jest.js', 5, 'a job with no steps is done']],
    fix: { 'src/jobs.js': ["  if (steps.length === 0) state = 'failed';\n", ''] },
  },
  {
    title: 'mocha under tsx (`node-option: import=tsx` in .mocharc.json): a timeout and a hook\'s timeout, which print no stack, at their tests\' lines',
    fixture: 'mocha-tsx-timeout',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'mocha' }],
    failures: [
      ['test', 'test/clock.spec.ts', 22, 'Queue "before each" hook for "starts empty"'],
      ['test', 'test/clock.spec.ts', 9, 'pause waits milliseconds, not seconds'],
    ],
    fix: { 'src/clock.ts': ['ms * 1000', 'ms'] },
  },
  {
    title: 'node:test under tsx: a timeout, whose location is in the compiled code (line 1), at its test\'s line',
    fixture: 'node-test-tsx-timeout',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'node-test' }],
    failures: [['test', 'test/retry.test.ts', 10, 'retry > tries again after a short delay']],
    fix: { 'src/retry.ts': ['delayMs * 1000', 'delayMs'] },
  },
  {
    title: 'Vitest `projects`: each failure printed after its project\'s label (`|money|`), placed in its file at its line',
    fixture: 'vitest-projects',
    checks: [{ name: 'test', command: 'npm test --silent', parser: 'vitest' }],
    failures: [
      ['test', 'test/money/price.test.js', 10, 'price > pads cents below ten'],
      ['test', 'test/text/truncate.test.js', 11, 'truncate > shortens a price label'],
    ],
    fix: { 'src/money.js': ['`${whole}.${rest}`', "`${whole}.${String(rest).padStart(2, '0')}`"] },
  },
  {
    title: 'a pnpm selector (`test: pnpm run "/^test:.*/"`): the scripts it matches, each its own check with its own parser, run once and without pnpm',
    fixture: 'pnpm-regex',
    checks: [
      { name: 'test:lint', command: 'eslint src test --format json', parser: 'eslint' },
      { name: 'test:types', command: 'tsc --noEmit', parser: 'tsc' },
      { name: 'test:spec', command: 'npm run test:spec --silent', parser: 'vitest' },
    ],
    failures: [
      ['test:lint', 'src/slug.ts', 5, 'eqeqeq'],
      ['test:spec', 'test/slug.test.ts', 10, 'slug > treats runs of spaces as one'],
      ['test:spec', 'test/slug.test.ts', 14, 'slug > cuts a long title'],
      ['test:spec', 'test/slug.test.ts', 6, 'slug > joins words with dashes'],
      ['test:types', 'src/slug.ts', 5, 'TS2322'],
    ],
    notes: [
      /^test: package\.json scripts\.test \("pnpm run "\/\^test:\.\*\/""\) is a pnpm selector: pnpm runs every script whose name matches \/\^test:\.\*\/ \(test:types, test:lint, test:spec\); each runs as a check of its own, read by its own parser and run once \(pnpm itself is not needed\); test:lint is already a check, not run twice$/m,
      /^tsc: the project's scripts already run tsc: not run a second time$/m,
    ],
    reasons: { 'test:spec': /`vitest run` in scripts\.test:spec/, 'test:types': /tsc, run directly/ },
    fix: {
      'src/slug.ts': [
        "split(' ');\n  const joined = words.join('-');\n  return joined.length == max ? joined : joined.slice(0, max).length;",
        "split(/\\s+/);\n  const joined = words.join('-');\n  return joined.length <= max ? joined : joined.slice(0, max);",
      ],
    },
  },
];

function applyFix(root: string, fix: Shape['fix']): void {
  for (const [rel, [from, to]] of Object.entries(fix)) {
    const file = path.join(root, rel);
    const text = readFileSync(file, 'utf8');
    assert.ok(text.includes(from), `${rel} holds the text the fix replaces`);
    writeFileSync(file, text.replace(from, to));
  }
}

type VerifyEvent = Extract<TimedEvent, { type: 'verify' }>;

/** A run with staged checks whose model replies are these edits, the last one the real fix. */
async function loopFix(s: Scratch, root: string, checks: CheckSpec[], ...edits: Shape['fix'][]): Promise<{ report: Awaited<ReturnType<Run['start']>>; verifies: VerifyEvent[] }> {
  const responses = edits.map((fix, i) => {
    const diffs = Object.entries(fix).map(([rel, [from, to]]) => {
      const text = readFileSync(path.join(root, rel), 'utf8');
      return diffOf(rel, text, text.replace(from, to));
    });
    const last = i === edits.length - 1;
    return { text: reply(diffs, { status: last ? 'done' : 'in_progress', postMortem: last ? 'the real fix' : 'a first guess' }) };
  });
  const settings = { ...defaultSettings(), checks, stagedChecks: true, maxSteps: 3 };
  const events: TimedEvent[] = [];
  const verifier = new Verifier({ root, checks, parallel: true, outputLimitKb: 256, flakyReruns: settings.flakyReruns, staged: true, storageDir: s.storage });
  const provider = new ReplayProvider({ responses });
  const run = new Run({ workspace: new FsWorkspace(root), verifier, provider, settings, storageDir: s.storage, onEvent: (e) => events.push(e) });
  const report = await run.start();
  return { report, verifies: events.filter((e): e is VerifyEvent => e.type === 'verify') };
}

describe('project shapes, round three (issue 27)', function () {
  this.timeout(600000);
  for (const s of shapes) {
    describe(s.title, () => {
      it('discovery, parser, every location, one hash over two runs, green on the fixed state', async () => {
        const scratch = copyFixture(`verify/${s.fixture}`, s.options);
        try {
          const root = path.join(scratch.project, s.sub ?? '');
          const d = discoverChecks(root);
          assert.deepEqual(d.checks, s.checks, d.notes.join('\n'));
          for (const re of s.notes ?? []) assert.match(d.notes.join('\n'), re);
          for (const [name, re] of Object.entries(s.reasons ?? {})) assert.match(d.origins[name]!.reason, re);
          const v = new Verifier({ root, checks: d.checks, parallel: true, outputLimitKb: 256, flakyReruns: 0 });
          assert.deepEqual(v.preflight(), []);
          const a = await v.verify();
          assert.deepEqual(rows(a.failures), s.failures, JSON.stringify(a.failures, null, 1));
          const b = await v.verify();
          assert.equal(b.failureHash, a.failureHash, `two runs, one hash:\n${JSON.stringify([a.failures, b.failures], null, 1)}`);
          applyFix(root, s.fix);
          const fixed = await v.verify();
          assert.equal(fixed.green, true, JSON.stringify(fixed.checks.map((c) => [c.name, c.exitCode, c.failures]), null, 1));
        } finally {
          scratch.cleanup();
        }
      });

      it('the loop keeps the real fix, its staged step narrowed and green decided in full', async () => {
        const scratch = copyFixture(`verify/${s.fixture}`, s.options);
        try {
          const root = path.join(scratch.project, s.sub ?? '');
          const { report, verifies } = await loopFix(scratch, root, discoverChecks(root).checks, s.fix);
          assert.equal(report.stopReason, 'green', `${report.detail}\n${JSON.stringify(verifies.map((v) => v.checks), null, 1)}`);
          assert.equal(report.steps.length, 1);
          assert.equal(verifies.at(-1)!.green, true);
        } finally {
          scratch.cleanup();
        }
      });
    });
  }

  it('workspace: a wrong fix that changes nothing keeps the dependent\'s failures (re-run in full, not dropped) and is no progress', async () => {
    const scratch = copyFixture('verify/workspace-dependent');
    try {
      const root = path.join(scratch.project, 'packages', 'core');
      const noOp: Shape['fix'] = { 'src/tree.js': ["'use strict';", "'use strict';\n// Sums a tree."] };
      const { report, verifies } = await loopFix(scratch, root, discoverChecks(root).checks, noOp, shapes.find((x) => x.fixture === 'workspace-dependent')!.fix);
      assert.equal(report.stopReason, 'green', report.detail);
      assert.deepEqual(verifies.map((v) => v.failureCount), [3, 3, 0], 'the no-op step still has the dependent\'s two failures');
      const app = verifies[1]!.checks.find((c) => c.name === '@wd/app:test')!;
      assert.match(app.note ?? '', /outside the check's folder \(src\/tree\.js\)/);
    } finally {
      scratch.cleanup();
    }
  });

  it('clock readings in received dumps: every runner\'s real output, checked twice, hashes once', async () => {
    const scratch = copyFixture('verify/volatile-received');
    try {
      const checks: CheckSpec[] = [
        { name: 'jest', command: 'jest', parser: 'jest' },
        { name: 'node', command: 'node --test test/jobs.node.test.js', parser: 'node-test' },
        { name: 'vitest', command: 'vitest run vitest.spec', parser: 'vitest' },
        { name: 'mocha', command: 'mocha test/jobs.mocha.cjs', parser: 'mocha' },
      ];
      const v = new Verifier({ root: scratch.project, checks, parallel: false, outputLimitKb: 256, flakyReruns: 0 });
      const a = await v.verify();
      assert.deepEqual(a.checks.map((c) => [c.name, c.failures.length]), [['jest', 1], ['node', 1], ['vitest', 1], ['mocha', 1]], JSON.stringify(a.failures, null, 1));
      // The dumps hold the readings, so each run's messages differ: only the identity may not.
      for (const f of a.failures) assert.match(f.message, /actualStartTime/, `${f.check}'s message holds the dump`);
      const b = await v.verify();
      assert.notDeepEqual(b.failures.map((f) => f.message), a.failures.map((f) => f.message), 'the dumps changed between the runs');
      assert.equal(b.failureHash, a.failureHash, JSON.stringify([a.failures.map((f) => f.message), b.failures.map((f) => f.message)], null, 1));
    } finally {
      scratch.cleanup();
    }
  });

  it('ESLint 8: a staged lint of a changed file its .eslintignore skips is no failure, and a new finding is one', async () => {
    const scratch = copyFixture('verify/eslint8-eslintrc', { hoist: 'gts' });
    const root = scratch.project;
    const v = new Verifier({ root, checks: discoverChecks(root).checks, parallel: false, outputLimitKb: 256, flakyReruns: 0, staged: true, storageDir: scratch.storage });
    try {
      const v0 = await v.verify(undefined, { previous: null });
      const pad = path.join(root, 'src', 'vendor', 'pad.js');
      writeFileSync(pad, readFileSync(pad, 'utf8').replace('var unusedWidth = 8;', 'var unusedWidth = 9;'));
      const ship = path.join(root, 'src', 'shipping.js');
      writeFileSync(ship, readFileSync(ship, 'utf8').replace('const freeFrom = 5000;', 'const freeFrom = 5000;\n  const spare = 1;'));
      const v1 = await v.verify(undefined, { previous: v0, changed: ['src/vendor/pad.js', 'src/shipping.js'] });
      const lint = v1.checks.find((c) => c.name === 'lint')!;
      assert.equal(lint.mode, 'targeted', lint.stagedNote);
      assert.deepEqual(rows(lint.failures), [
        ['lint', 'src/shipping.js', 6, 'no-unused-vars'],
        ['lint', 'src/shipping.js', 7, 'no-unused-vars'],
        ['lint', 'src/shipping.js', 8, 'eqeqeq'],
      ], JSON.stringify(lint.failures, null, 1));
    } finally {
      await v.release();
      scratch.cleanup();
    }
  });
});

// Feedback that scales, on real runner output: failures of one shape fold, other causes stay apart,
// and timeouts and hangs (which print no stack) still get their test's file and line.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { VerifyResult } from '../../../src/core/types';
import { formatFailureReport } from '../../../src/core/verify/report';
import { Verifier } from '../../../src/core/verify/verifier';
import type { ShapeOptions, ShapeRunner } from '../../fixtures/verify/shapes';
import { SHAPE_COMMANDS, shapeFiles, writeShapeProject } from '../../fixtures/verify/shapes';
import { REPO } from '../../support/fixtures';

async function run(runner: ShapeRunner, opts: ShapeOptions, timeoutSeconds = 120): Promise<{ r: VerifyResult; dir: string; report: string; lineOf: (text: string) => number }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-shape-'));
  writeShapeProject(dir, runner, opts);
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const r = await new Verifier({ root: dir, checks: [{ name: 'test', command: SHAPE_COMMANDS[runner], timeoutSeconds }], parallel: false, outputLimitKb: 1024, flakyReruns: 0, killGraceMs: 500 }).verify();
  const report = formatFailureReport(r.failures, { root: dir, readText: (rel) => readFileSync(path.join(dir, rel), 'utf8') });
  const src = shapeFiles(runner, opts)['test/sum.test.js']!.split('\n');
  return { r, dir, report, lineOf: (text) => src.findIndex((l) => l.includes(text)) + 1 };
}

describe('feedback on real runner output', function () {
  this.timeout(300000);

  for (const runner of ['node-test', 'mocha', 'jest', 'vitest'] as const) {
    it(`${runner}: 30 failures of one shape fold, other causes stay apart, the timeout has its test's line`, async () => {
      const { r, dir, report, lineOf } = await run(runner, { cases: 30, others: true, timeout: true });
      try {
        assert.equal(r.failures.length, 33, JSON.stringify(r.failures.map((f) => f.id)));
        assert.match(report, /^33 failure\(s\) \(33 distinct, 4 shape\(s\)\) in 1 file\(s\):/);
        assert.match(report, /adds case 3\] test\/sum\.test\.js:\d+/);
        assert.ok(!/adds case 4\]/.test(report), 'the fourth of the shape is folded');
        const first = lineOf("'adds case 4'") + 1;
        const last = lineOf("'adds case 30'") + 1;
        assert.match(report, new RegExp(`- \\[test\\] … and 27 more failure\\(s\\) of this shape: lines ${first}, ${first + 3}, …, ${last} of test/sum\\.test\\.js\\n {4}ids: sum.{1,3}adds case # for # = 4–30`));
        // Same assertion shape, other words in the title; a TypeError from other code; the timeout.
        assert.match(report, new RegExp(`- \\[test others.{1,3}multiplies two numbers\\] test/sum\\.test\\.js:${lineOf('product(2, 3)')}:`));
        assert.match(report, new RegExp(`- \\[test others.{1,3}parses a list\\] test/sum\\.test\\.js:${lineOf("parseList('a,b')")}:\\d+\\n {4}TypeError: Cannot read properties of undefined \\(reading 'split'\\)\\n {8}at parseList \\(src/parse\\.js:2:\\d+\\)`));
        const slow = r.failures.find((f) => /settles within the limit/.test(f.id ?? ''))!;
        const decl = lineOf("'settles within the limit'");
        assert.equal(slow.file, 'test/sum.test.js');
        assert.ok(slow.line !== undefined && slow.line >= decl && slow.line <= decl + 3, `timeout at line ${slow.line}, the test at ${decl}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  for (const runner of ['node-test', 'mocha'] as const) {
    it(`${runner}: a hung run stopped at its timeout names the test that never finished, with its file and line`, async function () {
      if (process.platform !== 'linux') this.skip();
      const { r, dir, lineOf } = await run(runner, { cases: 3, hang: true }, 6);
      try {
        assert.ok(r.checks[0]!.timedOut);
        const hung = r.failures[r.failures.length - 1]!;
        assert.deepEqual([hung.file, hung.line, hung.id], ['test/sum.test.js', lineOf("'waits for a reply that never comes'"), runner === 'mocha' ? 'stuck waits for a reply that never comes' : 'stuck > waits for a reply that never comes']);
        assert.match(hung.message, /^test did not finish within its 6 s timeout and was stopped; this test never finished$/);
        // node:test reports each test as it ends: what failed before the hang is kept, with its line.
        // Mocha lists failures only at the end of a run, which a hung run never reaches.
        const before = r.failures.slice(0, -1).map((f) => [f.line, f.id]);
        if (runner === 'node-test') assert.deepEqual(before, [[lineOf('sum(3, 10)'), 'sum > adds case 1'], [lineOf('sum(4, 11)'), 'sum > adds case 2'], [lineOf('sum(5, 12)'), 'sum > adds case 3']]);
        else assert.deepEqual(before, []);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

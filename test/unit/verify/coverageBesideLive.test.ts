// Coverage checks beside the others, with the real tools (issue 39, class C). luxon's shape (`jest
// --coverage` into build/coverage, Prettier on src/test globs) runs both checks at once: the
// verifier's own start and exit lines interleave, no clock read. fastify-cors's shape (`c8 node
// --test`, `eslint` with no paths) stays alone and says why, and that is what keeps ESLint's verdict
// fixed: it lints the report c8 writes, so beside c8 it would read it half written or not yet there.
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import type { ParseIo } from '../../../src/cli/parseCommand';
import type { CheckSpec, Logger, VerifyResult } from '../../../src/core/types';
import { discoverChecks } from '../../../src/core/verify/discover';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, tempTree } from '../../support/fixtures';

/** One pass, with the verifier's lines in the order it logged them. */
async function pass(root: string, checks: CheckSpec[], parallel: boolean): Promise<{ r: VerifyResult; lines: string[]; notes: string[] }> {
  const lines: string[] = [];
  const keep = (m: string): number => lines.push(m);
  const logger: Logger = { info: keep, warn: keep, error: keep, debug: keep };
  const v = new Verifier({ root, checks, parallel, outputLimitKb: 256, flakyReruns: 1, logger });
  const r = await v.verify();
  const notes = v.writerNotes();
  await v.release();
  return { r, lines, notes };
}

/** Where a check's first run started and its last run ended, in the order of the verifier's lines. */
function span(lines: readonly string[], name: string): { start: number; end: number } {
  const start = lines.findIndex((l) => l.startsWith(`check ${name}: `) && !/^check \S+: (?:exit|runs )/.test(l));
  const ends = lines.flatMap((l, i) => (l.startsWith(`check ${name}: exit `) ? [i] : []));
  assert.ok(start >= 0 && ends.length > 0, `${name} ran:\n${lines.join('\n')}`);
  return { start, end: ends[ends.length - 1]! };
}

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }): boolean => a.start < b.end && b.start < a.end;
const keys = (r: VerifyResult): string[] => r.failures.map((f) => `${f.check} ${f.file ?? ''} ${f.id}`).sort();

function project(files: Record<string, string>): ReturnType<typeof tempTree> {
  const t = tempTree(files, 'fug-cover-live-');
  symlinkSync(path.join(REPO, 'node_modules'), path.join(t.dir, 'node_modules'), 'dir');
  return t;
}

describe('a coverage check beside the others, real tools', function () {
  this.timeout(240_000);

  it("luxon's shape: jest --coverage into build/coverage runs beside Prettier on src/ and test/, with the same verdict as one at a time", async () => {
    const t = project({
      'package.json': JSON.stringify({ name: 'lux', private: true, scripts: { test: 'jest --coverage', 'format-check': "prettier --check 'src/**/*.js' 'test/**/*.js'" } }),
      'jest.config.js': 'module.exports = {\n  testEnvironment: "node",\n  roots: ["test"],\n  coverageDirectory: "build/coverage",\n  transform: {},\n};\n',
      'src/sum.js': 'exports.sum = (a, b) => a + b;\n',
      'test/sum.test.js': 'const { sum } = require("../src/sum");\n\ntest("adds", () => {\n  expect(sum(1, 2)).toBe(4);\n});\n',
    });
    try {
      const { checks } = discoverChecks(t.dir);
      assert.deepEqual(checks.map((c) => c.name).sort(), ['format-check', 'test']);
      const beside = await pass(t.dir, checks, true);
      assert.deepEqual(beside.notes, ['check test: runs beside the others: its only writing is its coverage report (build/coverage), which no other check reads']);
      assert.ok(beside.lines.includes(beside.notes[0]!), 'the verifier logs what it does');
      assert.ok(overlap(span(beside.lines, 'test'), span(beside.lines, 'format-check')), `both run at once:\n${beside.lines.join('\n')}`);
      const apart = await pass(t.dir, checks, false);
      assert.ok(!overlap(span(apart.lines, 'test'), span(apart.lines, 'format-check')));
      assert.deepEqual(keys(beside.r), ['test test/sum.test.js adds']);
      assert.deepEqual(keys(beside.r), keys(apart.r));
      assert.equal(beside.r.failureHash, apart.r.failureHash);
    } finally {
      t.cleanup();
    }
  });

  it("fastify-cors's shape: c8 node --test stays alone beside `eslint` with no paths, says why, and ESLint's verdict on the report it lints does not flip", async () => {
    const t = project({
      'package.json': JSON.stringify({ name: 'fc', private: true, scripts: { test: 'c8 --reporter html --reporter text node --test test/', lint: 'eslint' } }),
      // `var` in the report's own scripts (prettify.js, sorter.js) is what ESLint finds once the report is there (their `eslint-disable` comments not honoured).
      'eslint.config.mjs': "export default [{ files: ['**/*.js'], linterOptions: { noInlineConfig: true }, rules: { 'no-var': 'error' } }];\n",
      'src/sum.js': 'exports.sum = (a, b) => a + b;\n',
      'test/sum.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../src/sum');\ntest('adds', () => assert.strictEqual(sum(1, 2), 3));\n",
    });
    try {
      const found = discoverChecks(t.dir).checks;
      const checks = ['test', 'lint'].map((n) => found.find((c) => c.name === n)!);
      // ESLint alone before any report: the project lints clean.
      const before = await pass(t.dir, checks.filter((c) => c.name === 'lint'), true);
      assert.deepEqual(keys(before.r), []);
      const first = await pass(t.dir, checks, true);
      assert.equal(first.notes.length, 1);
      assert.match(first.notes[0]!, /^check test: runs before the others, not beside them: `c8 --reporter html --reporter text node --test test\/` writes its coverage report \(coverage, coverage\/tmp\), and check lint may read it as it is written: eslint lints the whole folder \(no paths given\)/);
      assert.ok(span(first.lines, 'test').end < span(first.lines, 'lint').start, first.lines.join('\n'));
      // With the report written, ESLint finds it; run beside c8 it would have found it or not by the race.
      const inReport = keys(first.r).filter((k) => k.startsWith('lint coverage/'));
      assert.ok(inReport.length > 0, `${keys(first.r).join("\n")}\n${first.lines.join("\n")}`);
      const again = await pass(t.dir, checks, true);
      const apart = await pass(t.dir, checks, false);
      assert.equal(again.r.failureHash, first.r.failureHash);
      assert.equal(apart.r.failureHash, first.r.failureHash);
    } finally {
      t.cleanup();
    }
  });

  it("a chain's rest that writes only an unread coverage report starts beside the lint check that runs its other part", async () => {
    const t = project({
      'package.json': JSON.stringify({ name: 'ch', private: true, scripts: { lint: 'eslint src', test: 'npm run lint && c8 -o out/cov node --test test/' } }),
      'eslint.config.mjs': "export default [{ files: ['**/*.js'], rules: { 'no-var': 'error' } }];\n",
      'src/sum.js': 'exports.sum = (a, b) => a + b;\n',
      'test/sum.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../src/sum');\ntest('adds', () => assert.strictEqual(sum(1, 2), 3));\n",
    });
    try {
      const { checks } = discoverChecks(t.dir);
      assert.deepEqual(checks.map((c) => c.name).sort(), ['lint', 'test']);
      const p = await pass(t.dir, checks, true);
      assert.deepEqual(p.notes, ['check test: runs beside the others: its only writing is its coverage report (out/cov, out/cov/tmp), which no other check reads']);
      const test = p.r.checks.find((c) => c.name === 'test')!;
      assert.match(test.stagedNote ?? '', /the rest ran alone \(`c8 -o out\/cov node --test test\/`\), started beside them/, p.lines.join('\n'));
      assert.ok(overlap(span(p.lines, 'test'), span(p.lines, 'lint')), p.lines.join('\n'));
      assert.equal(p.r.green, true, p.lines.join('\n'));
    } finally {
      t.cleanup();
    }
  });

  it('check --explain and --json say which coverage check runs alone and why', async () => {
    const t = project({
      'package.json': JSON.stringify({ name: 'ex', private: true, scripts: { test: 'c8 -o src/cov node --test test/', lint: 'eslint src' } }),
      'eslint.config.mjs': "export default [{ files: ['**/*.js'], rules: { 'no-var': 'error' } }];\n",
      'src/sum.js': 'exports.sum = (a, b) => a + b;\n',
      'test/sum.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../src/sum');\ntest('adds', () => assert.strictEqual(sum(1, 2), 3));\n",
    });
    try {
      const run = async (flag: string): Promise<string> => {
        const out: string[] = [];
        const io: ParseIo = { stdout: (x) => out.push(x), stderr: (x) => out.push(x), readStdin: async () => Buffer.from('') };
        await main(['check', '--cwd', t.dir, '--storage', path.join(t.dir, '.storage'), flag], io);
        return out.join('\n');
      };
      const why = 'check test: runs before the others, not beside them: `c8 -o src/cov node --test test/` writes its coverage report (src/cov, src/cov/tmp), and check lint may read it as it is written: eslint lints src';
      assert.ok((await run('--explain')).includes(`  · ${why}`));
      const json = JSON.parse(await run('--json')) as { writers: string[] };
      assert.equal(json.writers.length, 1);
      assert.ok(json.writers[0]!.startsWith(why), json.writers[0]);
    } finally {
      t.cleanup();
    }
  });
});

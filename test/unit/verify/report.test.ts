// The failure report the model reads: grouped, folded, with source, within budget, never the raw log.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { countTokens } from '../../../src/core/tokens';
import type { Failure } from '../../../src/core/types';
import { formatFailureReport } from '../../../src/core/verify/report';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO, copyFixture } from '../../support/fixtures';

const SRC: Record<string, string> = {
  'src/a.ts': ['const a = 1;', "let b: number = 'x';", 'function f() {', "  return g('y');", '}', "let c: number = 'z';", 'export {};'].join('\n'),
  'src/b.ts': ['export const x = 1;'].join('\n'),
};
const read = (rel: string): string | undefined => SRC[rel];
const ts = (file: string, line: number, message: string, id = 'TS2322'): Failure => ({ check: 'tsc', file, line, column: 5, id, message });

describe('failure report', function () {
  this.timeout(120000);

  it('groups by file, shows each failure once with the source around it', () => {
    const r = formatFailureReport([ts('src/b.ts', 1, 'Something about b.', 'TS1000'), ts('src/a.ts', 4, "Cannot find name 'g'.", 'TS2304')], { readText: read, contextLines: 2 });
    assert.ok(r.startsWith('2 failure(s) in 2 file(s):'));
    assert.ok(r.indexOf('## src/a.ts') < r.indexOf('## src/b.ts'), 'files in order');
    assert.match(r, /- \[tsc TS2304\] src\/a\.ts:4:5\n {4}Cannot find name 'g'\.\n {4}```\n {5} {4}2 \| let b: number = 'x';\n {5} {4}3 \| function f\(\) \{\n {4}> {4}4 \| {3}return g\('y'\);\n {5} {4}5 \| \}\n {5} {4}6 \| let c: number = 'z';\n {4}```/);
  });

  it('folds the same error at several lines into one entry with a count and the lines', () => {
    const msg = "Type 'string' is not assignable to type 'number'.";
    const r = formatFailureReport([ts('src/a.ts', 2, msg), ts('src/a.ts', 6, msg)], { readText: read });
    assert.match(r, /^2 failure\(s\) \(1 distinct\) in 1 file\(s\):/);
    assert.match(r, /- \[tsc TS2322\] src\/a\.ts:2:5, src\/a\.ts:6:5 \(×2\)\n {4}Type 'string' is not assignable/);
    assert.equal(r.split(msg).length - 1, 1, 'the message once');
    assert.match(r, />\s+2 \| let b/);
    assert.match(r, />\s+6 \| let c/);
  });

  it('folds repeats that differ only in noise (timings, paths)', () => {
    const t = (ms: number): Failure => ({ check: 'test', file: 'test/a.test.js', line: 3, id: 'slow', message: `Timeout of ${ms}ms exceeded` });
    const r = formatFailureReport([t(2001), t(2003)], { root: '/w' });
    assert.match(r, /\(×2\)/);
  });

  it('shows one line of source around by default, and drops a stack frame that only repeats the position', () => {
    const f: Failure = { check: 'test', file: 'src/a.ts', line: 4, column: 10, id: 'g', message: "TypeError: g is not a function\n    at f (src/a.ts:4:10)\n    at Object.<anonymous> (test/a.test.ts:9:3)" };
    const r = formatFailureReport([f], { readText: read });
    assert.ok(!r.includes('(src/a.ts:4:10)'));
    assert.match(r, /at Object\.<anonymous> \(test\/a\.test\.ts:9:3\)/);
    assert.match(r, / {4}```\n {5} {4}3 \| function f\(\) \{\n {4}> {4}4 \| {3}return g\('y'\);\n {5} {4}5 \| \}\n {4}```/);
  });

  it('puts failures without a file last, lists flaky ones apart, says when all pass', () => {
    const r = formatFailureReport([{ check: 'build', id: 'exit', message: 'make: *** [all] Error 1' }, ts('src/b.ts', 1, 'b')], {
      readText: read,
      flaky: [{ check: 'test', file: 'test/x.test.js', id: 'sometimes', message: 'x' }],
    });
    assert.ok(r.indexOf('## src/b.ts') < r.indexOf('## (no file)'));
    assert.match(r, /Flaky \(failed once, passed on re-run; not counted, do not chase\): \[test\] test\/x\.test\.js sometimes$/);
    assert.equal(formatFailureReport([]), 'All checks pass.');
  });

  it('stays within its token budget, dropping source first, then detail, then entries, and says what it left out', () => {
    const many: Failure[] = [];
    for (let i = 0; i < 60; i++) many.push({ check: 'test', file: `test/t${String(i).padStart(2, '0')}.test.js`, line: 1, id: `case ${i}`, message: `AssertionError: expected ${i} to equal ${i + 1}\n${'detail line\n'.repeat(15)}` });
    const text = (rel: string): string => `// ${rel}\nconst x = 1;\n`.repeat(3);
    const full = formatFailureReport(many, { readText: text });
    for (const budget of [4000, 1500, 300]) {
      const r = formatFailureReport(many, { readText: text, maxTokens: budget });
      assert.ok(countTokens(r) <= budget, `${countTokens(r)} tokens within ${budget}`);
      assert.ok(countTokens(r) < countTokens(full));
    }
    const small = formatFailureReport(many, { readText: text, maxTokens: 300 });
    assert.match(small, /\[\d+ more distinct failure\(s\) left out to fit the budget\]/);
    const mid = formatFailureReport(many, { readText: text, maxTokens: 1500 });
    assert.ok(!mid.includes('```'), 'source snippets go first');
  });

  it('on a real failing check: the report is a fraction of the raw log and carries none of its noise', async () => {
    const s = copyFixture('verify/noisy');
    try {
      const v = await new Verifier({ root: s.project, checks: [{ name: 'test', command: 'node --test' }], parallel: false, outputLimitKb: 256, flakyReruns: 0 }).verify();
      const report = formatFailureReport(v.failures, { readText: (rel) => readFileSync(path.join(s.project, rel), 'utf8'), root: s.project, maxTokens: 2000 });
      assert.ok(!/progress line \d+ of/.test(report), 'no log lines (the source around the failure may show the code that printed them)');
      assert.ok(!report.includes('duration_ms'));
      assert.match(report, /## test\/noisy\.test\.js\n- \[test logs a lot and then fails\] test\/noisy\.test\.js:7:10/);
      assert.ok(report.length * 20 < v.checks[0]!.output.length, `${report.length} chars vs ${v.checks[0]!.output.length} kept of the log`);
    } finally {
      s.cleanup();
    }
  });

  it('captured outputs: reports are a fraction of the logs they came from', async () => {
    const { parseOutput } = await import('../../../src/core/verify/parsers/index');
    const dir = path.join(REPO, 'test', 'fixtures', 'verify', 'outputs');
    const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { file: string; parser: Parameters<typeof parseOutput>[0]; root: string; exitCode: number; name: string }[];
    let rawTotal = 0;
    let reportTotal = 0;
    for (const c of index) {
      const raw = readFileSync(path.join(dir, c.file), 'utf8');
      const failures = parseOutput(c.parser, raw, { check: 'c', root: c.root, cwd: c.root, exitCode: c.exitCode });
      const report = formatFailureReport(failures, { root: c.root });
      // Already-terse output (tsc's plain lines) may come out a few header tokens longer, never more.
      assert.ok(countTokens(report) <= countTokens(raw) + 40, `${c.name}: ${countTokens(report)} vs ${countTokens(raw)} tokens`);
      rawTotal += countTokens(raw);
      reportTotal += countTokens(report);
    }
    assert.ok(reportTotal < rawTotal * 0.3, `${reportTotal} report tokens for ${rawTotal} log tokens`);
  });
});

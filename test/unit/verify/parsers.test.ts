// Parsers on real outputs captured from the real tools (test/fixtures/verify/outputs), and the rules
// every parser shares, on small crafted inputs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ParserId } from '../../../src/core/types';
import { failureIdentity } from '../../../src/core/verify/identity';
import { parseOutput, recognisedParsers } from '../../../src/core/verify/parsers/index';
import { REPO } from '../../support/fixtures';
import { EXPECTED, MESSAGES, VITEST_JSON, rows, sorted } from './expected';

interface Capture {
  name: string;
  file: string;
  fixture: string;
  parser: ParserId;
  command: string;
  colour: boolean;
  root: string;
  exitCode: number;
}

const OUTPUTS = path.join(REPO, 'test', 'fixtures', 'verify', 'outputs');
const captures: Capture[] = JSON.parse(readFileSync(path.join(OUTPUTS, 'index.json'), 'utf8')) as Capture[];

function parseCapture(c: Capture): ReturnType<typeof parseOutput> {
  const output = readFileSync(path.join(OUTPUTS, c.file), 'utf8');
  // The captured root is gone; the fixture's files stand in for it where a test is found by its title.
  const readText = (rel: string): string | undefined => {
    try {
      return readFileSync(path.join(REPO, 'test', 'fixtures', 'verify', c.fixture, rel), 'utf8');
    } catch {
      return undefined;
    }
  };
  return parseOutput(c.parser, output, { check: c.fixture, root: c.root, cwd: c.root, exitCode: c.exitCode, readText });
}

describe('parsers on captured real outputs', () => {
  for (const c of captures.filter((x) => EXPECTED[x.fixture])) {
    it(`${c.name} (${c.command}${c.colour ? ', colour' : ''}) gives every failure with file, line and id`, () => {
      const f = parseCapture(c);
      assert.deepEqual(rows(f), sorted(c.name === 'vitest-json' ? VITEST_JSON : EXPECTED[c.fixture]!));
      for (const [id, re] of Object.entries(MESSAGES[c.fixture] ?? {})) {
        const hit = f.find((x) => x.id === id);
        assert.ok(hit, `${id} found`);
        assert.match(hit.message, re);
      }
      for (const x of f) {
        assert.equal(x.check, c.fixture);
        assert.ok(!x.message.includes(c.root), `no absolute workspace path in: ${x.message}`);
        assert.ok(!x.message.includes('\u001b['), 'no ANSI left');
        assert.ok(!/node_modules\//.test(x.message), `no dependency frames in: ${x.message}`);
      }
    });
  }

  it('gives one identity per fixture whatever the format or colour, where messages are the same', () => {
    const byHash = new Map<string, string[]>();
    for (const c of captures.filter((x) => EXPECTED[x.fixture])) {
      const h = failureIdentity(parseCapture(c), { root: c.root });
      byHash.set(h, [...(byHash.get(h) ?? []), c.name]);
    }
    const groups = [...byHash.values()].map((g) => g.sort().join(' '));
    // Formats that print the same messages agree; ESLint's stylish drops the final period and
    // Vitest's JSON has no diff, so those differ from their other format (and only those).
    for (const same of [
      'tsc-plain tsc-pretty',
      'eslint-stylish eslint-stylish-color',
      'eslint-json',
      'jest-json jest-text jest-text-color',
      'mocha-json mocha-spec mocha-spec-color mocha-tap',
      'node-test-spec node-test-spec-color node-test-tap',
      'vitest-text vitest-text-color',
      'vitest-json',
    ]) {
      assert.ok(groups.includes(same), `${same} share one identity; groups: ${groups.join(' | ')}`);
    }
  });

  it('reads a failing command no parser knows as one generic failure from its tail', () => {
    const c = captures.find((x) => x.name === 'generic-npm')!;
    const f = parseCapture(c);
    assert.equal(f.length, 1);
    assert.equal(f[0]!.id, 'exit');
    assert.match(f[0]!.message, /Missing script: "missing-script"/);
  });
});

describe('parser rules', () => {
  const ctx = (exitCode: number | null, extra: Partial<{ root: string; stdout: string }> = {}): Parameters<typeof parseOutput>[2] => ({
    check: 'c',
    root: extra.root ?? '/work/proj',
    exitCode,
    ...(extra.stdout !== undefined ? { stdout: extra.stdout } : {}),
  });

  it('a tool-specific parser counts what it finds even when the check exited 0 (`tsc || true`)', () => {
    const f = parseOutput('tsc', "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\n", ctx(0));
    assert.deepEqual(rows(f), [['src/a.ts', 3, 'TS2322']]);
  });

  it('the generic parser never invents a failure on exit 0, whatever the output says', () => {
    assert.deepEqual(parseOutput('generic', 'ERROR: everything is broken\nFAILED 3 tests\n', ctx(0)), []);
  });

  it('a failing check whose output the parser does not understand still yields one failure', () => {
    const f = parseOutput('jest', 'Segmentation fault (core dumped)\n', ctx(139));
    assert.equal(f.length, 1);
    assert.equal(f[0]!.id, 'exit');
    assert.match(f[0]!.message, /Segmentation fault/);
    const quiet = parseOutput('tsc', '', ctx(1));
    assert.match(quiet[0]!.message, /failed with exit code 1 and no output/);
  });

  it('reads CRLF output as it reads LF output', () => {
    const lf = "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\n  The expected type comes from here.\nsrc/b.ts(1,1): error TS1005: ';' expected.\n";
    assert.deepEqual(parseOutput('tsc', lf.replace(/\n/g, '\r\n'), ctx(2)), parseOutput('tsc', lf, ctx(2)));
    assert.equal(parseOutput('tsc', lf, ctx(2))[0]!.message, "Type 'string' is not assignable to type 'number'.\nThe expected type comes from here.");
  });

  it('tsc: an error without a file (a config problem) is still a failure', () => {
    const f = parseOutput('tsc', "error TS18003: No inputs were found in config file '/work/proj/tsconfig.json'.\n", ctx(2));
    assert.deepEqual(rows(f), [[undefined, undefined, 'TS18003']]);
    assert.match(f[0]!.message, /No inputs were found in config file 'tsconfig\.json'/);
  });

  it('eslint: warnings are not failures unless ESLint failed without an error (--max-warnings)', () => {
    const stylish = "\n/work/proj/src/a.js\n  3:7  warning  'x' is never reassigned. Use 'const' instead  prefer-const\n\n✖ 1 problem (0 errors, 1 warning)\n";
    assert.deepEqual(parseOutput('eslint', stylish, ctx(0)), []);
    const tooMany = parseOutput('eslint', stylish + '\nESLint found too many warnings (maximum: 0).\n', ctx(1));
    assert.deepEqual(rows(tooMany), [['src/a.js', 3, 'prefer-const']]);
  });

  it('biome: its GitHub reporter lines, escapes undone, warnings only when Biome failed without an error', () => {
    const out = [
      '::warning title=lint/correctness/noUnusedVariables,file=/work/proj/src/a.js,line=1,endLine=1,col=17,endColumn=22::This function total is unused.',
      '::error title=lint/suspicious/noDebugger,file=/work/proj/src/a.js,line=4,endLine=4,col=3,endColumn=12::This is an unexpected use of the debugger statement.',
      '::error title=parse,file=/work/proj/src/b%2Cc.js,line=2,endLine=2,col=1,endColumn=2::Expected a statement%0Abut found 100%25 of nothing',
      'lint ━━━━━━━━━━━━━━━━━━━━',
      '  × Some errors were emitted while running checks.',
    ].join('\n');
    const f = parseOutput('biome', out, ctx(1));
    assert.deepEqual(rows(f), [['src/a.js', 4, 'lint/suspicious/noDebugger'], ['src/b,c.js', 2, 'parse']]);
    assert.equal(f[1]!.message, 'Expected a statement\nbut found 100% of nothing');
    assert.equal(f[0]!.column, 3);
    const warnOnly = out.split('\n')[0]!;
    assert.deepEqual(parseOutput('biome', warnOnly, ctx(0)), [], 'a warning does not fail a check that passed');
    assert.deepEqual(rows(parseOutput('biome', warnOnly, ctx(1))), [['src/a.js', 1, 'lint/correctness/noUnusedVariables']], '--error-on-warnings');
    assert.deepEqual(rows(parseOutput('generic', out, ctx(1))).length, 2, 'recognised in a chain\'s output');
  });

  it('oxlint: its GitHub format, the place at the head of the message dropped, warnings only when oxlint failed without an error', () => {
    const out = [
      '::warning file=src/a.js,line=1,endLine=1,col=7,endColumn=13,title=eslint(no-unused-vars)::src/a.js:1:7: Variable \'unused\' is declared but never used.',
      '::error file=src/a.js,line=2,endLine=2,col=1,endColumn=10,title=eslint(no-debugger)::src/a.js:2:1: `debugger` statement is not allowed',
      '::error file=src/b.ts,line=9,endLine=9,col=19,endColumn=21,title=eslint(eqeqeq)::src/b.ts:9:19: Expected === and instead saw ==',
      '',
      'Found 1 warning and 2 errors.',
      'Finished in 35ms on 2 files with 98 rules using 2 threads.',
    ].join('\n');
    const f = parseOutput('oxlint', out, ctx(1));
    assert.deepEqual(rows(f), [['src/a.js', 2, 'eslint(no-debugger)'], ['src/b.ts', 9, 'eslint(eqeqeq)']]);
    assert.equal(f[0]!.message, '`debugger` statement is not allowed');
    assert.equal(f[1]!.column, 19);
    const warnOnly = out.split('\n')[0]!;
    assert.deepEqual(parseOutput('oxlint', warnOnly, ctx(0)), [], 'a warning does not fail a check that passed');
    assert.deepEqual(rows(parseOutput('oxlint', warnOnly, ctx(1))), [['src/a.js', 1, 'eslint(no-unused-vars)']], '--deny-warnings or --max-warnings');
    assert.deepEqual(recognisedParsers(out), ['oxlint'], 'told from Biome\'s lines by the order of their properties');
    assert.deepEqual(rows(parseOutput('generic', out, ctx(1))).length, 2, 'recognised in a chain\'s output');
  });

  it('eslint: the JSON report is read from stdout even with other lines around it', () => {
    const json = JSON.stringify([{ filePath: '/work/proj/src/a.js', messages: [{ ruleId: 'eqeqeq', severity: 2, message: "Expected '==='.", line: 4, column: 9 }] }]);
    const f = parseOutput('eslint', `(node:123) Warning: something\n${json}\n`, ctx(1, { stdout: `${json}\n` }));
    assert.deepEqual(rows(f), [['src/a.js', 4, 'eqeqeq']]);
    const mixed = parseOutput('eslint', `npm banner\n${json}\nafter\n`, ctx(1));
    assert.deepEqual(rows(mixed), [['src/a.js', 4, 'eqeqeq']]);
  });

  it('tap: TODO and SKIP results do not fail, a Bail out! does, YAML and comment diagnostics both read', () => {
    const tap = [
      'TAP version 13',
      'not ok 1 - known bug # TODO fix later',
      'ok 2 - skipped # SKIP no db',
      'not ok 3 - sums',
      '  ---',
      "  message: 'should be equal'",
      '  found: 3',
      '  wanted: 4',
      '  at:',
      '    file: test/sum.js',
      '    line: 12',
      '    column: 5',
      '  ...',
      'not ok 4 - tape style',
      '  # expected: 4',
      '  # actual:   3',
      'Bail out! database went away',
      '1..4',
    ].join('\n');
    const f = parseOutput('tap', tap, ctx(1));
    assert.deepEqual(rows(f), sorted([['test/sum.js', 12, 'sums'], [undefined, undefined, 'tape style'], [undefined, undefined, 'bail-out']]));
    assert.equal(f.find((x) => x.id === 'sums')!.message, 'should be equal');
    assert.match(f.find((x) => x.id === 'tape style')!.message, /expected: 4\nactual: {3}3/);
  });

  it('node-test: a suite that failed only because a subtest did is not a failure of its own', () => {
    const tap = readFileSync(path.join(OUTPUTS, 'node-test-tap.txt'), 'utf8');
    assert.match(tap, /failureType: 'subtestsFailed'/);
    const f = parseOutput('node-test', tap, ctx(1));
    assert.ok(!f.some((x) => x.id === 'cart'));
  });

  it('drops the same failure printed twice at the same place, keeps the same message at two places', () => {
    const line = "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\n";
    assert.equal(parseOutput('tsc', line + line, ctx(2)).length, 1);
    assert.equal(parseOutput('tsc', line + line.replace('(3,5)', '(9,5)'), ctx(2)).length, 2);
  });

  // Issue 27, class 6: with Vitest projects every file and frame is printed after its project's label.
  it('vitest: a project label (`|core|`) is not part of the file, on the FAIL line or a frame; the line is kept', () => {
    const out = [
      '⎯⎯⎯⎯⎯⎯⎯ Failed Suites 1 ⎯⎯⎯⎯⎯⎯⎯',
      '',
      ' FAIL  |dom| test/boot.test.ts [ test/boot.test.ts ]',
      "Error: Cannot find module '../src/missing'",
      '',
      '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
      '',
      ' FAIL  |zustand| tests/store.test.ts > store > keeps state',
      'AssertionError: expected 1 to be 2',
      ' ❯ |zustand| tests/store.test.ts:806:5',
      '',
      ' Test Files  2 failed (2)',
    ].join('\n');
    assert.deepEqual(rows(parseOutput('vitest', out, ctx(1))), sorted([['test/boot.test.ts', undefined, 'Test suite failed to run'], ['tests/store.test.ts', 806, 'store > keeps state']]));
  });
});

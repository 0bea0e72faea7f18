// A string failure is headlined by its values in every runner's format, read from the real
// runners' output (captured from test/fixtures/verify/values/project with CI=1 NO_COLOR=1: Node 20's
// TAP and spec, Node 24's spec, mocha's spec, JSON and TAP, AVA's TAP, Jest's text and JSON, Vitest's
// text and JSON), never by the diff's legend (`+ actual - expected`), a caret or a stack line.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import type { ParserId } from '../../../src/core/types';
import { assertionValues, failureHeadline, readValues, tellingFailure, valuesHeadline } from '../../../src/core/verify/values';
import * as shell from '../../../src/core/headline';
import { failureIdentity } from '../../../src/core/verify/identity';
import { REPO } from '../../support/fixtures';
import { formatSummary } from '../../../src/cli/printer';
import type { RunReport } from '../../../src/core/trace/events';

const DIR = path.join(REPO, 'test', 'fixtures', 'verify', 'values');
const ROOT = '/tmp/nc-str';

function headlines(file: string, parser: ParserId): Record<string, string> {
  const out = readFileSync(path.join(DIR, file), 'utf8');
  const failures = parseOutput(parser, out, { check: 'test', root: ROOT, exitCode: 1, ...(file.endsWith('json.txt') ? { stdout: out } : {}), readText: () => undefined, listFiles: () => [] });
  return Object.fromEntries(failures.map((f) => [f.id ?? '?', failureHeadline(f)]));
}

const NODE: Record<string, string> = {
  'formats total strict': "formats total strict: '12.5 EUR' !== '12.05 EUR'",
  'formats total loose': "formats total loose: '12.5 EUR' != '12.05 EUR'",
  'deep obj': "deep obj: total: '12.5 EUR' !== total: '12.05 EUR'",
  number: 'number: 190 !== 180',
  'multi line string': "multi line string: 'line one\\nline two' !== 'line one\\nline 2'",
  'long string': "long string: '…customer 42 is 12.5 EUR including tax' !== '…customer 42 is 12.05 EUR including tax'",
};

describe('failure headlines: the values, in every runner format', () => {
  it("node:test (Node 20's TAP and spec, Node 24's spec whose errors are in the summary only)", () => {
    assert.deepEqual(headlines('node-tap.txt', 'node-test'), NODE);
    assert.deepEqual(headlines('node-spec.txt', 'node-test'), NODE);
    assert.deepEqual(headlines('node24-spec.txt', 'node-test'), NODE);
  });

  it("mocha (spec, JSON, TAP) with Node's assert and chai", () => {
    const want = {
      'm node strict string': "m node strict string: '12.5 EUR' !== '12.05 EUR'",
      'm chai string': "m chai string: expected '12.5 EUR' to equal '12.05 EUR'",
      'm chai deep': "m chai deep: expected { total: '12.5 EUR' } to deeply equal { total: '12.05 EUR' }",
    };
    assert.deepEqual(headlines('mocha-spec.txt', 'mocha'), want);
    assert.deepEqual(headlines('mocha-json.txt', 'mocha'), want);
    assert.deepEqual(headlines('mocha-tap.txt', 'tap'), want);
  });

  it("Jest (text and JSON): Expected …, received …, also for a Node assert inside a Jest test", () => {
    const want = {
      'jest string': 'jest string: Expected "12.05 EUR", received "12.5 EUR"',
      'jest equal obj': 'jest equal obj: Expected "total": "12.05 EUR", received "total": "12.5 EUR"',
      'jest node assert': 'jest node assert: Expected "12.05 EUR", received "12.5 EUR"',
    };
    assert.deepEqual(headlines('jest-text.txt', 'jest'), want);
    assert.deepEqual(headlines('jest-json.txt', 'jest'), want);
  });

  it('Vitest (text and JSON) and AVA (whose diff signs are the other way round)', () => {
    const want = {
      'vitest string': "vitest string: expected '12.5 EUR' to be '12.05 EUR'",
      'vitest equal obj': "vitest equal obj: expected { total: '12.5 EUR' } to deeply equal { total: '12.05 EUR' }",
    };
    assert.deepEqual(headlines('vitest-text.txt', 'vitest'), want);
    assert.deepEqual(headlines('vitest-json.txt', 'vitest'), want);
    assert.deepEqual(headlines('ava-tap.txt', 'tap'), { 'ava string': "ava string: '12.5 EUR' !== '12.05 EUR'" });
  });

  it('no headline shows a legend, a caret or a stack frame', () => {
    for (const [file, parser] of [['node-tap.txt', 'node-test'], ['node24-spec.txt', 'node-test'], ['mocha-spec.txt', 'mocha'], ['jest-text.txt', 'jest'], ['vitest-text.txt', 'vitest'], ['ava-tap.txt', 'tap']] as const) {
      for (const h of Object.values(headlines(file, parser))) assert.doesNotMatch(h, /actual - expected|- Expected|\^|\bat \S+ \(/, `${file}: ${h}`);
    }
  });
});

describe('assertion values (for the Testing view diff)', () => {
  it('are the values alone: no caret, no stack, no signs', () => {
    const node = "AssertionError: Expected values to be strictly equal:\n+ actual - expected\n\n+ '12.5 EUR'\n- '12.05 EUR'\n      ^\n    at TestContext.<anonymous> (t/node.test.mjs:4:45)";
    assert.deepEqual(assertionValues(node), { actual: "'12.5 EUR'", expected: "'12.05 EUR'", style: 'node', changed: { actual: "'12.5 EUR'", expected: "'12.05 EUR'" } });
    const deep = "AssertionError: Expected values to be strictly deep-equal:\n+ actual - expected\n\n  {\n    a: 'x',\n+   total: '12.5 EUR'\n-   total: '12.05 EUR'\n  }\n    at TestContext.<anonymous> (t/node.test.mjs:6:33)";
    const v = assertionValues(deep)!;
    assert.equal(v.actual, "{\na: 'x',\ntotal: '12.5 EUR'\n}");
    assert.equal(v.expected, "{\na: 'x',\ntotal: '12.05 EUR'\n}");
    assert.deepEqual(assertionValues('expect(received).toBe(expected) // Object.is equality\n\nExpected: 180\nReceived: 190'), { actual: '190', expected: '180', style: 'jest' });
  });

  it('says nothing for a message without values, and the headline falls back to its first line', () => {
    assert.equal(assertionValues("Type 'string' is not assignable to type 'number'."), undefined);
    assert.equal(assertionValues('Error: boom\n    at x (a.js:1:1)'), undefined);
    assert.equal(valuesHeadline('AssertionError [ERR_ASSERTION]: The expression evaluated to a falsy value:\n\n  assert.ok(false)\n'), undefined);
    assert.equal(failureHeadline({ check: 'test', id: 'boom', message: 'Error: boom\n    at x (a.js:1:1)' }), 'boom: boom');
    assert.equal(failureHeadline({ check: 'lint', file: 'src/a.ts', line: 4, message: 'Unexpected any.' }), 'src/a.ts:4: Unexpected any.');
  });

  it('the failure a sentence names is the first that shows values', () => {
    const type = { check: 'typecheck', file: 'src/a.ts', line: 3, id: 'TS2322', message: "Type 'string' is not assignable to type 'number'." };
    const str = { check: 'test', id: 'formats', message: "AssertionError: Expected values to be strictly equal:\n+ actual - expected\n\n+ '12.5 EUR'\n- '12.05 EUR'\n" };
    assert.equal(tellingFailure([type, str]), str);
    assert.equal(tellingFailure([type]), type);
  });
});

describe("the verifier's reading, for the extension's shell", () => {
  const MESSAGE = "AssertionError: Expected values to be strictly equal:\n+ actual - expected\n\n+ '12.5 EUR'\n- '12.05 EUR'\n      ^\n    at t (test/invoice.test.ts:9:10)";

  it('carries the values and their headline, which the shell shows without the reader', () => {
    const f = readValues({ check: 'test', file: 'test/invoice.test.ts', line: 9, id: 'formats the total', message: MESSAGE });
    assert.deepEqual(f.values, { headline: "'12.5 EUR' !== '12.05 EUR'", actual: "'12.5 EUR'", expected: "'12.05 EUR'" });
    assert.equal(shell.failureHeadline(f), "formats the total: '12.5 EUR' !== '12.05 EUR'");
    assert.equal(shell.failureHeadline(f), failureHeadline(f));
    const type = readValues({ check: 'typecheck', id: 'TS2322', message: "Type 'string' is not assignable to type 'number'." });
    assert.equal(type.values, undefined, 'no values: nothing set');
    assert.equal(shell.tellingFailure([type, f]), f);
  });

  it("leaves the failure's identity alone", () => {
    const plain = { check: 'test', id: 'formats the total', message: MESSAGE };
    assert.equal(failureIdentity([readValues({ ...plain })], { root: ROOT }), failureIdentity([plain], { root: ROOT }));
  });

  it("headlines an older trace's failure (no values read) by its message's first line", () => {
    assert.equal(shell.failureHeadline({ check: 'test', id: 'formats the total', message: MESSAGE }), 'formats the total: Expected values to be strictly equal:');
  });
});

describe("the CLI's summary", () => {
  it('lists a remaining string failure by its values', () => {
    const f = { check: 'test', file: 'test/invoice.test.ts', line: 9, id: 'formats the total', message: "AssertionError: Expected values to be strictly equal:\n+ actual - expected\n\n+ '12.5 EUR'\n- '12.05 EUR'\n      ^\n    at t (test/invoice.test.ts:9:10)" };
    const lines = formatSummary({ stopReason: 'step-cap', outcome: 'punt', detail: 'd', steps: [], limits: { maxSteps: 1, tokenCeiling: 1000, timeLimitSeconds: 1 }, tokensUsed: 0, elapsedMs: 0, bestStep: 0, fixedFailures: [], remainingFailures: [f], hypotheses: [], tracePath: 't' } as unknown as RunReport);
    assert.ok(lines.includes("  [test] test/invoice.test.ts:9 formats the total: '12.5 EUR' !== '12.05 EUR'"), lines.join('\n'));
  });
});

// VS Code's Testing view (src/vscode/testResults.ts) lists what testEntries.ts decides: each test seen
// failing stays listed, failed while it fails and passed once a verification no longer reports it;
// each test a check pass names as passed is listed passed, the same entry as when it fails;
// a failure's message is the values' headline with the clean values and the stack as frames, never
// the runner's caret lines or stack in the text.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Failure } from '../../../src/core/types';
import { readValues } from '../../../src/core/verify/values';
import type { TestEntry } from '../../../src/vscode/common/testEntries';
import { messageWithoutStack, noteFailing, passedTests, recordFailures, stackFrames, testFailures, testKey, testMessageParts, wholeCheckFailures } from '../../../src/vscode/common/testEntries';

const FOLDER = path.resolve('/work/shop');

// As node:test reports it through the verifier (the demo's failing test).
const DISCOUNT: Failure = readValues({ check: 'test', file: 'test/cart.test.ts', line: 10, column: 10, id: 'applyDiscount takes a percentage off', message: 'AssertionError: Expected values to be strictly equal:\n\n190 !== 180\n    at TestContext.<anonymous> (test/cart.test.ts:10:10)\n    at Test.runInAsyncScope (node:async_hooks:214:14)\n    at Test.run (node:internal/test_runner/test:1047:25)' });
const PRICE: Failure = readValues({ check: 'test', file: 'test/cart.test.ts', line: 14, id: 'parsePrice reads dollars', message: "AssertionError: Expected values to be strictly equal:\n\n'4.50' !== 4.5\n    at TestContext.<anonymous> (test/cart.test.ts:14:10)" });
// Jest's message: the values, then its code frame with the caret, then the stack (file:// URL).
const JEST: Failure = readValues({
  check: 'jest',
  file: 'src/money.test.ts',
  line: 4,
  id: 'money › formats euros',
  message: [
    'expect(received).toBe(expected) // Object.is equality',
    '',
    'Expected: "12.05 EUR"',
    'Received: "12.5 EUR"',
    '',
    '  2 | test("formats euros", () => {',
    '  3 |   const s = format(1205);',
    '> 4 |   expect(s).toBe("12.05 EUR");',
    '    |             ^',
    '  5 | });',
    '',
    `    at Object.<anonymous> (${pathToFileURL(path.join(FOLDER, 'src/money.test.ts')).href}:4:13)`,
  ].join('\n'),
});
const TYPE: Failure = { check: 'typecheck', file: 'src/cart.ts', line: 18, id: 'TS2322', message: "Type 'string' is not assignable to type 'number'." };
const PARSERS = { test: 'node-test', jest: 'jest', typecheck: 'tsc' } as const;

function states(book: ReadonlyMap<string, TestEntry>): Record<string, string> {
  return Object.fromEntries([...book.values()].map((e) => [e.label, e.state]));
}

describe('Testing view: the tests a folder lists', () => {
  it('lists only the failures of test checks', () => {
    assert.deepEqual(testFailures([TYPE, DISCOUNT, JEST], PARSERS), [DISCOUNT, JEST]);
  });

  it('keeps a test seen failing and marks it passed once a verification no longer reports it', () => {
    const first = recordFailures(new Map(), [DISCOUNT, PRICE]);
    assert.deepEqual(states(first), { 'applyDiscount takes a percentage off': 'failed', 'parsePrice reads dollars': 'failed' });
    assert.equal(first.get(testKey(DISCOUNT))!.failure, DISCOUNT);

    const second = recordFailures(first, [PRICE]);
    assert.deepEqual(states(second), { 'applyDiscount takes a percentage off': 'passed', 'parsePrice reads dollars': 'failed' });
    const fixed = second.get(testKey(DISCOUNT))!;
    assert.equal(fixed.failure, undefined, 'a passing test carries no failure');
    assert.equal(fixed.file, 'test/cart.test.ts', 'it keeps its place in the file');
    assert.equal(fixed.line, 10);

    const green = recordFailures(second, []);
    assert.deepEqual(states(green), { 'applyDiscount takes a percentage off': 'passed', 'parsePrice reads dollars': 'passed' });
    // Failing again: the same entry, failed again.
    assert.deepEqual(states(recordFailures(green, [{ ...DISCOUNT, line: 11 }])), { 'applyDiscount takes a percentage off': 'failed', 'parsePrice reads dollars': 'passed' });
  });

  it('a run\'s verifications note the tests they see failing; at its stop, the one it fixed is listed passed', () => {
    const known = recordFailures(new Map(), [JEST]);
    // Step 0 sees both demo tests failing; a later step's verification sees one: nothing turns passed mid-run.
    const during = noteFailing(noteFailing(known, [DISCOUNT, PRICE]), [DISCOUNT]);
    assert.deepEqual(states(during), { 'money › formats euros': 'failed', 'applyDiscount takes a percentage off': 'failed', 'parsePrice reads dollars': 'failed' });
    const stopped = recordFailures(during, [DISCOUNT, JEST]);
    assert.deepEqual(states(stopped), { 'money › formats euros': 'failed', 'applyDiscount takes a percentage off': 'failed', 'parsePrice reads dollars': 'passed' });
  });

  it('the same test at another line is the same test (an edit moved it); a failure without a name is keyed by its first line', () => {
    assert.equal(testKey({ ...DISCOUNT, line: 30 }), testKey(DISCOUNT));
    assert.notEqual(testKey(PRICE), testKey(DISCOUNT));
    assert.equal(testKey({ check: 'test', message: 'test exited with code 1\nmore' }), 'test::test exited with code 1::');
  });

  it('does not call a test passed when its check said nothing reliable (cancelled, crashed, timed out)', () => {
    const known = recordFailures(new Map(), [DISCOUNT, JEST]);
    const crash: Failure = { check: 'test', message: 'test exited with code 1 and reported no test' };
    const unsure = wholeCheckFailures([crash]);
    assert.deepEqual([...unsure], ['test']);
    const after = recordFailures(known, [crash].filter((f) => f.id !== undefined), unsure);
    assert.deepEqual(states(after), { 'applyDiscount takes a percentage off': 'failed', 'money › formats euros': 'passed' });
    assert.deepEqual([...wholeCheckFailures([DISCOUNT, { check: 'jest', id: 'spawn', message: 'jest could not start' }])], ['jest']);
  });
});

describe('Testing view: the tests a check pass names as passed', () => {
  it('lists each passed test with its file, alongside the failing ones, in the checks\' order', () => {
    const passed = passedTests([
      { name: 'test', passed: [{ id: 'parsePrice reads dollars', file: 'test/cart.test.ts' }, { id: 'cart > sums lines' }] },
      { name: 'typecheck' },
    ]);
    assert.deepEqual(passed, [{ check: 'test', id: 'parsePrice reads dollars', file: 'test/cart.test.ts' }, { check: 'test', id: 'cart > sums lines' }]);
    const book = recordFailures(new Map(), [DISCOUNT], new Set(), passed);
    assert.deepEqual(states(book), { 'parsePrice reads dollars': 'passed', 'cart > sums lines': 'passed', 'applyDiscount takes a percentage off': 'failed' });
    const price = book.get(testKey(PRICE))!;
    assert.equal(price.file, 'test/cart.test.ts');
    assert.equal(price.failure, undefined);
    assert.equal(book.get('test::cart > sums lines::')!.file, undefined);
  });

  it('a test listed passed that fails later is the same entry, failed; passing again, passed again', () => {
    const listed = recordFailures(new Map(), [], new Set(), [{ check: 'test', id: PRICE.id!, file: PRICE.file! }]);
    const failed = recordFailures(listed, [PRICE]);
    assert.deepEqual(states(failed), { 'parsePrice reads dollars': 'failed' });
    assert.equal(failed.size, 1);
    assert.equal(failed.get(testKey(PRICE))!.failure, PRICE);
    const again = recordFailures(failed, [], new Set(), [{ check: 'test', id: PRICE.id!, file: PRICE.file! }]);
    assert.deepEqual([...again.values()].map((e) => [e.key, e.state, e.line]), [[testKey(PRICE), 'passed', 14]]);
  });

  it('a reporter that names no file for passing tests (mocha spec, node:test) still meets the failing test\'s entry, both ways', () => {
    const fixed = recordFailures(recordFailures(new Map(), [DISCOUNT]), [], new Set(), [{ check: 'test', id: DISCOUNT.id! }]);
    assert.equal(fixed.size, 1);
    assert.deepEqual([...fixed.values()].map((e) => [e.key, e.state, e.file]), [[testKey(DISCOUNT), 'passed', 'test/cart.test.ts']]);
    const listed = recordFailures(new Map(), [], new Set(), [{ check: 'test', id: DISCOUNT.id! }]);
    const failing = recordFailures(listed, [DISCOUNT]);
    assert.deepEqual([...failing.values()].map((e) => [e.key, e.state]), [[testKey(DISCOUNT), 'failed']]);
    // Another check's test by the same name is another test.
    const other = recordFailures(listed, [{ ...DISCOUNT, check: 'jest' }]);
    assert.equal(other.size, 2);
  });

  it('a failing test stays failed whatever a passed list says; a known test of an unsure check the list does not name stays as it was', () => {
    const book = recordFailures(new Map(), [DISCOUNT], new Set(), [{ check: 'test', id: DISCOUNT.id!, file: DISCOUNT.file! }]);
    assert.deepEqual(states(book), { 'applyDiscount takes a percentage off': 'failed' });
    const unsure = recordFailures(recordFailures(new Map(), [PRICE]), [], new Set(['test']), [{ check: 'test', id: 'cart > sums lines' }]);
    assert.deepEqual(states(unsure), { 'parsePrice reads dollars': 'failed', 'cart > sums lines': 'passed' });
  });
});

describe('Testing view: a failure\'s message', () => {
  it('node:test: the headline of the values, expected and actual clean, the stack as frames', () => {
    const m = testMessageParts(DISCOUNT, FOLDER);
    assert.equal(m.text, 'applyDiscount takes a percentage off: 190 !== 180');
    assert.equal(m.expected, '180');
    assert.equal(m.actual, '190');
    assert.ok(!m.text.includes('\n') && !/\bat\b.*:\d+:\d+/.test(m.text), 'no stack in the text');
    assert.deepEqual(m.stack[0], { label: 'TestContext.<anonymous>', file: path.join(FOLDER, 'test/cart.test.ts'), line: 10, column: 10 });
    // Node's own frames are listed by name, with nothing to open.
    assert.deepEqual(m.stack.slice(1), [{ label: 'Test.runInAsyncScope (node:async_hooks:214:14)' }, { label: 'Test.run (node:internal/test_runner/test:1047:25)' }]);
  });

  it('jest: no code frame, caret or stack in the text; a file:// frame opens the file', () => {
    const m = testMessageParts(JEST, FOLDER);
    assert.equal(m.text, 'money › formats euros: Expected "12.05 EUR", received "12.5 EUR"');
    assert.equal(m.expected, '"12.05 EUR"');
    assert.equal(m.actual, '"12.5 EUR"');
    assert.doesNotMatch(m.text, /\^|\||at Object/);
    assert.deepEqual(m.stack, [{ label: 'Object.<anonymous>', file: path.join(FOLDER, 'src/money.test.ts'), line: 4, column: 13 }]);
  });

  it('without values: the message without its code frame, carets and stack; no stack when no frame names a file', () => {
    const thrown: Failure = { check: 'test', id: 'reads the config', file: 'test/config.test.ts', line: 3, message: 'TypeError: Cannot read properties of undefined (reading \'port\')\n\n> 3 |   cfg.port\n    |       ^\n    at readConfig (/work/shop/src/config.ts:7:14)\n    at Context.<anonymous> (test/config.test.ts:3:5)' };
    const m = testMessageParts(thrown, FOLDER);
    assert.equal(m.text, "TypeError: Cannot read properties of undefined (reading 'port')");
    assert.equal(m.expected, undefined);
    assert.equal(m.actual, undefined);
    assert.deepEqual(m.stack.map((f) => [f.label, f.file, f.line]), [['readConfig', '/work/shop/src/config.ts', 7], ['Context.<anonymous>', path.join(FOLDER, 'test/config.test.ts'), 3]]);

    const internal: Failure = { check: 'test', id: 'times out', message: 'Error: timed out\n    at listOnTimeout (node:internal/timers:581:17)\n    at process.processTimers (node:internal/timers:519:7)' };
    assert.deepEqual(testMessageParts(internal, FOLDER), { text: 'Error: timed out', stack: [] });
    assert.deepEqual(stackFrames('no stack here', FOLDER), []);
  });

  it('a message that is only a stack falls back to the failure\'s headline', () => {
    const bare: Failure = { check: 'test', id: 'bare', message: '    at x (test/a.test.js:1:1)' };
    assert.equal(messageWithoutStack(bare.message), '');
    assert.equal(testMessageParts(bare, FOLDER).text, 'bare');
  });
});

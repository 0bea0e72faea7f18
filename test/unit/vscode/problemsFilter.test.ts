// The Problems panel lists every failure the run knows unless an editor already shows it: a type
// error in a closed file is ours to list, the same error TypeScript shows in an open one is not.
import assert from 'node:assert/strict';
import type { Failure } from '../../../src/core/types';
import { readValues } from '../../../src/core/verify/values';
import type { ShownDiagnostic } from '../../../src/vscode/common/problemsFilter';
import { diagnosticMessage, problemsToShow, shownByEditor } from '../../../src/vscode/common/problemsFilter';

const TYPE: Failure = { check: 'typecheck', file: 'src/cart.ts', line: 3, id: 'TS2322', message: "Type 'string' is not assignable to type 'number'." };
const LINT: Failure = { check: 'lint', file: 'src/cart.ts', line: 9, id: 'no-unused-vars', message: "'x' is assigned a value but never used." };
// As the verifier reports it: its values read (Failure.values).
const TEST: Failure = readValues({ check: 'test', file: 'test/cart.test.ts', line: 12, id: 'applyDiscount takes a percentage off', message: 'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n190 !== 180\n' });
const VUE: Failure = { check: 'typecheck', file: 'src/App.vue', line: 1, id: 'TS2322', message: 'vue-tsc finding' };

describe('problems filter', () => {
  const none = (): [] => [];
  it("leaves a failure to an editor only when the editor shows it: the same code on the same line (TypeScript's 2322, ESLint's rule)", () => {
    assert.equal(shownByEditor(TYPE, [{ line: 3, code: 2322 }]), true, "TypeScript's own ts(2322) on line 3");
    assert.equal(shownByEditor(TYPE, []), false, 'a file not open in an editor: TypeScript says nothing about it');
    assert.equal(shownByEditor(TYPE, [{ line: 4, code: 2322 }]), false, 'another line');
    assert.equal(shownByEditor(TYPE, [{ line: 3, code: 2345 }]), false, 'another error');
    assert.equal(shownByEditor(LINT, [{ line: 9, code: 'no-unused-vars' }]), true, "the ESLint extension's finding");
    assert.equal(shownByEditor(TEST, [{ line: 12, code: undefined }]), false, 'nothing shows a test failure');
    assert.equal(shownByEditor({ ...TYPE, file: undefined }, [{ line: 3, code: 2322 }]), false, 'a failure without a file is not in Problems anyway');
  });

  it('lists every failure the run knows unless an editor shows it; `all` lists every failure', () => {
    const all = [TYPE, LINT, TEST, VUE];
    assert.deepEqual(problemsToShow(all, 'deduplicated', none), all, 'no file open: every failure, as a $tsc task lists the whole project');
    const open = (file: string): ShownDiagnostic[] => (file === 'src/cart.ts' ? [{ line: 3, code: 2322 }] : []);
    assert.deepEqual(problemsToShow(all, 'deduplicated', open), [LINT, TEST, VUE], "cart.ts is open: TypeScript's entry stands for ours");
    assert.deepEqual(problemsToShow(all, 'all', open), all);
  });

  it("an entry leads with the values of a failed assertion and says which is which, without the runner's legend, caret or stack", () => {
    assert.equal(diagnosticMessage(TEST), 'test: applyDiscount takes a percentage off: 190 !== 180\nexpected 180, got 190');
    const node = readValues({ check: 'test', file: 'test/invoice.test.ts', line: 10, id: 'formatTotal prints euros and cents', message: "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n+ actual - expected\n\n+ '12.5 EUR'\n- '12.05 EUR'\n    ^\n\n    at TestContext.<anonymous> (test/invoice.test.ts:10:10)\n" });
    assert.equal(diagnosticMessage(node), "test: formatTotal prints euros and cents: '12.5 EUR' !== '12.05 EUR'\nexpected '12.05 EUR', got '12.5 EUR'");
    const jest = readValues({ check: 'test', file: 'src/sum.test.ts', line: 4, id: 'sum adds', message: 'expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 4\n\n  at Object.<anonymous> (src/sum.test.ts:4:19)' });
    assert.ok(jest.values, 'the values were read');
    assert.match(diagnosticMessage(jest), /\nexpected 3, got 4$/);
    assert.doesNotMatch(diagnosticMessage(jest), /at Object/);
  });

  it('any other failure keeps its whole message under the headline', () => {
    assert.equal(diagnosticMessage(TYPE), "typecheck: TS2322: Type 'string' is not assignable to type 'number'.");
    const thrown: Failure = { check: 'test', file: 'test/a.test.ts', line: 3, id: 'parses', message: "TypeError: Cannot read properties of undefined (reading 'x')\n    at parse (src/a.ts:9:12)" };
    assert.equal(diagnosticMessage(thrown), "test: parses: TypeError: Cannot read properties of undefined (reading 'x')\n    at parse (src/a.ts:9:12)", 'its first line once, in the headline');
    const long: Failure = { check: 'lint', file: 'src/a.ts', line: 1, message: `${'x'.repeat(120)}\nmore` };
    assert.match(diagnosticMessage(long), new RegExp(`…\\n${'x'.repeat(120)}\\nmore$`), 'a first line the headline cut short is kept whole');
  });
});

// The Problems panel lists only what VS Code does not already show: TypeScript's own errors and the
// ESLint extension's findings are not repeated; test failures always are; `all` lists everything.
import assert from 'node:assert/strict';
import type { Failure } from '../../../src/core/types';
import { diagnosticMessage, problemsToShow, shownByVsCode } from '../../../src/vscode/problemsFilter';

const TYPE: Failure = { check: 'typecheck', file: 'src/cart.ts', line: 3, id: 'TS2322', message: "Type 'string' is not assignable to type 'number'." };
const LINT: Failure = { check: 'lint', file: 'src/cart.ts', line: 9, id: 'no-unused-vars', message: "'x' is assigned a value but never used." };
const TEST: Failure = { check: 'test', file: 'test/cart.test.ts', line: 12, id: 'applyDiscount takes a percentage off', message: 'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n190 !== 180\n' };
const VUE: Failure = { check: 'typecheck', file: 'src/App.vue', line: 1, id: 'TS2322', message: 'vue-tsc finding' };
const PARSERS = { typecheck: 'tsc', lint: 'eslint', test: 'node-test' } as const;

describe('problems filter', () => {
  it("leaves TypeScript's errors in TS/JS files to VS Code, and lint findings to the ESLint extension when it is installed", () => {
    assert.equal(shownByVsCode(TYPE, 'tsc', { eslintExtension: false }), true);
    assert.equal(shownByVsCode(VUE, 'tsc', { eslintExtension: false }), false, 'a file type the built-in TypeScript does not check');
    assert.equal(shownByVsCode(LINT, 'eslint', { eslintExtension: true }), true);
    assert.equal(shownByVsCode(LINT, 'eslint', { eslintExtension: false }), false);
    assert.equal(shownByVsCode(LINT, 'biome', { eslintExtension: true, biomeExtension: true }), true, 'Biome\'s extension shows its own findings');
    assert.equal(shownByVsCode(LINT, 'oxlint', { eslintExtension: true }), false, 'oxlint without the oxc extension: only we show it');
    assert.equal(shownByVsCode(LINT, 'oxlint', { eslintExtension: false, oxcExtension: true }), true, 'the oxc extension shows oxlint\'s findings');
    assert.equal(shownByVsCode(LINT, 'biome', { eslintExtension: true }), false);
    assert.equal(shownByVsCode(TEST, 'node-test', { eslintExtension: true }), false);
    assert.equal(shownByVsCode({ ...TYPE, file: undefined }, 'tsc', { eslintExtension: false }), false, 'a failure without a file is not in Problems anyway');
  });

  it('deduplicated by default; `all` lists every failure', () => {
    const all = [TYPE, LINT, TEST, VUE];
    assert.deepEqual(problemsToShow(all, PARSERS, 'deduplicated', { eslintExtension: false }), [LINT, TEST, VUE]);
    assert.deepEqual(problemsToShow(all, PARSERS, 'deduplicated', { eslintExtension: true }), [TEST, VUE]);
    assert.deepEqual(problemsToShow(all, PARSERS, 'all', { eslintExtension: true }), all);
    assert.deepEqual(problemsToShow(all, {}, 'deduplicated', { eslintExtension: true }), all, 'a check of unknown parser is listed');
  });

  it('an entry leads with the values of a failed assertion, then the whole message', () => {
    const m = diagnosticMessage(TEST);
    assert.equal(m.split('\n')[0], 'test: applyDiscount takes a percentage off: 190 !== 180');
    assert.match(m, /Expected values to be strictly equal/);
    assert.equal(diagnosticMessage(TYPE).split('\n')[0], "typecheck: TS2322: Type 'string' is not assignable to type 'number'.");
  });
});

// Money as the status bar, the panel, the stop sentences and the CLI's text say it: in dollars, cents
// from $0.01 up, and below a cent down to its first digit that is not 0.
import assert from 'node:assert/strict';
import { formatMoney, formatSpend } from '../../../src/core/money';

describe('money', () => {
  const TABLE: [number, string][] = [
    [0, '$0.00'],
    [0.00893, '$0.009'],
    [0.0004, '$0.0004'],
    [0.00044, '$0.0004'],
    [0.0036, '$0.004'],
    [0.00096, '$0.001'],
    [0.0096, '$0.01'],
    [0.01, '$0.01'],
    [0.0423, '$0.04'],
    [0.123, '$0.12'],
    [0.5, '$0.50'],
    [0.996, '$1.00'],
    [1, '$1.00'],
    [1.25, '$1.25'],
    [1.5, '$1.50'],
    [2, '$2.00'],
    [1234.5, '$1234.50'],
    [0.000000001, '$0.000000001'],
  ];
  for (const [n, text] of TABLE) {
    it(`${n} → ${text}`, () => assert.equal(formatMoney(n), text));
  }

  it('never says nothing was spent when something was', () => {
    for (let e = -9; e <= 0; e++) for (const m of [1, 2.5, 4.9, 9.99]) assert.doesNotMatch(formatMoney(m * 10 ** e), /^\$0\.0*$/, `${m}e${e}`);
  });

  it('says a spend against its ceiling, and no ceiling when it is 0 or absent', () => {
    assert.equal(formatSpend(0.00893, 0.5), '$0.009 of $0.50');
    assert.equal(formatSpend(1.25, 10), '$1.25 of $10.00');
    assert.equal(formatSpend(0.00893, 0), '$0.009');
    assert.equal(formatSpend(0.00893, undefined), '$0.009');
  });

});

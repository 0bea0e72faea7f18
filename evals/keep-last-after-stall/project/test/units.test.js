const assert = require('node:assert/strict');
const { toCents, toEuros, clamp, percentOf } = require('../src/units');

describe('units', () => {
  it('gives a part as a percentage of the whole', () => {
    assert.equal(percentOf(1, 4), 25);
  });

  it('converts euros to cents', () => {
    assert.equal(toCents(4.5), 450);
  });

  it('converts cents to euros', () => {
    assert.equal(toEuros(450), 4.5);
  });

  it('clamps into a range', () => {
    assert.equal(clamp(15, 0, 10), 10);
  });
});

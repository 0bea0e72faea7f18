const assert = require('node:assert/strict');
const { addTax } = require('../src/tax');

describe('tax', () => {
  it('adds 20% and rounds to cents', () => {
    assert.equal(addTax(999, 0.2), 1199);
  });
});

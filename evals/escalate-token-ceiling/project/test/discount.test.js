const assert = require('node:assert/strict');
const { applyDiscount } = require('../src/discount');

describe('applyDiscount', () => {
  it('takes ten per cent off 200', () => {
    assert.equal(applyDiscount(200, 10), 180);
  });

  it('takes nothing off at 0 per cent', () => {
    assert.equal(applyDiscount(200, 0), 200);
  });
});

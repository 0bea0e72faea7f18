const assert = require('node:assert/strict');
const { cartTotal } = require('../src/cart');

describe('cart', () => {
  it('sums quantity × price', () => {
    assert.equal(cartTotal([{ qty: 2, cents: 150 }, { qty: 3, cents: 10 }]), 330);
  });
});

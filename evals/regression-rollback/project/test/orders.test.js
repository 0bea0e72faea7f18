const assert = require('node:assert/strict');
const { orderTotal } = require('../src/orders');

describe('orders', () => {
  it('multiplies quantity by unit price', () => {
    assert.equal(orderTotal([{ qty: 2, price: 150 }, { qty: 1, price: 99 }]), 399);
  });
});

const assert = require('node:assert/strict');
const { charge } = require('../src/payment');

describe('payment', () => {
  it('charges through the payment service', () => {
    assert.equal(charge(500), 'charged 500');
  });
});

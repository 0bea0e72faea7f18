const assert = require('node:assert/strict');
const { formatCents } = require('../src/money');

describe('format', () => {
  it('formats cents as euros', () => {
    assert.equal(formatCents(450), '4.50 €');
  });
});

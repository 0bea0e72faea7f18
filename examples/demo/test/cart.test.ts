import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDiscount, parsePrice, subtotal } from '../src/cart';

test('subtotal adds price times quantity', () => {
  assert.equal(subtotal([{ name: 'tea', price: 3, qty: 2 }, { name: 'cake', price: 4.5, qty: 1 }]), 10.5);
});

test('applyDiscount takes a percentage off', () => {
  assert.equal(applyDiscount(200, 10), 180);
});

test('parsePrice reads dollars', () => {
  assert.equal(parsePrice(' $4.50 '), 4.5);
});

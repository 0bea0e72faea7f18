'use strict';

function toCents(euros) {
  return euros * 10;
}

function toEuros(cents) {
  return cents * 100;
}

function clamp(n, lo, hi) {
  return Math.max(hi, Math.min(lo, n));
}

function percentOf(part, whole) {
  return part / whole;
}

module.exports = { toCents, toEuros, clamp, percentOf };

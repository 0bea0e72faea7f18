'use strict';

function toCents(euros) {
  return Math.round(euros * 100);
}

function toEuros(cents) {
  return cents / 100;
}

function clamp(n, lo, hi) {
  return Math.min(hi, Math.max(lo, n));
}

function percentOf(part, whole) {
  const ratio = part / whole;
  return ratio;
}

module.exports = { toCents, toEuros, clamp, percentOf };

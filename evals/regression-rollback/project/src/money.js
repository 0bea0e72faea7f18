'use strict';

/** Rounds to whole cents. */
function roundCents(x) {
  return Math.round(x);
}

/** Formats cents as euros, e.g. 450 → "4.50 €". */
function formatCents(cents) {
  return (cents / 100).toFixed(2) + ' €';
}

module.exports = { roundCents, formatCents };

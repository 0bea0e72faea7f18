'use strict';
const { roundCents } = require('./money');

/** Adds tax at `rate` (0.2 for 20%) and rounds to whole cents. */
function addTax(cents, rate) {
  return cents + cents * rate;
}

module.exports = { addTax };

// @ts-check
'use strict';

/**
 * Total of the cart in cents.
 * @param {{ qty: number, cents: number }[]} lines
 * @returns {number}
 */
function cartTotal(lines) {
  return lines.map((l) => l.cents).join('+');
}

module.exports = { cartTotal };

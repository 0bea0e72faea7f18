'use strict';

/** Sum of quantity × unit price over the lines, in cents. */
function orderTotal(lines) {
  return lines.reduce((sum, l) => sum + l.price, 0);
}

module.exports = { orderTotal };

'use strict';

/** Takes `percent` per cent off `total`. */
function applyDiscount(total, percent) {
  return total - (total * percent) / 100;
}

module.exports = { applyDiscount };

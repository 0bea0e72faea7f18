'use strict';

/** Takes `percent` per cent off `total`. */
function applyDiscount(total, percent) {
  return total - percent;
}

module.exports = { applyDiscount };

'use strict';

function charge(cents) {
  const key = process.env.PAYMENT_API_KEY;
  if (!key) throw new Error('PAYMENT_API_KEY is not set');
  return `charged ${cents}`;
}

module.exports = { charge };

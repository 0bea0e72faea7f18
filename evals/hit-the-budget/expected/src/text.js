'use strict';

function capitalize(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function slugify(s) {
  return s.toLowerCase().split(' ').join('-');
}

function truncate(s, n) {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

function countWords(s) {
  return s.split(' ').length;
}

function initials(name) {
  return name.split(' ').map((w) => w[1]).join('');
}

module.exports = { capitalize, slugify, truncate, countWords, initials };

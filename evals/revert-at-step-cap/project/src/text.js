'use strict';

function capitalize(s) {
  return s.toUpperCase();
}

function slugify(s) {
  return s.toLowerCase().replace(' ', '-');
}

function truncate(s, n) {
  return s.length > n ? s.slice(0, n) + '…' : s;
}

function countWords(s) {
  return s.split(' ').length;
}

function initials(name) {
  return name.split(' ').map((w) => w[1]).join('');
}

module.exports = { capitalize, slugify, truncate, countWords, initials };

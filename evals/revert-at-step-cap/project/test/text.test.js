const { test } = require('node:test');
const assert = require('node:assert/strict');
const { capitalize, slugify, truncate, countWords, initials } = require('../src/text');

test('capitalizes the first letter', () => {
  assert.equal(capitalize('hello'), 'Hello');
});

test('slugifies a title', () => {
  assert.equal(slugify('Fix Until Green'), 'fix-until-green');
});

test('truncates with an ellipsis', () => {
  assert.equal(truncate('abcdefgh', 5), 'abcd…');
});

test('counts words separated by any whitespace', () => {
  assert.equal(countWords('a  b\tc'), 3);
});

test('takes initials', () => {
  assert.equal(initials('Ada Lovelace'), 'AL');
});

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

// A timing-dependent test that fails on every other run, whatever the code does: noise.
const counter = path.join(__dirname, '..', '.clock-runs');
const runs = (fs.existsSync(counter) ? Number(fs.readFileSync(counter, 'utf8')) : 0) + 1;
fs.writeFileSync(counter, String(runs));

describe('clock', () => {
  it('reads the clock within its time budget', () => {
    assert.ok(runs % 2 === 1, 'the clock read took longer than its budget');
  });
});

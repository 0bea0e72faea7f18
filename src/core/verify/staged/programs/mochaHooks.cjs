// @ts-check
'use strict';
// Copied by Fix Until Green into a check's folder for a targeted run (../mochaRetry.ts), and named
// to mocha with `--require`: records each test that passed or failed after a retry, and keeps a
// test that failed before the run (known.json, beside it) from being retried.
const fs = require('node:fs');
const path = require('node:path');

/**
 * What of mocha's objects the hooks touch.
 * @typedef {{ file?: string, state?: string, currentRetry(): number, retries(n: number): void, fullTitle(): string }} Test
 * @typedef {{ currentTest?: Test }} Context
 */

const DIR = __dirname;
const RECORDS = path.join(DIR, 'results', process.pid + '.jsonl');
const KNOWN = new Set(/** @type {{ file: string, id: string }[]} */ (JSON.parse(fs.readFileSync(path.join(DIR, 'known.json'), 'utf8'))).map((k) => k.file + '\0' + k.id));
/** @param {object} o */
const write = (o) => fs.appendFileSync(RECORDS, JSON.stringify(o) + '\n');
exports.mochaHooks = {
  beforeAll() {
    write({ ran: true });
  },
  /** @this {Context} */
  beforeEach() {
    const t = this.currentTest;
    if (t && t.currentRetry() === 0 && KNOWN.has(t.file + '\0' + t.fullTitle())) t.retries(0);
  },
  /** @this {Context} */
  afterEach() {
    const t = this.currentTest;
    if (t && t.currentRetry() > 0 && (t.state === 'passed' || t.state === 'failed')) write({ file: t.file, id: t.fullTitle(), state: t.state, retry: t.currentRetry() });
  },
};

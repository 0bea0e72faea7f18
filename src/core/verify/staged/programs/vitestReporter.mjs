// @ts-check
// Copied by Fix Until Green into a check's folder for a targeted run (../vitestRetry.ts), and named
// to Vitest with `--reporter`: records each test that ran again after failing.
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Vitest loads a reporter through its module runner, which gives it `import.meta.url` (not always `dirname`).
const RECORDS = join(dirname(fileURLToPath(import.meta.url)), 'results', process.pid + '.jsonl');
/** @param {object} o */
const write = (o) => appendFileSync(RECORDS, JSON.stringify(o) + '\n');

/**
 * Typed against this repository's Vitest; `onTestCaseResult` is Vitest 3's (../vitestRetry.ts asks for 3 or later).
 * @typedef {import('vitest/node').Reporter} Reporter
 * @typedef {import('vitest/node').TestCase} TestCase
 */

/** @implements {Reporter} */
export default class FixUntilGreenRetryReporter {
  onInit() {
    write({ ran: true });
  }
  /** @param {TestCase} test */
  onTestCaseResult(test) {
    const retry = test.diagnostic()?.retryCount ?? 0;
    if (retry === 0) return;
    const result = test.result();
    const first = (result.errors || [])[0];
    write({ file: test.module.moduleId, id: test.fullName, state: result.state, retry, message: first ? String(first.message ?? '') : '' });
  }
}

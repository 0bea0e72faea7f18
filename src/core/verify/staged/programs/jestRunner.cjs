// @ts-check
'use strict';
// Copied by Fix Until Green into a check's folder for a targeted run (../jestRetry.ts): the
// project's jest-circus runner, with failing tests retried in place (as jest.retryTimes would) and
// the tests that ran more than once recorded. A describe block that holds a known failure that ran
// into its timeout is not retried. Its folder holds what it reads: retry-runner.json (the project's
// jest-circus runner and the retry count) and known.json (the known failures).
const fs = require('node:fs');
const path = require('node:path');

/**
 * What of Jest's objects this runner touches (jest-circus 29 and later).
 * @typedef {{ type: string, name: string, parent?: Block }} Test
 * @typedef {{ name: string, parent?: Block, children: Test[] }} Block
 * @typedef {{ name: string, describeBlock: Block }} TestEvent
 * @typedef {{ global: Record<symbol, unknown>, handleTestEvent?: (event: TestEvent, state: unknown) => unknown }} Environment
 * @typedef {{ ancestorTitles?: string[], title: string, status: string, invocations?: number, retryReasons?: string[], retryMessages?: unknown, location?: { line: number, column: number } | null }} AssertionResult
 * @typedef {{ testResults?: AssertionResult[] }} TestResult
 * @typedef {(globalConfig: unknown, config: unknown, environment: Environment, runtime: unknown, testPath: string, sendMessageToJest: unknown) => Promise<TestResult>} Runner
 */

const DIR = __dirname;
/** @type {{ circus: string, retries: number }} */
const CONFIG = JSON.parse(fs.readFileSync(path.join(DIR, 'retry-runner.json'), 'utf8'));
/** @type {Runner | { default: Runner }} */
const circus = require(CONFIG.circus);
const run = typeof circus === 'function' ? circus : circus.default;
const RESULTS = path.join(DIR, 'results');
const RECORDS = path.join(RESULTS, process.pid + '.jsonl');
/** @type {Map<string, Set<string>>} */
const KNOWN = new Map();
for (const k of /** @type {{ file: string, id: string }[]} */ (JSON.parse(fs.readFileSync(path.join(DIR, 'known.json'), 'utf8')))) {
  let ids = KNOWN.get(k.file);
  if (ids === undefined) KNOWN.set(k.file, (ids = new Set()));
  ids.add(k.id);
}
const RETRY_TIMES = Symbol.for('RETRY_TIMES');
const LOG_ERRORS_BEFORE_RETRY = Symbol.for('LOG_ERRORS_BEFORE_RETRY');
// Truthy, so jest-circus keeps each retried test's earlier errors; ours, so they are taken out of
// the result again and the reporters print what they print without retries.
const KEEP_REASONS = 'fix-until-green';
const RETRIES = CONFIG.retries;

/** @param {Test} test */
function idOf(test) {
  const names = [test.name];
  for (let b = test.parent; b && b.parent; b = b.parent) names.unshift(b.name);
  return names.join(' \u203a ');
}

/** @type {Runner} */
module.exports = async function fixUntilGreenRetryRunner(globalConfig, config, environment, runtime, testPath, sendMessageToJest) {
  const g = environment.global;
  // The test file's own jest.retryTimes wins: retries are only managed while the count is ours.
  /** @type {unknown} */
  let ours;
  if (g[RETRY_TIMES] === undefined) {
    ours = g[RETRY_TIMES] = RETRIES;
    if (!g[LOG_ERRORS_BEFORE_RETRY]) g[LOG_ERRORS_BEFORE_RETRY] = KEEP_REASONS;
    const known = KNOWN.get(testPath);
    const own = environment.handleTestEvent;
    /** @type {(this: Environment, event: TestEvent, state: unknown) => unknown} */
    environment.handleTestEvent = function (event, state) {
      // jest-circus reads the count when a describe block starts running, after this event.
      if (event.name === 'run_describe_start' && g[RETRY_TIMES] === ours) {
        const kept = known !== undefined && event.describeBlock.children.some((c) => c.type === 'test' && known.has(idOf(c)));
        ours = g[RETRY_TIMES] = kept ? 0 : RETRIES;
      }
      return own ? own.call(this, event, state) : undefined;
    };
  }
  const result = await run(globalConfig, config, environment, runtime, testPath, sendMessageToJest);
  const retried = (result.testResults || []).filter((t) => (t.invocations ?? 0) > 1).map((t) => ({
    ancestorTitles: t.ancestorTitles || [], title: t.title, status: t.status, invocations: t.invocations,
    retryReasons: t.retryReasons || [], location: t.location || null,
  }));
  if (g[LOG_ERRORS_BEFORE_RETRY] === KEEP_REASONS) {
    result.testResults = (result.testResults || []).map((t) => ({ ...t, retryReasons: [], retryMessages: undefined }));
  }
  fs.appendFileSync(RECORDS, JSON.stringify({ testPath, retried }) + '\n');
  return result;
};

// Jest's in-run retries (./inRunRetry): a `--testRunner` of ours hands each test file to the
// project's own jest-circus runner with the retry count set, as `jest.retryTimes(flakyReruns)` would,
// and records the tests that ran more than once. The output is what Jest prints without retries.
// Not where the project sets a test runner or projects of its own, or its jest-circus is older than
// 29 (no `invocations`).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { writeFileAtomic } from '../../atomicWrite';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { Failure } from '../../types';
import type { ParseContext } from '../parsers/common';
import { jestJsonFailures } from '../parsers/jest';
import type { KnownFailure, RetryOutcome } from './inRunRetry';
import { InRunRetry } from './inRunRetry';
import { writeProgram } from './programFile';

/** A test of one file that ran more than once in a run. */
export interface RetriedTest {
  ancestorTitles: string[];
  title: string;
  status: string;
  invocations: number;
  retryReasons: string[];
  location: { line: number; column: number } | null;
}

/** What the runner recorded of one test file. */
export interface RetryRecord {
  testPath: string;
  retried: RetriedTest[];
}

/** Jest's message for a test stopped by its timeout. */
const TIMED_OUT = /Exceeded timeout of \d+ ?ms/;
/** The oldest jest-circus whose results carry `invocations` and `retryReasons`. */
const MIN_CIRCUS_MAJOR = 29;
const CONFIG_FILES = ['jest.config.js', 'jest.config.ts', 'jest.config.mjs', 'jest.config.cjs', 'jest.config.cts', 'jest.config.mts', 'jest.config.json'];

/** The project's own jest-circus runner, found the way its Jest finds it (hoisted or nested); or why not. */
export function projectCircusRunner(cwd: string): { runner: string; version: string } | { reason: string } {
  let jest: string;
  try {
    jest = realpathSync(createRequire(path.join(cwd, 'package.json')).resolve('jest/package.json'));
  } catch {
    return { reason: 'the project has no jest package of its own' };
  }
  // jest → jest-cli / @jest/core → jest-config → jest-circus, each resolved from the one before.
  const chains = [[], ['jest-cli'], ['@jest/core'], ['jest-cli', 'jest-config'], ['@jest/core', 'jest-config'], ['jest-cli', '@jest/core', 'jest-config']];
  for (const chain of chains) {
    try {
      let from = jest;
      for (const p of chain) from = realpathSync(createRequire(from).resolve(`${p}/package.json`));
      const req = createRequire(from);
      const pkg = req.resolve('jest-circus/package.json');
      const version = String((JSON.parse(readFileSync(pkg, 'utf8')) as { version?: unknown }).version ?? '');
      if (!(Number.parseInt(version, 10) >= MIN_CIRCUS_MAJOR)) return { reason: `jest-circus ${version} does not report retries (${MIN_CIRCUS_MAJOR} or later does)` };
      return { runner: realpathSync(req.resolve('jest-circus/runner')), version };
    } catch {
      // not along this chain
    }
  }
  return { reason: 'the project\'s jest-circus could not be found' };
}

/** Whether the project's Jest configuration (or the command's) names a test runner of its own. */
export function setsOwnTestRunner(cwd: string, argv: readonly string[]): boolean {
  if (argv.some((a) => a === '--testRunner' || a.startsWith('--testRunner=') || a === '--projects' || a.startsWith('--projects='))) return true;
  const c = argv.findIndex((a) => a === '-c' || a === '--config');
  const named = c >= 0 ? argv[c + 1] : argv.find((a) => a.startsWith('--config='))?.slice('--config='.length);
  const files = named !== undefined ? [named] : [...CONFIG_FILES, 'package.json'];
  return files.some((f) => {
    const file = path.resolve(cwd, f);
    if (!existsSync(file)) return false;
    const text = readFileSync(file, 'utf8');
    if (path.basename(file) !== 'package.json') return /\btestRunner\b|\bprojects\b/.test(text);
    try {
      const jest = (JSON.parse(text) as { jest?: unknown }).jest;
      return jest !== undefined && /"(testRunner|projects)"/.test(JSON.stringify(jest));
    } catch {
      return false;
    }
  });
}

/** In-run retries for one Jest check. `dir` is the check's own folder in the run's storage. */
export class JestRetry extends InRunRetry {
  private readonly runnerFile: string;

  private constructor(dir: string, circus: string, retries: number) {
    super(dir, retries);
    // The runner (./programs/jestRunner.cjs) reads what it runs with from the file beside it.
    this.runnerFile = path.join(dir, 'retry-runner.cjs');
    writeFileAtomic(path.join(dir, 'retry-runner.json'), JSON.stringify({ circus, retries }), { durable: false });
    writeProgram('jestRunner.cjs', this.runnerFile);
  }

  /** Retries for this check, or why the changed tests are re-run in a process of their own. */
  static plan(cwd: string, argv: readonly string[], dir: string, retries: number): JestRetry | { reason: string } {
    if (retries <= 0) return { reason: 'flakyReruns is 0' };
    if (setsOwnTestRunner(cwd, argv)) return { reason: 'the Jest configuration names its own test runner or projects' };
    const circus = projectCircusRunner(cwd);
    if ('reason' in circus) return circus;
    return new JestRetry(dir, circus.runner, retries);
  }

  protected withRetries(base: readonly string[]): string[] {
    return [...base, '--testRunner', this.runnerFile];
  }

  /**
   * jest-circus sets retries per describe block, not per test: keeping every known failure from a
   * retry would keep its siblings too, and a test newly broken beside a failing one (the commonest
   * step) would need a second Jest start. So only a known failure that ran into its timeout keeps
   * its block from retries (its retry would cost the whole timeout again); the others are retried,
   * at the cost of their own run time.
   */
  protected override kept(known: readonly KnownFailure[]): readonly KnownFailure[] {
    return known.filter((k) => TIMED_OUT.test(k.message));
  }

  protected read(records: readonly unknown[], ctx: ParseContext): RetryOutcome {
    const rs = records as RetryRecord[];
    return { retried: retriedFailures(rs, ctx), flaky: flakyFromRecords(rs, ctx) };
  }
}

/**
 * The tests that failed and then passed on a retry, as failures of their first invocation (what the
 * Jest parser makes of the same test's failure, so their identity is the one a failing run gives).
 */
export function flakyFromRecords(records: readonly RetryRecord[], ctx: ParseContext): Failure[] {
  const testResults = records.map((r) => ({
    name: r.testPath,
    assertionResults: r.retried
      .filter((t) => t.status === 'passed' && t.invocations > 1)
      .map((t) => ({ ancestorTitles: t.ancestorTitles, title: t.title, status: 'failed', failureMessages: t.retryReasons.length > 0 ? [t.retryReasons[0]!] : ['failed, then passed on a retry'], location: t.location })),
  }));
  return jestJsonFailures({ testResults }, ctx, ' › ');
}

/** Every test the run retried, as the Jest parser names its failure (to tell which failures were confirmed in the run). */
export function retriedFailures(records: readonly RetryRecord[], ctx: ParseContext): Failure[] {
  const testResults = records.map((r) => ({ name: r.testPath, assertionResults: r.retried.map((t) => ({ ancestorTitles: t.ancestorTitles, title: t.title, status: 'failed', failureMessages: ['retried'], location: t.location })) }));
  return jestJsonFailures({ testResults }, ctx, ' › ');
}

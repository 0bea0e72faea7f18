// Vitest's in-run retries (./inRunRetry): `--retry` and a reporter of ours next to the project's
// (`--reporter=default` and ours where the project names none) that records each test that ran
// again, with its first error. Vitest sets retries per test only in the test's own code, so a run
// whose known failures include a timeout (its retry would cost the whole timeout again) is
// confirmed in a second process instead. Not where the project's config names its own reporters
// (ours would replace them), nor before Vitest 3 (no `onTestCaseResult`).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { ParseContext } from '../parsers/common';
import type { KnownFailure, RetryOutcome } from './inRunRetry';
import { InRunRetry, outcomeOfRetried } from './inRunRetry';
import { writeProgram } from './programFile';

/** Vitest's message for a test stopped by its timeout. */
const TIMED_OUT = /Test timed out in \d+ ?ms/;
const CONFIGS = ['vitest.config', 'vite.config', 'vitest.workspace'].flatMap((b) => ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'].map((e) => b + e));

export class VitestRetry extends InRunRetry {
  private readonly reporterFile: string;

  private constructor(dir: string, retries: number) {
    super(dir, retries);
    this.reporterFile = path.join(dir, 'retry-reporter.mjs');
    writeProgram('vitestReporter.mjs', this.reporterFile);
  }

  static plan(cwd: string, argv: readonly string[], dir: string, retries: number): VitestRetry | { reason: string } {
    if (retries <= 0) return { reason: 'flakyReruns is 0' };
    let version = '';
    try {
      version = String((JSON.parse(readFileSync(createRequire(path.join(cwd, 'package.json')).resolve('vitest/package.json'), 'utf8')) as { version?: unknown }).version ?? '');
    } catch {
      return { reason: 'the project has no vitest package of its own' };
    }
    if (!(Number.parseInt(version, 10) >= 3)) return { reason: `Vitest ${version} has no per-test reporter hook (3 or later has)` };
    const named = argv.some((a) => a === '--reporter' || a.startsWith('--reporter='));
    if (!named && CONFIGS.some((f) => existsSync(path.join(cwd, f)) && /\breporters\b/.test(readFileSync(path.join(cwd, f), 'utf8')))) return { reason: 'the Vitest config names its own reporters' };
    return new VitestRetry(dir, retries);
  }

  /** A known failure that timed out keeps the whole run from retrying: Vitest cannot spare one test. */
  protected override kept(known: readonly KnownFailure[]): readonly KnownFailure[] {
    return known.filter((k) => TIMED_OUT.test(k.message));
  }

  protected withRetries(base: readonly string[], kept: readonly KnownFailure[]): string[] {
    if (kept.length > 0) return [...base];
    const named = base.some((a) => a === '--reporter' || a.startsWith('--reporter='));
    const own = base.some((a) => a === '--retry' || a.startsWith('--retry='));
    return [...base, ...(named ? [] : ['--reporter=default']), `--reporter=${this.reporterFile}`, ...(own ? [] : [`--retry=${this.retries}`])];
  }

  protected read(records: readonly unknown[], ctx: ParseContext): RetryOutcome {
    return outcomeOfRetried(records, ctx, 'Vitest');
  }

}

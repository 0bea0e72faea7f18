// mocha's in-run retries (./inRunRetry): `--retries` and a root hook plugin of ours (`--require`,
// which adds to the project's own requires) that records each test that passed or failed after a
// retry, and keeps a test that already failed before from being retried. The output is what the
// reporter prints without retries.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ParseContext } from '../parsers/common';
import type { RetryOutcome } from './inRunRetry';
import { InRunRetry, outcomeOfRetried } from './inRunRetry';
import { writeProgram } from './programFile';

export class MochaRetry extends InRunRetry {
  private readonly hookFile: string;

  private constructor(dir: string, retries: number) {
    super(dir, retries);
    this.hookFile = path.join(dir, 'retry-hooks.cjs');
    writeProgram('mochaHooks.cjs', this.hookFile);
  }

  static plan(dir: string, retries: number): MochaRetry | { reason: string } {
    return retries > 0 ? new MochaRetry(dir, retries) : { reason: 'flakyReruns is 0' };
  }

  /** The project's own retry count, where it sets one, stands: its retries are read back all the same. */
  protected withRetries(base: readonly string[]): string[] {
    return [...base, '--require', this.hookFile, ...(setsRetries(base) ? [] : ['--retries', String(this.retries)])];
  }

  protected read(records: readonly unknown[], ctx: ParseContext): RetryOutcome {
    return outcomeOfRetried(records, ctx, 'mocha');
  }

}

/** Whether the mocha argv (or the options file it names) sets a retry count. */
function setsRetries(argv: readonly string[]): boolean {
  if (argv.some((a) => a === '--retries' || a.startsWith('--retries='))) return true;
  const c = argv.indexOf('--config');
  const config = c >= 0 ? argv[c + 1] : undefined;
  if (config === undefined || !config.endsWith('.json')) return false;
  try {
    return (JSON.parse(readFileSync(config, 'utf8')) as { retries?: unknown }).retries !== undefined;
  } catch {
    return false;
  }
}

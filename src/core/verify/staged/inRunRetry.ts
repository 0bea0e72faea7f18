// Flake confirmation inside a targeted test run (DESIGN §4 Flakes): instead of a second process for
// the tests that newly fail (a runner start, often as long as the targeted run itself), the run
// retries its failing tests in place and says which passed on a retry. A test that passed on a retry
// is flaky (never a pass); one that failed every time counts, as a re-run in a process of its own
// would say. What the runner retried is read back from records that a small file of ours (a Jest
// test runner, a mocha root hook plugin) writes while the run goes; where the run did not go through
// it, nothing is concluded and the changed tests are re-run apart, as before.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../../atomicWrite';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { Failure } from '../../types';
import type { ParseContext } from '../parsers/common';
import { failure, workspacePath } from '../parsers/common';

/** A test known to fail before the run: its absolute file, its id as the runner's parser gives it, its message. */
export interface KnownFailure {
  file: string;
  id: string;
  message: string;
}

/** What a run's retries said, as failures the runner's parser would give the same tests. */
export interface RetryOutcome {
  /** Every test the run retried (those still failing are among the run's failures: they count). */
  retried: Failure[];
  /** The tests that failed and then passed on a retry. */
  flaky: Failure[];
}

export abstract class InRunRetry {
  protected readonly results: string;

  protected constructor(
    protected readonly dir: string,
    readonly retries: number,
  ) {
    this.results = path.join(dir, 'results');
    mkdirSync(dir, { recursive: true });
  }

  /**
   * The argv that runs with retries; the records of an earlier run are cleared. `known`: the tests
   * that failed before. A test that keeps failing needs no confirming, and its retry would cost its
   * whole time again (a timeout, say): those `kept` are not retried.
   */
  argv(base: readonly string[], known: readonly KnownFailure[]): string[] {
    rmSync(this.results, { recursive: true, force: true });
    mkdirSync(this.results, { recursive: true });
    const kept = this.kept(known);
    writeFileAtomic(path.join(this.dir, 'known.json'), JSON.stringify(kept.map(({ file, id }) => ({ file, id }))), { durable: false });
    return this.withRetries(base, kept);
  }

  /** Which known failures the runner keeps from being retried (default: all). */
  protected kept(known: readonly KnownFailure[]): readonly KnownFailure[] {
    return known;
  }

  /** What the last run's retries said; undefined when it did not go through our file. */
  outcome(ctx: ParseContext): RetryOutcome | undefined {
    const lines = this.recordLines();
    return lines ? this.read(lines, ctx) : undefined;
  }

  /** The argv with retries; `base` unchanged where this run cannot retry (it is then confirmed apart). */
  protected abstract withRetries(base: readonly string[], kept: readonly KnownFailure[]): string[];
  protected abstract read(records: readonly unknown[], ctx: ParseContext): RetryOutcome | undefined;

  /** Every record line the run wrote (JSON lines under `results/`); undefined when none, or one cut short. */
  private recordLines(): unknown[] | undefined {
    let names: string[];
    try {
      names = readdirSync(this.results).filter((n) => n.endsWith('.jsonl'));
    } catch {
      return undefined;
    }
    const out: unknown[] = [];
    for (const n of names) {
      for (const line of readFileSync(path.join(this.results, n), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        try {
          out.push(JSON.parse(line));
        } catch {
          return undefined; // a record cut short proves nothing
        }
      }
    }
    return out.length > 0 ? out : undefined;
  }
}

/** A record of a test that ran again (mocha's hook and Vitest's reporter write them): its absolute file, its id as the runner's parser gives it, its last state, its retries, its first error. */
interface RetriedRecord {
  file?: string;
  id?: string;
  state?: string;
  retry?: number;
  message?: string;
}

/** What records of the tests that ran again say; other lines (a run's `{ran: true}`) are passed over. */
export function outcomeOfRetried(records: readonly unknown[], ctx: ParseContext, runner: string): RetryOutcome {
  const tests = (records as RetriedRecord[]).filter((r): r is RetriedRecord & { file: string; id: string; retry: number } => typeof r.id === 'string' && typeof r.file === 'string' && (r.retry ?? 0) > 0);
  const asFailure = (t: { file: string; id: string }, message: string): Failure => {
    const file = workspacePath(t.file, ctx);
    return failure({ check: ctx.check, ...(file !== undefined ? { file } : {}), id: t.id, message });
  };
  return {
    retried: tests.map((t) => asFailure(t, 'retried')),
    flaky: tests.filter((t) => t.state === 'passed').map((t) => asFailure(t, t.message !== undefined && t.message !== '' ? t.message : `failed, then passed on retry ${t.retry} in the same ${runner} run`)),
  };
}

/** The check's folder for its in-run retries under a storage directory. */
export function retryDir(storageDir: string, runner: string, check: string): string {
  return path.join(storageDir, 'staged', `${runner}-retry-${createHash('sha256').update(check).digest('hex').slice(0, 12)}`);
}

// The project's own verdict on a candidate, twice: on the broken state (the parent's tree with the
// commit's tests) and on the reference state (the commit's tree). Both are recorded and cached in the
// storage, keyed by the commit and the check plan (the checks' names, commands, folders and parsers as
// discovery or the settings made them for that tree), so a second bench with the same plan runs no
// check for a commit it already judged.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckEngine } from '../engine';
import type { CheckSpec, VerifyResult } from '../types';
import { TEST_RUNNERS } from '../verify/parsers/locate';
import type { TestRef } from './holdout';

export interface Verdict {
  green: boolean;
  failureHash: string;
  failureCount: number;
  /** The files the failures name (workspace-relative), sorted. */
  failingFiles: string[];
  /**
   * The failing tests by identity (check, file, full title), from the checks a test runner's parser
   * read; sorted. Absent in verdicts cached before tests were split by name (those are taken again).
   */
  failingTests?: TestRef[];
  checks: { name: string; failures: number; exitCode: number | null }[];
  durationMs: number;
}

export function verdictOf(v: VerifyResult): Verdict {
  const testChecks = new Set(v.checks.filter((c) => c.parser !== undefined && TEST_RUNNERS.has(c.parser)).map((c) => c.name));
  const tests = new Map<string, TestRef>();
  for (const f of v.failures) if (testChecks.has(f.check) && f.file !== undefined && f.id !== undefined) tests.set(JSON.stringify([f.check, f.file, f.id]), { check: f.check, file: f.file, id: f.id });
  return {
    green: v.green,
    failureHash: v.failureHash,
    failureCount: v.failures.length,
    failingFiles: [...new Set(v.failures.map((f) => f.file).filter((f): f is string => f !== undefined))].sort(),
    failingTests: [...tests.keys()].sort().map((k) => tests.get(k)!),
    checks: v.checks.map((c) => ({ name: c.name, failures: c.failures.length, exitCode: c.exitCode })),
    durationMs: v.durationMs,
  };
}

/** The check plan's identity: what would make a verdict different if it changed. */
export function checkPlanKey(checks: readonly CheckSpec[]): string {
  const plan = checks.map((c) => [c.name, c.command, c.cwd ?? '.', c.parser ?? '', c.timeoutSeconds ?? null]);
  return createHash('sha256').update(JSON.stringify(plan)).digest('hex').slice(0, 16);
}

export interface CachedVerdicts {
  commit: string;
  checkPlan: string;
  checks: { name: string; command: string }[];
  broken: Verdict;
  /** Absent when the broken state was already green (no reason to check the reference). */
  reference?: Verdict;
  at: string;
}

/** The verdict cache: one JSON file in the storage, rewritten whole (temp file + rename) after each verdict. */
export class VerdictCache {
  private readonly data: Record<string, CachedVerdicts>;

  constructor(private readonly file: string) {
    this.data = existsSync(file) ? this.read() : {};
  }

  private read(): Record<string, CachedVerdicts> {
    try {
      const d = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return typeof d === 'object' && d !== null && !Array.isArray(d) ? (d as Record<string, CachedVerdicts>) : {};
    } catch (e) {
      // A cache a crash cut short is only a cache: the verdicts are taken again.
      if (e instanceof SyntaxError) return {};
      throw e;
    }
  }

  get(commit: string, checkPlan: string): CachedVerdicts | undefined {
    return this.data[`${commit}:${checkPlan}`];
  }

  put(v: CachedVerdicts): void {
    this.data[`${v.commit}:${v.checkPlan}`] = v;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data, null, 1));
    renameSync(tmp, this.file);
  }
}

/** Runs the checks once, in full, and ends what they kept warm. */
export async function judge(engine: CheckEngine, signal?: AbortSignal): Promise<Verdict> {
  try {
    return verdictOf(await engine.verifier.verify(signal));
  } finally {
    await engine.verifier.release();
  }
}

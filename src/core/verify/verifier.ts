// Verifies the workspace: runs every check, parses failures, computes the state's identity.
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckResult, CheckSpec, Failure, Logger, ParserId, VerifyResult } from '../types';
import { silentLogger } from '../types';
import { failureIdentity } from './identity';
import { parseOutput } from './parsers/index';
import { checkEnv, runCommand, splitCommand } from './runner';

export interface VerifierOptions {
  root: string;
  checks: CheckSpec[];
  parallel: boolean;
  outputLimitKb: number;
  defaultTimeoutSeconds?: number;
  logger?: Logger;
}

export const DEFAULT_CHECK_TIMEOUT_SECONDS = 300;

/** Infers a parser from the command when the check does not name one. */
export function inferParser(command: string): ParserId {
  if (/\btsc\b/.test(command)) return 'tsc';
  if (/\beslint\b/.test(command)) return 'eslint';
  if (/\bvitest\b/.test(command)) return 'vitest';
  if (/\bjest\b/.test(command)) return 'jest';
  if (/\bmocha\b/.test(command)) return 'mocha';
  if (/--test\b/.test(command)) return 'node-test';
  if (/\btap\b/.test(command)) return 'tap';
  return 'generic';
}

export class Verifier {
  private readonly logger: Logger;

  constructor(private readonly opts: VerifierOptions) {
    this.logger = opts.logger ?? silentLogger;
  }

  get checks(): readonly CheckSpec[] {
    return this.opts.checks;
  }

  /** Problems that make a run pointless before it starts: no checks, missing executables. */
  preflight(): string[] {
    const problems: string[] = [];
    if (this.opts.checks.length === 0) problems.push('no checks configured or discovered: set fixUntilGreen.checks');
    for (const c of this.opts.checks) {
      const cwd = path.resolve(this.opts.root, c.cwd ?? '.');
      if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
        problems.push(`check "${c.name}": working directory ${c.cwd} does not exist`);
        continue;
      }
      const exe = executableOf(c.command);
      if (exe !== undefined && findExecutable(exe, cwd) === undefined) {
        problems.push(`check "${c.name}": executable "${exe}" not found (not in node_modules/.bin or on PATH)`);
      }
    }
    return problems;
  }

  async verify(signal?: AbortSignal): Promise<VerifyResult> {
    const started = Date.now();
    const run = (c: CheckSpec): Promise<CheckResult> => this.runCheck(c, signal);
    let checks: CheckResult[];
    if (this.opts.parallel) {
      checks = await Promise.all(this.opts.checks.map(run));
    } else {
      checks = [];
      for (const c of this.opts.checks) checks.push(await run(c));
    }
    const failures: Failure[] = checks.flatMap((c) => c.failures);
    const flaky: Failure[] = checks.flatMap((c) => c.flaky);
    return {
      green: failures.length === 0 && checks.every((c) => c.exitCode === 0),
      failures,
      flaky,
      failureHash: failureIdentity(failures, { root: this.opts.root }),
      checks,
      durationMs: Date.now() - started,
    };
  }

  private async runCheck(spec: CheckSpec, signal?: AbortSignal): Promise<CheckResult> {
    const cwd = path.resolve(this.opts.root, spec.cwd ?? '.');
    const timeoutMs = (spec.timeoutSeconds ?? this.opts.defaultTimeoutSeconds ?? DEFAULT_CHECK_TIMEOUT_SECONDS) * 1000;
    this.logger.debug(`check ${spec.name}: ${spec.command}`);
    const r = await runCommand({
      command: spec.command,
      cwd,
      timeoutMs,
      outputLimitBytes: this.opts.outputLimitKb * 1024,
      env: checkEnv(cwd),
      ...(signal ? { signal } : {}),
    });
    const parser = spec.parser ?? inferParser(spec.command);
    let failures: Failure[];
    if (r.timedOut) {
      failures = [{ check: spec.name, id: 'timeout', message: `${spec.name} timed out after ${timeoutMs / 1000} s and was killed` }];
    } else if (r.spawnError !== undefined) {
      failures = [{ check: spec.name, id: 'spawn', message: `${spec.name} could not start: ${r.spawnError}` }];
    } else {
      failures = parseOutput(parser, r.output, { check: spec.name, root: this.opts.root, cwd, exitCode: r.exitCode });
    }
    this.logger.debug(`check ${spec.name}: exit ${r.exitCode} in ${r.durationMs} ms, ${failures.length} failure(s)`);
    return {
      name: spec.name,
      command: spec.command,
      exitCode: r.timedOut ? null : r.exitCode,
      durationMs: r.durationMs,
      timedOut: r.timedOut,
      cancelled: r.cancelled,
      output: r.output,
      truncated: r.truncated,
      failures,
      flaky: [],
    };
  }
}

/** The executable a command starts, or undefined when a shell decides (pipelines, builtins). */
export function executableOf(command: string): string | undefined {
  const argv = splitCommand(command);
  if (argv) return argv[0];
  const m = /^\s*([A-Za-z0-9_./@-]+)/.exec(command);
  return m?.[1];
}

export function findExecutable(exe: string, cwd: string): string | undefined {
  if (exe.includes('/')) {
    const p = path.resolve(cwd, exe);
    return existsSync(p) ? p : undefined;
  }
  const env = checkEnv(cwd);
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, exe);
    if (existsSync(p)) return p;
  }
  return undefined;
}

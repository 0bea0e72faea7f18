// The warm linter: one child process per ESLint check, kept between a run's passes (and a hook
// worker's stops), which has the workspace's own ESLint loaded and runs its CLI in-process
// (./programs/warmEslintWorker.cjs). Its answer is what the command prints, byte for byte, and its
// exit code: the verdict never differs from the cold command's. The child is reused only while nothing
// but its lint inputs changed (it records every module it loaded and every path it read, stat'ed or
// listed; any difference and a fresh child runs, at the command's cost); typescript-eslint's caches
// are cleared before each run. Where it cannot run warm (not an `eslint` of the workspace's own
// package behind launchers only, ./warmLaunch; an option that writes or reads stdin; a crash) it says
// why and the command runs cold.
// Contained like a check: its own process group, the check marker, a record in storage so a crash of
// ours is reaped; killed at release, cancel, timeout and any fault, and it exits when we go.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { Logger } from '../../types';
import { scrubEnv } from '../../secrets';
import { CHECK_MARKER_ENV } from '../containment';
import type { RunCommandResult } from '../runner';
import { CappedOutput } from '../runner';
import { binTarget } from '../binTarget';
import { toolIndex } from './launchers';
import { programFile } from './programFile';
import type { WarmStart } from './warmLaunch';
import { warmStart } from './warmLaunch';
import type { WarmRunOptions } from './warmChild';
import { endWarmChild, findOnPath, realpathOrSelf, recordWarmChild } from './warmChild';

/** How a command runs warm (the arguments after `eslint`, the workspace's `lib/cli.js`, the worker's start: ./warmLaunch), or why it cannot. */
export type WarmEslintPlan = { args: string[]; cli: string; version: string; start: WarmStart } | { fallback: string };

/** Options the warm linter does not take: they write, read stdin, start something else, or print no lint. */
const NOT_WARM = /^(--fix|--fix-dry-run|--fix-type|--stdin|--stdin-filename|--init|--mcp|--print-config|--inspect-config|--env-info|-h|--help|-v|--version|--debug|-o|--output-file|--concurrency)(=|$)/;

/** Variables ESLint acts on once per process (./warmLaunch warmStart), and what each does. */
const PER_PROCESS = {
  TIMING: 'ESLint prints its rules\' timing table as its process exits',
  DEBUG: 'ESLint\'s debug lines are printed as its modules load, once per process',
};

/**
 * Whether (and how) `argv`, run in `cwd` with `env`, can be answered by the warm linter. The eslint
 * may stand behind launchers (./launchers: `npx eslint`, `cross-env TIMING=1 eslint`, `node
 * node_modules/eslint/bin/eslint.js`): the worker is then started as they start ESLint.
 */
export function warmEslintPlan(argv: readonly string[] | undefined, cwd: string, env: Record<string, string>): WarmEslintPlan {
  const i = argv ? toolIndex(argv, (a) => a === 'eslint' || a === 'eslint.js') : -1;
  if (!argv || i < 0) return { fallback: 'the command is not an eslint call behind launchers only (a wrapper, `env -i`, or a shell line)' };
  const args = argv.slice(i + 1);
  const odd = args.find((a) => NOT_WARM.test(a));
  if (odd !== undefined) return { fallback: `eslint ${odd.split('=')[0]} is run as the command (it writes, reads stdin or prints no lint)` };
  const start = warmStart(argv.slice(0, i), cwd, env, PER_PROCESS);
  if ('fallback' in start) return start;
  let pkgFile: string;
  try {
    pkgFile = createRequire(path.join(cwd, 'package.json')).resolve('eslint/package.json');
  } catch (e) {
    return { fallback: `the workspace has no eslint package to load (${(e as Error).message.split('\n')[0]})` };
  }
  const pkgDir = path.dirname(pkgFile);
  const version = (JSON.parse(readFileSync(pkgFile, 'utf8')) as { version?: string }).version ?? '';
  const cli = path.join(pkgDir, 'lib', 'cli.js');
  if (!existsSync(cli)) return { fallback: `eslint ${version} has no lib/cli.js to run in-process` };
  // The eslint the command runs: found on its PATH, the launchers' variables set (a PATH among them).
  const bin = argv[i]!.includes('/') ? binTarget(path.resolve(cwd, argv[i]!)) : findOnPath('eslint', start.env);
  if (bin === undefined || !realpathOrSelf(bin).startsWith(realpathOrSelf(pkgDir) + path.sep)) return { fallback: `the command's eslint (${bin ?? 'not found'}) is not the workspace's eslint package` };
  return { args, cli, version, start };
}

/** What one warm run gave. */
export type WarmLintOutcome =
  | { kind: 'result'; chunks: [1 | 2, string][]; exitCode: number; durationMs: number }
  | { kind: 'fallback'; reason: string }
  | { kind: 'cancelled' }
  | { kind: 'timedOut' };

interface WorkerMessage {
  type: 'ready' | 'fallback' | 'stale' | 'result';
  id?: number;
  reason?: string;
  /** A fallback that holds for every later run of this process. */
  final?: boolean;
  chunks?: [1 | 2, string][];
  exitCode?: number;
  durationMs?: number;
}

export interface WarmEslintOptions {
  cwd: string;
  cli: string;
  /** How its node starts: the check's environment (provider keys already scrubbed) with the launchers' variables, the node and its flags (./warmLaunch). */
  start: Pick<WarmStart, 'node' | 'nodeFlags' | 'env'>;
  /** Where running checks are recorded for reaping after a crash. */
  recordDir?: string;
  logger: Logger;
  /** How long the child gets to load ESLint before it counts as broken. */
  readyMs?: number;
}

/** Runs in a row that fell back (a crash, a throw) before the check stops trying warm. */
const FAULTS_MAX = 3;

export class WarmEslint {
  private child: ChildProcess | undefined;
  private ready: Promise<string | undefined> | undefined;
  private marker = randomUUID();
  private broken: string | undefined;
  private faults = 0;
  private nextId = 1;
  private stderr = '';
  private queue: Promise<unknown> = Promise.resolve();
  private ran = false;
  /** Fresh children started because the last one's inputs changed (for the logs and tests). */
  restarts = 0;

  constructor(private readonly opts: WarmEslintOptions) {}

  /** The reason it fell back for good, once it has. */
  get fallback(): string | undefined {
    return this.broken;
  }

  /** Whether a child is up that has run ESLint already (its config and plugins loaded). */
  get warm(): boolean {
    return this.child !== undefined && this.ran;
  }

  /** The child's process group (its pid), while one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the child (idempotent); it loads ESLint at once. */
  start(): void {
    if (this.child || this.broken !== undefined) return;
    this.marker = randomUUID();
    const { node, nodeFlags, env: launched } = this.opts.start;
    const env: Record<string, string> = { ...scrubEnv(launched), [CHECK_MARKER_ENV]: this.marker, ...(node === undefined ? { ELECTRON_RUN_AS_NODE: '1' } : {}) };
    const child = spawn(node ?? process.execPath, [...nodeFlags, programFile('warmEslintWorker.cjs'), JSON.stringify({ cli: this.opts.cli })], { cwd: this.opts.cwd, env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], detached: true });
    this.child = child;
    child.stderr?.on('data', (c: Buffer) => {
      this.stderr = (this.stderr + c.toString('utf8')).slice(-4000);
    });
    // A send to a child that has gone is an error event: the run falls back (ask), never our crash.
    child.on('error', (e) => this.opts.logger.debug(`warm lint: ${e.message}`));
    this.record(child.pid);
    const readyMs = this.opts.readyMs ?? 30000;
    this.ready = new Promise((resolve) => {
      const timer = setTimeout(() => resolve(`the warm linter did not load ESLint within ${readyMs / 1000} s`), readyMs);
      const end = (why: string | undefined): void => {
        clearTimeout(timer);
        resolve(why);
      };
      child.on('message', (m: WorkerMessage) => {
        if (m.type === 'ready') end(undefined);
        else if (m.type === 'fallback' && m.id === undefined) end(m.reason ?? 'unknown');
      });
      child.once('error', (e) => end(`the warm linter could not start: ${e.message}`));
      child.once('exit', (code, signal) => end(`the warm linter exited (${signal ?? code})${this.stderr ? `: ${this.stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`));
    });
  }

  /** Runs ESLint's CLI with `args` (after `eslint`) warm; runs are taken one at a time. */
  run(args: readonly string[], signal: AbortSignal | undefined, timeoutMs: number): Promise<WarmLintOutcome> {
    const next = this.queue.then(() => this.runNow(args, signal, timeoutMs));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(args: readonly string[], signal: AbortSignal | undefined, timeoutMs: number): Promise<WarmLintOutcome> {
    if (this.broken !== undefined) return { kind: 'fallback', reason: this.broken };
    if (signal?.aborted) return { kind: 'cancelled' };
    const deadline = Date.now() + timeoutMs;
    // A child whose inputs changed answers `stale`: a fresh one runs it (what the command costs, once).
    for (let fresh = false; ; fresh = true) {
      this.start();
      const early = await this.ready;
      if (early !== undefined) return this.fault(early, true);
      const m = await this.ask(args, signal, deadline);
      if (m.type === 'stale' && !fresh) {
        this.opts.logger.debug(`warm lint: a fresh ESLint process runs (${m.reason ?? 'its inputs changed'})`);
        this.restarts++;
        await this.stop();
        continue;
      }
      if (m.type === 'result') {
        this.faults = 0;
        this.ran = true;
        return { kind: 'result', chunks: m.chunks ?? [], exitCode: m.exitCode ?? 2, durationMs: m.durationMs ?? 0 };
      }
      if (m.type === 'cancelled' || m.type === 'timedOut') {
        // Mid-run its state is half made: a fresh child next time.
        await this.stop();
        return { kind: m.type };
      }
      return this.fault(m.type === 'stale' ? `a fresh ESLint process found its inputs changing (${m.reason ?? ''})` : (m.reason ?? 'unknown'), m.final === true);
    }
  }

  /** Sends one run and waits for its answer, the deadline, a cancel, or the child's end. */
  private ask(args: readonly string[], signal: AbortSignal | undefined, deadline: number): Promise<WorkerMessage | { type: 'cancelled' | 'timedOut'; reason?: undefined; final?: undefined }> {
    const child = this.child!;
    const id = this.nextId++;
    type Answer = WorkerMessage | { type: 'cancelled' | 'timedOut'; reason?: undefined; final?: undefined };
    return new Promise<Answer>((resolve) => {
      const done = (a: Answer): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(a);
      };
      const onAbort = (): void => done({ type: 'cancelled' });
      const onMessage = (m: WorkerMessage): void => {
        if (m.id === id) done(m);
      };
      const onExit = (code: number | null, sig: string | null): void => done({ type: 'fallback', reason: `the warm linter exited (${sig ?? code})${this.stderr ? `: ${this.stderr.trim().split('\n').slice(-3).join(' ')}` : ''}` });
      const timer = setTimeout(() => done({ type: 'timedOut' }), Math.min(Math.max(0, deadline - Date.now()), 2 ** 31 - 1));
      if (signal?.aborted) return done({ type: 'cancelled' });
      if (!child.connected || child.exitCode !== null || child.signalCode !== null) return onExit(child.exitCode, child.signalCode);
      signal?.addEventListener('abort', onAbort, { once: true });
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ type: 'run', id, args });
    });
  }

  /** A run that fell back: the child goes (its state is unknown); `final`, or too many in a row, for good. */
  private async fault(reason: string, final: boolean): Promise<WarmLintOutcome> {
    this.faults++;
    if (final || this.faults >= FAULTS_MAX) {
      this.broken = reason;
      this.opts.logger.info(`warm lint falls back to the command: ${reason}`);
    } else {
      this.opts.logger.debug(`warm lint: this run falls back to the command: ${reason}`);
    }
    await this.stop();
    return { kind: 'fallback', reason };
  }

  /** Kills the child and everything it started; waits until they are gone. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.ready = undefined;
    this.ran = false;
    if (!child) return;
    await endWarmChild(child, this.marker, this.opts.recordDir);
  }

  private record(pid: number | undefined): void {
    recordWarmChild(this.opts.recordDir, this.marker, pid, `warm eslint (${this.opts.cwd})`);
  }

}

/** A warm run's result in the command's shape (../runner RunCommandResult), and the note it carries. */
export type WarmLintRun = { r: RunCommandResult; note: string } | { fallback: string };

/**
 * The ESLint checks' warm linters, by check. Used only once `prime` enabled them (a run or a hook
 * worker that goes on to further passes): a one-shot check pass gains nothing from a process kept.
 */
export class WarmLinters {
  private readonly byCheck = new Map<string, WarmEslint>();
  private enabled = false;

  constructor(private readonly x: { logger: Logger; recordDir?: string }) {}

  /** The check's warm linter started and its full command run once, the result dropped: the next pass finds ESLint, its config and plugins loaded. */
  async prime(check: string, argv: readonly string[] | undefined, o: Omit<WarmRunOptions, 'outputLimitBytes' | 'stdoutLimitBytes'>): Promise<void> {
    this.enabled = true;
    const plan = warmEslintPlan(argv, o.cwd, o.env);
    if ('fallback' in plan) return this.x.logger.debug(`check ${check}: not kept warm: ${plan.fallback}`);
    const w = this.linter(check, o, plan);
    if (!w.warm) await w.run(plan.args, o.signal, o.timeoutMs);
  }

  /** `argv` run warm, in the command's shape; `undefined` when not enabled, `{fallback}` when it cannot be (the command runs). */
  async run(check: string, argv: readonly string[] | undefined, o: WarmRunOptions): Promise<WarmLintRun | undefined> {
    if (!this.enabled) return undefined;
    const started = Date.now();
    const plan = warmEslintPlan(argv, o.cwd, o.env);
    if ('fallback' in plan) return plan;
    const out = await this.linter(check, o, plan).run(plan.args, o.signal, o.timeoutMs);
    if (out.kind === 'fallback') return { fallback: out.reason };
    const r: RunCommandResult = { exitCode: null, signal: null, output: '', truncated: false, timedOut: out.kind === 'timedOut', cancelled: out.kind === 'cancelled', durationMs: 0, pid: undefined, strays: [] };
    if (out.kind === 'result') {
      // The command's limits, cut and cleaned as runCommand cuts and cleans (../runner CappedOutput).
      const all = new CappedOutput(o.outputLimitBytes);
      const stdout = o.stdoutLimitBytes !== undefined ? new CappedOutput(o.stdoutLimitBytes) : undefined;
      for (const [fd, text] of out.chunks) {
        all.push(text);
        if (fd === 1) stdout?.push(text);
      }
      const a = all.finish();
      const so = stdout?.finish();
      Object.assign(r, { exitCode: out.exitCode, output: a.text, truncated: a.truncated, ...(so ? { stdout: so.text, stdoutTruncated: so.truncated } : {}) });
    }
    r.durationMs = Date.now() - started;
    return { r, note: `answered by the warm linter (ESLint ${plan.version} kept loaded; restarted whenever anything but its lint inputs changes)` };
  }

  private linter(check: string, o: { cwd: string }, plan: Extract<WarmEslintPlan, { cli: string }>): WarmEslint {
    // Another environment (a launcher's variable changed: TIMING=1 prints timings) is another linter.
    const key = `${check}\0${o.cwd}\0${plan.cli}\0${plan.start.key}`;
    let w = this.byCheck.get(key);
    if (!w) {
      // The check's linter of another environment is of no further use: the command's launchers changed.
      for (const [k, old] of this.byCheck) {
        if (!k.startsWith(`${check}\0`)) continue;
        this.byCheck.delete(k);
        void old.stop();
      }
      w = new WarmEslint({ cwd: o.cwd, cli: plan.cli, start: plan.start, logger: this.x.logger, ...(this.x.recordDir !== undefined ? { recordDir: this.x.recordDir } : {}) });
      this.byCheck.set(key, w);
    }
    return w;
  }

  /** Ends every warm linter; waits until they are gone. A later pass runs cold until primed again. */
  async release(): Promise<void> {
    const all = [...this.byCheck.values()];
    this.byCheck.clear();
    this.enabled = false;
    await Promise.all(all.map((w) => w.stop()));
  }
}

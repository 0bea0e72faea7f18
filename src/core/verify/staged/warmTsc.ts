// The warm type checker: one child process per tsc check, kept for the run's lifetime, holding the
// program between steps (./programs/warmTscWorker.cjs, run from where it ships: ./programFile). It
// runs only where it gives what the command gives: a `tsc` of the workspace's own `typescript` (5.x
// or older: tsc 7 is native), behind launchers only and started as they start it (./warmLaunch), no
// build or watch mode, no project references, nothing emitted.
// Anywhere else it says why, and the check runs its command. The child is contained like a check:
// its own process group, the check marker, a record in storage so a crash of ours is reaped; it is
// killed at the run's end, on cancel and on any fault, and exits by itself when we go.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { Logger } from '../../types';
import { CHECK_MARKER_ENV } from '../containment';
import { splitCommand } from '../runner';
import { binTarget } from '../binTarget';
import type { Launch } from './launchers';
import { toolIndex } from './launchers';
import { programFile } from './programFile';
import type { WarmStart } from './warmLaunch';
import { launchText, warmStart } from './warmLaunch';
import { endWarmChild, findOnPath, realpathOrSelf, recordWarmChild } from './warmChild';

/** How the warm checker is started for a check, or why it cannot be. */
export type WarmTscPlan = { args: string[]; typescript: string; version: string; start: WarmStart } | { fallback: string };

export type WarmOutcome =
  | { kind: 'result'; output: string; exitCode: number; durationMs: number }
  | { kind: 'fallback'; reason: string }
  | { kind: 'cancelled' };

/** Another tsc call's cwd and arguments (Vitest's typecheck: ./vitestTypecheck), answered from this program where it builds the same one. */
export interface AskedAs {
  cwd: string;
  args: readonly string[];
  /** The variables the asking call's launchers set for it (Vitest's own: its tsc inherits them). */
  vars: Readonly<Record<string, string>>;
}

const MODES = /^(-b|--build|-w|--watch)$/;

/**
 * Whether (and how) a tsc check's command can be run warm, with `env` the check's environment. The
 * tsc may stand behind launchers (./launchers: `npx tsc`, `cross-env NODE_OPTIONS=… tsc`, `node
 * node_modules/typescript/bin/tsc`): the worker is then started as they start tsc (./warmLaunch).
 */
export function warmTscPlan(command: string, cwd: string, env: Record<string, string>): WarmTscPlan {
  const argv = splitCommand(command);
  const i = argv ? toolIndex(argv, (a) => a === 'tsc') : -1;
  if (!argv || i < 0) return { fallback: 'the command is not a tsc call behind launchers only (a wrapper, `env -i`, or a shell line)' };
  const args = argv.slice(i + 1);
  if (args.some((a) => MODES.test(a))) return { fallback: 'tsc in build or watch mode' };
  const start = warmStart(argv.slice(0, i), cwd, env);
  if ('fallback' in start) return start;
  let typescript: string;
  try {
    typescript = createRequire(path.join(cwd, 'package.json')).resolve('typescript');
  } catch (e) {
    return { fallback: `the workspace has no typescript package to load (${(e as Error).message.split('\n')[0]})` };
  }
  const pkgDir = path.resolve(path.dirname(typescript), '..');
  const version = (JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version?: string }).version ?? '';
  if (Number(version.split('.')[0]) >= 7) return { fallback: `typescript ${version} is the native tsc 7, which has no program API to keep warm` };
  // The tsc the command runs: found on its PATH, the launchers' variables set (a PATH among them).
  const bin = argv[i]!.includes('/') ? binTarget(path.resolve(cwd, argv[i]!)) : findOnPath('tsc', start.env);
  if (bin === undefined || !bin.startsWith(realpathOrSelf(pkgDir) + path.sep)) return { fallback: `the command's tsc (${bin ?? 'not found'}) is not the workspace's typescript package` };
  return { args, typescript, version, start };
}

interface WorkerMessage {
  type: 'ready' | 'fallback' | 'result' | 'settled' | 'mismatch';
  id?: number;
  reason?: string;
  output?: string;
  exitCode?: number;
  durationMs?: number;
  /** A result: the program's source files. */
  files?: number;
  /** Settled: how (`signatures`, `recheck`, `failed: …`). */
  how?: string;
}

export interface WarmTscOptions {
  cwd: string;
  plan: Extract<WarmTscPlan, { args: string[] }>;
  /** Where running checks are recorded for reaping after a crash. */
  recordDir?: string;
  logger: Logger;
}

function sameVars(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

/** How long the worker gets to say it is ready (loading typescript) before it counts as broken. */
const READY_MS = 30000;

export class WarmTsc {
  private child: ChildProcess | undefined;
  private readonly marker = randomUUID();
  private ready: Promise<WarmOutcome | undefined> | undefined;
  private broken: string | undefined;
  private nextId = 1;
  private stderr = '';
  /** Since when the worker computes its signatures (after the first build's answer), until it says it settled. */
  private settlingSince: number | undefined;
  /** The worker's own time for its first build (the whole program, as the command checks it). */
  private firstBuildMs: number | undefined;
  /** The worker's own time for its last check after the first. */
  private lastCheckMs: number | undefined;
  /** How many source files the last check's program holds. */
  private programFiles: number | undefined;
  private settleAsked = false;

  constructor(private readonly opts: WarmTscOptions) {}

  /** The reason it fell back for good, once it has. */
  get fallback(): string | undefined {
    return this.broken;
  }

  /** The worker's time for its first build: what a cold run of the command costs, measured on the same program. */
  get buildMs(): number | undefined {
    return this.firstBuildMs;
  }

  /** Whether its worker is started (primed or checking) and not fallen back: there is a warm program, or one being built. */
  get running(): boolean {
    return this.child !== undefined && this.broken === undefined;
  }

  /** What the command's launchers set for tsc (./warmLaunch), which the worker was started with. */
  get launch(): Launch {
    return this.opts.plan.start.launch;
  }

  /** The source files of the program last checked. */
  get files(): number | undefined {
    return this.programFiles;
  }

  /**
   * About how long a check asked for now would take: what is left of the settling (bounded by the
   * first build's time: settling costs a declaration emit per file, at most a second whole check),
   * plus the last check's own time.
   */
  expectedMs(now = Date.now()): number {
    const settling = this.settlingSince === undefined ? 0 : Math.max(0, (this.firstBuildMs ?? 0) - (now - this.settlingSince));
    return settling + (this.lastCheckMs ?? 0);
  }

  /** Starts the worker (idempotent); its program is built by the first check. */
  start(): void {
    if (this.child || this.broken !== undefined) return;
    // Started as the command starts tsc: its launchers' variables, its node and that node's flags (./warmLaunch).
    const { node, nodeFlags, env: launched } = this.opts.plan.start;
    const env: Record<string, string> = { ...launched, [CHECK_MARKER_ENV]: this.marker, ...(node === undefined ? { ELECTRON_RUN_AS_NODE: '1' } : {}) };
    const init = JSON.stringify({ typescript: this.opts.plan.typescript, args: this.opts.plan.args });
    const child = spawn(node ?? process.execPath, [...nodeFlags, programFile('warmTscWorker.cjs'), init], { cwd: this.opts.cwd, env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], detached: true });
    this.child = child;
    child.stderr?.on('data', (c: Buffer) => {
      this.stderr = (this.stderr + c.toString('utf8')).slice(-4000);
    });
    child.on('message', (m: WorkerMessage) => {
      if (m.type !== 'settled') return;
      this.settlingSince = undefined;
      this.opts.logger.debug(`warm type check settled (${m.how ?? 'unknown'}) in ${m.durationMs ?? 0} ms`);
    });
    this.record(child.pid);
    this.ready = new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ kind: 'fallback', reason: `the warm checker did not start within ${READY_MS / 1000} s` }), READY_MS);
      child.on('message', (m: WorkerMessage) => {
        if (m.type === 'ready' || (m.type === 'fallback' && m.id === undefined)) {
          clearTimeout(timer);
          resolve(m.type === 'ready' ? undefined : { kind: 'fallback', reason: m.reason ?? 'unknown' });
        }
      });
      child.once('error', (e) => {
        clearTimeout(timer);
        resolve({ kind: 'fallback', reason: `the warm checker could not start: ${e.message}` });
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ kind: 'fallback', reason: `the warm checker exited (${signal ?? code})${this.stderr ? `: ${this.stderr.trim().split('\n').slice(-3).join(' ')}` : ''}` });
      });
    });
  }

  /**
   * Type checks the workspace as it is now. A fallback is for good: the caller runs the command from
   * then on. `settle` (the run's priming) also has the worker compute what makes the next checks small.
   */
  async check(signal: AbortSignal | undefined, timeoutMs: number, settle = false): Promise<WarmOutcome> {
    if (this.broken !== undefined) return { kind: 'fallback', reason: this.broken };
    this.start();
    const early = await this.ready;
    if (early) return this.fail(early);
    const outcome = await this.ask(this.child!, signal, timeoutMs, settle);
    if (outcome.kind === 'cancelled') {
      // Mid-check it holds a half-built program: a fresh one next time.
      await this.stop();
      return outcome;
    }
    return outcome.kind === 'fallback' || outcome.kind === 'mismatch' ? this.fail({ kind: 'fallback', reason: outcome.reason }) : outcome;
  }

  /**
   * The program's diagnostics as the tsc call `as` prints them, where that call builds this very
   * program (the worker compares: ./programs/warmTscWorker.cjs); `mismatch` with why where it does
   * not. Asked beside the check's own checks: the worker answers one request after the other, each
   * on the files as they are when it reads them. Never cancelled half-way (the program stays whole
   * for the check); a worker ended meanwhile by its owner is no fault of the worker's. Only a worker
   * already started (./stager's prime, a warm check) is asked.
   */
  async checkAs(as: AskedAs, timeoutMs: number): Promise<WarmOutcome | { kind: 'mismatch'; reason: string }> {
    if (this.broken !== undefined) return { kind: 'fallback', reason: this.broken };
    // Never started for this: a worker building the program cold costs what tsc costs.
    if (!this.running) return { kind: 'fallback', reason: 'no warm program (the check was not primed)' };
    // Another environment is another run of tsc (a NODE_OPTIONS, a variable tsc reads), and so is
    // another node or node flags (the asking tsc runs by its #! line, the PATH's node): only the same is answered.
    const mine = this.opts.plan.start.launch;
    const ownNode = mine.node !== undefined && (mine.node.flags.length > 0 || mine.node.bin.includes('/'));
    if (ownNode || !sameVars(mine.vars, as.vars)) {
      return { kind: 'mismatch', reason: `the check's command starts tsc with ${launchText(mine) || 'nothing set'}, the asking call with ${launchText({ vars: { ...as.vars } }) || 'nothing set'}` };
    }
    const early = await this.ready;
    if (early) return this.fail(early);
    const child = this.child;
    if (!child) return { kind: 'fallback', reason: 'the warm checker was ended' };
    const outcome = await this.ask(child, undefined, timeoutMs, false, as);
    if (outcome.kind === 'fallback' && this.child !== child) return { kind: 'fallback', reason: 'the warm checker was ended meanwhile' };
    return outcome.kind === 'fallback' ? this.fail(outcome) : outcome;
  }

  /** One request to the worker; its answer, `fallback` where it broke (exited, did not answer in time). */
  private ask(child: ChildProcess, signal: AbortSignal | undefined, timeoutMs: number, settle: boolean, as?: AskedAs): Promise<WarmOutcome | { kind: 'mismatch'; reason: string }> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const done = (o: WarmOutcome | { kind: 'mismatch'; reason: string }): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(o);
      };
      const onAbort = (): void => done({ kind: 'cancelled' });
      const onMessage = (m: WorkerMessage): void => {
        if (m.id !== id || m.type === 'settled') return;
        if (m.type === 'mismatch') return done({ kind: 'mismatch', reason: m.reason ?? 'unknown' });
        if (m.type === 'result') {
          if (this.firstBuildMs === undefined) this.firstBuildMs = m.durationMs ?? 0;
          else this.lastCheckMs = m.durationMs ?? 0;
          if (m.files !== undefined) this.programFiles = m.files;
          // The worker settles right after this answer (once): a check asked for meanwhile waits for it.
          if (settle && !this.settleAsked) {
            this.settleAsked = true;
            this.settlingSince = Date.now();
          }
        }
        done(m.type === 'result' ? { kind: 'result', output: m.output ?? '', exitCode: m.exitCode ?? 1, durationMs: m.durationMs ?? 0 } : { kind: 'fallback', reason: m.reason ?? 'unknown' });
      };
      const onExit = (code: number | null, sig: string | null): void => done({ kind: 'fallback', reason: `the warm checker exited (${sig ?? code})` });
      const timer = setTimeout(() => done({ kind: 'fallback', reason: `the warm checker did not answer within ${timeoutMs / 1000} s` }), Math.min(timeoutMs, 2 ** 31 - 1));
      if (signal?.aborted) return done({ kind: 'cancelled' });
      signal?.addEventListener('abort', onAbort, { once: true });
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ type: 'check', id, settle, ...(as ? { as: { cwd: as.cwd, args: [...as.args] } } : {}) });
    });
  }

  private async fail(o: WarmOutcome): Promise<WarmOutcome> {
    if (o.kind === 'fallback') {
      this.broken = o.reason;
      this.opts.logger.info(`warm type check falls back to the command: ${o.reason}`);
    }
    await this.stop();
    return o;
  }

  /** Kills the worker and everything it started; waits until they are gone. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.ready = undefined;
    // A new worker builds (and settles) afresh.
    this.firstBuildMs = undefined;
    this.lastCheckMs = undefined;
    this.settlingSince = undefined;
    this.settleAsked = false;
    if (!child) return;
    await endWarmChild(child, this.marker, this.opts.recordDir);
  }

  private record(pid: number | undefined): void {
    recordWarmChild(this.opts.recordDir, this.marker, pid, `warm tsc ${this.opts.plan.args.join(' ')}`);
  }

}

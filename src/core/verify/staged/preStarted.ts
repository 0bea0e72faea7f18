// The pre-started test runner (issue 39): at the stager's prime (a run's warm-up, the hook worker's
// "warm for the next stop"; never in a one-shot check), a check whose command is a plain call of a
// Node test runner's own bin (`vitest run --typecheck`) gets one process started ahead, with the cwd
// and environment the check will run with, its own process group and the check marker
// (./programs/preStartedRunner.mjs). It loads the runner's heavy modules and, where the runner's
// shape is one it knows (Vitest 3 and 4), runs the command itself right up to the moment its test
// run starts (config loaded, Vite servers created, plugins set up) and holds there; elsewhere it
// waits with the modules loaded. When the check runs, that process is told to go: held, it goes on
// from the hold, printing first what it printed while preparing; otherwise it sets `process.argv`
// as the command's node has it and runs the bin file. Either way it IS the CLI, in a fresh process,
// printing what the command prints and exiting as it exits; its output, exit code, timeout and
// cancel are taken as runCommand takes a command's. Single use: the next prime starts another.
//
// It is used only where it is what a fresh process would be: the same cwd, environment (compared
// exactly) and bin, held the same arguments; every file it loaded unchanged since it loaded it; held, nothing it
// observed while preparing changed (every file it read or stat'ed, present or absent, every folder
// it listed, the config's own imports); ready, and silent until then. Otherwise the command runs
// cold (never slower: one not ready or not held yet is killed, not waited for), and the reason goes
// to the debug log and the check's note.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Socket } from 'node:net';
import type { Logger, ParserId } from '../../types';
import { scrubEnv } from '../../secrets';
import { CHECK_MARKER_ENV, signalCheck } from '../containment';
import type { RunCommandResult } from '../runner';
import { CappedOutput, isExecutableFile } from '../runner';
import { variablesBefore } from './launchers';
import { programFile } from './programFile';
import type { WarmRunOptions } from './warmChild';
import { endWarmChild, realpathOrSelf, recordWarmChild } from './warmChild';

/**
 * A Node test runner that can be pre-started: its package, the command's name for its bin, and the
 * modules to load ahead: `./x`, an export of the package itself; `a > b`, a package as the runner's
 * own dependencies resolve it (`jest-cli > @jest/core`: @jest/core as jest-cli requires it).
 * `envDefaults`: what its bin sets before it loads anything, where the environment has no value
 * (a module loaded ahead reads the environment the bin would give it). `holds`: whether its run can
 * be held ahead (./programs/preStartedRunner.mjs `holdShape`), else it is import-only.
 */
export interface NodeRunner {
  parser: ParserId;
  pkg: string;
  bin: string;
  preload: string[];
  envDefaults?: Record<string, string>;
  holds: boolean;
}

/**
 * What each CLI loads before it reads anything of the project. `vitest/node` is nearly all of
 * Vitest's start. Jest requires its packages lazily (each at first use), so the ones every run loads
 * in its own process are named: its CLI, @jest/core and what @jest/core runs a test run with (config,
 * haste map, resolver, runtime, transform, runner, reporters, snapshot). None reads the project at
 * import; the few that read the environment, the cwd or stdout's kind at import (jest-resolve,
 * @jest/reporters, jest-util's isInteractive) read what the command's process would: the process
 * has the same cwd, environment (with NODE_ENV as jest's bin sets it) and pipes. The test
 * environment, jest-circus and the coverage libraries are loaded by the config's choice: not ahead.
 */
export const NODE_RUNNERS: readonly NodeRunner[] = [
  { parser: 'vitest', pkg: 'vitest', bin: 'vitest', preload: ['./node'], holds: true },
  {
    parser: 'jest',
    pkg: 'jest',
    bin: 'jest',
    preload: ['jest-cli', ...['@jest/core', 'jest-config', 'jest-util', 'jest-validate', 'yargs', 'chalk'].map((p) => `jest-cli > ${p}`), ...['jest-haste-map', 'jest-resolve', 'jest-runtime', '@jest/transform', 'jest-runner', '@jest/reporters', 'jest-snapshot', 'jest-watcher', '@jest/test-result', '@jest/console'].map((p) => `jest-cli > @jest/core > ${p}`)],
    envDefaults: { NODE_ENV: 'test' },
    holds: false,
  },
];

/** How a command runs in a pre-started process, or why it cannot; `vars`: what a launcher before the bin sets (`cross-env A=b`). */
export type PreStartPlan =
  | { runner: NodeRunner; node: string; entry: string; bin: string; args: string[]; preload: string[]; version: string; vars: Record<string, string> }
  | { fallback: string };

/** The path the first `exe` on the check's PATH has, as a spawn (and `/usr/bin/env`) finds it. */
function onPath(exe: string, env: Record<string, string>, cwd: string): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir !== '' && isExecutableFile(path.resolve(cwd, dir, exe))) return path.resolve(cwd, dir, exe);
  }
  return undefined;
}

/** The folder of the package named `name` that holds `file`, or undefined. */
function packageOf(file: string, name: string): { dir: string; json: Record<string, unknown> } | undefined {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      return undefined;
    }
    return json.name === name ? { dir, json } : undefined;
  }
  return undefined;
}

/** The file an `import` of the package's export `sub` loads (Node's conditions, in the package's order). */
function exportFile(dir: string, exports: unknown, sub: string): string | undefined {
  const pick = (v: unknown): string | undefined => {
    if (typeof v === 'string') return v;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    for (const [k, w] of Object.entries(v)) if (k === 'node' || k === 'import' || k === 'default') return pick(w);
    return undefined;
  };
  const rel = exports && typeof exports === 'object' && !Array.isArray(exports) ? pick((exports as Record<string, unknown>)[sub]) : undefined;
  return rel === undefined ? undefined : path.resolve(dir, rel);
}

/**
 * The file a `preload` entry names (NodeRunner): an export of the package at `dir`, or a package as
 * the chain of dependencies resolves it from there, as `require` finds it (its real path, Node's key).
 */
function preloadFile(dir: string, json: Record<string, unknown>, entry: string): string | undefined {
  if (entry.startsWith('./')) return exportFile(dir, json.exports, entry);
  let file: string | undefined;
  for (const name of entry.split(' > ')) {
    try {
      file = createRequire(path.join(dir, 'package.json')).resolve(name);
    } catch {
      return undefined;
    }
    const pkg = packageOf(file, name);
    if (!pkg) return undefined;
    dir = pkg.dir;
  }
  return file;
}

/** Whether (and how) `argv`, a `parser` check's command run in `cwd` with `env`, can run in a pre-started process. */
export function preStartPlan(parser: ParserId, argv: readonly string[] | undefined, cwd: string, outer: Record<string, string>): PreStartPlan {
  const runner = NODE_RUNNERS.find((r) => r.parser === parser);
  if (!runner) return { fallback: `no pre-started runner for ${parser}` };
  // `cross-env A=b jest`: the process is started with what the launcher would add to the environment.
  const launched = argv ? variablesBefore(argv, (exe) => (exe.includes('/') ? isExecutableFile(path.resolve(cwd, exe)) : onPath(exe, outer, cwd) !== undefined)) : undefined;
  const plain = launched?.rest;
  if (!launched || !plain || plain.length === 0 || path.basename(plain[0]!) !== runner.bin) return { fallback: `the command is not a plain ${runner.bin} call (a launcher other than cross-env or env setting variables, a wrapper or a shell line)` };
  const env = { ...outer, ...launched.vars };
  const entry = plain[0]!.includes('/') ? path.resolve(cwd, plain[0]!) : onPath(runner.bin, env, cwd);
  if (entry === undefined || !isExecutableFile(entry)) return { fallback: `${plain[0]} is not found on the check's PATH` };
  const bin = realpathOrSelf(entry);
  const pkg = packageOf(bin, runner.pkg);
  const own = pkg && (typeof pkg.json.bin === 'string' ? pkg.json.bin : (pkg.json.bin as Record<string, unknown> | undefined)?.[runner.bin]);
  // A shell wrapper (pnpm's) is no link to the bin: it sets an environment of its own before node.
  if (!pkg || typeof own !== 'string' || realpathOrSelf(path.resolve(pkg.dir, own)) !== bin) return { fallback: `${entry} is no link to the ${runner.pkg} package's bin (a shell wrapper or another program)` };
  // The kernel starts the bin by its shebang: `/usr/bin/env node` runs the check's PATH's node.
  const shebang = readFileSync(bin, 'utf8').split('\n', 1)[0]!.trim();
  if (!/^#!\s*\/usr\/bin\/env\s+node$/.test(shebang)) return { fallback: `${runner.pkg}'s bin starts with \`${shebang}\`, not \`#!/usr/bin/env node\`` };
  const node = onPath('node', env, cwd);
  if (node === undefined) return { fallback: 'no node on the check\'s PATH' };
  const preload = runner.preload.map((entry) => preloadFile(pkg.dir, pkg.json, entry));
  const missing = runner.preload.filter((_, i) => preload[i] === undefined);
  if (missing.length > 0) return { fallback: `${runner.pkg} ${typeof pkg.json.version === 'string' ? pkg.json.version : ''} resolves no ${missing.join(', ')} to load ahead` };
  return { runner, node, entry, bin, args: plain.slice(1), preload: preload as string[], version: typeof pkg.json.version === 'string' ? pkg.json.version : '', vars: launched.vars };
}

/** What a run needs besides the argv: the command's limits, environment and cancel (as runCommand takes them). */
/** The signature of a path as the worker takes it (./programs/preStartedRunner.mjs `sig`). */
function sig(p: string): string {
  try {
    const s = statSync(p);
    return s.isDirectory() ? `d:${s.ino}` : `f:${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return 'missing';
  }
}

/**
 * The folders a fresh process would resolve the loaded files' imports through: each folder of a
 * loaded file's path from the first `node_modules` down, with its entries' time. A package installed
 * in one since (a nested `node_modules/vite`) would be resolved there by a fresh process.
 */
function packageFolders(files: readonly string[]): [string, string][] {
  const dirs = new Map<string, string>();
  for (const f of files) {
    for (let d = path.dirname(f); d.includes(`${path.sep}node_modules`) && !dirs.has(d); d = path.dirname(d)) {
      try {
        const s = statSync(d);
        dirs.set(d, `${s.ino}:${s.mtimeMs}`);
      } catch {
        dirs.set(d, 'missing');
      }
    }
  }
  return [...dirs];
}

function folderSig(d: string): string {
  try {
    const s = statSync(d);
    return `${s.ino}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

const sameEnv = (a: Record<string, string>, b: Record<string, string>): boolean => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && b[k] === a[k]);
};

/** How long the CLI's pipes may stay open after it exited (a stray holding them is killed first). */
const DRAIN_MS = 2000;

/** One pre-started process, for one run. */
export class PreStarted {
  private child: ChildProcess | undefined;
  private readonly marker = randomUUID();
  private state: 'starting' | 'ready' | 'used' | string = 'starting';
  private files: [string, string][] = [];
  private folders: [string, string][] = [];
  /** Held: what it observed while preparing, [path, kind, signature] (`d`: a folder's entries, as folderSig; `f`: as sig). */
  private observed: [string, string, string][] = [];
  private held = false;
  private early = 0;
  private sink: ((fd: 1 | 2, c: Buffer) => void) | undefined;
  private readonly cwdSig: string;

  constructor(
    readonly plan: Extract<PreStartPlan, { bin: string }>,
    readonly cwd: string,
    readonly env: Record<string, string>,
    private readonly x: { logger: Logger; recordDir?: string },
  ) {
    this.cwdSig = sig(cwd);
  }

  /** Spawns the process; it loads the runner and says `ready` (or why not) on fd 3. */
  start(): void {
    // What a launcher before the bin sets reaches it as the launcher passes it (after our scrub of the check's own).
    const env = { ...scrubEnv(this.env), ...this.plan.vars, [CHECK_MARKER_ENV]: this.marker };
    const { runner } = this.plan;
    const init = { preload: this.plan.preload, ...(runner.envDefaults ? { envDefaults: runner.envDefaults } : {}), ...(runner.holds ? { hold: { bin: this.plan.bin, argv1: this.plan.entry, args: this.plan.args } } : {}) };
    // argv0 `node`, as `#!/usr/bin/env node` starts the command's node; stdin as runCommand gives it.
    const child = spawn(this.plan.node, [programFile('preStartedRunner.mjs'), JSON.stringify(init)], { argv0: 'node', cwd: this.cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], detached: true });
    this.child = child;
    recordWarmChild(this.x.recordDir, this.marker, child.pid, `pre-started ${this.plan.runner.bin} (${this.cwd})`);
    child.on('error', (e) => this.gone(`it could not start: ${e.message}`));
    child.once('exit', (code, signal) => this.gone(`it exited before the run (${signal ?? code})`));
    child.stdout?.on('data', (c: Buffer) => (this.sink ? this.sink(1, c) : (this.early += c.length)));
    child.stderr?.on('data', (c: Buffer) => (this.sink ? this.sink(2, c) : (this.early += c.length)));
    const control = child.stdio[3] as Socket | null;
    let buffered = '';
    control?.on('error', (e) => this.gone(`its control pipe failed: ${e.message}`));
    control?.on('data', (c: Buffer) => {
      buffered += c.toString('utf8');
      const nl = buffered.indexOf('\n');
      if (nl < 0 || this.state !== 'starting') return;
      let m: { type?: string; files?: [string, string][]; held?: boolean; observed?: [string, string, string][]; notHeld?: string; reason?: string };
      try {
        m = JSON.parse(buffered.slice(0, nl)) as typeof m;
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
        return this.gone(`it said no JSON: ${buffered.slice(0, 200)}`);
      }
      if (m.type === 'ready' && Array.isArray(m.files)) {
        this.files = [...m.files, [this.cwd, this.cwdSig]];
        this.folders = packageFolders(m.files.map(([f]) => f));
        this.held = m.held === true;
        this.observed = Array.isArray(m.observed) ? m.observed : [];
        this.state = 'ready';
        this.x.logger.debug(`pre-started ${this.plan.runner.bin} ready (${this.files.length} files loaded${this.held ? `, held before its test run, ${this.observed.length} paths observed` : `; not held: ${m.notHeld ?? 'no hold asked'}`}) in ${this.cwd}`);
      } else this.gone(m.reason ?? 'it sent no ready');
    });
  }

  private gone(why: string): void {
    if (this.state === 'starting') this.x.logger.debug(`pre-started ${this.plan.runner.bin} not ready: ${why}`);
    if (this.state === 'starting' || this.state === 'ready') this.state = why;
  }

  /** Why this process was started for another command than `plan` in `cwd` with `env`; undefined when for the same. */
  mismatch(plan: Extract<PreStartPlan, { bin: string }>, cwd: string, env: Record<string, string>): string | undefined {
    if (cwd !== this.cwd) return `the check runs in ${cwd}, it was started in ${this.cwd}`;
    if (!sameEnv(env, this.env)) return "the check's environment differs from the one it was started with";
    if (!sameEnv(plan.vars, this.plan.vars)) return `the command's launcher sets ${JSON.stringify(plan.vars)}, it was started with ${JSON.stringify(this.plan.vars)}`;
    if (plan.entry !== this.plan.entry || plan.bin !== this.plan.bin || plan.node !== this.plan.node) return `the command runs ${plan.entry} with ${plan.node}, it was started for ${this.plan.entry} with ${this.plan.node}`;
    return undefined;
  }

  /** Whether it is still loading the runner. */
  get starting(): boolean {
    return this.state === 'starting';
  }

  /** Why this process is not what a fresh process of the command would be now; undefined when it is. */
  unusable(): string | undefined {
    if (this.state === 'starting') return 'it had not loaded the runner yet (the command does not wait for it)';
    if (this.state !== 'ready') return this.state;
    if (this.early > 0) return `it printed ${this.early} bytes before the run (a fresh process prints them in their place)`;
    for (const [p, s] of this.files) if (sig(p) !== s) return `${p}, which it loaded, changed`;
    for (const [d, s] of this.folders) if (folderSig(d) !== s) return `the entries of ${d} changed since it loaded its packages (an install there would be resolved by a fresh process)`;
    for (const [p, kind, s] of this.observed) {
      const now = kind === 'd' ? folderSig(p) : sig(p);
      if (now === s) continue;
      if (kind === 'd') return `the entries of ${p}, which it listed while preparing the run, changed`;
      return s === 'missing' ? `${p}, absent when it prepared the run, appeared` : `${p}, which it read while preparing the run, changed`;
    }
    return undefined;
  }

  /** Whether it was started for these arguments. */
  sameArgs(args: readonly string[]): boolean {
    return JSON.stringify(args) === JSON.stringify(this.plan.args);
  }

  /** Whether it holds the command just before its test run (else it has only loaded the runner). */
  get isHeld(): boolean {
    return this.held;
  }

  /** The command, run by this process with `args`; its result as runCommand's. */
  async run(args: readonly string[], o: WarmRunOptions): Promise<RunCommandResult> {
    const child = this.child!;
    this.state = 'used';
    const started = Date.now();
    const out = new CappedOutput(o.outputLimitBytes);
    const stdoutCap = o.stdoutLimitBytes !== undefined ? new CappedOutput(o.stdoutLimitBytes) : undefined;
    this.sink = (fd, c) => {
      out.push(c);
      if (fd === 1) stdoutCap?.push(c);
    };
    const handles = { marker: this.marker, ...(child.pid !== undefined ? { pgid: child.pid } : {}) };
    const w = await watch(child, o, handles, () => (child.stdio[3] as Socket).write(`${JSON.stringify({ type: 'go', bin: this.plan.bin, argv1: this.plan.entry, args })}\n`));
    const strays = new Set(w.strays);
    await this.stop(strays);
    const a = out.finish();
    const so = stdoutCap?.finish();
    return { exitCode: w.code, signal: w.signal, output: a.text, truncated: a.truncated, ...(so ? { stdout: so.text, stdoutTruncated: so.truncated } : {}), timedOut: w.timedOut, cancelled: w.cancelled, durationMs: Date.now() - started, pid: child.pid, strays: [...strays] };
  }

  /** Kills the process and everything it started; waits until they are gone. */
  async stop(strays?: Set<number>): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (this.state === 'starting' || this.state === 'ready') this.state = 'stopped';
    if (!child) return;
    child.stdio[3]?.destroy();
    for (const p of await endWarmChild(child, this.marker, this.x.recordDir)) if (p !== child.pid) strays?.add(p);
  }
}

interface Watched {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  strays: number[];
}

/**
 * A go'd process watched as runCommand watches a command: its time limit and the caller's cancel
 * (SIGTERM to everything of it, SIGKILL after the grace), and once it exited, what it left running
 * killed (a stray), its pipes given DRAIN_MS to close.
 */
function watch(child: ChildProcess, o: WarmRunOptions, handles: { marker: string; pgid?: number }, go: () => void): Promise<Watched> {
  const own = { trustGroup: true };
  return new Promise((resolve) => {
    const w: Watched = { code: null, signal: null, timedOut: false, cancelled: false, strays: [] };
    let exited = false;
    let killTimer: NodeJS.Timeout | undefined;
    let sweep: NodeJS.Timeout | undefined;
    let drain: NodeJS.Timeout | undefined;
    const terminate = (): void => {
      signalCheck(handles, 'SIGTERM', own);
      killTimer ??= setTimeout(() => signalCheck(handles, 'SIGKILL', own), o.killGraceMs ?? 2000);
    };
    const timer = setTimeout(
      () => {
        if (exited) return;
        w.timedOut = true;
        terminate();
      },
      Math.min(o.timeoutMs, 2 ** 31 - 1),
    );
    const onAbort = (): void => {
      if (exited) return;
      w.cancelled = true;
      terminate();
    };
    const sweepStrays = (): void => {
      for (const p of signalCheck(handles, 'SIGKILL', own)) if (p !== child.pid && !w.strays.includes(p)) w.strays.push(p);
    };
    child.removeAllListeners('exit');
    child.once('exit', (code, signal) => {
      exited = true;
      w.code = code;
      w.signal = signal;
      sweepStrays();
      sweep = setInterval(sweepStrays, 100);
      drain = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, DRAIN_MS);
    });
    child.once('close', () => {
      for (const t of [timer, killTimer, drain]) clearTimeout(t);
      clearInterval(sweep);
      o.signal?.removeEventListener('abort', onAbort);
      resolve(w);
    });
    if (o.signal?.aborted) return onAbort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    go();
  });
}

/** A pre-started run's result in the command's shape, and the note it carries; `{fallback}`: the command runs. */
export type PreStartedRun = { r: RunCommandResult; note: string } | { fallback: string };

/**
 * The checks' pre-started processes, one per check at most. Started only by `prime` (a run or a
 * hook worker that goes on to further passes): a one-shot check pass gains nothing from one.
 */
export class PreStartedRunners {
  private readonly byCheck = new Map<string, PreStarted>();
  private readonly stopping = new Set<Promise<void>>();

  constructor(private readonly x: { logger: Logger; recordDir?: string }) {}

  /** Whether checks read by `parser` can be pre-started. */
  static serves(parser: ParserId): boolean {
    return NODE_RUNNERS.some((r) => r.parser === parser);
  }

  /** Starts the check's process (not waited for) where none is waiting for the same command, or the one waiting went stale. */
  prime(check: string, parser: ParserId, argv: readonly string[] | undefined, cwd: string, env: Record<string, string>): void {
    const plan = preStartPlan(parser, argv, cwd, env);
    const have = this.byCheck.get(check);
    if ('fallback' in plan) {
      if (have) this.drop(check, have);
      return this.x.logger.debug(`check ${check}: not pre-started: ${plan.fallback}`);
    }
    // Every process is started to hold its command's own arguments where it can.
    if (have && have.mismatch(plan, cwd, env) === undefined && have.sameArgs(plan.args) && (have.starting || have.unusable() === undefined)) return;
    if (have) this.drop(check, have);
    const p = new PreStarted(plan, cwd, env, this.x);
    p.start();
    this.byCheck.set(check, p);
  }

  /** Why the check's process would not serve a run of exactly `argv` now (undefined: it holds `argv` itself, ready and unchanged since). */
  notHolding(check: string, parser: ParserId, argv: readonly string[], cwd: string, env: Record<string, string>): string | undefined {
    const p = this.byCheck.get(check);
    if (!p) return 'none is started';
    if (!p.isHeld) return p.starting ? 'it is still preparing' : 'it is not held before its test run';
    const plan = preStartPlan(parser, argv, cwd, env);
    if ('fallback' in plan) return plan.fallback;
    if (!p.sameArgs(plan.args)) return `it holds \`${p.plan.args.join(' ')}\`, the run would be \`${plan.args.join(' ')}\``;
    return p.mismatch(plan, cwd, env) ?? p.unusable();
  }

  /** `argv` run by the check's pre-started process; undefined where it has none, `{fallback}` (with why) where it cannot be used. */
  async run(check: string, parser: ParserId, argv: readonly string[] | undefined, o: WarmRunOptions): Promise<PreStartedRun | undefined> {
    const p = this.byCheck.get(check);
    if (!p) return undefined;
    const plan = preStartPlan(parser, argv, o.cwd, o.env);
    // Another command of the check (its whole chain, when a part failed): kept for the next run of its own.
    if ('fallback' in plan) return { fallback: plan.fallback };
    // A held process ran the check's own arguments; a narrowed run of it (other files, a name
    // filter) runs cold and leaves it for the check's next full run.
    if (p.isHeld && !p.sameArgs(plan.args) && p.mismatch(plan, o.cwd, o.env) === undefined) return { fallback: `not run in the pre-started process: it holds \`${p.plan.args.join(' ')}\` (kept for it), this run is \`${plan.args.join(' ')}\`` };
    this.byCheck.delete(check);
    const why = p.mismatch(plan, o.cwd, o.env) ?? p.unusable();
    if (why !== undefined) {
      this.drop(check, p);
      return { fallback: `not run in the pre-started process: ${why}` };
    }
    const held = p.isHeld;
    const r = await p.run(plan.args, o);
    return { r, note: held ? `run in a pre-started process (the command itself, run ahead up to its test run: ${plan.runner.pkg} ${plan.version}'s config, Vite servers and plugins set up before)` : `run in a pre-started process (${plan.runner.pkg} ${plan.version} loaded ahead, then the command itself in it)` };
  }

  /** Kills one process in the background (the command does not wait for it); `release` waits. */
  private drop(check: string, p: PreStarted): void {
    if (this.byCheck.get(check) === p) this.byCheck.delete(check);
    const s = p.stop().finally(() => this.stopping.delete(s));
    this.stopping.add(s);
  }

  /** Ends every pre-started process; waits until they are gone. */
  async release(): Promise<void> {
    for (const [check, p] of [...this.byCheck]) this.drop(check, p);
    await Promise.all([...this.stopping]);
  }
}

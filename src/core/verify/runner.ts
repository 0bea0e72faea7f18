// Runs one check command in a cgroup of its own where possible, else as its own process group; nothing
// of it outlives the check, and no provider key reaches it or comes back in its output.
import { randomUUID } from 'node:crypto';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import * as path from 'node:path';
import type { ResultPromise } from 'execa';
import { execa } from 'execa';
import stripAnsi from 'strip-ansi';
import { redact, redactCutEdges, scrubEnv } from '../secrets';
import type { CheckHandles } from './containment';
import { cutMarkText } from './cutMark';
import { processStartTime } from '../liveness';
import { argvInCgroup, CHECK_MARKER_ENV, createCheckCgroup, findProcesses, killAndWait, removeCgroupWhenEmpty, removeCheckRecord, signalCheck, writeCheckRecord } from './containment';

export interface RunCommandOptions {
  /** The command line; run without a shell unless it needs one (pipes, `&&`, quotes, globs...). */
  command: string;
  /** Exact argv to run without a shell, when the caller has built it (overrides splitting `command`). */
  argv?: string[];
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of output kept: the first half and the last half, with the cut marked. */
  outputLimitBytes: number;
  /**
   * When set, stdout is also kept apart, up to this many bytes: machine-readable reports (JSON) are
   * read from it, where stderr cannot interleave.
   */
  stdoutLimitBytes?: number;
  env?: Record<string, string>;
  /** Grace between SIGTERM and SIGKILL of the group on timeout or cancel. */
  killGraceMs?: number;
  /** How long to wait for output pipes to close once the main process has exited and its group is killed. */
  drainMs?: number;
  /**
   * `auto` (default): a cgroup v2 of its own where this process may create one, else the process
   * group and marker; `group`: the group and marker only.
   */
  containment?: 'auto' | 'group';
  /**
   * Where to record what the check runs under while it runs (`checkRecordDir(storageDir)`), so that
   * `reapStrays` can end it should this process die without cleaning up.
   */
  recordDir?: string;
}

export interface RunCommandResult {
  exitCode: number | null;
  signal: string | null;
  output: string;
  truncated: boolean;
  /** stdout alone, when `stdoutLimitBytes` asked for it. */
  stdout?: string;
  stdoutTruncated?: boolean;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  pid: number | undefined;
  /** Processes of the check still alive after its main process ended, killed then. */
  strays: number[];
  /** Set when the process could not be started (e.g. missing executable). */
  spawnError?: string;
}

const UTF8 = new TextDecoder('utf-8', { fatal: false });

function isContinuation(b: number | undefined): boolean {
  return b !== undefined && (b & 0xc0) === 0x80;
}

/** Where the last complete UTF-8 character of `buf` ends (a cut there splits no character). */
function completeEnd(buf: Buffer): number {
  let i = buf.length - 1;
  let cont = 0;
  while (i >= 0 && cont < 3 && isContinuation(buf[i])) {
    i--;
    cont++;
  }
  if (i < 0) return buf.length;
  const lead = buf[i]!;
  const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return need > cont ? i : buf.length;
}

/**
 * Keeps the head and the tail of a byte stream in bounded memory: at most `limitBytes` plus one
 * chunk, however much flows through. Decoded once at the end as UTF-8, invalid bytes becoming U+FFFD.
 */
export class CappedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;
  private readonly half: number;

  constructor(limitBytes: number) {
    this.half = Math.max(512, Math.floor(limitBytes / 2));
  }

  get totalBytes(): number {
    return this.headBytes + this.tailBytes + this.dropped;
  }

  push(chunk: Buffer | string): void {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (this.headBytes < this.half) {
      const take = Math.min(this.half - this.headBytes, buf.length);
      // A copy: a slice would pin the whole chunk in memory.
      this.head.push(Buffer.from(buf.subarray(0, take)));
      this.headBytes += take;
      buf = buf.subarray(take);
    }
    if (buf.length === 0) return;
    this.tail.push(buf);
    this.tailBytes += buf.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.half) {
      const first = this.tail.shift()!;
      this.tailBytes -= first.length;
      this.dropped += first.length;
    }
  }

  finish(): { text: string; truncated: boolean; droppedBytes: number } {
    let tail = Buffer.concat(this.tail);
    let dropped = this.dropped;
    if (tail.length > this.half) {
      dropped += tail.length - this.half;
      tail = tail.subarray(tail.length - this.half);
    }
    // Line endings as LF: CRLF from Windows-minded tools, and a lone CR (a progress redraw) ends a line too.
    // A secret's value (a provider key the check got hold of despite all) is redacted, a piece of one at
    // the cut too, before anyone parses, shows, stores or sends the output.
    const clean = (t: string, edges: { start: boolean; end: boolean }): string => redactCutEdges(stripAnsi(t).replace(/\r\n?/g, '\n'), edges);
    let text: string;
    if (dropped === 0) {
      text = clean(UTF8.decode(Buffer.concat([...this.head, tail])), { start: false, end: false });
    } else {
      // Cut at line boundaries on both sides of the gap, so no parser reads half a line as a whole one
      // (`FAIL  test/a.test.js [ test/a.t`); within one endless line, at character boundaries, so the
      // cut itself makes no U+FFFD.
      const head = Buffer.concat(this.head);
      const lastNewline = head.lastIndexOf(0x0a);
      const headEnd = lastNewline >= 0 ? lastNewline : completeEnd(head);
      const firstNewline = tail.indexOf(0x0a);
      let tailStart = firstNewline >= 0 && firstNewline < tail.length - 1 ? firstNewline + 1 : 0;
      while (tailStart < 3 && isContinuation(tail[tailStart])) tailStart++;
      dropped += head.length - headEnd + tailStart;
      text = `${clean(UTF8.decode(head.subarray(0, headEnd)), { start: false, end: true })}\n${cutMarkText(dropped)}\n${clean(UTF8.decode(tail.subarray(tailStart)), { start: true, end: false })}`;
    }
    return { text, truncated: dropped > 0, droppedBytes: dropped };
  }
}

const SHELL_CHARS = /[|&;<>()$`\\"'*?[\]#~%{}\n]/;
/**
 * `NAME=value` before the command word is the shell's assignment (`NODE_ENV=test jest`); anywhere
 * later `=` is a literal the shell passes as it is (`jest --maxWorkers=2`, `mocha --timeout=10000`).
 */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Splits a command that needs no shell; returns undefined when a shell is needed. */
export function splitCommand(command: string): string[] | undefined {
  const trimmed = command.trim();
  if (SHELL_CHARS.test(trimmed)) return undefined;
  const parts = trimmed.split(/\s+/).filter(Boolean);
  return parts.length > 0 && !ASSIGNMENT.test(parts[0]!) ? parts : undefined;
}

export { CHECK_MARKER_ENV };

/**
 * Variables a check never inherits from us: they say how *we* were started, not what the project's
 * own CI gives its checks, and each changes what a project's code computes.
 * - `NO_COLOR`, `FORCE_COLOR`: colour is the project's decision (its scripts, its runner's config);
 *   no CI service sets either. A test that records colour codes (a snapshot of a picocolors line)
 *   fails under `NO_COLOR` and passes in the project's CI. We read colours out of the output instead
 *   (`CappedOutput` strips ANSI before any parser sees it).
 * - `ELECTRON_RUN_AS_NODE`: set by VS Code for its extension host; it turns any Electron app a check
 *   starts (an extension's own tests) into plain Node. The warm type checker sets it again for itself.
 * - `npm_lifecycle_event`, `npm_lifecycle_script`, `npm_command`, `npm_package_*`: npm's account of
 *   the script that launched us (`npx fix-until-green hook`); a config that switches on
 *   `npm_lifecycle_event` would read ours, and a check run through npm gets its own from npm.
 */
const NOT_INHERITED = /^(?:NO_COLOR|FORCE_COLOR|ELECTRON_RUN_AS_NODE|npm_lifecycle_event|npm_lifecycle_script|npm_command|npm_package_.*)$/;

/**
 * The environment of a check: the one the project's own CI would give it. Set:
 * - `PATH`: every `node_modules/.bin` from the check's folder up first, as `npm run` does, so a
 *   command names the project's pinned tools;
 * - `CI=true`, as GitHub Actions, GitLab, CircleCI and Travis set it: runners run once instead of
 *   watching (Vitest, react-scripts), never prompt, and a project's CI-only settings apply.
 * Removed: provider keys (`scrubEnv`) and `NOT_INHERITED`. Everything else (`TERM`, `COLUMNS`,
 * `LANG`, `TZ`, `NODE_OPTIONS`, `npm_config_*`, proxies) is the user's own, as in their terminal:
 * no CI default is better known than the value the user chose. The output reaches no terminal, so
 * `TERM` and `COLUMNS` change no layout a parser reads.
 */
export function checkEnv(cwd: string, extra?: Record<string, string | undefined>): Record<string, string> {
  const binDirs: string[] = [];
  let dir = path.resolve(cwd);
  for (;;) {
    binDirs.push(path.join(dir, 'node_modules', '.bin'));
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !NOT_INHERITED.test(k)) env[k] = v;
  Object.assign(env, { PATH: [...binDirs, env.PATH ?? ''].join(path.delimiter), CI: 'true' });
  // The caller's own (`VerifierOptions.env`): `undefined` removes a variable.
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  // Checks run code the model edits: no provider key reaches them (runCommand scrubs again).
  return scrubEnv(env);
}

/**
 * Processes carrying this check's marker in their environment: descendants that left the process
 * group (setsid, a daemonizing helper) still inherit it. Linux only; elsewhere the group is all.
 */
export function markedProcesses(marker: string): number[] {
  return findProcesses({ marker });
}

/** Whether `p` is a file this process may execute (as a spawn of it, or a PATH lookup, would find it). */
export function isExecutableFile(p: string): boolean {
  try {
    accessSync(p, fsConstants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Whether `exe` names a program that can be started (as spawn would look it up), for a clear spawn error. */
function findProgram(exe: string, cwd: string, envPath: string | undefined): boolean {
  if (exe.includes('/')) return isExecutableFile(path.resolve(cwd, exe));
  return (envPath ?? '').split(path.delimiter).some((d) => d !== '' && isExecutableFile(path.resolve(cwd, d, exe)));
}

/** How long runCommand waits for the processes it SIGKILLed to be gone before it returns. */
const REAP_WAIT_MS = 2000;

/** The group runCommand signals is the check's own: its leader is our child. */
const OWN_GROUP = { trustGroup: true };

/** How every check is spawned: output streamed as bytes into the caps, never buffered or rejected. */
const SPAWN = {
  extendEnv: false,
  // Its own process group, so the whole tree can be signalled at once.
  detached: true,
  reject: false,
  stdin: 'ignore',
  buffer: false,
  stripFinalNewline: false,
  encoding: 'buffer',
} as const;

type CheckChild = ResultPromise<typeof SPAWN & { cwd: string; env: Record<string, string> }>;

/** Starts the check: in its cgroup when it has one (under `sh -c` when it needs a shell), else directly or through a shell. */
function spawnCheck(opts: RunCommandOptions, env: Record<string, string>, argv: string[] | undefined, cgroup: string | undefined): CheckChild {
  const options = { ...SPAWN, cwd: opts.cwd, env };
  if (cgroup !== undefined) {
    const full = argvInCgroup(cgroup, argv ?? ['/bin/sh', '-c', opts.command]);
    return execa(full[0]!, full.slice(1), options);
  }
  return argv ? execa(argv[0]!, argv.slice(1), options) : execa(opts.command, { ...options, shell: true });
}

/** Records what the check runs under in `opts.recordDir` (when set), so `reapStrays` can end it after a crash. */
function checkRecorder(opts: RunCommandOptions, marker: string, cgroup: string | undefined, started: number): (pgid?: number) => void {
  const owner = { pid: process.pid, ...(processStartTime() !== undefined ? { startTime: processStartTime()! } : {}) };
  return (pgid) => {
    if (opts.recordDir === undefined) return;
    try {
      writeCheckRecord(opts.recordDir, { owner, marker, ...(cgroup !== undefined ? { cgroup } : {}), ...(pgid !== undefined ? { pgid } : {}), command: opts.command, startedAt: new Date(started).toISOString() });
    } catch (e) {
      // A full or read-only storage costs the reaping after a crash, not the check itself.
      if (typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
    }
  };
}

/**
 * A running check's watch: its time limit and the caller's cancel (SIGTERM, then SIGKILL after the
 * grace), its output into the caps, and the strays its main process leaves behind.
 */
class CheckWatch {
  timedOut = false;
  cancelled = false;
  readonly strays = new Set<number>();
  private exited = false;
  private killTimer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private sweep: NodeJS.Timeout | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = (): void => {
    if (this.exited) return;
    this.cancelled = true;
    this.terminate();
  };

  constructor(
    private readonly child: CheckChild,
    private readonly handles: CheckHandles,
    private readonly opts: RunCommandOptions,
    out: CappedOutput,
    stdoutCap: CappedOutput | undefined,
  ) {
    // Once the main process has exited the check is done, whatever a stray still holding its pipes does.
    // A delay past what a timer holds (2^31-1 ms) would fire at once: such a timeout means "no timeout".
    this.timer = setTimeout(() => {
      if (this.exited) return;
      this.timedOut = true;
      this.terminate();
    }, Math.min(opts.timeoutMs, 2 ** 31 - 1));
    opts.signal?.addEventListener('abort', this.onAbort, { once: true });
    child.stdout?.on('data', (c: Buffer) => {
      out.push(c);
      stdoutCap?.push(c);
    });
    child.stderr?.on('data', (c: Buffer) => out.push(c));
    child.once('exit', () => this.mainExited());
  }

  killEverything(signal: NodeJS.Signals): void {
    if (process.platform === 'win32') {
      // No process groups on Windows: taskkill ends the tree. (Untested here: the CI machines are Linux.)
      if (this.child.pid !== undefined) void execa('taskkill', ['/pid', String(this.child.pid), '/T', '/F'], { reject: false, windowsHide: true });
      return;
    }
    signalCheck(this.handles, signal, OWN_GROUP);
  }

  /** Stops the timers and the cancel listener once the check's result is in. */
  stop(): void {
    clearTimeout(this.timer);
    if (this.killTimer) clearTimeout(this.killTimer);
    if (this.drainTimer) clearTimeout(this.drainTimer);
    if (this.sweep) clearInterval(this.sweep);
    this.opts.signal?.removeEventListener('abort', this.onAbort);
  }

  private terminate(): void {
    this.killEverything('SIGTERM');
    this.killTimer ??= setTimeout(() => this.killEverything('SIGKILL'), this.opts.killGraceMs ?? 2000);
  }

  // The main process is done: whatever of the check still runs is a stray. Killing it also closes the
  // pipes it holds, which the result waits for. Strays are looked for again every 100 ms (one may be
  // mid-fork at the first look); one that escaped cgroup, group and marker gets `drainMs`, then its
  // pipes are cut.
  private mainExited(): void {
    this.exited = true;
    this.sweepStrays();
    this.sweep = setInterval(() => this.sweepStrays(), 100);
    this.drainTimer = setTimeout(() => {
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
    }, this.opts.drainMs ?? 2000);
  }

  private sweepStrays(): void {
    if (process.platform === 'win32') return;
    for (const p of signalCheck(this.handles, 'SIGKILL', OWN_GROUP)) if (p !== this.child.pid) this.strays.add(p);
  }
}

/**
 * Nothing of a check is left behind, whichever way it ended, and this waits (bounded) until what was
 * killed is really gone: a caller looking right after sees no survivor. Its record is removed once so.
 */
async function reapCheck(watch: CheckWatch, handles: CheckHandles, childPid: number | undefined, recordDir: string | undefined): Promise<void> {
  let gone = true;
  const killed = Date.now();
  if (process.platform === 'win32') {
    watch.killEverything('SIGKILL');
  } else {
    const { left, seen } = await killAndWait(handles, REAP_WAIT_MS, OWN_GROUP);
    for (const p of seen) if (p !== childPid) watch.strays.add(p);
    gone = left.length === 0;
  }
  if (gone && handles.cgroup !== undefined) gone = await removeCgroupWhenEmpty(handles.cgroup, Math.max(100, REAP_WAIT_MS - (Date.now() - killed)));
  // Kept while anything may remain: the next run or `revert` reaps it once this process is gone.
  if (gone && recordDir !== undefined) removeCheckRecord(recordDir, handles.marker);
}

export async function runCommand(opts: RunCommandOptions): Promise<RunCommandResult> {
  const started = Date.now();
  const marker = randomUUID();
  // Whoever built the environment, no provider key goes to a check.
  const env: Record<string, string> = { ...scrubEnv(opts.env ?? checkEnv(opts.cwd)), [CHECK_MARKER_ENV]: marker };
  const argv = opts.argv ?? splitCommand(opts.command);
  const out = new CappedOutput(opts.outputLimitBytes);
  const stdoutCap = opts.stdoutLimitBytes !== undefined ? new CappedOutput(opts.stdoutLimitBytes) : undefined;
  const base = { exitCode: null, signal: null, output: '', truncated: false, timedOut: false, cancelled: false, durationMs: 0, pid: undefined, strays: [] };

  if (opts.signal?.aborted) return { ...base, cancelled: true };

  const isolated = process.platform !== 'win32' && (opts.containment ?? 'auto') === 'auto';
  if (isolated && argv && !findProgram(argv[0]!, opts.cwd, env.PATH)) {
    // Behind the cgroup's shell a missing program would be the shell's exit 127: say it as spawn does.
    return { ...base, durationMs: Date.now() - started, spawnError: `spawn ${argv[0]} ENOENT` };
  }
  const cgroup = isolated ? createCheckCgroup(marker) : undefined;
  const handles: CheckHandles = { marker, ...(cgroup !== undefined ? { cgroup } : {}) };
  const record = checkRecorder(opts, marker, cgroup, started);
  // Recorded before it starts: a kill -9 of this process right after the spawn still leaves a trace.
  record();
  const child = spawnCheck(opts, env, argv, cgroup);
  if (child.pid !== undefined) {
    handles.pgid = child.pid;
    record(child.pid);
  }

  const watch = new CheckWatch(child, handles, opts, out, stdoutCap);
  const result = await child;
  watch.stop();
  await reapCheck(watch, handles, child.pid, opts.recordDir);

  const { text, truncated } = out.finish();
  const so = stdoutCap?.finish();
  const spawnError =
    result.failed && result.exitCode === undefined && !watch.timedOut && !watch.cancelled && result.signal === undefined && child.pid === undefined
      ? (result.originalMessage ?? result.shortMessage)
      : undefined;
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    output: text,
    truncated,
    ...(so ? { stdout: so.text, stdoutTruncated: so.truncated } : {}),
    timedOut: watch.timedOut,
    cancelled: watch.cancelled,
    durationMs: Date.now() - started,
    pid: child.pid,
    strays: [...watch.strays],
    ...(spawnError !== undefined ? { spawnError: redact(spawnError) } : {}),
  };
}

// Runs one check command as its own process group; nothing of it outlives the check.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { execa } from 'execa';
import stripAnsi from 'strip-ansi';

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
    let text: string;
    if (dropped === 0) {
      text = UTF8.decode(Buffer.concat([...this.head, tail]));
    } else {
      // Cut at character boundaries on both sides of the gap, so the cut itself makes no U+FFFD.
      const head = Buffer.concat(this.head);
      const headEnd = completeEnd(head);
      let tailStart = 0;
      while (tailStart < 3 && isContinuation(tail[tailStart])) tailStart++;
      dropped += head.length - headEnd + tailStart;
      text = `${UTF8.decode(head.subarray(0, headEnd))}\n[... ${dropped} bytes of output cut by fix-until-green ...]\n${UTF8.decode(tail.subarray(tailStart))}`;
    }
    // Line endings as LF: CRLF from Windows-minded tools, and a lone CR (a progress redraw) ends a line too.
    return { text: stripAnsi(text).replace(/\r\n?/g, '\n'), truncated: dropped > 0, droppedBytes: dropped };
  }
}

const SHELL_CHARS = /[|&;<>()$`\\"'*?[\]#~=%{}\n]/;

/** Splits a command that needs no shell; returns undefined when a shell is needed. */
export function splitCommand(command: string): string[] | undefined {
  const trimmed = command.trim();
  if (SHELL_CHARS.test(trimmed)) return undefined;
  const parts = trimmed.split(/\s+/).filter(Boolean);
  return parts.length > 0 ? parts : undefined;
}

/** The environment variable every process of a check inherits, so strays can be found after all. */
export const CHECK_MARKER_ENV = 'FIX_UNTIL_GREEN_CHECK';

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
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { PATH: [...binDirs, env.PATH ?? ''].join(path.delimiter), CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' });
  // `undefined` removes a variable (a test turning colour back on drops NO_COLOR).
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  if (process.platform === 'win32') {
    // No process groups on Windows: taskkill ends the tree. (Untested here: the CI machines are Linux.)
    if (signal === 'SIGKILL' || signal === 'SIGTERM') void execa('taskkill', ['/pid', String(pid), '/T', '/F'], { reject: false, windowsHide: true });
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch (e) {
    // ESRCH: the group is already gone, which is what we want.
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

const PROC = '/proc';

/**
 * Processes carrying this check's marker in their environment: descendants that left the process
 * group (setsid, a daemonizing helper) still inherit it. Linux only; elsewhere the group is all.
 */
export function markedProcesses(marker: string): number[] {
  if (process.platform !== 'linux' || !existsSync(PROC)) return [];
  const needle = `${CHECK_MARKER_ENV}=${marker}\0`;
  const found: number[] = [];
  for (const name of readdirSync(PROC)) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(path.join(PROC, name, 'environ'), 'latin1');
    } catch (e) {
      // Gone meanwhile, or another user's process (not ours to kill): skip it.
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES' || code === 'ESRCH' || code === 'EPERM') continue;
      throw e;
    }
    if (environ.includes(needle)) found.push(pid);
  }
  return found;
}

function signalPids(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
}

export async function runCommand(opts: RunCommandOptions): Promise<RunCommandResult> {
  const started = Date.now();
  const marker = randomUUID();
  const env = { ...(opts.env ?? checkEnv(opts.cwd)), [CHECK_MARKER_ENV]: marker };
  const argv = opts.argv ?? splitCommand(opts.command);
  const out = new CappedOutput(opts.outputLimitBytes);
  const stdoutCap = opts.stdoutLimitBytes !== undefined ? new CappedOutput(opts.stdoutLimitBytes) : undefined;
  const grace = opts.killGraceMs ?? 2000;
  const drainMs = opts.drainMs ?? 2000;

  if (opts.signal?.aborted) {
    return { exitCode: null, signal: null, output: '', truncated: false, timedOut: false, cancelled: true, durationMs: 0, pid: undefined, strays: [] };
  }

  const common = {
    cwd: opts.cwd,
    env,
    extendEnv: false,
    // Its own process group, so the whole tree can be signalled at once.
    detached: true,
    reject: false,
    stdin: 'ignore' as const,
    buffer: false,
    stripFinalNewline: false,
    encoding: 'buffer' as const,
  };
  const child = argv ? execa(argv[0]!, argv.slice(1), common) : execa(opts.command, { ...common, shell: true });

  let timedOut = false;
  let cancelled = false;
  let exited = false;
  let killTimer: NodeJS.Timeout | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  const strays = new Set<number>();
  const killEverything = (signal: NodeJS.Signals): void => {
    signalGroup(child.pid, signal);
    signalPids(markedProcesses(marker), signal);
  };
  const terminate = (): void => {
    killEverything('SIGTERM');
    killTimer ??= setTimeout(() => killEverything('SIGKILL'), grace);
  };
  // Once the main process has exited the check is done, whatever a stray still holding its pipes does.
  // A delay past what a timer holds (2^31-1 ms) would fire at once: such a timeout means "no timeout".
  const timer = setTimeout(() => {
    if (exited) return;
    timedOut = true;
    terminate();
  }, Math.min(opts.timeoutMs, 2 ** 31 - 1));
  const onAbort = (): void => {
    if (exited) return;
    cancelled = true;
    terminate();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  child.stdout?.on('data', (c: Buffer) => {
    out.push(c);
    stdoutCap?.push(c);
  });
  child.stderr?.on('data', (c: Buffer) => out.push(c));
  // The main process is done: whatever of the check still runs is a stray. Killing it also closes the
  // pipes it holds, which the result waits for. Strays are looked for again every 100 ms (one may be
  // mid-fork at the first look); one that escaped both group and marker gets `drainMs`, then its
  // pipes are cut.
  let sweep: NodeJS.Timeout | undefined;
  const sweepStrays = (): void => {
    const left = markedProcesses(marker);
    for (const p of left) strays.add(p);
    signalGroup(child.pid, 'SIGKILL');
    signalPids(left, 'SIGKILL');
  };
  child.once('exit', () => {
    exited = true;
    sweepStrays();
    sweep = setInterval(sweepStrays, 100);
    drainTimer = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, drainMs);
  });

  const result = await child;
  clearTimeout(timer);
  if (killTimer) clearTimeout(killTimer);
  if (drainTimer) clearTimeout(drainTimer);
  if (sweep) clearInterval(sweep);
  opts.signal?.removeEventListener('abort', onAbort);
  // Nothing of a check is left behind, whichever way it ended.
  killEverything('SIGKILL');

  const { text, truncated } = out.finish();
  const so = stdoutCap?.finish();
  const spawnError =
    result.failed && result.exitCode === undefined && !timedOut && !cancelled && result.signal === undefined && child.pid === undefined
      ? (result.originalMessage ?? result.shortMessage)
      : undefined;
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    output: text,
    truncated,
    ...(so ? { stdout: so.text, stdoutTruncated: so.truncated } : {}),
    timedOut,
    cancelled,
    durationMs: Date.now() - started,
    pid: child.pid,
    strays: [...strays],
    ...(spawnError !== undefined ? { spawnError } : {}),
  };
}

// Runs one check command as its own process group; the whole group dies on timeout, cancel or exit.
import { execa } from 'execa';
import stripAnsi from 'strip-ansi';
import { StringDecoder } from 'node:string_decoder';
import * as path from 'node:path';

export interface RunCommandOptions {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes of output kept: the first half and the last half, with the cut marked. */
  outputLimitBytes: number;
  env?: Record<string, string>;
  /** Grace between SIGTERM and SIGKILL of the group. */
  killGraceMs?: number;
}

export interface RunCommandResult {
  exitCode: number | null;
  signal: string | null;
  output: string;
  truncated: boolean;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  pid: number | undefined;
  /** Set when the process could not be started (e.g. missing executable). */
  spawnError?: string;
}

/** Keeps the head and the tail of a stream in bounded memory. */
export class CappedOutput {
  private head = '';
  private tail = '';
  private droppedChars = 0;
  private readonly half: number;
  private readonly decoder = new StringDecoder('utf8');

  constructor(limitBytes: number) {
    this.half = Math.max(1024, Math.floor(limitBytes / 2));
  }

  push(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    this.pushText(text);
  }

  private pushText(text: string): void {
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length === 0) return;
    this.tail += text;
    if (this.tail.length > this.half * 2) {
      const cut = this.tail.length - this.half;
      this.droppedChars += cut;
      this.tail = this.tail.slice(cut);
    }
  }

  finish(): { text: string; truncated: boolean } {
    this.pushText(this.decoder.end());
    if (this.tail.length > this.half) {
      const cut = this.tail.length - this.half;
      this.droppedChars += cut;
      this.tail = this.tail.slice(cut);
    }
    const truncated = this.droppedChars > 0;
    const marker = truncated ? `\n[... ${this.droppedChars} characters of output cut by fix-until-green ...]\n` : '';
    return { text: stripAnsi(this.head + marker + this.tail), truncated };
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

export function checkEnv(cwd: string, extra?: Record<string, string>): Record<string, string> {
  const binDirs: string[] = [];
  let dir = path.resolve(cwd);
  for (;;) {
    binDirs.push(path.join(dir, 'node_modules', '.bin'));
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) base[k] = v;
  return {
    ...base,
    PATH: [...binDirs, base.PATH ?? ''].join(path.delimiter),
    CI: '1',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    ...extra,
  };
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch (e) {
    // ESRCH: the group is already gone, which is what we want.
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

export async function runCommand(opts: RunCommandOptions): Promise<RunCommandResult> {
  const started = Date.now();
  const env = opts.env ?? checkEnv(opts.cwd);
  const argv = splitCommand(opts.command);
  const out = new CappedOutput(opts.outputLimitBytes);
  const grace = opts.killGraceMs ?? 2000;

  if (opts.signal?.aborted) {
    return { exitCode: null, signal: null, output: '', truncated: false, timedOut: false, cancelled: true, durationMs: 0, pid: undefined };
  }

  const common = {
    cwd: opts.cwd,
    env,
    extendEnv: false,
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
  let killTimer: NodeJS.Timeout | undefined;
  const terminate = (): void => {
    killGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, opts.timeoutMs);
  const onAbort = (): void => {
    cancelled = true;
    terminate();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  child.stdout?.on('data', (c: Buffer) => out.push(c));
  child.stderr?.on('data', (c: Buffer) => out.push(c));

  const result = await child;
  clearTimeout(timer);
  if (killTimer) clearTimeout(killTimer);
  opts.signal?.removeEventListener('abort', onAbort);
  // Grandchildren may outlive the check's main process; nothing of a check is left behind.
  killGroup(child.pid, 'SIGKILL');

  const { text, truncated } = out.finish();
  const spawnError = result.failed && result.exitCode === undefined && !timedOut && !cancelled && result.signal === undefined
    ? (result.originalMessage ?? result.shortMessage)
    : undefined;
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    output: text,
    truncated,
    timedOut,
    cancelled,
    durationMs: Date.now() - started,
    pid: child.pid,
    ...(spawnError !== undefined ? { spawnError } : {}),
  };
}

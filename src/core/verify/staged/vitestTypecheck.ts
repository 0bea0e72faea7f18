// Vitest's typecheck answered by the warm type checker (issue 39). `vitest run --typecheck` spawns
// `tsc` cold for its type tests (about 1.5 s of a 2.3 s run); where the same project has a tsc check
// kept warm (./warmTsc) whose program is exactly what Vitest's tsc call builds, that call is answered
// from the warm program instead: the check runs with `--typecheck.checker=<our shim>` appended
// (./programs/vitestTscShim.cjs, written into a private folder under the temp dir beside the unix
// socket it asks through), and the shim prints the warm checker's diagnostics as `tsc --pretty false`
// prints them from Vitest's root. Whether the program is the same is decided per call by the worker
// itself (the config file tsc would read from Vitest's root or `-p`, the root files, the compiler
// options after the flags Vitest adds), on the files as they are at that moment: what the warm tsc
// check guarantees, it guarantees here. Every other case (another argument shape: `--watch`,
// `allowJs`; another tsconfig; the checker busy settling or broken; the socket gone) runs the real
// tsc Vitest would have run, with its arguments: the worst case is the command as it was.
//
// Left alone (no flag): a command that names its own checker, a Vitest config that sets one or has
// projects (or a workspace file: their configs may), a command that sets another root, a
// Vitest other than 3.2 to 4.x (1.x and 2.x write a temporary tsconfig: another program), a
// project with no tsc check kept warm beside it (none, or a one-shot pass that primed nothing: no
// worker is started for Vitest's sake, that would cost what tsc costs).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../types';
import { launchOf, toolIndex } from './launchers';
import { writeProgram } from './programFile';
import type { AskedAs, WarmTsc } from './warmTsc';

/** A tsc check that may answer: its name, and its warm checker where it has one now. */
export interface TypecheckSource {
  name: string;
  /** The warm checker, or undefined where the check runs its command. */
  warm(): WarmTsc | undefined;
  /** What the check's command costs cold: a warm answer expected later than that is not waited for. */
  coldMs(): number | undefined;
  timeoutMs: number;
}

const CONFIGS = ['vitest.config', 'vite.config', 'vitest.workspace', 'vitest.projects'].flatMap((b) => ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'].map((e) => b + e));
/** Above this a unix socket path does not fit (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

/** What one run of the check got from the shim, for its note. */
interface Answer {
  shim: string;
  text: string;
}

/** Why a Vitest command is left as it is, or undefined where the checker flag can be added (`config`: the Vitest config files read). */
export function typecheckLeftAlone(argv: readonly string[], cwd: string): string | undefined {
  // Vitest spawns the checker by its path: a script runs so only where its #! line is read.
  if (process.platform === 'win32') return 'on Windows the checker must be an executable, not a script';
  const i = toolIndex(argv, (a) => a === 'vitest');
  if (i < 0) return 'the command is not a plain vitest call';
  const rest = argv.slice(i + 1);
  if (rest.includes('--')) return 'the command passes arguments after --';
  if (rest.some((a) => /^--typecheck\.checker(=|$)/.test(a))) return 'the command names its own typecheck checker';
  if (rest.some((a) => /^--(no-typecheck|typecheck=false)$/.test(a))) return 'the command turns the typecheck off';
  // Another root holds configs not read here (one may name its checker, which the flag would override).
  if (rest.some((a) => /^(-r|--root)(=|$)/.test(a))) return 'the command sets its own root';
  let version = '';
  try {
    version = String((JSON.parse(readFileSync(createRequire(path.join(cwd, 'package.json')).resolve('vitest/package.json'), 'utf8')) as { version?: unknown }).version ?? '');
  } catch {
    return 'the project has no vitest package of its own';
  }
  const [major = 0, minor = 0] = version.split('.').map((n) => Number.parseInt(n, 10));
  // The shapes read and tested: 3.2.x and 4.0.x call `tsc --noEmit --pretty false --incremental --tsBuildInfoFile F [-p P]` in their root.
  if (!((major === 3 && minor >= 2) || major === 4)) return `Vitest ${version} calls tsc in a way not verified here (3.2 to 4.x are)`;
  const flagged = rest.some((a) => /^--typecheck(\.enabled|\.only)?(=true)?$/.test(a));
  const named: string[] = [];
  for (let k = 0; k < rest.length; k++) if ((rest[k] === '-c' || rest[k] === '--config') && rest[k + 1] !== undefined) named.push(rest[k + 1]!);
  for (const a of rest) if (/^--config=/.test(a)) named.push(a.slice('--config='.length));
  const configs = [...named.map((f) => path.resolve(cwd, f)), ...CONFIGS.map((f) => path.join(cwd, f))].filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8'));
  if (configs.some((t) => /\bchecker\b/.test(t))) return 'the Vitest config names its own typecheck checker';
  // Projects have configs of their own, each of which may name its checker.
  if (configs.some((t) => /\b(projects|workspace)\b/.test(t)) || CONFIGS.some((f) => f.startsWith('vitest.workspace') && existsSync(path.join(cwd, f)))) return 'the Vitest config has projects of their own';
  if (!flagged && !configs.some((t) => /\btypecheck\b/.test(t))) return 'the run has no typecheck';
  return undefined;
}

export class VitestTypecheck {
  private dir: string | undefined;
  private server: net.Server | undefined;
  private listening: Promise<boolean> | undefined;
  /** Per check, its shim's name (a file of its own: the answer is counted to the check). */
  private readonly shims = new Map<string, string>();
  /** Per shim, the variables its Vitest command's launchers set (`cross-env X=1 vitest`): Vitest's tsc inherits them. */
  private readonly shimVars = new Map<string, Record<string, string>>();
  private readonly answers: Answer[] = [];
  private readonly connections = new Set<net.Socket>();

  constructor(private readonly opts: { logger: Logger; sources: () => readonly TypecheckSource[] }) {}

  /**
   * `argv` (a Vitest check's run) with the checker flag added, and what to say of it once the run
   * is over; undefined where it is left as it is (why: to the debug log).
   */
  async argv(check: string, argv: readonly string[], cwd: string): Promise<{ argv: string[]; note(): string | undefined } | undefined> {
    const why = typecheckLeftAlone(argv, cwd) ?? (this.opts.sources().some((s) => s.warm()?.running === true) ? undefined : 'no tsc check of the project is kept warm (none, or not primed)');
    if (why !== undefined) {
      this.opts.logger.debug(`check ${check}: Vitest's typecheck runs tsc itself: ${why}`);
      return undefined;
    }
    if (!(await this.listen())) return undefined;
    let shim = this.shims.get(check);
    if (shim === undefined) {
      shim = `c${this.shims.size}`;
      const file = path.join(this.dir!, `${shim}.cjs`);
      writeProgram('vitestTscShim.cjs', file);
      chmodSync(file, 0o700);
      this.shims.set(check, shim);
    }
    this.shimVars.set(shim, launchOf(argv.slice(0, toolIndex(argv, (a) => a === 'vitest'))).vars);
    const from = this.answers.length;
    const name = shim;
    return {
      argv: [...argv, `--typecheck.checker=${path.join(this.dir!, `${shim}.cjs`)}`],
      note: () => {
        const mine = this.answers.slice(from).filter((a) => a.shim === name);
        return mine.length === 0 ? undefined : mine.map((a) => a.text).join('; ');
      },
    };
  }

  /** Closes the socket and removes the folder (the run is over). */
  async release(): Promise<void> {
    const server = this.server;
    const dir = this.dir;
    this.server = undefined;
    this.listening = undefined;
    this.dir = undefined;
    this.shims.clear();
    this.shimVars.clear();
    // A shim still asking gets no answer: it runs tsc itself (its run is being ended anyway).
    for (const c of this.connections) c.destroy();
    this.connections.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }

  private listen(): Promise<boolean> {
    this.listening ??= new Promise<boolean>((resolve) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-tc-'));
      const socket = path.join(dir, 's');
      if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
        rmSync(dir, { recursive: true, force: true });
        this.opts.logger.info(`Vitest's typecheck runs tsc itself: the temp folder's path is too long for a socket (${socket})`);
        return resolve(false);
      }
      this.dir = dir;
      const server = net.createServer((c) => this.serve(c));
      this.server = server;
      server.once('error', (e) => {
        this.opts.logger.info(`Vitest's typecheck runs tsc itself: no socket (${e.message})`);
        resolve(false);
      });
      server.listen(socket, () => {
        chmodSync(socket, 0o600);
        resolve(true);
      });
    });
    return this.listening;
  }

  private serve(c: net.Socket): void {
    this.connections.add(c);
    c.once('close', () => this.connections.delete(c));
    let text = '';
    c.setEncoding('utf8');
    c.on('error', () => undefined);
    c.on('data', (d: string) => {
      text += d;
      if (text.length > 1 << 20) return void c.destroy();
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      c.removeAllListeners('data');
      void this.answer(text.slice(0, nl)).then((reply) => c.end(`${JSON.stringify(reply)}\n`), () => c.end('{}\n'));
    });
  }

  private async answer(line: string): Promise<{ output: string; exitCode: number } | { fallback: string }> {
    let req: { shim?: unknown; cwd?: unknown; args?: unknown };
    try {
      req = JSON.parse(line) as typeof req;
    } catch {
      return { fallback: 'no request' };
    }
    if (typeof req.shim !== 'string' || typeof req.cwd !== 'string' || !Array.isArray(req.args) || !req.args.every((a) => typeof a === 'string')) return { fallback: 'no request' };
    const shim = req.shim;
    const as: AskedAs = { cwd: req.cwd, args: req.args as string[], vars: this.shimVars.get(shim) ?? {} };
    const check = [...this.shims].find(([, s]) => s === shim)?.[0] ?? '?';
    const reasons: string[] = [];
    for (const s of this.opts.sources()) {
      const w = s.warm();
      if (!w?.running) continue;
      // Settling after the run's priming: an answer then would come later than tsc's own.
      const cold = s.coldMs() ?? w.buildMs;
      const expected = w.expectedMs();
      if (cold !== undefined && w.buildMs !== undefined && expected > cold) {
        reasons.push(`${s.name}'s warm checker is busy computing its signatures (about ${expected} ms, tsc takes ${cold} ms)`);
        continue;
      }
      const started = Date.now();
      const o = await w.checkAs(as, s.timeoutMs);
      if (o.kind === 'result') {
        const text = `Vitest's typecheck answered by ${s.name}'s warm type checker in ${Date.now() - started} ms (the same program: tsc's own diagnostics, as tsc prints them from Vitest's root)`;
        this.answers.push({ shim, text });
        this.opts.logger.debug(`check ${check}: ${text}`);
        return { output: o.output, exitCode: o.exitCode };
      }
      reasons.push(`${s.name}: ${o.kind === 'cancelled' ? 'cancelled' : o.reason}`);
    }
    const text = `Vitest's typecheck ran tsc itself (${reasons.length > 0 ? reasons.join('; ') : 'no tsc check kept warm'})`;
    this.answers.push({ shim, text });
    this.opts.logger.debug(`check ${check}: ${text}`);
    return { fallback: text };
  }
}

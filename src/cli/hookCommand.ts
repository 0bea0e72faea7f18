// `fix-until-green hook --host H`: an agent host's hook (issue 30). Reads the host's hook JSON on
// stdin and answers in the host's own contract (src/core/gate/hookHosts.ts); the gate itself is
// src/core/gate/hookGate.ts. Whatever goes wrong here, the agent is never blocked by our fault: a
// problem is an "allow" with the problem said to the user, on stderr too, and exit 0 (exit 2 means
// "block" to Claude Code). Only a call the hook cannot even place (an unknown host) exits 1, which
// every host treats as a non-blocking error.
import { existsSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { handleHookCall } from '../core/gate/hookGate';
import type { HookAnswer, HookCall, HookEvent, HookHost } from '../core/gate/hookHosts';
import { projectRoot } from '../core/gate/projectRoot';
import { formatHookAnswer, HOOK_EVENTS, HOOK_HOSTS, HOST_DEFAULT_TIMEOUT_S, isHookHost, readHookInput } from '../core/gate/hookHosts';
import type { Refusal } from '../core/launch';
import { prepareChecks } from '../core/launch';
import { reapStrays } from '../core/verify/containment';
import type { CliIo } from './runCommand';
import { defaultStorageDir } from './storage';
import { settingsAnswer } from './workspaceSettings';
import { readHookStdin } from './hookStdin';
import { unrevertable } from '../core/gate/hookGate';
import type { Settings } from '../core/settings';
import { runWorker, stopFolderWorker, viaWorker } from './hookWorker';

/** What reading stdin needs: the CLI passes process.stdin; tests pass the text. */
export interface HookIo extends CliIo {
  stdin?: (deadline: number) => Promise<string>;
  /** The hook's environment (the host's project-dir variables); process.env when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Ends the process when the host's time is up and the answer is already out (the CLI: process.exit). */
  exit?: (code: number) => void;
  /**
   * The CLI script a stop starts the folder's hook worker from (./hookWorker.ts); null runs every
   * stop in this process. Default: this process's own script when it reads its real stdin.
   */
  workerEntry?: string | null;
}

/** A host's session-end event: the folder's worker has no more stops of that session to wait for. */
const SESSION_END = /^session_?end$/i;

/** The host's time, less what starting, answering and the host's own overhead take: the answer is out by then. */
export function hookDeadline(started: number, timeoutSeconds: number): number {
  const total = timeoutSeconds * 1000;
  return started + total - Math.min(Math.max(1000, total * 0.15), 5000);
}

/** A refusal of the launcher, worded for the user beside the agent: the hook stands aside, it never blocks for it. */
export function hookRefusal(r: Refusal, root: string, event: HookEvent): string {
  switch (r.kind) {
    case 'busy':
      return r.holder ? `a Fix Until Green run (${r.holder.runId}, ${r.holder.frontEnd}) is working in ${root}; the hook stands aside` : `${r.task} is working in ${root}; the hook stands aside`;
    case 'checks':
      return event === 'stop' ? `no checks can run in ${root} (${r.problems.join('; ')}); the agent may stop unchecked` : `no checks can run in ${root} (${r.problems.join('; ')}); the edit was not guarded`;
    case 'settings':
      return `the settings of ${root} cannot be read (${r.problems.join('; ')}); the agent was not gated`;
    case 'storage':
      return `the hook's storage ${r.dir} cannot be written (${r.errno}); the agent was not gated`;
    default:
      return `the checks of ${root} cannot be prepared (${r.kind}); the agent was not gated`;
  }
}

/** Margin kept from the host's timeout for starting, answering and the host's own overhead. */
export function hookBudgetMs(timeoutSeconds: number, elapsedMs: number): number {
  const total = timeoutSeconds * 1000;
  return Math.max(1000, total - Math.max(3000, total * 0.15) - elapsedMs);
}

interface HookArgs {
  host: HookHost;
  event: HookEvent | undefined;
  timeout: number;
  cwd: string | undefined;
  storage: string | undefined;
}

/** The hook's flags, or the one line that says what is wrong with them (exit 1: never 2, which blocks a Claude Code stop). */
function hookArgs(argv: string[]): HookArgs | string {
  let values: { host?: string; event?: string; cwd?: string; storage?: string; timeout?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { host: { type: 'string' }, event: { type: 'string' }, cwd: { type: 'string' }, storage: { type: 'string' }, timeout: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    return `${(e as Error).message}; the agent was not gated`;
  }
  const host = values.host ?? '';
  if (!isHookHost(host)) return `${host === '' ? '--host is required' : `unknown --host "${host}"`} (one of ${HOOK_HOSTS.join(', ')}); the agent was not gated`;
  const event = values.event;
  if (event !== undefined && !(HOOK_EVENTS as readonly string[]).includes(event)) return `unknown --event "${event}" (one of ${HOOK_EVENTS.join(', ')}); the agent was not gated`;
  const timeout = values.timeout !== undefined ? Number(values.timeout) : HOST_DEFAULT_TIMEOUT_S[host];
  if (!Number.isFinite(timeout) || timeout <= 0) return `--timeout must be a number of seconds above 0, got "${values.timeout}"; the agent was not gated`;
  return { host, event: event as HookEvent | undefined, timeout, cwd: values.cwd, storage: values.storage };
}

/** `hook --worker` and `hook --stop-worker [--cwd DIR] [--storage DIR]`: the folder's worker, not a host's call. */
async function workerCommand(argv: string[], io: HookIo): Promise<number | undefined> {
  const mode = argv.includes('--worker') ? 'worker' : argv.includes('--stop-worker') ? 'stop' : undefined;
  if (mode === undefined) return undefined;
  let values: { cwd?: string; storage?: string };
  try {
    ({ values } = parseArgs({ args: argv.filter((a) => a !== '--worker' && a !== '--stop-worker'), options: { cwd: { type: 'string' }, storage: { type: 'string' }, host: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (e) {
    io.stderr(`fix-until-green hook: ${(e as Error).message}`);
    return 1;
  }
  const root = path.resolve(values.cwd ?? process.cwd());
  const storageDir = path.resolve(values.storage ?? defaultStorageDir(root));
  if (mode === 'worker') return runWorker(root, storageDir);
  io.stdout(`fix-until-green hook: ${await stopFolderWorker(storageDir, 'hook --stop-worker')}`);
  return 0;
}

export async function hookCommand(argv: string[], io: HookIo): Promise<number> {
  const own = await workerCommand(argv, io);
  if (own !== undefined) return own;
  // The host's clock started when it spawned us: Node's own start-up counts against its timeout
  // (capped: a caller in a long-lived process has not waited that long).
  const started = Date.now() - Math.min(Math.round(process.uptime() * 1000), 2000);
  const args = hookArgs(argv);
  if (typeof args === 'string') {
    io.stderr(`fix-until-green hook: ${args}`);
    return 1;
  }
  const h = new HookAnswerer(args, started, io);
  try {
    const text = await (io.stdin ?? ((d: number) => readHookStdin(process.stdin, d)))(h.deadline);
    return await gateCall(args, text, h, io);
  } finally {
    h.done();
  }
}

/**
 * Answers the host once, and by its deadline: whatever still runs then (a check's last cleanup, a
 * file system that hangs), the host gets an answer before it gives up on us and the process ends,
 * releasing the session's lock (hookSession.ts removes it on exit).
 */
class HookAnswerer {
  readonly deadline: number;
  event: HookEvent;
  private answered = false;
  private readonly watchdog: NodeJS.Timeout;

  constructor(
    private readonly args: HookArgs,
    readonly started: number,
    private readonly io: HookIo,
  ) {
    this.deadline = hookDeadline(started, args.timeout);
    this.event = args.event ?? 'stop';
    const hardStop = this.deadline + Math.min(500, (started + args.timeout * 1000 - this.deadline) / 2);
    this.watchdog = setTimeout(() => this.outOfTime(`the hook could not answer within the host's ${args.timeout} s`), Math.max(0, hardStop - Date.now()));
    this.watchdog.unref();
  }

  answer(host: HookHost, event: HookEvent, a: HookAnswer): number {
    const out = formatHookAnswer(host, event, a);
    if (this.answered) return out.exitCode;
    this.answered = true;
    if (out.stdout !== '') this.io.stdout(out.stdout);
    return out.exitCode;
  }

  /** Ends the process with an answer (if none went out yet): the host's time is up, or its signal came. */
  outOfTime(why: string): void {
    if (!this.answered) {
      this.io.stderr(`fix-until-green hook: ${why}`);
      const tail = this.event === 'pre-tool' ? 'the edit was let through unchecked and cannot be reverted by `fix-until-green revert --session`' : 'the agent was let go on unchecked';
      this.answer(this.args.host, this.event, { kind: 'allow', message: `Fix Until Green: ${why}; ${tail}.` });
    }
    (this.io.exit ?? ((code: number) => process.exit(code)))(0);
  }

  done(): void {
    clearTimeout(this.watchdog);
  }
}

/** Settings for the one choice a failed call still makes (deny an unrevertable edit?); undefined when they cannot be read. */
function bestEffortSettings(root: string): Settings | undefined {
  try {
    const r = settingsAnswer(root, {});
    return r.ok ? r.settings : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A stop answered by the folder's worker, which keeps the checks warm between stops; undefined when
 * it cannot answer (none may start, it did not answer in time): the pass then runs in this process.
 */
async function stopByWorker(args: HookArgs, c: { call: HookCall; root: string; h: HookAnswerer; io: HookIo; letGo: (why: string) => number }): Promise<number | undefined> {
  const { call, root, h, io, letGo } = c;
  const entry = io.workerEntry !== undefined ? io.workerEntry : io.stdin === undefined ? (process.argv[1] ?? null) : null;
  if (entry === null) return undefined;
  const s = settingsAnswer(root, {});
  const storageDir = path.resolve(args.storage ?? defaultStorageDir(root));
  const budgetMs = Math.min(hookBudgetMs(args.timeout, Date.now() - h.started), Math.max(1000, h.deadline - Date.now()));
  const w = s.ok ? await viaWorker({ root, storageDir, host: args.host, call, budgetMs, deadline: h.deadline, entry, idleSeconds: s.settings.hookWorkerIdleSeconds }) : undefined;
  if (w?.kind === 'refused') return letGo(hookRefusal(w.refusal, root, call.event));
  if (w?.kind === 'result') {
    io.stderr(`fix-until-green hook: answered by the folder's worker (pid ${w.worker.pid}, ${w.worker.warm ? 'warm' : 'cold'})`);
    for (const line of w.warnings) io.stderr(`fix-until-green hook: ${line}`);
    if (w.result.decision) io.stderr(`fix-until-green hook: ${w.result.decision.reason}: ${w.result.decision.detail}`);
    return h.answer(call.host, call.event, w.result.answer);
  }
  if (w?.kind === 'unreachable') io.stderr(`fix-until-green hook: the folder's worker did not answer (${w.why}); the checks run in this process`);
  return undefined;
}

async function gateCall(args: HookArgs, text: string, h: HookAnswerer, io: HookIo): Promise<number> {
  const { host, event } = args;
  const input = readHookInput(host, text, event);
  if (!input.ok) {
    io.stderr(`fix-until-green hook: ${input.problem}; the agent was let go on unchecked`);
    return h.answer(host, event ?? 'stop', { kind: 'allow', message: `Fix Until Green: ${input.problem}; the agent was let go on unchecked.` });
  }
  const call = input.call;
  h.event = call.event;
  // The project the hooks were installed for, never the folder the agent cd'ed into (projectRoot.ts).
  const env = io.env ?? process.env;
  const { root } = projectRoot({ host, explicit: args.cwd, cwd: call.cwd, processCwd: process.cwd(), env, home: env.HOME ?? os.homedir() });
  if (call.event === 'other' || call.event === 'session-end') {
    if ((call.event === 'session-end' || SESSION_END.test(call.eventName)) && existsSync(root)) io.stderr(`fix-until-green hook: ${await stopFolderWorker(path.resolve(args.storage ?? defaultStorageDir(root)), `${call.host} ended its session`)}`);
    return h.answer(call.host, call.event, { kind: 'allow' });
  }
  const letGo = (why: string): number => {
    io.stderr(`fix-until-green hook: ${why}`);
    // An edit let through without its original saved is never a silent allow: the user is told, or it is denied when asked.
    if (call.event === 'pre-tool') return h.answer(call.host, call.event, unrevertable(bestEffortSettings(root), [], why));
    return h.answer(call.host, call.event, { kind: 'allow', ...(call.event === 'stop' ? { message: `Fix Until Green: ${why}` } : {}) });
  };
  if (!existsSync(root) || !statSync(root).isDirectory()) return letGo(`the session's folder ${root} is not a directory; the agent was not gated`);
  // The host's SIGTERM (its timeout) stops the checks; a process not ended soon after ends with an
  // answer, so it never lingers holding the session's lock.
  const controller = new AbortController();
  const onSignal = (): void => {
    controller.abort();
    setTimeout(() => h.outOfTime('the hook was stopped by a signal'), 1000).unref();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    if (call.event === 'stop') {
      const answered = await stopByWorker(args, { call, root, h, io, letGo });
      if (answered !== undefined) return answered;
    }
    return await gateHere(args, { call, root, h, io, letGo, signal: controller.signal });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

/** The call judged in this process: the checks prepared as `check` prepares them, then the gate. */
async function gateHere(args: HookArgs, c: { call: HookCall; root: string; h: HookAnswerer; io: HookIo; letGo: (why: string) => number; signal: AbortSignal }): Promise<number> {
  const { host, timeout } = args;
  const { call, root, h, io, letGo } = c;

  // A staged check kept warm (a type checker's watch process) would keep this process, and the host
  // waiting on it, alive past the answer: it ends with the call.
  let release: (() => Promise<void>) | undefined;
  try {
    const storageDir = path.resolve(args.storage ?? defaultStorageDir(root));
    // The one launcher, as `check` prepares its checks; a hook never gates over a live run (CHECKS_WHILE_A_RUN_HOLDS).
    const launch = await prepareChecks({ root, frontEnd: 'hook', storageDir }, { settings: () => settingsAnswer(root, {}) });
    if (!launch.ok) return letGo(hookRefusal(launch.refusal, root, call.event));
    const prepared = { settings: launch.prepared.settings, engine: launch.prepared.checks, storageDir };
    release = () => prepared.engine.verifier.release();
    // Checks a killed hook left running (the host's timeout) are ended before new ones start. A
    // storage that cannot be read here is said, and the call still judged (the guards stay armed).
    await reapStrays(prepared.storageDir).catch((e: unknown) => io.stderr(`fix-until-green hook: the checks a killed hook left running could not be looked for in ${prepared.storageDir} (${(e as Error).message})`));
    const r = await handleHookCall({
      host,
      call,
      root,
      settings: prepared.settings,
      storageDir: prepared.storageDir,
      checks: prepared.engine,
      budgetMs: Math.min(hookBudgetMs(timeout, Date.now() - h.started), Math.max(1000, h.deadline - Date.now())),
      deadline: h.deadline,
      signal: c.signal,
      warn: (line) => io.stderr(`fix-until-green hook: ${line}`),
    });
    if (r.decision) io.stderr(`fix-until-green hook: ${r.decision.reason}: ${r.decision.detail}`);
    // A host that shows nothing for an allowed tool (Copilot CLI) still leaves the line in its log.
    if (call.event !== 'stop' && r.answer.kind === 'allow' && r.answer.message) io.stderr(`fix-until-green hook: ${r.answer.message}`);
    return h.answer(call.host, call.event, r.answer);
  } catch (e) {
    return letGo(`the hook failed (${(e as Error).message}); the agent was not gated`);
  } finally {
    await release?.();
  }
}

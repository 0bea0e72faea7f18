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
import type { HookAnswer, HookEvent, HookHost } from '../core/gate/hookHosts';
import { projectRoot } from '../core/gate/projectRoot';
import { formatHookAnswer, HOOK_EVENTS, HOOK_HOSTS, HOST_DEFAULT_TIMEOUT_S, isHookHost, readHookInput } from '../core/gate/hookHosts';
import type { Refusal } from '../core/launch';
import { prepareChecks } from '../core/launch';
import { reapStrays } from '../core/verify/containment';
import type { CliIo } from './runCommand';
import { defaultStorageDir } from './storage';
import { settingsAnswer } from './workspaceSettings';
import { runWorker, stopFolderWorker, viaWorker } from './hookWorker';

/** What reading stdin needs: the CLI passes process.stdin; tests pass the text. */
export interface HookIo extends CliIo {
  stdin?: () => Promise<string>;
  /** The hook's environment (the host's project-dir variables); process.env when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The CLI script a stop starts the folder's hook worker from (./hookWorker.ts); null runs every
   * stop in this process. Default: this process's own script when it reads its real stdin.
   */
  workerEntry?: string | null;
}

/** A host's session-end event: the folder's worker has no more stops of that session to wait for. */
const SESSION_END = /^session_?end$/i;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
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
  const started = Date.now();
  const own = await workerCommand(argv, io);
  if (own !== undefined) return own;
  const args = hookArgs(argv);
  if (typeof args === 'string') {
    io.stderr(`fix-until-green hook: ${args}`);
    return 1;
  }
  const { host, event, timeout } = args;
  const values = { cwd: args.cwd, storage: args.storage };
  const text = await (io.stdin ?? readStdin)();
  const input = readHookInput(host, text, event);
  const answer = (h: HookHost, ev: HookEvent, a: HookAnswer): number => {
    const out = formatHookAnswer(h, ev, a);
    if (out.stdout !== '') io.stdout(out.stdout);
    return out.exitCode;
  };
  if (!input.ok) {
    io.stderr(`fix-until-green hook: ${input.problem}; the agent was let go on unchecked`);
    return answer(host, event ?? 'stop', { kind: 'allow', message: `Fix Until Green: ${input.problem}; the agent was let go on unchecked.` });
  }
  const call = input.call;
  const letGo = (why: string): number => {
    io.stderr(`fix-until-green hook: ${why}`);
    return answer(call.host, call.event, { kind: 'allow', ...(call.event === 'stop' ? { message: `Fix Until Green: ${why}` } : {}) });
  };
  // The project the hooks were installed for, never the folder the agent cd'ed into (projectRoot.ts).
  const env = io.env ?? process.env;
  const { root } = projectRoot({ host, explicit: values.cwd, cwd: call.cwd, processCwd: process.cwd(), env, home: env.HOME ?? os.homedir() });
  if (call.event === 'other') {
    if (SESSION_END.test(call.eventName) && existsSync(root)) io.stderr(`fix-until-green hook: ${await stopFolderWorker(path.resolve(values.storage ?? defaultStorageDir(root)), `${call.host} ended its session`)}`);
    return answer(call.host, call.event, { kind: 'allow' });
  }
  if (!existsSync(root) || !statSync(root).isDirectory()) return letGo(`the session's folder ${root} is not a directory; the agent was not gated`);
  const entry = io.workerEntry !== undefined ? io.workerEntry : io.stdin === undefined ? (process.argv[1] ?? null) : null;
  if (call.event === 'stop' && entry !== null) {
    // The folder's worker keeps the checks warm between stops; whatever keeps it from answering, the pass runs here.
    const s = await settingsAnswer(root, {});
    const storageDir = path.resolve(values.storage ?? defaultStorageDir(root));
    const w = s.ok ? await viaWorker({ root, storageDir, host, call, budgetMs: hookBudgetMs(timeout, Date.now() - started), entry, idleSeconds: s.settings.hookWorkerIdleSeconds }) : undefined;
    if (w?.kind === 'refused') return letGo(hookRefusal(w.refusal, root, call.event));
    if (w?.kind === 'result') {
      io.stderr(`fix-until-green hook: answered by the folder's worker (pid ${w.worker.pid}, ${w.worker.warm ? 'warm' : 'cold'})`);
      if (w.result.decision) io.stderr(`fix-until-green hook: ${w.result.decision.reason}: ${w.result.decision.detail}`);
      return answer(call.host, call.event, w.result.answer);
    }
    if (w?.kind === 'unreachable') io.stderr(`fix-until-green hook: the folder's worker did not answer (${w.why}); the checks run in this process`);
  }

  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // A staged check kept warm (a type checker's watch process) would keep this process, and the host
  // waiting on it, alive past the answer: it ends with the call.
  let release: (() => Promise<void>) | undefined;
  try {
    const storageDir = path.resolve(values.storage ?? defaultStorageDir(root));
    // The one launcher, as `check` prepares its checks; a hook never gates over a live run (CHECKS_WHILE_A_RUN_HOLDS).
    const launch = await prepareChecks({ root, frontEnd: 'hook', storageDir }, { settings: () => settingsAnswer(root, {}) });
    if (!launch.ok) return letGo(hookRefusal(launch.refusal, root, call.event));
    const prepared = { settings: launch.prepared.settings, engine: launch.prepared.checks, storageDir };
    release = () => prepared.engine.verifier.release();
    // Checks a killed hook left running (the host's timeout) are ended before new ones start.
    await reapStrays(prepared.storageDir);
    const r = await handleHookCall({
      host,
      call,
      root,
      settings: prepared.settings,
      storageDir: prepared.storageDir,
      checks: prepared.engine,
      budgetMs: hookBudgetMs(timeout, Date.now() - started),
      signal: controller.signal,
    });
    if (r.decision) io.stderr(`fix-until-green hook: ${r.decision.reason}: ${r.decision.detail}`);
    return answer(call.host, call.event, r.answer);
  } catch (e) {
    return letGo(`the hook failed (${(e as Error).message}); the agent was not gated`);
  } finally {
    await release?.();
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

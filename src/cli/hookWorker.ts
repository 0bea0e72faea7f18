// The hook's worker as the CLI runs it (issue 39): `hook --worker` is the worker process itself
// (started by the hook, detached, never by hand), `hook --stop-worker` ends a folder's worker, and
// `viaWorker` is a stop call answered by the folder's worker, started on first use. The worker and
// its protocol are src/core/gate/worker/; this file only composes them with the CLI's settings.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import * as path from 'node:path';
import type { HookCall, HookHost } from '../core/gate/hookHosts';
import type { HookResult } from '../core/gate/hookContext';
import type { Refusal } from '../core/launch';
import { prepareChecks } from '../core/launch';
import { ask, ensureWorker, stopWorker } from '../core/gate/worker/client';
import { workerPlace } from '../core/gate/worker/place';
import type { WorkerInfo } from '../core/gate/worker/protocol';
import type { Logger } from '../core/types';
import { serveWorker } from '../core/gate/worker/server';
import { settingsAnswer } from './workspaceSettings';

/** The longest a stop waits for a worker it started to listen before it runs the pass itself. */
const START_WAIT_MS = 5000;
/** Beyond the pass's own budget, how long the hook waits for the worker's line (its answering and writing the trace). */
const ANSWER_MARGIN_MS = 1000;
/**
 * Below this budget a stop runs in the hook's own process: starting a worker and handing it the call
 * would eat a share of a time too short to gain anything from it (the hosts' timeouts are 60 s and up).
 */
const MIN_WORKER_BUDGET_MS = 10_000;

/** `hook --worker --cwd ROOT --storage DIR`: runs the folder's worker until it ends. */
export async function runWorker(root: string, storageDir: string): Promise<number> {
  const s = await settingsAnswer(root, {});
  const idleSeconds = s.ok ? s.settings.hookWorkerIdleSeconds : 0;
  if (idleSeconds <= 0) return 0;
  const logFile = path.join(workerPlace(storageDir).dir, 'worker.log');
  const log = (line: string): void => {
    try {
      appendFileSync(logFile, `${new Date().toISOString()} [${process.pid}] ${line}\n`, { mode: 0o600 });
    } catch (e) {
      // The log is for the curious; a folder that went away ends the worker through its watch.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  };
  await serveWorker({
    root,
    storageDir,
    idleMs: idleSeconds * 1000,
    log,
    // What the checks say of themselves (warm, pre-started, cold and why) goes to the same log; their
    // debug lines only with FIX_UNTIL_GREEN_DEBUG set, as the CLI's own.
    prepare: () => prepareChecks({ root, frontEnd: 'hook', storageDir }, { settings: () => settingsAnswer(root, {}), logger: workerLogger(log) }),
  });
  return 0;
}

/** The checks' logger in the worker: each line into worker.log, marked by its level; debug lines only with FIX_UNTIL_GREEN_DEBUG set. */
function workerLogger(log: (line: string) => void): Logger {
  const debug = process.env.FIX_UNTIL_GREEN_DEBUG !== undefined && process.env.FIX_UNTIL_GREEN_DEBUG !== '';
  return {
    info: (m) => log(`info: ${m}`),
    warn: (m) => log(`warn: ${m}`),
    error: (m) => log(`error: ${m}`),
    debug: (m) => {
      if (debug) log(`debug: ${m}`);
    },
  };
}

/** `hook --stop-worker`: ends the folder's worker, if one runs. */
export async function stopFolderWorker(storageDir: string, why: string): Promise<string> {
  return stopWorker(workerPlace(storageDir), why);
}

export type ViaWorker = { kind: 'result'; result: HookResult; worker: WorkerInfo; warnings: string[] } | { kind: 'refused'; refusal: Refusal } | { kind: 'unreachable'; why: string } | { kind: 'skipped' };

/**
 * A stop call answered by the folder's worker, started (detached, its output ignored) when none
 * runs. `entry` is the CLI's own script. Anything but an answer is `unreachable`: the hook then
 * runs the pass in its own process, as it does when the worker is `skipped` (turned off, or a
 * budget too short for it).
 */
export async function viaWorker(o: { root: string; storageDir: string; host: HookHost; call: HookCall; budgetMs: number; deadline: number; entry: string; idleSeconds: number }): Promise<ViaWorker> {
  if (o.idleSeconds <= 0 || o.budgetMs < MIN_WORKER_BUDGET_MS) return { kind: 'skipped' };
  const place = workerPlace(o.storageDir);
  const start = (): void => {
    const child = spawn(process.execPath, [o.entry, 'hook', '--worker', '--cwd', o.root, '--storage', o.storageDir], { cwd: o.root, detached: true, stdio: 'ignore', windowsHide: true });
    child.on('error', () => undefined);
    child.unref();
  };
  const started = Date.now();
  const w = await ensureWorker(place, start, Math.min(START_WAIT_MS, o.budgetMs / 4));
  if (!w) return { kind: 'unreachable', why: 'the worker did not start in time' };
  const budgetMs = Math.max(1000, o.budgetMs - (Date.now() - started));
  // Never waited for past the hook's own deadline (its answer must be out by then).
  const a = await ask(w.rec, { kind: 'stop-call', root: o.root, host: o.host, call: o.call, budgetMs }, Math.max(100, Math.min(budgetMs + ANSWER_MARGIN_MS, o.deadline - Date.now())));
  if ('unreachable' in a) return { kind: 'unreachable', why: a.unreachable };
  const r = a.reply;
  if (!r.ok) return { kind: 'unreachable', why: r.error };
  if (r.kind === 'result') return { kind: 'result', result: r.result, worker: r.worker, warnings: r.warnings ?? [] };
  if (r.kind === 'refused') return { kind: 'refused', refusal: r.refusal };
  return { kind: 'unreachable', why: `the worker answered ${r.kind}` };
}

// The folder's hook worker (issue 39): a process the hook starts on an agent's first stop and talks
// to over a local socket, so that the checks' engine, and what it keeps warm between stops (the warm
// type checker's program, the staged state), outlives one hook call. It answers stop calls with the
// same gate the hook runs in its own process (handleHookCall), one call at a time.
//
// It outlives the hook by design, so it ends by itself: after `idleMs` without a call, when its socket
// or record file is removed or replaced (another worker, `hook --stop-worker`), when the folder's
// storage goes away, on SIGTERM/SIGINT, or on a `shutdown` request (the host's session end). What it
// keeps warm is contained like any check (records under storage), so a worker killed outright leaves
// processes the next hook call reaps.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { writeFileAtomic } from '../../atomicWrite';
import type { CheckEngine } from '../../engine';
import type { Launch, PreparedChecks } from '../../launch';
import { processStartTime } from '../../liveness';
import { countTokens } from '../../tokens';
import { reapStrays } from '../../verify/containment';
import { handleHookCall } from '../hookGate';
import type { WorkerPlace } from './place';
import { privateDir, workerPlace } from './place';
import type { WorkerInfo, WorkerRecord, WorkerReply, WorkerRequest } from './protocol';
import { PROTOCOL_VERSION, readLine } from './protocol';

export interface WorkerOptions {
  root: string;
  storageDir: string;
  idleMs: number;
  /** The checks as `check` prepares them (settings read afresh each call: a changed setting is seen). */
  prepare(): Promise<Launch<PreparedChecks>>;
  log?(line: string): void;
  /** How often the worker looks for its socket, record and storage (default 1 s). */
  watchMs?: number;
}

/** Why a worker ended (for its log and the tests). */
export type WorkerEnd = 'idle' | 'shutdown' | 'signal' | 'socket-gone' | 'record-gone' | 'storage-gone' | 'another-worker' | 'cannot-listen';

/** Runs the worker until it ends; resolves with why. */
export async function serveWorker(o: WorkerOptions): Promise<WorkerEnd> {
  const place = workerPlace(o.storageDir);
  const log = o.log ?? ((): void => undefined);
  for (const dir of new Set([place.dir, place.socketDir].filter((d): d is string => d !== undefined))) {
    const bad = privateDir(dir);
    if (bad !== undefined) {
      log(`cannot listen: ${bad}`);
      return 'cannot-listen';
    }
  }
  const server = net.createServer();
  const listened = await listen(server, place);
  if (listened !== 'ok') {
    log(`not started: ${listened}`);
    return listened === 'taken' ? 'another-worker' : 'cannot-listen';
  }
  const token = randomBytes(24).toString('hex');
  const record: WorkerRecord = { pid: process.pid, startTime: processStartTime() ?? null, socket: place.socket, token, root: path.resolve(o.root), startedAt: new Date().toISOString(), idleMs: o.idleMs };
  writeRecord(place, record);
  log(`listening on ${place.socket} for ${record.root} (idle ${o.idleMs} ms)`);

  const life = lifecycle(o, place, token);
  const state: Served = { o, record, token, log, life, engines: engineCache(), calls: 0, queue: Promise.resolve() };
  const open = new Set<net.Socket>();
  server.on('connection', (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    serveConnection(socket, state);
  });

  const why = await life.ended;
  log(`ending: ${why}`);
  life.dispose();
  // A connection still open (a caller that never hangs up) must not keep the worker: close waits for each.
  const closed = new Promise<void>((r) => server.close(() => r()));
  for (const socket of open) socket.destroy();
  await closed;
  // The record and socket are removed only while they are still this worker's own.
  if (readToken(place) === token) rmSync(place.recordFile, { force: true });
  if (place.socketDir !== undefined && inode(place.socket) === life.socketIno) rmSync(place.socket, { force: true });
  await state.engines.release();
  return why;
}

/** When the worker ends: the first of idle, a signal, its socket, record or storage gone, or a shutdown. */
interface Lifecycle {
  ended: Promise<WorkerEnd>;
  end(why: WorkerEnd): void;
  endWhy(): WorkerEnd | undefined;
  /** Starts (again) the idle clock: after a call is answered. */
  armIdle(): void;
  /** Stops the idle clock: while a call is answered. */
  holdIdle(): void;
  socketIno: number | undefined;
  dispose(): void;
}

function lifecycle(o: WorkerOptions, place: WorkerPlace, token: string): Lifecycle {
  let resolveEnd!: (why: WorkerEnd) => void;
  const ended = new Promise<WorkerEnd>((r) => (resolveEnd = r));
  let endWhy: WorkerEnd | undefined;
  let idle: NodeJS.Timeout | undefined;
  const end = (why: WorkerEnd): void => {
    if (endWhy !== undefined) return;
    endWhy = why;
    resolveEnd(why);
  };
  const holdIdle = (): void => {
    if (idle) clearTimeout(idle);
  };
  const armIdle = (): void => {
    holdIdle();
    idle = setTimeout(() => end('idle'), o.idleMs);
  };
  armIdle();
  const socketIno = place.socketDir !== undefined ? inode(place.socket) : undefined;
  const watch = setInterval(() => {
    if (!existsSync(o.storageDir)) end('storage-gone');
    else if (place.socketDir !== undefined && inode(place.socket) !== socketIno) end('socket-gone');
    else if (readToken(place) !== token) end('record-gone');
  }, o.watchMs ?? 1000);
  const onSignal = (): void => end('signal');
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  const dispose = (): void => {
    clearInterval(watch);
    holdIdle();
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
  return { ended, end, endWhy: () => endWhy, armIdle, holdIdle, socketIno, dispose };
}

/** The checks' engine kept from call to call while the settings and checks stay the same. */
interface EngineCache {
  engineFor(prepared: PreparedChecks): { checks: CheckEngine; warm: boolean };
  has(): boolean;
  release(): Promise<void>;
}

function engineCache(): EngineCache {
  let engine: { key: string; checks: CheckEngine } | undefined;
  return {
    engineFor(prepared) {
      const key = JSON.stringify({ settings: prepared.settings, checks: prepared.checks.checks });
      if (engine && engine.key === key) {
        void prepared.checks.verifier.release();
        return { checks: engine.checks, warm: true };
      }
      if (engine) void engine.checks.verifier.release();
      engine = { key, checks: prepared.checks };
      return { checks: prepared.checks, warm: false };
    },
    has: () => engine !== undefined,
    release: async () => engine?.checks.verifier.release(),
  };
}

let tokenizerLoaded = false;

/**
 * The tokenizer (a third of a second to build its tables, ../../tokens) loaded while a call's checks
 * run, not after them: a blocked stop's reason is fitted to its token budget, and on the worker's
 * first call that load came after the checks, on the answer's path (klona: 243 ms of a 1.4 s Stop).
 * The checks are spawned within the delay; the load then runs while they do.
 */
function tokenizerWhileChecksRun(): void {
  if (tokenizerLoaded) return;
  tokenizerLoaded = true;
  setTimeout(() => countTokens('warm'), TOKENIZER_DELAY_MS).unref();
}
const TOKENIZER_DELAY_MS = 150;

/** What the worker's connections share: its options, record, clock, engine, count and call queue. */
interface Served {
  o: WorkerOptions;
  record: WorkerRecord;
  token: string;
  log: (line: string) => void;
  life: Lifecycle;
  engines: EngineCache;
  calls: number;
  /** One call at a time: each waits for the one before. */
  queue: Promise<unknown>;
}

function info(st: Served, warm: boolean): WorkerInfo {
  return { pid: process.pid, calls: st.calls, warm };
}

async function answer(st: Served, req: WorkerRequest, signal: AbortSignal): Promise<WorkerReply> {
  if (req.kind === 'status') return { ok: true, kind: 'status', worker: info(st, st.engines.has()), root: st.record.root };
  if (req.kind === 'shutdown') {
    st.log(`shutdown asked: ${req.why}`);
    setImmediate(() => st.life.end('shutdown'));
    return { ok: true, kind: 'stopping', worker: info(st, st.engines.has()) };
  }
  if (path.resolve(req.root) !== st.record.root) return { ok: false, error: `this worker serves ${st.record.root}, not ${req.root}` };
  const launch = await st.o.prepare();
  if (!launch.ok) return { ok: true, kind: 'refused', refusal: launch.refusal, worker: info(st, false) };
  const { checks, warm } = st.engines.engineFor(launch.prepared);
  // Checks a killed hook (or an earlier worker killed outright) left running end before new ones start.
  await reapStrays(st.o.storageDir);
  const started = Date.now();
  tokenizerWhileChecksRun();
  const warnings: string[] = [];
  const warn = (line: string): void => {
    warnings.push(line);
    st.log(line);
  };
  const result = await handleHookCall({ host: req.host, call: req.call, root: st.record.root, settings: launch.prepared.settings, storageDir: st.o.storageDir, checks, budgetMs: req.budgetMs, deadline: started + req.budgetMs, signal, worker: info(st, warm), warn });
  st.log(`${req.call.event} call answered ${result.answer.kind} in ${Date.now() - started} ms (${warm ? 'warm' : 'cold'} engine)`);
  // The program is built again for the next stop while the agent works (it is not waited for).
  if (req.call.event === 'stop') {
    const warming = Date.now();
    // Logged when done: how long the agent's turn must last for the next stop to find it warm.
    checks.verifier.warm().then(
      () => st.log(`warm for the next stop in ${Date.now() - warming} ms`),
      (e: unknown) => st.log(`warming failed: ${(e as Error).message}`),
    );
  }
  return { ok: true, kind: 'result', result, worker: info(st, warm), ...(warnings.length > 0 ? { warnings } : {}) };
}

/** One connection: one JSON line asked (with the worker's token), one JSON line answered, in the call queue. */
function serveConnection(socket: net.Socket, st: Served): void {
  const controller = new AbortController();
  // The hook that asked went away (killed by its host): its pass is cancelled.
  socket.once('close', () => controller.abort());
  readLine(socket, (line) => {
    if (line === undefined) return;
    let req: WorkerRequest;
    try {
      req = JSON.parse(line) as WorkerRequest;
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      socket.end(`${JSON.stringify({ ok: false, error: 'not a JSON line' } satisfies WorkerReply)}\n`);
      return;
    }
    if (req.v !== PROTOCOL_VERSION || req.token !== st.token) {
      socket.end(`${JSON.stringify({ ok: false, error: req.v !== PROTOCOL_VERSION ? `protocol ${String(req.v)} is not ${PROTOCOL_VERSION}` : 'wrong token' } satisfies WorkerReply)}\n`);
      return;
    }
    st.life.holdIdle();
    const run = st.queue.then(async () => {
      if (controller.signal.aborted || st.life.endWhy() !== undefined) return;
      let reply: WorkerReply;
      try {
        reply = await answer(st, req, controller.signal);
      } catch (e) {
        reply = { ok: false, error: (e as Error).message };
      }
      if (req.kind === 'stop-call') st.calls += 1;
      if (!socket.destroyed) socket.end(`${JSON.stringify(reply)}\n`);
    });
    st.queue = run.finally(() => {
      if (st.life.endWhy() === undefined) st.life.armIdle();
    });
  });
}

/** A file's inode, or undefined when it is gone (its folder too). */
function inode(file: string): number | undefined {
  try {
    return statSync(file).ino;
  } catch (e) {
    if (gone(e)) return undefined;
    throw e;
  }
}

/** The token of the record on disk: undefined when it is gone or torn (another worker writing it). */
function readToken(place: WorkerPlace): string | undefined {
  try {
    return (JSON.parse(readFileSync(place.recordFile, 'utf8')) as WorkerRecord).token;
  } catch (e) {
    if (gone(e) || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

function gone(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function writeRecord(place: WorkerPlace, record: WorkerRecord): void {
  // Never through a planted link or a guessable temporary name (the record holds the worker's token).
  writeFileAtomic(place.recordFile, JSON.stringify(record), { mode: 0o600, durable: false });
}

/**
 * Listens on the place's socket (0600): a socket file left by a dead worker is removed first, one a
 * live worker answers on is left to it ('taken').
 */
async function listen(server: net.Server, place: WorkerPlace): Promise<'ok' | 'taken' | string> {
  const attempt = (): Promise<NodeJS.ErrnoException | undefined> =>
    new Promise((resolve) => {
      const onError = (e: NodeJS.ErrnoException): void => resolve(e);
      server.once('error', onError);
      // The socket is made 0600 as it is created (no window in which it is open to others).
      const old = process.platform === 'win32' ? undefined : process.umask(0o177);
      server.listen(place.socket, () => {
        server.off('error', onError);
        resolve(undefined);
      });
      if (old !== undefined) process.umask(old);
    });
  let e = await attempt();
  if (e?.code === 'EADDRINUSE' && place.socketDir !== undefined) {
    if (await answers(place.socket)) return 'taken';
    rmSync(place.socket, { force: true });
    e = await attempt();
  }
  if (e) return e.code === 'EADDRINUSE' ? 'taken' : `${e.code ?? 'error'}: ${e.message}`;
  if (place.socketDir !== undefined) chmodSync(place.socket, 0o600);
  return 'ok';
}

function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(socket);
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

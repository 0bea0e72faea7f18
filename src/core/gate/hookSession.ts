// One agent host session as a run in our storage (issue 30): `<storage>/runs/<runId>/` holds the
// session's state (what the stop gate counts), the trace (the same JSONL as a run's, front end
// `hook:<host>`) and the checkpoint of every file the agent's edit tools wrote, so `revert --session`
// and `revert --run` restore them like a run's. Each hook call is a new process: everything it needs
// to remember is here, written whole (temp file and rename) under a small lock, since a host may run
// hooks in parallel.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from '../atomicWrite';
import { Checkpoint } from '../edit/checkpoint';
import { storedPathForm } from '../edit/storedPath';
import { readRegularFileSync, readTextIfPresent } from '../fileText';
import { processAlive, processStartTime } from '../liveness';
import type { VerifierRecord } from '../policy/integrity';
import type { RunEvent } from '../trace/events';
import { TraceWriter } from '../trace/trace';
import type { HookHost } from './hookHosts';

/** One stop the gate judged. */
export interface StopAttempt {
  failureHash: string;
  failureCount: number;
  green: boolean;
  answer: 'block' | 'allow';
  at: string;
}

export interface HookSessionState {
  version: 1;
  host: HookHost;
  sessionId: string;
  runId: string;
  root: string;
  createdAt: string;
  attempts: StopAttempt[];
  /** Stops sent back to work in this session. */
  blocks: number;
  /** Stops blocked because what defines the checks changed. */
  integrityBlocks: number;
  /** What defined the checks at the session's first hook call (DESIGN §3, Verifier integrity). */
  verifier: { commands: string[]; files: [string, string | null][] } | null;
  /** Files the agent's edit tools wrote (workspace-relative), in order of first write. */
  touched: string[];
  /** Files the edit tools wrote since the last stop: the checks may run staged over them. */
  changedSinceStop: string[];
  /** The trace's next step index. */
  steps: number;
}

/**
 * The record's paths are read back from the storage: one not of the form our writers store (`../x`,
 * absolute) is dropped and said, so no check is staged over it and no verifier file outside is
 * read; the others are kept. Only their form: they are read, never written (a revert writes from the
 * checkpoint, whose paths are resolved at each use), and a verifier file may well be read through a
 * linked `node_modules`.
 */
function keepInside(state: HookSessionState, file: string, warn: ((line: string) => void) | undefined): void {
  const refused: string[] = [];
  const keep = (list: unknown): string[] => {
    if (!Array.isArray(list)) return [];
    return list.filter((rel) => {
      const why = storedPathForm(rel);
      if (why !== undefined) refused.push(`${why}; dropped (was the storage edited?)`);
      return why === undefined;
    }) as string[];
  };
  state.touched = keep(state.touched);
  state.changedSinceStop = keep(state.changedSinceStop);
  if (state.verifier) {
    const files = Array.isArray(state.verifier.files) ? state.verifier.files : [];
    // A folder's stamp is recorded under its name with a trailing slash (`node_modules/dep/`): judged by the name.
    const named = (k: unknown): unknown => (typeof k === 'string' && k.endsWith('/') && !k.endsWith('//') ? k.slice(0, -1) : k);
    state.verifier = { commands: Array.isArray(state.verifier.commands) ? state.verifier.commands : [], files: files.filter((f) => Array.isArray(f) && keep([named(f[0])]).length === 1) };
  }
  for (const r of new Set(refused)) warn?.(`the hook session record ${file}: ${r}`);
}

/** The run id of a host session: stable, so every hook call of the session finds the same record. */
export function hookRunId(host: HookHost, sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40);
  const hash = createHash('sha256').update(`${host}\0${sessionId}`).digest('hex').slice(0, 8);
  return `hook-${host}-${safe || 'session'}-${hash}`;
}

export function frontEndOf(host: HookHost): string {
  return `hook:${host}`;
}

export class HookSession {
  readonly dir: string;
  readonly tracePath: string;
  private readonly stateFile: string;

  private constructor(
    readonly state: HookSessionState,
    dir: string,
    private readonly trace: TraceWriter,
    /** Opened without the session's lock: read and judged, never written (its counts are not updated). */
    readonly readOnly = false,
  ) {
    this.dir = dir;
    this.tracePath = trace.file;
    this.stateFile = path.join(dir, 'hook-session.json');
  }

  /** The session's record, created on its first hook call (with the trace's `run-start`). */
  static open(o: { storageDir: string; host: HookHost; sessionId: string; root: string; now: Date; warn?: (line: string) => void; readOnly?: boolean; start: () => Omit<Extract<RunEvent, { type: 'run-start' }>, 'type' | 'step' | 'runId' | 'root' | 'frontEnd'>; verifier: () => VerifierRecord }): HookSession {
    const runId = hookRunId(o.host, o.sessionId);
    const dir = path.join(o.storageDir, 'runs', runId);
    const file = path.join(dir, 'hook-session.json');
    const trace = new TraceWriter(path.join(dir, 'trace.jsonl'));
    if (existsSync(file)) {
      // Never blocks: a FIFO planted at the record's name is an error, not a wait.
      const state = JSON.parse(readRegularFileSync(file)) as HookSessionState;
      if (state.version !== 1 || state.runId !== runId) throw new Error(`${file} is not a hook session record of ${runId}`);
      keepInside(state, file, o.warn);
      return new HookSession(state, dir, trace, o.readOnly === true);
    }
    const record = o.verifier();
    const state: HookSessionState = {
      version: 1,
      host: o.host,
      sessionId: o.sessionId,
      runId,
      root: o.root,
      createdAt: o.now.toISOString(),
      attempts: [],
      blocks: 0,
      integrityBlocks: 0,
      verifier: { commands: record.commands, files: [...record.files] },
      touched: [],
      changedSinceStop: [],
      steps: 1,
    };
    const s = new HookSession(state, dir, trace, o.readOnly === true);
    if (s.readOnly) return s;
    s.save();
    trace.write({ type: 'run-start', step: 0, runId, root: o.root, frontEnd: frontEndOf(o.host), ...o.start() }, o.now);
    return s;
  }

  get runId(): string {
    return this.state.runId;
  }

  verifierRecord(): VerifierRecord | undefined {
    const v = this.state.verifier;
    return v ? { commands: v.commands, files: new Map(v.files) } : undefined;
  }

  /** The checkpoint of the files the agent's edit tools wrote; created on the first. */
  async checkpoint(): Promise<Checkpoint> {
    if (this.readOnly) throw new Error(`the hook session ${this.state.runId} was opened without its lock; its checkpoint is not written`);
    const dir = path.join(this.dir, 'checkpoint');
    const found = await Checkpoint.load(dir);
    if (found) return found;
    const cp = await Checkpoint.create(dir, this.state.runId, this.state.root);
    // Not an interrupted run of ours: the agent writes, not us. `revert --session` names it.
    await cp.markFinished();
    return cp;
  }

  write(event: RunEvent, now: Date): void {
    if (this.readOnly) return;
    this.trace.write(event, now);
  }

  /** The next step index for the trace. */
  nextStep(): number {
    return this.state.steps++;
  }

  save(): void {
    if (this.readOnly) return;
    mkdirSync(this.dir, { recursive: true });
    writeFileAtomic(this.stateFile, JSON.stringify(this.state, null, 1), { durable: false });
  }
}

/** Who holds a session lock: the pair pid and start time names one process across pid reuse (liveness.ts). */
interface LockOwner {
  pid: number;
  startTime: string | null;
  hostname: string;
}

const OWNER_FILE = 'owner.json';
/** A lock folder without its owner (a holder killed between the two, an older version's lock) is stale once this old. */
const OWNERLESS_STALE_MS = 5_000;
/** A takeover's own guard left by a taker that died mid-takeover. */
const TAKEOVER_STALE_MS = 10_000;
/** A lock whose holder runs on another host (a shared storage) cannot be checked: stale only after this long. */
const FOREIGN_STALE_MS = 15 * 60_000;

const heldLocks = new Set<string>();
let exitHookInstalled = false;

function readOwner(lock: string): LockOwner | undefined {
  let text: string | undefined;
  try {
    text = readTextIfPresent(path.join(lock, OWNER_FILE), ['ENOTDIR', 'EISDIR', 'ENOTREG']);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid !== 'number') return undefined;
    return { pid: o.pid, startTime: typeof o.startTime === 'string' ? o.startTime : null, hostname: typeof o.hostname === 'string' ? o.hostname : '' };
  } catch {
    return undefined;
  }
}

function ageMs(p: string): number | undefined {
  try {
    return Date.now() - lstatSync(p).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether the lock at `lock` was left by a holder that is gone (or never said who it was, long enough ago). */
function isStale(lock: string): { stale: boolean; owner: LockOwner | undefined } {
  const owner = readOwner(lock);
  if (!owner) return { stale: (ageMs(lock) ?? 0) > OWNERLESS_STALE_MS, owner };
  if (owner.hostname !== os.hostname()) return { stale: (ageMs(lock) ?? 0) > FOREIGN_STALE_MS, owner };
  return { stale: !processAlive(owner.pid, owner.startTime), owner };
}

/** Removes a stale lock, guarded so that two takers finding it stale do not remove each other's new lock. */
function takeOver(lock: string, seen: LockOwner | undefined): void {
  // Named `….lock` too: readers of `runs/` (revert, the editor's session follower) skip it as they skip the lock.
  const guard = `${lock.slice(0, -'.lock'.length)}.takeover.lock`;
  try {
    mkdirSync(guard);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    if ((ageMs(guard) ?? 0) > TAKEOVER_STALE_MS) rmSync(guard, { recursive: true, force: true });
    return;
  }
  try {
    const now = readOwner(lock);
    // Still the same dead holder (or still none): nobody took it over in between.
    if (JSON.stringify(now) === JSON.stringify(seen) && isStale(lock).stale) rmSync(lock, { recursive: true, force: true });
  } finally {
    rmSync(guard, { recursive: true, force: true });
  }
}

/** Why the lock could not be taken, for the user: who holds it. */
function holderNote(lock: string): string {
  const o = readOwner(lock);
  return o ? `held by pid ${o.pid}${o.hostname !== os.hostname() ? ` on ${o.hostname}` : ''}, still running` : 'held by a hook call that has not said who it is';
}

/** The outcome of waiting for the session's lock: held (the record may be written), or not in time (read only, and why). */
export type LockState = { held: true } | { held: false; why: string };

/**
 * Runs `work` holding the session's lock (a folder, made atomically, naming its holder by pid and
 * start time). A holder that is gone (killed by the host's timeout) is detected at once and its lock
 * taken over; a live holder is waited for until `deadline` (the call's own, never a fixed time), and
 * then `work` runs without the lock, told so: it may read the record and answer, never write it.
 */
export async function withSessionLock<T>(storageDir: string, runId: string, work: (lock: LockState) => Promise<T>, o: { deadline: number; signal?: AbortSignal }): Promise<T> {
  const lock = path.join(storageDir, 'runs', `${runId}.lock`);
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      heldLocks.add(lock);
      installExitHook();
      const me: LockOwner = { pid: process.pid, startTime: processStartTime() ?? null, hostname: os.hostname() };
      writeFileSync(path.join(lock, OWNER_FILE), JSON.stringify(me), { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || heldLocks.has(lock)) {
        if (heldLocks.has(lock)) {
          heldLocks.delete(lock);
          rmSync(lock, { recursive: true, force: true });
        }
        throw e;
      }
      const { stale, owner } = isStale(lock);
      if (stale) {
        takeOver(lock, owner);
        continue;
      }
      if (Date.now() >= o.deadline || o.signal?.aborted) return work({ held: false, why: `the session's record is locked (${lock}, ${holderNote(lock)})` });
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  try {
    return await work({ held: true });
  } finally {
    heldLocks.delete(lock);
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A process that ends without releasing (process.exit after the host's SIGTERM) leaves no session lock behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const l of heldLocks) rmSync(l, { recursive: true, force: true });
    heldLocks.clear();
  });
}

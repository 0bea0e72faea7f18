// One agent host session as a run in our storage (issue 30): `<storage>/runs/<runId>/` holds the
// session's state (what the stop gate counts), the trace (the same JSONL as a run's, front end
// `hook:<host>`) and the checkpoint of every file the agent's edit tools wrote, so `revert --session`
// and `revert --run` restore them like a run's. Each hook call is a new process: everything it needs
// to remember is here, written whole (temp file and rename) under a small lock, since a host may run
// hooks in parallel.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Checkpoint } from '../edit/checkpoint';
import { checkStoredPath } from '../edit/storedPath';
import { readRegularFileSync } from '../fileText';
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
 * The record's paths are read back from the storage: one that no longer stays inside the folder
 * (`../x`, absolute, through a link to outside) is dropped and said, so no check is staged over it
 * and no verifier file outside is read; the others are kept.
 */
function keepInside(state: HookSessionState, root: string, file: string, warn: ((line: string) => void) | undefined): void {
  const refused: string[] = [];
  const keep = (list: unknown): string[] => {
    if (!Array.isArray(list)) return [];
    return list.filter((rel) => {
      const c = checkStoredPath(root, rel);
      if (!c.ok) refused.push(c.reason);
      return c.ok;
    }) as string[];
  };
  state.touched = keep(state.touched);
  state.changedSinceStop = keep(state.changedSinceStop);
  if (state.verifier) {
    const files = Array.isArray(state.verifier.files) ? state.verifier.files : [];
    state.verifier = { commands: Array.isArray(state.verifier.commands) ? state.verifier.commands : [], files: files.filter((f) => Array.isArray(f) && keep([f[0]]).length === 1) };
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
  ) {
    this.dir = dir;
    this.tracePath = trace.file;
    this.stateFile = path.join(dir, 'hook-session.json');
  }

  /** The session's record, created on its first hook call (with the trace's `run-start`). */
  static open(o: { storageDir: string; host: HookHost; sessionId: string; root: string; now: Date; warn?: (line: string) => void; start: () => Omit<Extract<RunEvent, { type: 'run-start' }>, 'type' | 'step' | 'runId' | 'root' | 'frontEnd'>; verifier: () => VerifierRecord }): HookSession {
    const runId = hookRunId(o.host, o.sessionId);
    const dir = path.join(o.storageDir, 'runs', runId);
    const file = path.join(dir, 'hook-session.json');
    const trace = new TraceWriter(path.join(dir, 'trace.jsonl'));
    if (existsSync(file)) {
      // Never blocks: a FIFO planted at the record's name is an error, not a wait.
      const state = JSON.parse(readRegularFileSync(file)) as HookSessionState;
      if (state.version !== 1 || state.runId !== runId) throw new Error(`${file} is not a hook session record of ${runId}`);
      keepInside(state, o.root, file, o.warn);
      return new HookSession(state, dir, trace);
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
    const s = new HookSession(state, dir, trace);
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
    const dir = path.join(this.dir, 'checkpoint');
    const found = await Checkpoint.load(dir);
    if (found) return found;
    const cp = await Checkpoint.create(dir, this.state.runId, this.state.root);
    // Not an interrupted run of ours: the agent writes, not us. `revert --session` names it.
    await cp.markFinished();
    return cp;
  }

  write(event: RunEvent, now: Date): void {
    this.trace.write(event, now);
  }

  /** The next step index for the trace. */
  nextStep(): number {
    return this.state.steps++;
  }

  save(): void {
    mkdirSync(this.dir, { recursive: true });
    const tmp = `${this.stateFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.state, null, 1));
    renameSync(tmp, this.stateFile);
  }
}

/**
 * Runs `work` holding the session's lock (a folder, made atomically). A lock older than `staleMs`
 * was left by a hook process the host killed, and is taken over.
 */
export async function withSessionLock<T>(storageDir: string, runId: string, work: () => Promise<T>, o: { waitMs?: number; staleMs?: number } = {}): Promise<T> {
  const lock = path.join(storageDir, 'runs', `${runId}.lock`);
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + (o.waitMs ?? 30_000);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue;
      }
      if (age > (o.staleMs ?? 15 * 60_000) || Date.now() > deadline) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

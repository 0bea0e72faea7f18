// One run per workspace folder. A run holds a lock file for its lifetime; a second run, or a
// revert, on the same folder is refused while the holder lives. The lock is keyed by the folder's
// real path and kept in one place per user, not in a front end's storage: the extension's storage
// and the CLI's `--storage` differ, and both must see the same lock.
//
// A lock names its holder by pid and the process's start time (from /proc/<pid>/stat where there is
// one), so that a pid reused by another process after a crash or a reboot does not look alive
// (liveness.ts decides, for the lock and the checks' containment alike).
import { createHash } from 'node:crypto';
import { linkSync, mkdirSync, realpathSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createExclusiveSync, tempNameBeside, writeFileAtomic } from '../atomicWrite';
import { readTextIfPresent } from '../fileText';
import { homeDirectory } from '../home';
import { processAlive, processStartTime } from '../liveness';

/** Overrides where locks live (tests; machines whose home is not writable). */
export const RUN_LOCK_DIR_ENV = 'FIX_UNTIL_GREEN_LOCK_DIR';

/** Who takes the lock. */
export interface RunLockOwner {
  /** The run's id, when known (it can be set later with `lock.update`). */
  runId?: string;
  /** Which front end runs: `cli`, `vscode`, `mcp`, ... */
  frontEnd: string;
  /** Where the holder keeps its runs and checkpoints (what a revert needs). */
  storageDir: string;
}

/** The lock file's content (JSON). */
export interface RunLockRecord {
  version: 1;
  /** The workspace folder's real path. */
  root: string;
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22); null where unknown. */
  startTime: string | null;
  hostname: string;
  runId: string | null;
  frontEnd: string;
  storageDir: string;
  /** ISO time the lock was taken. */
  startedAt: string;
}

export interface RunLock {
  readonly path: string;
  readonly record: RunLockRecord;
  /** Records the run's id once it is known. */
  update(patch: Partial<Pick<RunLockRecord, 'runId' | 'storageDir'>>): void;
  /** Removes the lock if it is still this holder's. Safe to call more than once. */
  release(): void;
}

export type AcquireResult =
  /** `stale`: the previous holder's lock, left by a process that is gone: its run was interrupted. */
  | { ok: true; lock: RunLock; stale?: RunLockRecord }
  | { ok: false; holder: RunLockRecord; message: string };

/** Where lock files live: `$FIX_UNTIL_GREEN_LOCK_DIR`, else `~/.cache/fix-until-green/locks`. */
export function runLockDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[RUN_LOCK_DIR_ENV];
  if (override && override.trim() !== '') return path.resolve(override);
  // The home directory, not XDG_RUNTIME_DIR or XDG_CACHE_HOME: a terminal, a cron job and the editor
  // may disagree on those, and every front end must find the same lock.
  return path.join(homeDirectory(env), '.cache', 'fix-until-green', 'locks');
}

function realRoot(root: string): string {
  const abs = path.resolve(root);
  try {
    return realpathSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return abs;
    throw e;
  }
}

/** The lock file of a folder: its real path hashed, so that every spelling of the folder shares it. */
export function runLockPath(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const real = realRoot(root);
  const id = createHash('sha256').update(real).digest('hex').slice(0, 24);
  return path.join(runLockDir(env), `${id}.lock.json`);
}

/**
 * Whether the lock's holder still runs (see liveness.ts: a zombie has exited, a reused pid is another
 * process). A lock from another host cannot be checked and counts as held.
 */
export function isHolderAlive(r: RunLockRecord): boolean {
  if (r.hostname !== os.hostname()) return true;
  return processAlive(r.pid, r.startTime);
}

function parseRecord(text: string): RunLockRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
  const r = v as Partial<RunLockRecord> | null;
  if (!r || typeof r !== 'object' || typeof r.pid !== 'number' || typeof r.root !== 'string') return undefined;
  return {
    version: 1,
    root: r.root,
    pid: r.pid,
    startTime: typeof r.startTime === 'string' ? r.startTime : null,
    hostname: typeof r.hostname === 'string' ? r.hostname : os.hostname(),
    runId: typeof r.runId === 'string' ? r.runId : null,
    frontEnd: typeof r.frontEnd === 'string' ? r.frontEnd : 'unknown',
    storageDir: typeof r.storageDir === 'string' ? r.storageDir : '',
    startedAt: typeof r.startedAt === 'string' ? r.startedAt : '',
  };
}

function readAt(file: string): { text: string; record: RunLockRecord | undefined } | undefined {
  const text = readTextIfPresent(file);
  return text === undefined ? undefined : { text, record: parseRecord(text) };
}

/** The folder's lock as it is on disk (held or stale), or undefined when there is none. */
export function readRunLock(root: string, env: NodeJS.ProcessEnv = process.env): RunLockRecord | undefined {
  return readAt(runLockPath(root, env))?.record;
}

/** The folder's lock when its holder is alive; undefined when there is none or it is stale. */
export function liveRunLock(root: string, env: NodeJS.ProcessEnv = process.env): RunLockRecord | undefined {
  const r = readRunLock(root, env);
  return r && isHolderAlive(r) ? r : undefined;
}

/** One line naming the live holder, for refusals. */
export function describeHolder(r: RunLockRecord): string {
  const who = r.runId ? `run ${r.runId}` : 'a run';
  const where = r.hostname !== os.hostname() ? ` on host ${r.hostname}` : '';
  return `${who} (${r.frontEnd}, pid ${r.pid}${where}, started ${r.startedAt || 'at an unknown time'}) is running on ${r.root}`;
}

/** Writes `text` at `file` only if nothing is there: complete content appears at once, or not at all. */
function createExclusive(file: string, text: string): boolean {
  const tmp = tempNameBeside(file);
  createExclusiveSync(tmp, text, { mode: 0o644, durable: false });
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links: O_EXCL create, then the content.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
      try {
        writeFileSync(file, text, { flag: 'wx', mode: 0o644 });
        return true;
      } catch (e2) {
        if ((e2 as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e2;
      }
    }
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}

/** A takeover of a stale lock is itself guarded, so that two runs finding it stale do not both win. */
const TAKEOVER_STALE_MS = 10_000;

function withTakeoverGuard<T>(file: string, fn: () => T): T | undefined {
  const guard = `${file}.takeover`;
  const mine = JSON.stringify({ pid: process.pid, at: Date.now() });
  if (!createExclusive(guard, mine)) {
    // A guard left by a process that died mid-takeover is old; anything younger is another taker at work.
    let age: number;
    try {
      age = Date.now() - statSync(guard).mtimeMs;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    if (age < TAKEOVER_STALE_MS) return undefined;
    unlinkQuiet(guard);
    if (!createExclusive(guard, mine)) return undefined;
  }
  try {
    return fn();
  } finally {
    unlinkQuiet(guard);
  }
}

function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * Takes the folder's lock for this process. Refused while another live process holds it; a lock
 * whose holder is gone (pid gone, or the pid now belongs to a process started at another time) is
 * taken over and handed back as `stale`, so that the caller can mark that run interrupted.
 */
export function acquireRunLock(root: string, owner: RunLockOwner, env: NodeJS.ProcessEnv = process.env): AcquireResult {
  const file = runLockPath(root, env);
  mkdirSync(path.dirname(file), { recursive: true });
  const record: RunLockRecord = {
    version: 1,
    root: realRoot(root),
    pid: process.pid,
    startTime: processStartTime() ?? null,
    hostname: os.hostname(),
    runId: owner.runId ?? null,
    frontEnd: owner.frontEnd,
    storageDir: owner.storageDir,
    startedAt: new Date().toISOString(),
  };
  const text = JSON.stringify(record, null, 2) + '\n';
  let stale: RunLockRecord | undefined;
  // A few rounds: the holder may release, or another taker may win a takeover, between our reads.
  for (let round = 0; round < 5; round++) {
    if (createExclusive(file, text)) return { ok: true, lock: makeLock(file, record), ...(stale ? { stale } : {}) };
    const current = readAt(file);
    if (!current) continue;
    const holder = current.record;
    if (holder && isHolderAlive(holder)) {
      // A holder on another host (a shared home) cannot be checked from here: only a person can clear it.
      const clear = holder.hostname !== os.hostname() ? `; if host ${holder.hostname} no longer runs it, delete ${file}` : ` (lock ${file})`;
      return { ok: false, holder, message: `another run holds this workspace folder: ${describeHolder(holder)}; wait for it to end or stop it${clear}` };
    }
    // Stale (or unreadable: a holder that died while writing it). Replace it only if it is still the same file.
    const took = withTakeoverGuard(file, () => {
      const again = readAt(file);
      if (again && again.text !== current.text) return false;
      unlinkQuiet(file);
      return createExclusive(file, text);
    });
    if (took) {
      stale = holder ?? { ...record, pid: 0, startTime: null, runId: null, frontEnd: 'unknown', storageDir: '', startedAt: '' };
      return { ok: true, lock: makeLock(file, record), stale };
    }
  }
  const holder = readRunLock(root, env);
  if (holder) return { ok: false, holder, message: `another run holds this workspace folder: ${describeHolder(holder)} (lock ${file})` };
  throw new Error(`could not take the run lock ${file}: it kept changing under another process`);
}

const held = new Set<RunLock>();
let exitHookInstalled = false;

function makeLock(file: string, initial: RunLockRecord): RunLock {
  let record = initial;
  let released = false;
  const isMine = (): boolean => {
    const r = readAt(file)?.record;
    return r !== undefined && r.pid === record.pid && r.startTime === record.startTime && r.startedAt === record.startedAt;
  };
  const lock: RunLock = {
    path: file,
    get record() {
      return record;
    },
    update(patch) {
      if (released) return;
      record = { ...record, ...patch };
      // Replaced whole, by rename: a reader never sees half a record.
      writeFileAtomic(file, JSON.stringify(record, null, 2) + '\n', { mode: 0o644, durable: false });
    },
    release() {
      if (released) return;
      released = true;
      held.delete(lock);
      if (isMine()) unlinkQuiet(file);
    },
  };
  held.add(lock);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A process that ends without releasing (an uncaught error, process.exit) leaves no lock behind;
    // only SIGKILL or a crash of the process leaves one, which the next taker finds stale.
    process.on('exit', () => {
      for (const l of [...held]) {
        try {
          l.release();
        } catch (e) {
          process.stderr.write(`fix-until-green: could not remove the run lock ${l.path}: ${e instanceof Error ? e.message : String(e)}\n`);
        }
      }
    });
  }
  return lock;
}

// What a check runs under, so that every process of it can be found and ended: a cgroup v2 of its own
// where this process may create one (Linux with a writable, delegated subtree: `cgroup.kill` ends
// everything, whatever left the process group or wiped its environment), else its process group and
// a marker variable in its environment. Each check's containment is recorded in the run's storage
// while it runs, so that strays of a process killed outright (`kill -9`) are reaped by the next run
// or `revert`.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { writeFileAtomic } from '../atomicWrite';
import * as path from 'node:path';
import type { ProcStat } from '../liveness';
import { readTextIfPresent } from '../fileText';
import { hasProc, isRunning, processAlive, readProcStat } from '../liveness';

/** The environment variable every process of a check inherits, so strays can be found after all. */
export const CHECK_MARKER_ENV = 'FIX_UNTIL_GREEN_CHECK';

const PROC = '/proc';

/** A process of a check: one that /proc shows running (not a zombie) and may be read. */
function readLive(pid: number): ProcStat | undefined {
  const st = readProcStat(pid);
  return typeof st === 'object' && isRunning(st) ? st : undefined;
}

function readEnviron(pid: number): string | undefined {
  try {
    return readFileSync(`${PROC}/${pid}/environ`, 'latin1');
  } catch (e) {
    // Gone meanwhile, or another user's process (not ours to kill).
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ESRCH' || code === 'EPERM') return undefined;
    throw e;
  }
}

/**
 * Live processes (not this one) in one of `pgids`, or carrying `marker` in their environment.
 * Linux only (it reads /proc); elsewhere, empty.
 */
export function findProcesses(q: { pgids?: readonly number[]; marker?: string }): number[] {
  if (!hasProc()) return [];
  const needle = q.marker !== undefined ? `${CHECK_MARKER_ENV}=${q.marker}\0` : undefined;
  const groups = new Set(q.pgids ?? []);
  const found: number[] = [];
  for (const name of readdirSync(PROC)) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const st = readLive(pid);
    if (!st) continue;
    if (groups.has(st.pgrp) || (needle !== undefined && readEnviron(pid)?.includes(needle))) found.push(pid);
  }
  return found;
}

export function signalPids(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ESRCH' && code !== 'EPERM') throw e;
    }
  }
}

export function signalGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined || pgid <= 1) return;
  try {
    process.kill(-pgid, signal);
  } catch (e) {
    // ESRCH: the group is already gone, which is what we want.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ESRCH' && code !== 'EPERM') throw e;
  }
}

// ---- cgroup v2 -------------------------------------------------------------------------------

export type CgroupSupport = { base: string } | { base: undefined; reason: string };

let support: CgroupSupport | undefined;

function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** The directory of this process's own cgroup v2, or why there is none. */
function ownCgroupDir(): string | { reason: string } {
  let self: string;
  let mounts: string;
  try {
    self = readFileSync(`${PROC}/self/cgroup`, 'utf8');
    mounts = readFileSync(`${PROC}/self/mountinfo`, 'utf8');
  } catch (e) {
    return { reason: `cannot read /proc/self/cgroup or mountinfo: ${(e as Error).message}` };
  }
  const line = self.split('\n').find((l) => l.startsWith('0::'));
  if (!line) return { reason: 'this process is in no cgroup v2 hierarchy' };
  const own = line.slice(3).trim();
  for (const m of mounts.split('\n')) {
    const [before, after] = m.split(' - ');
    if (!before || !after || after.split(' ')[0] !== 'cgroup2') continue;
    const f = before.split(' ');
    const root = unescapeMount(f[3] ?? '/');
    const mountPoint = unescapeMount(f[4] ?? '');
    const rel = path.posix.relative(root, own);
    if (rel.startsWith('..')) continue;
    return path.join(mountPoint, rel);
  }
  return { reason: 'no cgroup2 file system is mounted' };
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return true;
    // EBUSY: processes (or child cgroups) are still in it.
    if (code === 'EBUSY' || code === 'EACCES' || code === 'EPERM' || code === 'ENOTEMPTY') return false;
    throw e;
  }
}

/**
 * Whether checks can run in a cgroup v2 of their own, probed once per process for real: a cgroup
 * is created under this process's own, a shell moves itself into it (what each check's start does),
 * and the cgroup is removed. `cgroup.kill` is required (Linux 5.14).
 */
export function cgroupSupport(): CgroupSupport {
  if (support) return support;
  support = probe();
  return support;
}

function probe(): CgroupSupport {
  if (process.platform !== 'linux') return { base: undefined, reason: `no cgroups on ${process.platform}` };
  const own = ownCgroupDir();
  if (typeof own !== 'string') return { base: undefined, reason: own.reason };
  const dir = path.join(own, `fix-until-green-probe-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    mkdirSync(dir);
  } catch (e) {
    return { base: undefined, reason: `cannot create a cgroup under ${own}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  try {
    if (!existsSync(path.join(dir, 'cgroup.kill'))) return { base: undefined, reason: 'the kernel has no cgroup.kill (Linux < 5.14)' };
    const r = spawnSync('/bin/sh', ['-c', 'echo $$ > "$0"', path.join(dir, 'cgroup.procs')], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10000 });
    if (r.status !== 0) return { base: undefined, reason: `a process cannot move into a cgroup under ${own}: ${r.stderr?.toString().trim() || r.error?.message || `exit ${r.status}`}` };
    return { base: own };
  } finally {
    for (let i = 0; i < 50 && !tryRmdir(dir); i++) sleepSync(20);
  }
}

/** For tests: probe again (e.g. after changing what may be created). */
export function resetCgroupProbeForTest(): void {
  support = undefined;
}

/** A new cgroup for one check, or undefined where none can be made (then the group and marker do). */
export function createCheckCgroup(marker: string): string | undefined {
  const s = cgroupSupport();
  if (s.base === undefined) return undefined;
  const dir = path.join(s.base, `fix-until-green-${marker}`);
  try {
    mkdirSync(dir);
    return dir;
  } catch {
    // Full (cgroup.max.descendants), or the subtree changed under us: contain the check the old way.
    return undefined;
  }
}

/** Live processes in a cgroup (none if it is gone). */
export function cgroupMembers(dir: string): number[] {
  let text: string;
  try {
    text = readFileSync(path.join(dir, 'cgroup.procs'), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENODEV') return [];
    throw e;
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid && readLive(pid) !== undefined);
}

/** SIGKILLs every process in the cgroup at once, forks in flight included. */
export function killCgroup(dir: string): void {
  try {
    writeFileSync(path.join(dir, 'cgroup.kill'), '1');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENODEV') throw e;
  }
}

/** Removes an empty check cgroup; false when processes are still in it. */
export function removeCgroup(dir: string): boolean {
  return tryRmdir(dir);
}

function populated(dir: string): boolean {
  try {
    return /^populated 1$/m.test(readFileSync(path.join(dir, 'cgroup.events'), 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENODEV') return false;
    throw e;
  }
}

/**
 * Removes a check's cgroup once it is empty, waiting up to `ms`: a killed process shows as a zombie
 * while its other threads are still exiting, and the cgroup counts as populated until they are done.
 */
export async function removeCgroupWhenEmpty(dir: string, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (!populated(dir) && tryRmdir(dir)) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The argv that starts `argv` inside the cgroup `dir`: a shell moves itself in, then becomes the
 * command (exec), so nothing of the check runs outside it even for an instant. Should the move fail,
 * the command runs anyway, contained by its group and marker.
 */
export function argvInCgroup(dir: string, argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', 'echo $$ > "$0" 2>/dev/null; exec "$@"', path.join(dir, 'cgroup.procs'), ...argv];
}

// ---- records of running checks, for reaping after a crash ------------------------------------

/** What one running check is contained by, written to storage while it runs. */
export interface CheckRecord {
  /** The process that started the check: its strays are reaped only once it is gone. */
  owner: { pid: number; startTime?: string };
  marker: string;
  cgroup?: string;
  pgid?: number;
  command: string;
  startedAt: string;
}

/** Where the records of a storage directory's running checks live. */
export function checkRecordDir(storageDir: string): string {
  return path.join(storageDir, 'processes');
}

export function writeCheckRecord(dir: string, rec: CheckRecord): void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${rec.marker}.json`);
  // Written whole or not at all: a crash mid-write leaves no half record (a dead writer's temporary
  // file, named with its pid last, is swept by reapStrays).
  writeFileAtomic(file, JSON.stringify(rec), { durable: false });
}

export function removeCheckRecord(dir: string, marker: string): void {
  try {
    rmSync(path.join(dir, `${marker}.json`), { force: true });
  } catch (e) {
    // A storage that turned read-only keeps a record of a finished check: reaping it later finds nothing.
    if (typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
  }
}

/** The handles a check can be found by. */
export interface CheckHandles {
  cgroup?: string;
  pgid?: number;
  marker: string;
}

interface Survey {
  pids: number[];
  /** Whether the process group is the check's (signalling it cannot hit a stranger). */
  group: boolean;
}

/**
 * Every live process of one check: its cgroup's, those carrying its marker, and its process
 * group's. The group is trusted when the caller knows it is the check's (its leader is our child),
 * else only while a member still carries the marker: a group number reused by a stranger is never
 * taken for the check's.
 */
function survey(c: CheckHandles, trustGroup: boolean): Survey {
  const found = new Set<number>(c.cgroup !== undefined ? cgroupMembers(c.cgroup) : []);
  const marked = findProcesses({ marker: c.marker });
  for (const p of marked) found.add(p);
  const group = c.pgid !== undefined && (trustGroup || marked.length > 0);
  if (group) for (const p of findProcesses({ pgids: [c.pgid!] })) found.add(p);
  return { pids: [...found], group };
}

/** Every live process of one check (see `survey`). */
export function checkProcesses(c: CheckHandles, opts: { trustGroup: boolean }): number[] {
  return survey(c, opts.trustGroup).pids;
}

function killSurveyed(c: CheckHandles, s: Survey, signal: NodeJS.Signals): void {
  if (c.cgroup !== undefined && signal === 'SIGKILL') killCgroup(c.cgroup);
  if (s.group) signalGroup(c.pgid, signal);
  signalPids(s.pids, signal);
}

/** Signals every process of one check, by every handle it has; returns the processes found. */
export function signalCheck(c: CheckHandles, signal: NodeJS.Signals, opts: { trustGroup: boolean }): number[] {
  const s = survey(c, opts.trustGroup);
  killSurveyed(c, s, signal);
  return s.pids;
}

/**
 * Kills until nothing of the check is alive, or `ms` have passed; returns what is still alive (a
 * process in uninterruptible sleep ignores even SIGKILL until it wakes) and every process seen.
 */
export async function killAndWait(c: CheckHandles, ms: number, opts: { trustGroup: boolean }): Promise<{ left: number[]; seen: number[] }> {
  const end = Date.now() + ms;
  let s = survey(c, opts.trustGroup);
  const seen = new Set(s.pids);
  let delay = 5;
  while (s.pids.length > 0) {
    killSurveyed(c, s, 'SIGKILL');
    if (Date.now() >= end) break;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(50, delay * 2);
    s = survey(c, opts.trustGroup);
    for (const p of s.pids) seen.add(p);
  }
  if (s.pids.length === 0 && !hasProc() && opts.trustGroup && c.pgid !== undefined) {
    // No /proc to look in: the group answers signal 0 while any member lives.
    while (Date.now() < end && groupExists(c.pgid)) {
      signalGroup(c.pgid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return { left: s.pids, seen: [...seen] };
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function readRecord(file: string): CheckRecord | undefined {
  const text = readTextIfPresent(file);
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as CheckRecord;
    return typeof r.marker === 'string' && typeof r.owner?.pid === 'number' ? r : undefined;
  } catch (e) {
    // A torn or foreign file: nothing in it can be trusted to name processes.
    if (e instanceof SyntaxError || e instanceof TypeError) return undefined;
    throw e;
  }
}

/**
 * Ends the processes of checks whose owner (a run, `check`, the extension host) is gone without
 * cleaning up: killed outright, or crashed. Records of live owners are left alone (their checks are
 * running). Returns how many processes were ended. Linux only; elsewhere there is no reliable way to
 * name a dead owner's processes, and nothing is killed.
 */
export async function reapStrays(storageDir: string): Promise<number> {
  const dir = checkRecordDir(storageDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  let ended = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    if (name.endsWith('.tmp')) {
      const pid = Number(/\.(\d+)\.tmp$/.exec(name)?.[1]);
      if (!processAlive(pid, undefined)) rmSync(file, { force: true });
      continue;
    }
    if (!name.endsWith('.json')) continue;
    const rec = readRecord(file);
    if (!rec) {
      rmSync(file, { force: true });
      continue;
    }
    if (processAlive(rec.owner.pid, rec.owner.startTime)) continue;
    if (!hasProc()) {
      rmSync(file, { force: true });
      continue;
    }
    // The group is only trusted while one of its members still carries the marker (see checkProcesses).
    const opts = { trustGroup: false };
    const { left, seen } = await killAndWait(rec, 2000, opts);
    ended += seen.length - left.length;
    if (left.length === 0 && (rec.cgroup === undefined || (await removeCgroupWhenEmpty(rec.cgroup, 2000)))) rmSync(file, { force: true });
  }
  return ended;
}

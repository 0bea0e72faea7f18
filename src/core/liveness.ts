// Whether a process still runs, decided one way for everything that names a process by its pid: the
// folder's run lock (edit/runLock.ts) and the records of running checks (verify/containment.ts).
//
// A pid alone is not a process: after a crash or a reboot the same number may belong to another one.
// With the process's start time (clock ticks since boot, /proc/<pid>/stat field 22) the pair names one
// process. A zombie has exited (it only waits for its parent to read its status): it is not alive,
// though `kill(pid, 0)` still answers for it. Where /proc cannot tell (not Linux, or another user's
// process behind permissions), the signal answers, and the start time cannot be compared.
import { existsSync, readFileSync } from 'node:fs';

const PROC = '/proc';

/** What /proc/<pid>/stat says of a process. */
export interface ProcStat {
  /** R, S, D, Z (zombie), X (dead), ... */
  state: string;
  /** The process group. */
  pgrp: number;
  /** Clock ticks after boot: with the pid, names one process across pid reuse. */
  startTime: string;
}

/** Whether this machine has a /proc to read processes from. */
export function hasProc(): boolean {
  return process.platform === 'linux' && existsSync(PROC);
}

/**
 * A process's /proc stat: undefined when there is no such process; `unknown` when /proc cannot tell
 * (there is none, or the process is another user's and hidden).
 */
export function readProcStat(pid: number): ProcStat | undefined | 'unknown' {
  if (!hasProc()) return 'unknown';
  let text: string;
  try {
    text = readFileSync(`${PROC}/${pid}/stat`, 'latin1');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH' || code === 'ENOTDIR') return undefined;
    if (code === 'EACCES' || code === 'EPERM') return 'unknown';
    throw e;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const start = fields[19] ?? '';
  return { state: fields[0] ?? '', pgrp: Number(fields[2]), startTime: /^\d+$/.test(start) ? start : '' };
}

/** Running or sleeping: not a zombie, not dead. */
export function isRunning(s: ProcStat): boolean {
  return s.state !== 'Z' && s.state !== 'X' && s.state !== 'x';
}

/** A process's start time (this one's by default), or undefined where /proc does not say. */
export function processStartTime(pid: number = process.pid): string | undefined {
  const s = readProcStat(pid);
  return typeof s === 'object' && s.startTime !== '' ? s.startTime : undefined;
}

function answersSignal(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process `pid` still runs: it exists, is not a zombie, and, when `startTime` is known,
 * started then (a later process given the same pid is not it).
 */
export function processAlive(pid: number, startTime?: string | null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const s = readProcStat(pid);
  if (s === undefined) return false;
  if (s === 'unknown') return answersSignal(pid);
  return isRunning(s) && (startTime === undefined || startTime === null || s.startTime === startTime);
}

// What the warm checkers' children share (./warmTsc, ./warmEslint, ./preStarted): finding a program on the check's
// PATH as it resolves there, and containing a child like a check: a record in storage while it runs
// (so a crash of ours is reaped), and its end, every process it started killed and the record gone;
// and the options a warm child runs a check's command with.
import type { ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { processStartTime } from '../../liveness';
import { binTarget } from '../binTarget';
import { killAndWait, removeCheckRecord, writeCheckRecord } from '../containment';

/** The file the first `exe` on PATH runs (a link or a pnpm shell wrapper followed: ../binTarget). */
export function findOnPath(exe: string, env: Record<string, string>): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const target = binTarget(path.join(dir, exe));
    if (target !== undefined) return target;
  }
  return undefined;
}

export function realpathOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return p;
    throw e;
  }
}

/** Records a warm child under `recordDir` (marker `marker`, process group `pid`), as a running check is. */
export function recordWarmChild(recordDir: string | undefined, marker: string, pid: number | undefined, command: string): void {
  if (recordDir === undefined) return;
  const owner = { pid: process.pid, ...(processStartTime() !== undefined ? { startTime: processStartTime()! } : {}) };
  try {
    writeCheckRecord(recordDir, { owner, marker, ...(pid !== undefined ? { pgid: pid } : {}), command, startedAt: new Date().toISOString() });
  } catch (e) {
    // A full or read-only storage costs the reaping after a crash, not the check.
    if (typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
  }
}

/** Ends a warm child and everything it started; its record goes once none is left. Returns every process seen. */
export async function endWarmChild(child: ChildProcess, marker: string, recordDir: string | undefined): Promise<number[]> {
  child.removeAllListeners('message');
  if (child.connected) child.disconnect();
  const { left, seen } = await killAndWait({ marker, ...(child.pid !== undefined ? { pgid: child.pid } : {}) }, 2000, { trustGroup: true });
  if (left.length === 0 && recordDir !== undefined) removeCheckRecord(recordDir, marker);
  return seen;
}

/** How a warm child runs a check's command for it (./warmEslint, ./preStarted): as runCommand would run the command. */
export interface WarmRunOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  outputLimitBytes: number;
  stdoutLimitBytes?: number;
  signal?: AbortSignal;
  /** Grace between SIGTERM and SIGKILL when the run is stopped. */
  killGraceMs?: number;
}

// Process facts for tests that check nothing of a check survives it (Linux /proc).
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { findProcesses } from '../../src/core/verify/containment';
import { REPO } from './fixtures';

/** Small programs the process tests run as checks. */
export const PROCS = path.join(REPO, 'test', 'fixtures', 'verify', 'procs');

/** Alive means running or sleeping (or dying): a zombie (exited, not yet reaped) is dead. */
export function alive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** Live processes of the warm children (pre-started runners, warm checkers) recorded in `records`. */
export function liveRecorded(records: string): number[] {
  let names: string[] = [];
  try {
    names = readdirSync(records).filter((n) => n.endsWith('.json'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return names.flatMap((n) => findProcesses({ marker: n.replace(/\.json$/, '') }));
}

/** Vitest's output with what differs between two runs of the same command (timings, order of files) taken out. */
export function stableVitestOutput(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => !/Start at|Duration/.test(l))
    .map((l) => l.replace(/\d+(«?)ms/g, 'N$1ms'))
    .sort();
}

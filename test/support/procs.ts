// Process facts for tests that check nothing of a check survives it (Linux /proc).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
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

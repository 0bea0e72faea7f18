// The results file: one JSON line per finished pair, appended as each pair ends (one write of a whole
// line), so a bench killed at any moment leaves every finished pair recorded and nothing half-written
// but, at worst, a last line a kill cut short: reading drops it and repair() truncates it away.
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from 'node:fs';
import * as path from 'node:path';
import type { PairRecord } from './metrics';
import { pairKey } from './plan';

export interface ResultsRead {
  records: PairRecord[];
  /** Bytes of a cut-short last line (0 when the file ends with a whole line). */
  brokenTail: number;
}

export function readResults(file: string): ResultsRead {
  if (!existsSync(file)) return { records: [], brokenTail: 0 };
  const text = readFileSync(file, 'utf8');
  const records: PairRecord[] = [];
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  for (const [i, l] of lines.entries()) {
    if (l.trim() === '') continue;
    try {
      records.push(JSON.parse(l) as PairRecord);
    } catch (e) {
      throw new Error(`${file}:${i + 1}: not a bench result line (${(e as Error).message})`);
    }
  }
  return { records, brokenTail: Buffer.byteLength(last) };
}

/** Cuts a line a kill left unfinished, so the next append starts on a line of its own. */
export function repairResults(file: string): number {
  const { brokenTail } = readResults(file);
  if (brokenTail > 0) truncateSync(file, readFileSync(file).length - brokenTail);
  return brokenTail;
}

export function appendResult(file: string, r: PairRecord): void {
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(r)}\n`);
}

/** The records of `plan`, one per pair (the latest wins: a pair is recorded once unless files were merged twice). */
export function latestByPair(records: readonly PairRecord[], plan: string): Map<string, PairRecord> {
  const out = new Map<string, PairRecord>();
  for (const r of records) if (r.plan === plan) out.set(pairKey(r), r);
  return out;
}

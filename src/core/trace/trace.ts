// Writes the run's events as JSONL, one line each, appended as they happen.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent, TimedEvent } from './events';

export class TraceWriter {
  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
  }

  write(event: RunEvent, ts: Date): TimedEvent {
    const line: TimedEvent = { ts: ts.toISOString(), ...event };
    appendFileSync(this.file, JSON.stringify(line) + '\n');
    return line;
  }
}

export function readTrace(file: string): TimedEvent[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l) as TimedEvent;
      } catch (e) {
        throw new Error(`${file}:${i + 1}: not a JSON trace event: ${(e as Error).message}`);
      }
    });
}

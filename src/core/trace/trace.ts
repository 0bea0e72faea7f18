// Writes the run's events as JSONL, one line each, appended as they happen.
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { redactDeep } from '../secrets';
import type { RunEvent, TimedEvent } from './events';
import { readRegularFileSync } from '../fileText';
import { appendFileNoFollow } from '../atomicWrite';

export class TraceWriter {
  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
  }

  /** Appends the event with every secret's value redacted, and returns it so (for the panel and printer too). */
  write(event: RunEvent, ts: Date): TimedEvent {
    const line: TimedEvent = redactDeep({ ts: ts.toISOString(), ...event });
    // Never through a link at the trace's name: a trace that is not a regular file is an error.
    appendFileNoFollow(this.file, JSON.stringify(line) + '\n');
    return line;
  }
}

export function readTrace(file: string): TimedEvent[] {
  return readRegularFileSync(file)
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

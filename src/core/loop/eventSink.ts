// Where a run's events go: the trace first, then the front end. A storage that refuses writes (a
// full disk) must not keep the run from restoring the workspace: the fault is remembered, the front
// end still hears the event, and the loop stops with `error` at its next turn.
import type { RunEvent, TimedEvent } from '../trace/events';
import { TraceWriter } from '../trace/trace';

export class EventSink {
  private readonly trace: TraceWriter;
  /** Why the storage refused a write, once it has. */
  fault: string | undefined;

  constructor(
    tracePath: string,
    private readonly now: () => number,
    private readonly onEvent?: (e: TimedEvent) => void,
  ) {
    this.trace = new TraceWriter(tracePath);
  }

  emit(e: RunEvent): void {
    const ts = new Date(this.now());
    let timed: TimedEvent;
    try {
      timed = this.trace.write(e, ts);
    } catch (err) {
      timed = { ts: ts.toISOString(), ...e } as TimedEvent;
      this.fault ??= `the run's storage refused a write (${err instanceof Error ? err.message : String(err)})`;
    }
    this.onEvent?.(timed);
  }
}

// The run's wall clock: time elapsed, the pauses between a stop and a continue (which the time
// limit does not count), and the timer that aborts in-flight work when the limit is reached. What a
// cancel or the limit *decides* is the policy's (interruptDecision); this only measures.
import { interruptDecision } from '../policy/policy';
import type { Decision } from '../policy/reasons';

/** setTimeout fires at once for delays above 2^31-1 ms (~24.8 days): longer waits are chunked. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export class RunClock {
  private startedAt = 0;
  private pausedMs = 0;
  private stoppedAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly now: () => number,
    private readonly timeLimitMs: number,
  ) {}

  start(): void {
    this.startedAt = this.now();
  }

  elapsed(): number {
    return this.now() - this.startedAt - this.pausedMs;
  }

  get limitMs(): number {
    return this.timeLimitMs;
  }

  /** The run stopped: the time until `resume()` is not counted. The timer is disarmed. */
  pause(): void {
    this.disarm();
    this.stoppedAt = this.now();
  }

  resume(): void {
    if (this.stoppedAt !== undefined) this.pausedMs += this.now() - this.stoppedAt;
    this.stoppedAt = undefined;
  }

  /** Calls `onLimit` once the time limit is reached, however far away it is. */
  arm(onLimit: () => void): void {
    this.disarm();
    const tick = (): void => {
      const left = this.timeLimitMs - this.elapsed();
      if (left <= 0) {
        this.timer = undefined;
        onLimit();
        return;
      }
      this.timer = setTimeout(tick, Math.min(left, MAX_TIMER_MS));
    };
    const left = this.timeLimitMs - this.elapsed();
    this.timer = setTimeout(tick, Math.max(0, Math.min(left, MAX_TIMER_MS)));
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Whether in-flight work must end: a cancel, or the time limit (`limitFired` when the timer
   * already aborted the work, so a timer that fired a hair early still counts as the limit).
   */
  interruption(cancelled: boolean, limitFired: boolean, stepsDone: number): Decision | undefined {
    const elapsedMs = limitFired ? Math.max(this.elapsed(), this.timeLimitMs) : this.elapsed();
    const d = interruptDecision({ cancelled, elapsedMs, timeLimitMs: this.timeLimitMs, stepsDone });
    if (d?.reason === 'time-limit') return { ...d, detail: `${d.detail}; the in-flight work was aborted` };
    return d;
  }
}

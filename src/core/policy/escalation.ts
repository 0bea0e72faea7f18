// Escalation (DESIGN §3): a stop in `escalateOn` does not end a run that has another model on its
// ladder; the run goes on with that model. Pure: the decision, the settings and the ladder in, the
// answer out.
import type { EscalationReason } from '../settings';
import type { Decision } from './reasons';

/** Whether `stop` hands the run to the next model: its reason is one to escalate on, and a model is left. */
export function escalates(stop: Decision, escalateOn: readonly EscalationReason[], rungsLeft: number): boolean {
  return rungsLeft > 0 && (escalateOn as readonly string[]).includes(stop.reason);
}

/** What the next model is told about the one before it, in the feedback block of its first prompt. */
export function handoverNote(from: string, stop: Decision): string {
  return (
    `Another model (${from}) worked on this before you and stopped with ${stop.reason}: ${stop.detail}. ` +
    'Its edits and post-mortems are what the workspace and the notes above show; do not repeat what it tried, take a different approach.'
  );
}

// What the next prompt tells the model about the step before it, computed from that step's values
// by pure functions: nothing here is accumulated in a mutable string from many places.
import type { ProviderReplyError } from '../model/provider';
import type { SelfReport } from '../policy/selfReport';

/** What the model is told about a reply that carried nothing usable. */
export function replyFeedback(e: ProviderReplyError): string {
  const advice =
    e.problem === 'truncated'
      ? 'Keep the reply short: the three header lines, then only the edits, no explanations and no unchanged code.'
      : e.problem === 'not-text'
        ? 'Answer in plain text: the three header lines, then the edits.'
        : 'Answer with the three header lines, then the edits.';
  return `Your previous reply could not be used: ${e.message}. ${advice}`;
}

export interface Reconciled {
  /** For STATUS done or blocked: whether the verifier agreed (done: green; blocked: not green). */
  agreed: boolean | null;
  /** What the loop did with the report, for the trace. */
  note: string | null;
  /** What the next prompt must say about the self-report. */
  notes: string[];
}

/** The model's STATUS and header against what the checks observed: the verifier decides. */
export function reconcileSelfReport(self: SelfReport, green: boolean, failureCount: number): Reconciled {
  const notes: string[] = [];
  let agreed: boolean | null = null;
  let note: string | null = null;
  if (self.status === 'done') {
    agreed = green;
    if (!green) {
      note = `STATUS: done was rejected: the checks still report ${failureCount} failure(s).`;
      notes.push(note);
    } else note = 'STATUS: done confirmed by the checks';
  } else if (self.status === 'blocked') {
    agreed = !green;
    note = green ? 'STATUS: blocked ignored: the checks pass' : 'STATUS: blocked with failures remaining';
  }
  if (self.problems.length > 0) {
    notes.push(`The header of your reply could not be read fully (${self.problems.join('; ')}). Start every reply with STATUS, CONFIDENCE and POSTMORTEM lines.`);
  }
  return { agreed, note, notes };
}

/** The facts of a step's edit that the next prompt reports on. */
export interface EditFacts {
  /** The edit reached the disk (and was verified). */
  written: boolean;
  /** A critic's retry undid it (or refused it before it was written). */
  rolledBack: boolean;
  criticStopped: boolean;
  /** Why the edit was not applied, or was rolled back. */
  error: string | null;
}

/** What the next prompt says about a step's edit. */
export function editNotes(e: EditFacts): string[] {
  if (e.written) return e.rolledBack && e.error ? [e.error] : [];
  if (e.rolledBack || e.criticStopped) return e.error ? [e.error] : [];
  return [`Your edits were not applied, so nothing changed:\n${e.error ?? 'no edits found in the reply'}`];
}

/**
 * The feedback block of the next prompt: a note about where a resumed run starts wins over the last
 * step's notes (the workspace changed since that step), else the last step's notes.
 */
export function nextFeedback(lastStepNotes: readonly string[] | undefined, resumeNote: string | undefined): string | undefined {
  if (resumeNote) return resumeNote;
  const text = (lastStepNotes ?? []).join('\n');
  return text === '' ? undefined : text;
}

// The questions that guard the actions that discard work (issue 40): Revert run, Revert to best and
// Undo all ask every time, naming how many files they write, not only while files wait for Keep or
// Undo. No `vscode` import: the unit tests read the words; commands.ts shows them as modals.
import type { RunState } from './runState';
import { pendingFiles } from './reviewState';

export interface Question {
  /** The modal's message: what the action will do, in one sentence. */
  message: string;
  /** The smaller text under it: what is kept, what waits for a decision. */
  detail: string;
  /** The one button that goes ahead (Cancel is the modal's own). */
  confirm: string;
}

function files(n: number): string {
  return n === 1 ? '1 file' : `${n} files`;
}

/** Up to three names, then how many more. */
export function someNames(paths: readonly string[]): string {
  return paths.slice(0, 3).join(', ') + (paths.length > 3 ? ` and ${paths.length - 3} more` : '');
}

/** The files a run wrote: the review's (the original against the disk now), else every applied step's. */
export function touchedFiles(st: RunState): string[] {
  if (st.review && st.review.files.length > 0) return st.review.files.map((f) => f.path);
  // An agent's session our hooks gate: the files its edit tools wrote (the session's Revert puts them back).
  if (st.session) return [...new Set(st.session.touched)];
  const out = new Set<string>();
  for (const s of st.steps) if (s.applied || s.rolledBack) for (const f of s.files) out.add(f.path);
  return [...out];
}

function pendingNote(st: RunState): string {
  const pending = pendingFiles(st.review);
  return pending.length === 0 ? '' : ` ${files(pending.length)} still ${pending.length === 1 ? 'waits' : 'wait'} for Keep or Undo (${someNames(pending)}).`;
}

function what(touched: readonly string[], who: string): string {
  if (touched.length === 0) return `Every file ${who} wrote goes`;
  if (touched.length === 1) return `The file ${who} wrote (${touched[0]}) goes`;
  return `All ${touched.length} files ${who} wrote (${someNames(touched)}) go`;
}

export function revertRunQuestion(st: RunState): Question {
  const touched = touchedFiles(st);
  const green = st.stopReason === 'green';
  // An agent's session is said as the panel's own button says it (Revert session), with the agent's files.
  const session = st.session ? { noun: 'session', who: 'the agent', confirm: 'Revert Session' } : { noun: 'run', who: 'it', confirm: 'Revert Run' };
  return {
    // "Every file … goes back to what it was": the sentence's number follows its subject, as said.
    message: `Revert the ${session.noun}? ${what(touched, session.who)} back to what ${touched.length <= 1 ? 'it was' : 'they were'} before the ${session.noun}${green ? `, and the fix goes with ${touched.length <= 1 ? 'it' : 'them'}` : ''}.`,
    detail: `A file you changed since the ${session.noun} is left alone.${pendingNote(st)}`,
    confirm: session.confirm,
  };
}

export function revertToBestQuestion(st: RunState): Question {
  const touched = touchedFiles(st);
  const best = st.bestStep ?? 0;
  const to = best === 0 ? 'what they were before the run' : `what they were after step ${best}`;
  return {
    message: `Revert to the best step? The ${files(touched.length)} the run wrote go back to ${to}.`,
    detail: `A file you changed since the run is left alone.${pendingNote(st)}`,
    confirm: 'Revert to Best',
  };
}

/** Undo all in the review: asked when it puts back more than one file (one file's Undo is its own row's button). */
export function undoAllQuestion(pending: readonly string[]): Question | null {
  if (pending.length < 2) return null;
  return {
    message: `Undo all ${pending.length} files? Each goes back to what it was before the run (${someNames(pending)}).`,
    detail: 'A file you changed since the run is left alone.',
    confirm: 'Undo All',
  };
}

/** "Run again" only after a run that ran; a folder whose start was refused before any run is offered the Run itself (issue 40). */
export function runAgainLabel(st: { status: string; runId: string | null }): string {
  return st.runId !== null && st.status === 'stopped' ? 'Run again' : 'Run Fix Until Green';
}

/**
 * The sentence after a revert (the notification): which files went back, and to what, its number
 * agreeing with its subject ("1 file … to what it was", never "1 file to their original bytes"),
 * and the thing reverted named as the panel names it (run or session), never by its run id.
 */
export function restoredSentence(paths: readonly string[], noun: 'run' | 'session', bestStep?: number): string {
  const to = (one: boolean): string => `${one ? 'what it was' : 'what they were'} ${bestStep === undefined ? `before the ${noun}` : bestStep === 0 ? 'before the run' : `after step ${bestStep}`}`;
  if (paths.length === 0) return `nothing to restore: every file the ${noun} wrote already holds ${bestStep === undefined ? `what it had before the ${noun}` : bestStep === 0 ? 'what it had before the run' : `what it had after step ${bestStep}`}`;
  if (paths.length === 1) return `restored ${paths[0]} to ${to(true)}`;
  return `restored ${paths.length} files (${someNames(paths)}) to ${to(false)}`;
}

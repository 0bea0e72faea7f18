// Where the panel puts the keyboard when it takes the focus (Show Panel, or the panel coming back):
// on what the user most likely wants next, never on an action that discards work. One Enter on a
// focused Revert run used to undo every file a green run wrote (issue 40): the panel's "first
// enabled button" was Revert run. No `vscode` import: the webview bundle and the unit tests use it.
import type { RunState } from './runState';
import { canContinue } from './runState';
import { pendingFiles } from './reviewState';

/** The panel's controls that discard work: the focus never lands on them by itself. */
export const DESTRUCTIVE_SELECTORS: readonly string[] = ['[data-action="revertRun"]', '[data-action="revertToBest"]', '[data-testid="review-undo-all"]', '.review-undo'];

/**
 * The elements to try, best first; the panel focuses the first one present and enabled. After a
 * stop: the review's first pending file (its diff), Continue, the stop sentence (focusable, read by
 * screen readers as the answer). While running: the phase line. With no run: Run.
 */
export function focusOrder(st: RunState | null): string[] {
  // A refused start: its first fix (Set API Key, Choose Model…), then Run.
  if (st?.refused && st.status !== 'running') return ['[data-testid="refusal-fix"]', '[data-action="run"]', ...focusOrder({ ...st, refused: null })];
  if (!st || (st.status === 'idle' && !st.session)) return ['[data-action="run"]', '[data-testid="checks-sentence"]'];
  if (st.session) return ['[data-testid="session-sentence"]', '[data-testid="step-row"]'];
  if (st.status === 'running') return ['[data-testid="phase"]', '[data-testid="step-row"]'];
  const order: string[] = [];
  if (st.review && pendingFiles(st.review).length > 0) order.push('[data-testid="review-file"][data-decision="pending"] .review-name');
  if (canContinue(st)) order.push('[data-action="continue"]');
  // A check pass after the stop leads the header in place of the stop sentence.
  order.push('[data-testid="checks-sentence"]', '[data-testid="stop-sentence"]');
  return order;
}

// The panel's message protocol, shared by the extension host (panelHost.ts) and the webview
// (media/panel.ts). Both sides check every message they receive with these guards: a webview is
// another process and a message is untrusted input. No `vscode` or Node import here.
import type { CommandId } from './commandIds';
import type { RunState } from './runState';

export const PANEL_VIEW_TYPE = 'fixUntilGreen.panel';

/** Buttons in the panel, each mapped to the command of the same name (`run` and `chooseModel`: the empty panel's). */
export const PANEL_ACTIONS = ['stop', 'continue', 'revertRun', 'revertToBest', 'exportTrace', 'run', 'chooseModel'] as const;
export type PanelAction = (typeof PANEL_ACTIONS)[number];

/** Buttons that start something with its own UI (the instruction box, the model's quick inputs): the panel does not wait for them, so Stop stays live through the run they start. */
export const PANEL_LAUNCHES: ReadonlySet<PanelAction> = new Set<PanelAction>(['run', 'chooseModel']);

/** The registered command a button runs, with the panel's folder as its argument: one path for both. */
export const PANEL_ACTION_COMMANDS = {
  stop: 'fixUntilGreen.stop',
  continue: 'fixUntilGreen.continue',
  revertRun: 'fixUntilGreen.revertRun',
  revertToBest: 'fixUntilGreen.revertToBest',
  exportTrace: 'fixUntilGreen.exportTrace',
  run: 'fixUntilGreen.run',
  chooseModel: 'fixUntilGreen.chooseModel',
} as const satisfies Record<PanelAction, CommandId>;

/** What the review's buttons ask of a changed file (or of every pending file when `path` is null). */
export const REVIEW_ACTIONS = ['diff', 'keep', 'undo'] as const;
export type ReviewAction = (typeof REVIEW_ACTIONS)[number];

/** Host → webview. */
export type ToWebview =
  | { type: 'state'; state: RunState | null; now: number }
  | { type: 'busy'; action: PanelAction | null };

/** Webview → host. */
export type FromWebview =
  | { type: 'ready' }
  | { type: 'action'; action: PanelAction; folder: string | null }
  | { type: 'openDiff'; step: number; folder: string | null }
  | { type: 'review'; action: ReviewAction; path: string | null; folder: string | null }
  /** A refused start's fix (RunState.refused), by its index there: the host does what the notification's button does. */
  | { type: 'fix'; index: number; folder: string | null };

/** What the webview keeps with `setState` so a reload or a restart shows the last run at once. */
export interface PersistedPanelState {
  version: 1;
  state: RunState | null;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function isFolder(x: unknown): x is string | null {
  return x === null || typeof x === 'string';
}

export function isPanelAction(x: unknown): x is PanelAction {
  return typeof x === 'string' && (PANEL_ACTIONS as readonly string[]).includes(x);
}

export function isFromWebview(x: unknown): x is FromWebview {
  if (!isObject(x)) return false;
  switch (x.type) {
    case 'ready':
      return true;
    case 'action':
      return isPanelAction(x.action) && isFolder(x.folder);
    case 'openDiff':
      return typeof x.step === 'number' && Number.isInteger(x.step) && x.step >= 1 && isFolder(x.folder);
    case 'review':
      return typeof x.action === 'string' && (REVIEW_ACTIONS as readonly string[]).includes(x.action) && (x.path === null || (typeof x.path === 'string' && x.path !== '')) && isFolder(x.folder);
    case 'fix':
      return typeof x.index === 'number' && Number.isInteger(x.index) && x.index >= 0 && x.index < 8 && isFolder(x.folder);
    default:
      return false;
  }
}

/** Checks the fields the webview reads; a state that lacks them is not drawn. */
export function isRunState(x: unknown): x is RunState {
  if (!isObject(x)) return false;
  const l = x.limits;
  return (
    typeof x.folder === 'string' &&
    (x.status === 'idle' || x.status === 'running' || x.status === 'stopped') &&
    isObject(l) &&
    typeof l.maxSteps === 'number' &&
    typeof l.tokenCeiling === 'number' &&
    typeof l.timeLimitSeconds === 'number' &&
    typeof x.step === 'number' &&
    typeof x.tokensUsed === 'number' &&
    typeof x.elapsedMs === 'number' &&
    Array.isArray(x.steps) &&
    Array.isArray(x.failuresPerStep) &&
    Array.isArray(x.remainingFailures)
  );
}

export function isToWebview(x: unknown): x is ToWebview {
  if (!isObject(x)) return false;
  switch (x.type) {
    case 'state':
      return (x.state === null || isRunState(x.state)) && typeof x.now === 'number';
    case 'busy':
      return x.action === null || isPanelAction(x.action);
    default:
      return false;
  }
}

export function isPersistedPanelState(x: unknown): x is PersistedPanelState {
  return isObject(x) && x.version === 1 && (x.state === null || isRunState(x.state));
}

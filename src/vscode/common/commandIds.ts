// The commands of DESIGN §7 (public ids), in manifest order. No `vscode` import: the manifest test reads it.
export const COMMAND_IDS = [
  'fixUntilGreen.run',
  'fixUntilGreen.stop',
  'fixUntilGreen.showPanel',
  'fixUntilGreen.continue',
  'fixUntilGreen.revertRun',
  'fixUntilGreen.revertToBest',
  'fixUntilGreen.runChecks',
  'fixUntilGreen.setApiKey',
  'fixUntilGreen.exportTrace',
  'fixUntilGreen.review',
  'fixUntilGreen.chooseModel',
] as const;

export type CommandId = (typeof COMMAND_IDS)[number];

/** Registered apart from the run's commands (src/vscode/gateAgentMode.ts, issue 30). */
export const GATE_AGENT_MODE_COMMAND = 'fixUntilGreen.gateAgentMode';

/** Registered apart from the run's commands (src/vscode/benchCommand.ts, issue 38). */
export const BENCH_COMMAND = 'fixUntilGreen.benchmarkModels';
/** The bench report's trace links run this (a webview without scripts can only follow a command link): internal, the trace's path as argument. */
export const BENCH_OPEN_TRACE_COMMAND = 'fixUntilGreen.bench.openTrace';

/** The panel's buttons for a refused start's fixes: internal, the folder and the fix's index in the refusal as arguments. */
export const PANEL_FIX_COMMAND = 'fixUntilGreen.panel.fix';

/** The Keep and Undo buttons of an `@fix` response: internal (not in the palette), the folder as argument. */
export const CHAT_KEEP_COMMAND = 'fixUntilGreen.chat.keep';
export const CHAT_UNDO_COMMAND = 'fixUntilGreen.chat.undo';

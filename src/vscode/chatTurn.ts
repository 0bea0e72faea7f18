// An `@fix` turn once the shell's participant (chatParticipant.ts) has the folder's controller: the
// run or the check pass with its steps streamed into the response, and the closing sentence with the
// changed files' Keep and Undo. In the engine bundle: every turn runs the checks or a run, which load
// it anyway, so no window pays for these words at startup. Refusals are thrown by the shell's parts
// (the gate host, the controller) and caught there: their classes are the shell's.
import * as vscode from 'vscode';
import type { ChecksToolResult } from '../core/gate/tools';
import type { RunReport, TimedEvent } from '../core/trace/events';
import { CHAT_KEEP_COMMAND as KEEP_COMMAND, CHAT_UNDO_COMMAND as UNDO_COMMAND } from './common/commandIds';
import type { PreparedRun } from '../core/launch';
import type { Settings } from '../core/settings';
import type { VerifyResult } from '../core/types';
import type { RunController, RunExtras } from './controller';
import { CHAT_FAILURES_SHOWN, chatFailure, checksHead, checksProgress, flakyNote, placeOf, plural, stepLine, stopMarkdown, workingLine } from './common/chatWords';
import { VscodeLmProvider } from './lmProvider';
import { pendingFiles } from './common/reviewState';
import { canContinue, canRevert } from './common/runState';

/** What a response leaves for its follow-ups. */
export interface FixChatResult extends vscode.ChatResult {
  metadata: { command: string; folder?: string; stopReason?: string; canContinue?: boolean; refused?: string };
}

/** What a turn asks of the shell's gate host (gateHost.ts): the check pass, the prepared run, the folder's settings. */
export interface TurnHost {
  /** The check pass as the tools count it, and what the checks found (the failures a person reads). */
  checkPass(c: RunController, signal?: AbortSignal): Promise<{ result: ChecksToolResult; verify: VerifyResult }>;
  prepare(c: RunController, extras: RunExtras): Promise<PreparedRun>;
  settings(c: RunController): Settings;
}

/** The turn of `command` (`checks`, `continue`, else a fix) in `c`'s folder. */
export function chatTurn(command: string, host: TurnHost, c: RunController, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<FixChatResult> {
  if (command === 'checks') return checks(host, c, stream, token);
  if (command === 'continue') return continueRun(host, c, stream, token);
  return fix(host, c, request, stream, token);
}

/**
 * Streams a run's events as a short list of steps, as an agent's response reads: what the checks
 * found before any edit, then each step's files and what is left. No run id, no identity hash.
 */
export class StepStreamer {
  private files = new Map<number, string[]>();
  private notApplied = new Map<number, string>();

  constructor(private readonly stream: vscode.ChatResponseStream) {}

  // Only markdown: the Chat view folds progress messages, and the markdown between them, into a
  // collapsed "Completed N steps" section, which would hide the first check's line.
  on(e: TimedEvent): void {
    switch (e.type) {
      case 'run-start':
        this.stream.markdown(`${workingLine(e)}\n\n`);
        return;
      case 'edit':
        if (e.applied) this.files.set(e.step, e.files.map((f) => f.path));
        else if (!e.rolledBack) this.notApplied.set(e.step, e.errors[0] ?? 'not applied');
        return;
      case 'verify':
        this.stream.markdown(`${this.verifyLine(e)}\n`);
        return;
      default:
        return;
    }
  }

  private verifyLine(e: Extract<TimedEvent, { type: 'verify' }>): string {
    return stepLine(e, this.files.get(e.step), this.notApplied.get(e.step));
  }
}

async function checks(host: TurnHost, c: RunController, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<FixChatResult> {
  stream.progress(`Running the checks of ${c.folderName}…`);
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled')));
  let pass: { result: ChecksToolResult; verify: VerifyResult };
  try {
    pass = await host.checkPass(c, abort.signal);
  } finally {
    sub.dispose();
  }
  streamChecks(c.folder, pass.result, pass.verify, stream);
  return { metadata: { command: 'checks', folder: c.folder } };
}

/**
 * A check pass as a person reads it (issue 40), in the shape of the run's answer: how many failures
 * and where, each failure by its values and place with a link to the file, and Show Problems. The
 * identity hash, the seen counter's dialect and the compact report stay the tools' (lmTools.ts).
 */
function streamChecks(folder: string, r: ChecksToolResult, v: VerifyResult, stream: vscode.ChatResponseStream): void {
  const progress = checksProgress(r.progress, r.attemptsAgo);
  stream.markdown(`${checksHead(v)}${progress ? ` ${progress}` : ''}\n\n`);
  const parsers = new Map(v.checks.map((x) => [x.name, x.parser]));
  for (const f of v.failures.slice(0, CHAT_FAILURES_SHOWN)) {
    const cf = chatFailure(f, parsers.get(f.check));
    stream.markdown('- ');
    if (cf.file) {
      const uri = vscode.Uri.file(`${folder}/${cf.file}`);
      stream.anchor(cf.line ? new vscode.Location(uri, new vscode.Position(cf.line - 1, Math.max(0, (cf.column ?? 1) - 1))) : uri, placeOf(cf));
      stream.markdown(` ${cf.text}\n`);
    } else stream.markdown(`${cf.text}\n`);
  }
  const more = v.failures.length - CHAT_FAILURES_SHOWN;
  const notes = [more > 0 ? `${plural(more, 'more failure')} in the Problems panel.` : '', flakyNote(r.flakyCount)].filter((s) => s !== '');
  if (notes.length > 0) stream.markdown(`\n${notes.join(' ')}\n`);
  if (!r.green) stream.button({ command: 'workbench.actions.view.problems', title: 'Show Problems' });
}

async function fix(host: TurnHost, c: RunController, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<FixChatResult> {
  // The chat's selected model proposes the edits: no model setting or key is needed for it.
  const provider = new VscodeLmProvider(request.model);
  const prepared = await host.prepare(c, { provider, frontEnd: 'vscode-chat' });
  const report = await follow(c, stream, token, () => c.run(prepared, request.prompt.trim()));
  return stopped(c, report, stream, 'fix');
}

async function continueRun(host: TurnHost, c: RunController, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<FixChatResult> {
  const settings = host.settings(c);
  const extra = { extraSteps: settings.maxSteps, extraTokens: settings.tokenCeiling };
  stream.markdown(`Continuing with ${plural(extra.extraSteps, 'more step')} and ${extra.extraTokens.toLocaleString('en-US')} more tokens.\n\n`);
  const report = await follow(c, stream, token, () => c.continue(extra));
  return stopped(c, report, stream, 'continue');
}

/** Runs `work` with its events streamed and the chat's Stop wired to the run's. */
async function follow(c: RunController, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, work: () => Promise<RunReport>): Promise<RunReport> {
  const streamer = new StepStreamer(stream);
  const events = c.onEvent((e) => streamer.on(e));
  const stop = token.onCancellationRequested(() => c.stop());
  try {
    return await work();
  } finally {
    stop.dispose();
    events.dispose();
  }
}

/** One closing sentence, the changed files with Keep and Undo, and the details behind a button. */
function stopped(c: RunController, r: RunReport, stream: vscode.ChatResponseStream, command: string): FixChatResult {
  stream.markdown(stopMarkdown(r, c.state.held ?? null, c.state.modelNames));
  const pending = pendingFiles(c.state.review);
  if (pending.length > 0) {
    stream.markdown(`\n${pending.length === 1 ? 'Changed file' : `${pending.length} changed files`}: `);
    for (const f of pending) stream.anchor(vscode.Uri.file(`${c.folder}/${f}`), f);
    stream.markdown('\n\n');
    stream.button({ command: KEEP_COMMAND, arguments: [c.folder], title: 'Keep' });
    stream.button({ command: UNDO_COMMAND, arguments: [c.folder], title: 'Undo' });
  } else if (canRevert(c.state)) stream.button({ command: 'fixUntilGreen.revertRun', arguments: [c.folder], title: 'Revert Run' });
  stream.button({ command: 'fixUntilGreen.showPanel', title: 'Details' });
  return { metadata: { command, folder: c.folder, stopReason: r.stopReason, canContinue: canContinue(c.state) } };
}

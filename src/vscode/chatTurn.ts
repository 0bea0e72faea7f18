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
import type { RunController, RunExtras } from './controller';
import { md, plural, stepLine, stopMarkdown } from './common/chatWords';
import { VscodeLmProvider } from './lmProvider';
import { pendingFiles } from './common/reviewState';
import { canContinue, canRevert } from './common/runState';

/** What a response leaves for its follow-ups. */
export interface FixChatResult extends vscode.ChatResult {
  metadata: { command: string; folder?: string; stopReason?: string; canContinue?: boolean; refused?: string };
}

/** What a turn asks of the shell's gate host (gateHost.ts): the check pass, the prepared run, the folder's settings. */
export interface TurnHost {
  runChecks(c: RunController, signal?: AbortSignal): Promise<ChecksToolResult>;
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
        this.stream.markdown(`Working with ${md(e.model)}, at most ${plural(e.limits.maxSteps, 'step')}.\n\n`);
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
  let r: ChecksToolResult;
  try {
    r = await host.runChecks(c, abort.signal);
  } finally {
    sub.dispose();
  }
  stream.markdown(checksMarkdown(r));
  if (!r.green) stream.button({ command: 'workbench.actions.view.problems', title: 'Show Problems' });
  return { metadata: { command: 'checks', folder: c.folder } };
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
  stream.markdown(stopMarkdown(r, c.state.held ?? null));
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

export function checksMarkdown(r: ChecksToolResult): string {
  const head = r.green ? '**Green:** every check passes.' : `**Not green: ${plural(r.failureCount, 'failure')}.**`;
  return [
    `${head} Failure identity \`${r.failureHash.slice(0, 12)}\`, seen ${plural(r.seen, 'time')} in this session.`,
    '',
    `> ${md(r.verdict)}`,
    '',
    ...r.checks.map((c) => `- ${md(c.name)}: ${c.timedOut ? 'timed out' : plural(c.failures, 'failure')} (exit ${c.exitCode ?? '-'})`),
    ...(r.report ? ['', '```text', r.report.replace(/```/g, '``\u200b`'), '```'] : []),
    '',
  ].join('\n');
}


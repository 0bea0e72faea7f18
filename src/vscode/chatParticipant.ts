// The `@fix` chat participant (id `fixUntilGreen.fix`, DESIGN §7): "@fix make the tests pass" runs
// the loop with the model selected in the Chat view and streams its steps into the response;
// "@fix /checks" runs the checks once (the same seen-counter as the tools); "@fix /continue" resumes
// a run stopped by step-cap or token-ceiling, offered as a follow-up. The run is the folder's
// controller's: the panel, the status bar, Revert and the trace are the same as from the palette.
import * as vscode from 'vscode';
import type { ChecksToolResult } from '../core/gate/tools';
import type { RunReport, TimedEvent } from '../core/trace/events';
import type { RunController } from './controller';
import { explainStop, failureHeadline } from './explain';
import type { GateHost } from './gateHost';
import { GateRefusal, isRefusal } from './gateHost';
import { canContinue, canRevert } from './runState';
import { loadEngine } from './shellEngine';

export const PARTICIPANT_ID = 'fixUntilGreen.fix';

/** What a response leaves for its follow-ups. */
export interface FixChatResult extends vscode.ChatResult {
  metadata: { command: string; folder?: string; stopReason?: string; canContinue?: boolean; refused?: string };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Markdown text with the characters that would format escaped (file names, messages). */
function md(s: string): string {
  return s.replace(/[\\`*_{}[\]<>#|]/g, (c) => `\\${c}`);
}

/** Streams a run's events as lines of the response: one line per check pass, progress in between. */
export class StepStreamer {
  private files = new Map<number, string[]>();
  private notApplied = new Map<number, string>();

  constructor(private readonly stream: vscode.ChatResponseStream) {}

  // Only markdown: the Chat view folds progress messages, and the markdown between them, into a
  // collapsed "Completed N steps" section, which would hide the first check's line.
  on(e: TimedEvent): void {
    switch (e.type) {
      case 'run-start':
        this.stream.markdown(`Run \`${e.runId}\` with ${md(e.model)}; checks: ${e.checks.map((c) => md(c.name)).join(', ') || 'none'}; at most ${plural(e.limits.maxSteps, 'step')}.\n\n`);
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
    const result = e.green ? '**green**' : `**${plural(e.failureCount, 'failure')}**`;
    if (e.reason === 'initial') return `- Before any edit: ${result} (identity \`${e.failureHash.slice(0, 12)}\`)`;
    if (e.reason === 'rollback') return `- Step ${e.step}: rolled back, ${result}`;
    const files = this.files.get(e.step);
    const what = files ? `edited ${files.map((f) => `\`${md(f)}\``).join(', ')}` : `no edit applied (${md(this.notApplied.get(e.step) ?? 'none')})`;
    return `- Step ${e.step}: ${what} → ${result} (identity \`${e.failureHash.slice(0, 12)}\`)`;
  }
}

export class FixParticipant {
  constructor(private readonly host: GateHost) {}

  register(extensionUri: vscode.Uri): vscode.Disposable {
    const p = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, context, stream, token) => this.handle(request, context, stream, token));
    p.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
    p.followupProvider = { provideFollowups: (result: FixChatResult) => followups(result) };
    return p;
  }

  async handle(request: vscode.ChatRequest, _context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<FixChatResult> {
    const command = request.command ?? 'fix';
    try {
      this.host.requireTrust();
      const c = this.host.controller(this.host.folder(undefined));
      if (command === 'checks') return await this.checks(c, stream, token);
      if (command === 'continue') return await this.continueRun(c, stream, token);
      return await this.fix(c, request, stream, token);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      stream.markdown(`**Fix Until Green did not run:** ${md(e.message)}`);
      return { metadata: { command, refused: e.message } };
    }
  }

  private async checks(c: RunController, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<FixChatResult> {
    stream.progress(`Running the checks of ${c.folderName}…`);
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled')));
    let r: ChecksToolResult;
    try {
      r = await this.host.runChecks(c, abort.signal);
    } finally {
      sub.dispose();
    }
    stream.markdown(checksMarkdown(r));
    if (!r.green) stream.button({ command: 'workbench.actions.view.problems', title: 'Show Problems' });
    return { metadata: { command: 'checks', folder: c.folder } };
  }

  private async fix(c: RunController, request: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<FixChatResult> {
    // The chat's selected model proposes the edits: no model setting or key is needed for it.
    const provider = (await loadEngine(this.host.logger)).chatModelProvider(request.model);
    const prepared = await this.host.prepare(c, { provider, frontEnd: 'vscode-chat' });
    const report = await this.follow(c, stream, token, () => c.run(prepared, request.prompt.trim()));
    return this.stopped(c, report, stream, 'fix');
  }

  private async continueRun(c: RunController, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<FixChatResult> {
    if (!c.canContinue) throw new GateRefusal(`nothing to continue in ${c.folderName}: only a run of this window stopped by step-cap or token-ceiling can continue`);
    const settings = this.host.settings(c);
    const extra = { extraSteps: settings.maxSteps, extraTokens: settings.tokenCeiling };
    stream.markdown(`Continuing run \`${c.state.runId}\` with ${plural(extra.extraSteps, 'more step')} and ${extra.extraTokens.toLocaleString('en-US')} more tokens.\n\n`);
    const report = await this.follow(c, stream, token, () => c.continue(extra));
    return this.stopped(c, report, stream, 'continue');
  }

  /** Runs `work` with its events streamed and the chat's Stop wired to the run's. */
  private async follow(c: RunController, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, work: () => Promise<RunReport>): Promise<RunReport> {
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

  /** The stop reason in words, its evidence, what is left, and the buttons. */
  private stopped(c: RunController, r: RunReport, stream: vscode.ChatResponseStream, command: string): FixChatResult {
    stream.markdown(stopMarkdown(r));
    stream.button({ command: 'fixUntilGreen.showPanel', title: 'Show Panel' });
    if (canRevert(c.state)) stream.button({ command: 'fixUntilGreen.revertRun', arguments: [c.folder], title: 'Revert Run' });
    return { metadata: { command, folder: c.folder, stopReason: r.stopReason, canContinue: canContinue(c.state) } };
  }
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

export function stopMarkdown(r: RunReport): string {
  const left = r.remainingFailures.slice(0, 5).map((f) => `- ${md(failureHeadline(f))}`);
  if (r.remainingFailures.length > 5) left.push(`- … and ${r.remainingFailures.length - 5} more`);
  return [
    '',
    `**Stopped: \`${r.stopReason}\`** (outcome \`${r.outcome}\`) after ${plural(r.steps.length, 'step')}, ${r.tokensUsed.toLocaleString('en-US')} tokens.`,
    '',
    md(explainStop(r).sentence),
    '',
    // A green stop's detail says what the sentence said; any other stop's is the evidence behind it.
    ...(r.stopReason === 'green' ? [] : [`Evidence: ${md(r.detail)}`]),
    ...(left.length > 0 ? ['', 'Left:', ...left] : []),
    '',
    `Trace: \`${r.tracePath}\``,
    '',
  ].join('\n');
}

export function followups(result: FixChatResult): vscode.ChatFollowup[] {
  if (!result.metadata?.canContinue) return [];
  return [{ prompt: 'continue with more budget', label: 'Continue with more budget', command: 'continue' }];
}

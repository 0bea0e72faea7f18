// The Language Model Tools (DESIGN §7): `fixUntilGreen_runChecks` and `fixUntilGreen_fix`, for
// Copilot's agent mode and any extension's agent. Both go through the folder's controller (the same
// locks, checkpoints, trace, Problems panel and status bar as the palette's commands) and answer in
// the words of src/core/gate/tools.ts, the same as the MCP server's.
import * as vscode from 'vscode';
import type { FixInput, RunChecksInput } from '../core/gate/definitions';
import { FIX_TOOL, readFixInput, readRunChecksInput, RUN_CHECKS_TOOL, ToolInputError } from '../core/gate/definitions';
import type { GateHost } from './gateHost';
import { readWorkspaceText } from '../core/edit/readText';
import { GateRefusal, isRefusal } from './gateHost';
import { loadEngine } from './shellEngine';

function text(s: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);
}

/** An AbortSignal that follows a cancellation token, and its disposal. */
function abortOn(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled')));
  if (token.isCancellationRequested) abort.abort(new Error('cancelled'));
  return { signal: abort.signal, dispose: () => sub.dispose() };
}

/** A refusal or a bad input is the tool's answer (the caller reads why); anything else is a fault. */
function refusalText(tool: string, e: unknown): vscode.LanguageModelToolResult | undefined {
  if (isRefusal(e) || e instanceof ToolInputError) return text(`${tool} did not run: ${e.message}`);
  return undefined;
}

export class RunChecksTool implements vscode.LanguageModelTool<RunChecksInput> {
  constructor(private readonly host: GateHost) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<RunChecksInput>): vscode.PreparedToolInvocation {
    // Read-only, like the Run Checks command: no confirmation.
    return { invocationMessage: `Running the checks${options.input?.folder ? ` of ${options.input.folder}` : ''} (Fix Until Green)` };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<RunChecksInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const abort = abortOn(token);
    try {
      const input = readRunChecksInput(options.input);
      this.host.requireTrust();
      const c = this.host.controller(this.host.folder(input.folder));
      const r = await this.host.runChecks(c, abort.signal);
      return text((await loadEngine(this.host.logger)).formatChecksToolResult(r));
    } catch (e) {
      const refused = refusalText(RUN_CHECKS_TOOL, e);
      if (refused) return refused;
      this.host.logger.error(`${RUN_CHECKS_TOOL}: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    } finally {
      abort.dispose();
    }
  }
}

export class FixTool implements vscode.LanguageModelTool<FixInput> {
  constructor(private readonly host: GateHost) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<FixInput>): vscode.PreparedToolInvocation {
    let where = 'the workspace';
    let input: FixInput = {};
    try {
      input = readFixInput(options.input);
      const f = this.host.folder(input.folder);
      where = f.name;
    } catch (e) {
      // A bad input or folder is said by invoke; the confirmation still shows what was asked.
      if (!(e instanceof GateRefusal || e instanceof ToolInputError)) throw e;
      where = options.input?.folder ?? where;
    }
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`Fix Until Green will run a fix loop in **${where}**: a model proposes edits, your own checks verify each one, and the run stops by itself `);
    md.appendMarkdown(`(at most ${input.maxSteps ?? 'the configured number of'} steps). Changed files are checkpointed: **Revert Run** restores them.`);
    if (input.instruction) md.appendMarkdown(`\n\nInstruction: ${input.instruction}`);
    return {
      invocationMessage: `Fixing ${where} until the checks pass (Fix Until Green)`,
      confirmationMessages: { title: 'Run Fix Until Green?', message: md },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<FixInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    try {
      const input = readFixInput(options.input);
      this.host.requireTrust();
      const c = this.host.controller(this.host.folder(input.folder));
      const prepared = await this.host.prepare(c, { frontEnd: 'vscode-tool' }, input.maxSteps);
      const stop = token.onCancellationRequested(() => c.stop());
      let report;
      try {
        report = await c.run(prepared, input.instruction ?? '');
      } finally {
        stop.dispose();
      }
      const engine = await loadEngine(this.host.logger);
      return text(engine.formatFixToolResult(engine.fixToolResult(report, { root: c.folder, readText: (rel) => readWorkspaceText(c.folder, rel) })));
    } catch (e) {
      const refused = refusalText(FIX_TOOL, e);
      if (refused) return refused;
      this.host.logger.error(`${FIX_TOOL}: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    }
  }
}

/** Registers both tools; the disposables go onto the extension's subscriptions. */
export function registerGateTools(host: GateHost): vscode.Disposable[] {
  return [vscode.lm.registerTool(RUN_CHECKS_TOOL, new RunChecksTool(host)), vscode.lm.registerTool(FIX_TOOL, new FixTool(host))];
}

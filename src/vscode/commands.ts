// The command handlers of DESIGN §7. Each resolves the folder, asks the controller, and tells the
// user what happened; the engine is reached only through the controller and the ports.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RestoreReport } from '../core/edit/restore';
import { restoreState, revertRun } from '../core/edit/restore';
import { Run } from '../core/loop/run';
import type { ModelProvider } from '../core/model/provider';
import { ProviderFatalError } from '../core/model/provider';
import type { Settings } from '../core/settings';
import type { RunReport, TimedEvent } from '../core/trace/events';
import type { Logger } from '../core/types';
import { resolveChecks } from '../core/verify/discover';
import { Verifier } from '../core/verify/verifier';
import type { RunController, RunControllers } from './controller';
import type { CommandId } from './commandIds';
import { COMMAND_IDS } from './commandIds';
import { chooseFolder, folderStorageDir } from './folders';
import { createModelProvider } from './modelProvider';
import type { PanelAction } from './protocol';
import { bestContents, loadCheckpoint, snapshotFile } from './runFiles';
import type { RunState } from './runState';
import { canContinue, canRevert } from './runState';
import type { ApiKeys } from './secrets';
import { readSettings, reportInvalidSettings } from './settings';
import { VscodeWorkspace } from './vscodeWorkspace';

export interface CommandDeps {
  controllers: RunControllers;
  keys: ApiKeys;
  logger: Logger;
  /** The extension's workspace storage (runs, checkpoints, traces); undefined without a workspace. */
  storageRoot: string | undefined;
  showPanel(): void;
}

export const UNTRUSTED_MESSAGE =
  "Fix Until Green is disabled in Restricted Mode: it runs this workspace's own checks as processes and writes edits to its files. Trust the workspace to use it.";

/** A provider for a run that will stop at preflight: never asked, it says why if it were. */
function unavailableProvider(problem: string): ModelProvider {
  return {
    label: 'unavailable',
    complete: () => Promise.reject(new ProviderFatalError(problem)),
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class Commands {
  constructor(private readonly deps: CommandDeps) {}

  /** Registers every command; the returned disposables go onto the extension's subscriptions. */
  register(): vscode.Disposable[] {
    const handlers: Record<CommandId, () => Promise<unknown>> = {
      'fixUntilGreen.run': () => this.run(),
      'fixUntilGreen.stop': () => this.stop(),
      'fixUntilGreen.showPanel': async () => this.deps.showPanel(),
      'fixUntilGreen.continue': () => this.continueRun(),
      'fixUntilGreen.revertRun': () => this.revertRun(),
      'fixUntilGreen.revertToBest': () => this.revertToBest(),
      'fixUntilGreen.runChecks': () => this.runChecks(),
      'fixUntilGreen.setApiKey': () => this.setApiKey(),
      'fixUntilGreen.exportTrace': () => this.exportTrace(),
    };
    return COMMAND_IDS.map((id) =>
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          await (args.length > 0 && typeof args[0] === 'string' ? this.withFolder(id, args[0]) : handlers[id]());
        } catch (e) {
          this.deps.logger.error(`${id}: ${errorText(e)}`);
          void vscode.window.showErrorMessage(`Fix Until Green: ${errorText(e)}`);
        }
      }),
    );
  }

  /** Panel buttons name the folder they show. */
  async action(action: PanelAction, folder: string | null): Promise<void> {
    const f = folder ?? undefined;
    switch (action) {
      case 'stop':
        await this.stop(f);
        return;
      case 'continue':
        await this.continueRun(f);
        return;
      case 'revertRun':
        await this.revertRun(f);
        return;
      case 'revertToBest':
        await this.revertToBest(f);
        return;
      case 'exportTrace':
        await this.exportTrace(f);
        return;
    }
  }

  private withFolder(id: string, folder: string): Promise<unknown> {
    switch (id) {
      case 'fixUntilGreen.stop':
        return this.stop(folder);
      case 'fixUntilGreen.continue':
        return this.continueRun(folder);
      case 'fixUntilGreen.revertRun':
        return this.revertRun(folder);
      case 'fixUntilGreen.revertToBest':
        return this.revertToBest(folder);
      case 'fixUntilGreen.exportTrace':
        return this.exportTrace(folder);
      default:
        throw new Error(`${id} takes no folder argument`);
    }
  }

  private trusted(): boolean {
    if (vscode.workspace.isTrusted) return true;
    const manage = 'Manage Workspace Trust';
    void vscode.window.showWarningMessage(UNTRUSTED_MESSAGE, manage).then((p) => {
      if (p === manage) void vscode.commands.executeCommand('workbench.trust.manage');
    });
    return false;
  }

  private controllerFor(folder: vscode.WorkspaceFolder): RunController {
    const c = this.deps.controllers.get(folder.uri.fsPath, folder.name);
    this.deps.controllers.setActive(folder.uri.fsPath);
    return c;
  }

  /** A controller matching `test`: the named folder's, else the only match, else the user picks. */
  private async pickController(purpose: string, test: (c: RunController) => boolean, folder?: string, none?: string): Promise<RunController | undefined> {
    const all = this.deps.controllers.all();
    if (folder !== undefined) {
      const c = all.find((x) => x.folder === folder);
      if (c && test(c)) return c;
    } else {
      const matching = all.filter(test);
      const active = this.deps.controllers.active;
      if (active && test(active) && matching.length === 1) return active;
      if (matching.length === 1) return matching[0];
      if (matching.length > 1) {
        const picked = await vscode.window.showQuickPick(
          matching.map((c) => ({ label: c.folderName, description: c.folder, c })),
          { title: `Fix Until Green: ${purpose}`, placeHolder: 'Which workspace folder?' },
        );
        return picked?.c;
      }
    }
    if (none) void vscode.window.showInformationMessage(`Fix Until Green: ${none}`);
    return undefined;
  }

  private storageFor(folder: string): string {
    if (!this.deps.storageRoot) throw new Error('no workspace storage is available: open a folder or workspace first');
    return folderStorageDir(this.deps.storageRoot, folder);
  }

  async run(): Promise<RunReport | undefined> {
    if (!this.trusted()) return undefined;
    const folder = await chooseFolder('Fix Until Green');
    if (!folder) return undefined;
    const ctl = this.controllerFor(folder);
    if (ctl.running) {
      const show = 'Show Panel';
      const stop = 'Stop It';
      const p = await vscode.window.showInformationMessage(`Fix Until Green: a run is already in progress in ${folder.name}.`, show, stop);
      if (p === show) this.deps.showPanel();
      if (p === stop) ctl.stop();
      return undefined;
    }
    // Settings are read once per run: a change during the run applies to the next one.
    const read = readSettings(folder.uri);
    if (!read.ok) {
      this.deps.logger.error(`settings: ${read.message}`);
      await reportInvalidSettings(read, 'the run did not start');
      return undefined;
    }
    const storageDir = this.storageFor(folder.uri.fsPath);
    const instruction = await vscode.window.showInputBox({
      title: `Fix Until Green: ${folder.name}`,
      prompt: 'Optional instruction for the model; press Enter to just make the checks pass.',
      placeHolder: 'e.g. keep the public API unchanged',
      ignoreFocusOut: true,
    });
    if (instruction === undefined) return undefined;
    this.deps.showPanel();
    return this.withProgress(ctl, () =>
      ctl.start(async ({ signal, onEvent }) => this.createRun(folder, read.settings, storageDir, instruction.trim(), signal, onEvent)),
    );
  }

  private async createRun(folder: vscode.WorkspaceFolder, settings: Settings, storageDir: string, instruction: string, signal: AbortSignal, onEvent: (e: TimedEvent) => void): Promise<Run> {
    const root = folder.uri.fsPath;
    const logger = this.deps.logger;
    const choice = await createModelProvider(settings, root, this.deps.keys, logger);
    if (!choice.ok) logger.warn(`model: ${choice.problem}`);
    const { checks, discovered, notes } = resolveChecks(root, settings.checks);
    for (const n of discovered ? notes : []) logger.info(`checks: ${n}`);
    return new Run({
      workspace: new VscodeWorkspace(root, logger),
      verifier: new Verifier({
        root,
        checks,
        parallel: settings.parallelChecks,
        outputLimitKb: settings.outputLimitKb,
        flakyReruns: settings.flakyReruns,
        storageDir,
        logger,
      }),
      provider: choice.ok ? choice.provider : unavailableProvider(choice.problem),
      settings: { ...settings, checks },
      storageDir,
      signal,
      onEvent,
      logger,
      ...(instruction ? { instruction } : {}),
      ...(choice.ok ? {} : { preflightProblems: [choice.problem] }),
    });
  }

  /** Runs `work` under a cancellable progress notification that shows the step and the phase. */
  private async withProgress(ctl: RunController, work: () => Promise<RunReport>): Promise<RunReport | undefined> {
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Fix Until Green (${ctl.folderName})`, cancellable: true },
      async (progress, token) => {
        const cancel = token.onCancellationRequested(() => ctl.stop());
        let last = '';
        const sub = ctl.onDidChange((s) => {
          const msg = s.status === 'running' ? `step ${s.step}/${s.limits.maxSteps}: ${s.phase}` : `stopped: ${s.stopReason ?? ''}`;
          if (msg !== last) progress.report({ message: msg });
          last = msg;
        });
        try {
          return await work();
        } finally {
          sub.dispose();
          cancel.dispose();
        }
      },
    );
    this.announce(ctl, report);
    return report;
  }

  private announce(ctl: RunController, r: RunReport): void {
    const steps = `${r.steps.length} step${r.steps.length === 1 ? '' : 's'}`;
    const tokens = `${r.tokensUsed.toLocaleString('en-US')} tokens`;
    this.deps.logger.info(`run ${r.runId} in ${ctl.folderName} stopped: ${r.stopReason} (${r.outcome}) after ${steps}, ${tokens}: ${r.detail}`);
    const show = 'Show Panel';
    if (r.stopReason === 'green') {
      void vscode.window.showInformationMessage(`Fix Until Green: green in ${ctl.folderName} after ${steps} (${tokens}).`, show).then((p) => {
        if (p === show) this.deps.showPanel();
      });
      return;
    }
    const buttons = canContinue(ctl.state) ? [show, 'Continue'] : [show];
    void vscode.window.showWarningMessage(`Fix Until Green stopped with ${r.stopReason} (${r.outcome}) in ${ctl.folderName}: ${r.detail}`, ...buttons).then((p) => {
      if (p === show) this.deps.showPanel();
      if (p === 'Continue') void this.continueRun(ctl.folder);
    });
  }

  async stop(folder?: string): Promise<void> {
    const c = await this.pickController('Stop', (x) => x.running, folder, 'no run is in progress.');
    if (c?.stop()) this.deps.logger.info(`stop requested in ${c.folderName}`);
  }

  async continueRun(folder?: string): Promise<RunReport | undefined> {
    if (!this.trusted()) return undefined;
    const c = await this.pickController('Continue', (x) => x.canContinue, folder, 'only a run of this session stopped by step-cap or token-ceiling can continue.');
    if (!c) return undefined;
    const read = readSettings(vscode.Uri.file(c.folder));
    if (!read.ok) {
      await reportInvalidSettings(read, 'the run did not continue');
      return undefined;
    }
    // One more budget of the size the settings give a run.
    const extra = { extraSteps: read.settings.maxSteps, extraTokens: read.settings.tokenCeiling };
    this.deps.logger.info(`continuing run ${c.state.runId} in ${c.folderName} with +${extra.extraSteps} steps, +${extra.extraTokens} tokens`);
    this.deps.controllers.setActive(c.folder);
    return this.withProgress(c, () => c.continue(extra));
  }

  private finishedRun(purpose: string, folder?: string): Promise<RunController | undefined> {
    return this.pickController(purpose, (x) => !x.running && canRevert(x.state), folder, 'no finished run with changed files to restore.');
  }

  async revertRun(folder?: string): Promise<void> {
    if (!this.trusted()) return;
    const c = await this.finishedRun('Revert Run', folder);
    if (!c) return;
    const st = c.state;
    const ws = new VscodeWorkspace(c.folder, this.deps.logger, 'Fix Until Green: revert run');
    const report = await revertRun({ workspace: ws, checkpoint: await loadCheckpoint(st.runDir!) });
    c.markReverted('run');
    this.tell(`run ${st.runId}`, report, 'their original bytes');
  }

  async revertToBest(folder?: string): Promise<void> {
    if (!this.trusted()) return;
    const c = await this.finishedRun('Revert to Best Step', folder);
    if (!c) return;
    const st = c.state;
    const best = st.bestStep ?? 0;
    const ws = new VscodeWorkspace(c.folder, this.deps.logger, `Fix Until Green: revert to step ${best}`);
    const report = await restoreState(await bestContents(st.runDir!, st.steps, best), { workspace: ws, checkpoint: await loadCheckpoint(st.runDir!) });
    c.markReverted('best');
    this.tell(`run ${st.runId}`, report, `the state of step ${best}`);
    // The Problems panel shows what the checks say about the restored files.
    const verified = await this.verifyFolder(c, 'Checking the restored state');
    if (verified) this.deps.logger.info(`after the revert to step ${best}: ${verified.failures.length} failure(s)`);
  }

  /** Says what a restore wrote and, loudly, what it left alone because someone else changed it. */
  private tell(what: string, r: RestoreReport, target: string): void {
    const written = r.actions.length;
    this.deps.logger.info(`${what}: ${written} file(s) brought to ${target}; ${r.unchanged.length} already there; ${r.conflicts.length} left alone`);
    for (const x of r.conflicts) this.deps.logger.warn(x.reason);
    const head = written === 0 ? `the files of ${what} already hold ${target}` : `restored ${written} file(s) to ${target}`;
    if (r.conflicts.length === 0) {
      void vscode.window.showInformationMessage(`Fix Until Green: ${head}.`);
      return;
    }
    void vscode.window.showWarningMessage(`Fix Until Green: ${head}; left alone: ${r.conflicts.map((x) => x.reason).join('; ')}`);
  }

  async runChecks(): Promise<void> {
    if (!this.trusted()) return;
    const folder = await chooseFolder('Run Checks');
    if (!folder) return;
    const c = this.controllerFor(folder);
    if (c.running) {
      void vscode.window.showInformationMessage(`Fix Until Green: a run is in progress in ${folder.name}; its checks are already running.`);
      return;
    }
    const v = await this.verifyFolder(c, 'Running checks');
    if (!v) return;
    const show = 'Show Problems';
    if (v.green) {
      void vscode.window.showInformationMessage(`Fix Until Green: all ${v.checks.length} check(s) pass in ${folder.name}.`);
    } else {
      const per = v.checks.filter((x) => x.failures.length > 0 || x.exitCode !== 0).map((x) => `${x.name}: ${x.failures.length}`);
      const p = await vscode.window.showWarningMessage(`Fix Until Green: ${v.failures.length} failure(s) in ${folder.name} (${per.join(', ')}).`, show);
      if (p === show) await vscode.commands.executeCommand('workbench.actions.view.problems');
    }
  }

  /** Verifies the folder once (no model) and puts the failures in the Problems panel. */
  private async verifyFolder(c: RunController, title: string): Promise<Awaited<ReturnType<Verifier['verify']>> | undefined> {
    const read = readSettings(vscode.Uri.file(c.folder));
    if (!read.ok) {
      await reportInvalidSettings(read, 'the checks did not run');
      return undefined;
    }
    const s = read.settings;
    const discovered = resolveChecks(c.folder, s.checks);
    for (const n of discovered.discovered ? discovered.notes : []) this.deps.logger.info(`checks: ${n}`);
    const verifier = new Verifier({ root: c.folder, checks: discovered.checks, parallel: s.parallelChecks, outputLimitKb: s.outputLimitKb, flakyReruns: s.flakyReruns, logger: this.deps.logger });
    const problems = await verifier.preflight();
    if (problems.length > 0) throw new Error(problems.join('; '));
    const v = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Fix Until Green: ${title} in ${c.folderName}`, cancellable: true },
      (_p, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort(new Error('cancelled')));
        return verifier.verify(abort.signal).finally(() => sub.dispose());
      },
    );
    this.deps.logger.info(`checks in ${c.folderName}: ${v.green ? 'green' : `${v.failures.length} failure(s)`} (${v.checks.map((x) => `${x.name} exit ${x.exitCode}`).join(', ')})`);
    c.setRemainingFailures(v.failures);
    return v;
  }

  async setApiKey(): Promise<void> {
    const active = this.deps.controllers.active;
    const folder = active ? vscode.Uri.file(active.folder) : vscode.workspace.workspaceFolders?.[0]?.uri;
    const read = folder ? readSettings(folder) : undefined;
    await this.deps.keys.promptAndStore(read?.ok ? read.settings.model.provider : undefined);
  }

  async exportTrace(folder?: string): Promise<void> {
    const c = await this.pickController('Export Trace', (x) => !x.running && x.state.tracePath !== null, folder, 'no finished run with a trace yet.');
    if (!c) return;
    const st = c.state;
    const target = await vscode.window.showSaveDialog({
      title: 'Fix Until Green: Export Trace',
      defaultUri: vscode.Uri.file(path.join(c.folder, `fix-until-green-${st.runId}.jsonl`)),
      filters: { 'JSON Lines': ['jsonl'] },
      saveLabel: 'Export',
    });
    if (!target) return;
    await vscode.workspace.fs.copy(vscode.Uri.file(st.tracePath!), target, { overwrite: true });
    this.deps.logger.info(`exported the trace of run ${st.runId} to ${target.fsPath}`);
    void vscode.window.showInformationMessage(`Fix Until Green: trace saved to ${target.fsPath}.`);
  }

  /** Opens the diff of one step: VS Code's diff editor for one file, the multi-file view for more. */
  async openStepDiff(step: number, folder: string | null): Promise<void> {
    const c = folder ? this.deps.controllers.find(folder) : this.deps.controllers.active;
    const st: RunState | undefined = c?.state;
    const s = st?.steps.find((x) => x.index === step);
    if (!c || !st || !s) throw new Error(`step ${step} is not part of the run on screen`);
    // A rolled-back step keeps its snapshot: its diff shows what the critics refused.
    if (!s.snapshotDir || s.files.length === 0) {
      void vscode.window.showInformationMessage(`Fix Until Green: step ${step} changed no files${s.feedback ? `: ${s.feedback.split('\n')[0]}` : '.'}`);
      return;
    }
    const side = (which: 'before' | 'after', rel: string): vscode.Uri => vscode.Uri.file(snapshotFile(s.snapshotDir!, which, rel));
    if (s.files.length === 1) {
      const f = s.files[0]!;
      await vscode.commands.executeCommand('vscode.diff', side('before', f.path), side('after', f.path), `Step ${step}: ${f.path} (+${f.added} −${f.removed})`, { preview: true });
      return;
    }
    await vscode.commands.executeCommand(
      'vscode.changes',
      `Fix Until Green: step ${step}`,
      s.files.map((f) => [vscode.Uri.file(path.join(c.folder, ...f.path.split('/'))), side('before', f.path), side('after', f.path)]),
    );
  }
}

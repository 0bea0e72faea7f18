// The command handlers of DESIGN §7, in one table. Each resolves the folder (the argument a panel
// button passes, else the active editor's or the user's pick), asks that folder's controller, and
// tells the user what happened. The engine and the files are the controller's: no handler builds a
// run or writes a file.
import * as path from 'node:path';
import { effectiveBaseUrl, endpointOrigin } from '../core/endpoints';
import * as vscode from 'vscode';
import type { Settings } from '../core/settings';
import type { RunReport } from '../core/trace/events';
import type { Logger } from '../core/types';
import { announceChecks, announceRestore, verifyWithProgress } from './checkNotices';
import type { RunController } from './controller';
import type { RunControllers } from './runControllers';
import type { CommandId } from './common/commandIds';
import { COMMAND_IDS } from './common/commandIds';
import type { FixAction, Problem } from './common/fixActions';
import { actionLabel, settingFix } from './common/fixActions';
import type { PreparedRun } from '../core/launch';
import { isOwnRun, refusalProblem } from './common/refusals';
import { loadEngine } from './shellEngine';
import { withRunProgress } from './runProgress';
import { pendingFiles } from './common/reviewState';
import { ask } from './askModal';
import { folderQuestion } from './common/folderWords';
import { untrustedSentence } from './common/trustWords';
import { CONTINUE_ONLY } from './common/stepWords';
import { restoredSentence, revertRunQuestion, revertToBestQuestion, runAgainLabel } from './common/confirmWords';
import { openReviewDiff } from './reviewUi';
import { registerPanelFix } from './panelFix';
import { storeBaseUrl } from './baseUrlSetting';
import { chooseFolder, showUntrusted } from './folders';
import { canRevert } from './common/runState';
import type { ApiKeys, KeyedProvider } from './secrets';
import { defaultOrigin } from './secrets';
import { resolveInterrupted } from './recovery';
import { readSettings, reportInvalidSettings, settingsSource } from './settings';
import { plural } from './common/chatWords';

export interface CommandDeps {
  controllers: RunControllers;
  keys: ApiKeys;
  logger: Logger;
  /** `focus`: the user asked for the panel, so the keyboard goes to it. */
  showPanel(focus?: boolean): void;
}

export const UNTRUSTED_MESSAGE = untrustedSentence("Fix Until Green runs this workspace's own checks as processes and writes edits to its files");

/** A command's handler; `folder` is the absolute folder path a caller (the panel) names, if any. */
type Handler = (folder: string | undefined) => Promise<unknown>;

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export class Commands {
  /** The one dispatch table: the palette, menus and the panel's buttons all run these. */
  private readonly handlers: Record<CommandId, Handler> = {
    'fixUntilGreen.run': (f) => this.run(f),
    'fixUntilGreen.stop': (f) => this.stop(f),
    'fixUntilGreen.showPanel': async () => this.deps.showPanel(true),
    'fixUntilGreen.continue': (f) => this.continueRun(f),
    'fixUntilGreen.revertRun': (f) => this.revertRun(f),
    'fixUntilGreen.revertToBest': (f) => this.revertToBest(f),
    'fixUntilGreen.runChecks': (f) => this.runChecks(f),
    'fixUntilGreen.setApiKey': () => this.setApiKey(),
    'fixUntilGreen.exportTrace': (f) => this.exportTrace(f),
    'fixUntilGreen.review': (f) => this.review(f),
    'fixUntilGreen.chooseModel': (f) => this.chooseModel(f),
  };

  constructor(private readonly deps: CommandDeps) {}

  /** Registers every command; the returned disposables go onto the extension's subscriptions. */
  register(): vscode.Disposable[] {
    return [registerPanelFix(this.deps.controllers, (a, c) => this.fix(a, c)), ...COMMAND_IDS.map((id) =>
      // A menu passes a Uri or nothing; only a string names a folder.
      vscode.commands.registerCommand(id, async (folder?: unknown) => {
        try {
          await this.handlers[id](typeof folder === 'string' ? folder : undefined);
        } catch (e) {
          this.deps.logger.error(`${id}: ${errorText(e)}`);
          void vscode.window.showErrorMessage(`Fix Until Green: ${errorText(e)}`);
        }
      }),
    )];
  }

  private trusted(): boolean {
    if (vscode.workspace.isTrusted) return true;
    void showUntrusted(UNTRUSTED_MESSAGE);
    return false;
  }

  /** The named folder's controller, else the one of the folder the user means; it becomes the active one. */
  private async folderController(purpose: string, folder: string | undefined): Promise<RunController | undefined> {
    const ws = folder !== undefined ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(folder)) : await chooseFolder(purpose);
    if (!ws) return undefined;
    const c = this.deps.controllers.get(ws.uri.fsPath, ws.name);
    this.deps.controllers.setActive(ws.uri.fsPath);
    return c;
  }

  /** A controller matching `test`: the named folder's, else the only match, else the user picks. */
  private async pickController(purpose: string, test: (c: RunController) => boolean, folder: string | undefined, none: string): Promise<RunController | undefined> {
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
          folderQuestion(purpose, matching.length, 'several-runs'),
        );
        return picked?.c;
      }
    }
    void vscode.window.showInformationMessage(`Fix Until Green: ${none}`);
    return undefined;
  }

  /** The folder's settings, or undefined after telling the user which one is wrong. */
  private async settingsOf(c: RunController, what: string): Promise<Settings | undefined> {
    const read = readSettings(vscode.Uri.file(c.folder));
    if (read.ok) return read.settings;
    this.deps.logger.error(`settings: ${read.message}`);
    await reportInvalidSettings(read, what);
    return undefined;
  }

  async run(folder?: string): Promise<RunReport | undefined> {
    if (!this.trusted()) return undefined;
    const ctl = await this.folderController('Fix Until Green', folder);
    if (!ctl) return undefined;
    // The model and the checks are prepared before the instruction box: nobody types an
    // instruction for a run that cannot start.
    const prepared = await this.prepared(ctl);
    if (!prepared) return undefined;
    const instruction = await vscode.window.showInputBox({
      title: `Fix Until Green: ${ctl.folderName}`,
      prompt: 'Optional instruction for the model; press Enter to just make the checks pass.',
      placeHolder: 'e.g. keep the public API unchanged',
      ignoreFocusOut: true,
    });
    if (instruction === undefined) return undefined;
    this.deps.showPanel();
    return this.withProgress(ctl, () => ctl.run(prepared, instruction.trim()));
  }

  /**
   * The run prepared by the launcher (settings read once: a change during the run applies to the
   * next one), or undefined after wording what refused it: the fix as a button; this window's own
   * run with Show Panel and Stop It; an interrupted run's files with Revert or Keep, then once more.
   */
  private async prepared(ctl: RunController): Promise<PreparedRun | undefined> {
    for (let asked = false; ; asked = true) {
      const launch = await ctl.prepare(settingsSource(vscode.Uri.file(ctl.folder)));
      if (launch.ok) {
        // A cost ceiling over a model without a price: the run would stop at its preflight.
        const unpriced = launch.prepared.problems[0];
        ctl.refuse(unpriced === undefined ? null : settingFix(unpriced, 'model.pricing'));
        if (unpriced === undefined) return launch.prepared;
        void this.offerFix(settingFix(unpriced, 'model.pricing'), ctl);
        return undefined;
      }
      const r = launch.refusal;
      // A new run over files an interrupted one left changed would make that run's revert unsafe.
      if (r.kind === 'interrupted' && !asked && (await resolveInterrupted(ctl, this.deps.logger))) continue;
      const p = refusalProblem(r, { folderName: ctl.folderName, what: 'the run did not start' });
      this.deps.logger.error(`preflight in ${ctl.folderName}: ${p.message}`);
      if (isOwnRun(r)) {
        const show = 'Show Panel';
        const stop = 'Stop It';
        const pick = await vscode.window.showInformationMessage(`Fix Until Green: a run is already in progress in ${ctl.folderName}.`, show, stop);
        if (pick === show) this.deps.showPanel(true);
        if (pick === stop) ctl.stop();
      } else {
        // The panel says why too, with the same buttons (issue 40), not "no run yet".
        ctl.refuse(p);
        void this.offerFix(p, ctl);
      }
      return undefined;
    }
  }

  /** Runs `work` under a cancellable progress notification that shows the step and the phase. */
  private async withProgress(ctl: RunController, work: () => Promise<RunReport>): Promise<RunReport | undefined> {
    const report = await withRunProgress(ctl, work);
    const read = readSettings(vscode.Uri.file(ctl.folder));
    const extra = read.ok ? { steps: read.settings.maxSteps, tokens: read.settings.tokenCeiling } : { steps: report.limits.maxSteps, tokens: report.limits.tokenCeiling };
    // The stop's notification words are the engine bundle's (stopNotice.ts): a run has loaded it.
    (await loadEngine(this.deps.logger)).announceStop(ctl, report, { logger: this.deps.logger, showPanel: () => this.deps.showPanel(true), offerFix: (p, more) => this.offerFix(p, ctl, more), where: this.where(ctl), extra });
    return report;
  }

  /** The folder, named only when the workspace has several. */
  private where(ctl: RunController): string {
    return (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? ` (${ctl.folderName})` : '';
  }

  /** Shows a problem as an error with its fixes as buttons, and does the fix picked; returns the button picked. */
  private async offerFix(p: Problem, ctl: RunController, extra: string[] = []): Promise<string | undefined> {
    const pick = await vscode.window.showErrorMessage(`Fix Until Green${this.where(ctl)}: ${p.message}`, ...p.actions.map(actionLabel), ...extra);
    const action = p.actions.find((a) => actionLabel(a) === pick);
    if (action) await this.fix(action, ctl);
    return pick;
  }

  /** Does the fix picked; a fix that changed what the run needs offers to run (again, when a run of this folder ran). */
  private async fix(a: FixAction, ctl: RunController): Promise<void> {
    const again = runAgainLabel(ctl.state);
    switch (a.kind) {
      case 'setApiKey':
        // The provider the problem named: the key box opens for it, without asking which (issue 40).
        if ((await this.setApiKey([again], a.provider)).picked === again) await this.run(ctl.folder);
        return;
      case 'chooseModel':
        if ((await (await this.setUp()).chooseModel(ctl.folder, this.deps.keys, [again]))?.picked === again) await this.run(ctl.folder);
        return;
      case 'setBaseUrl': {
        const setUp = await this.setUp();
        const stored = await storeBaseUrl(ctl.folder, (current, provider) => setUp.askBaseUrl(current, provider));
        if (stored !== undefined) await this.offerRunAgain(ctl, again, stored);
        return;
      }
      case 'openSetting':
        // `@id:` shows that one setting, not every setting whose text mentions it.
        await vscode.commands.executeCommand('workbench.action.openSettings', `@id:${a.setting}`);
        return;
      case 'confirmEndpoint':
        // Remembered in the extension's global state, never in the workspace the settings came from.
        await this.deps.keys.confirm(a.folder, a.origin);
        void vscode.window.showInformationMessage(`Fix Until Green: ${a.origin} is trusted with your key for ${a.folder}. Run again.`);
        return;
    }
  }

  async stop(folder?: string): Promise<void> {
    const c = await this.pickController('Stop', (x) => x.running, folder, 'no run is in progress.');
    if (c?.stop()) this.deps.logger.info(`stop requested in ${c.folderName}`);
  }

  async continueRun(folder?: string): Promise<RunReport | undefined> {
    if (!this.trusted()) return undefined;
    const c = await this.pickController('Continue', (x) => x.canContinue, folder, `${CONTINUE_ONLY}.`);
    if (!c) return undefined;
    const settings = await this.settingsOf(c, 'the run did not continue');
    if (!settings) return undefined;
    // One more budget of the size the settings give a run.
    const extra = { extraSteps: settings.maxSteps, extraTokens: settings.tokenCeiling };
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
    // Every revert asks first, naming how many files it writes (issue 40: one Enter on a focused
    // button used to undo a green run's whole fix, unasked once every file was kept).
    if (!(await ask(revertRunQuestion(c.state)))) return;
    const report = await c.revertRun();
    announceRestore(this.deps.logger, `run ${c.state.runId}`, report, restoredSentence(report.actions.map((a) => a.path), c.state.session ? 'session' : 'run'));
  }

  async revertToBest(folder?: string): Promise<void> {
    if (!this.trusted()) return;
    const c = await this.finishedRun('Revert to Best Step', folder);
    if (!c) return;
    if (!(await ask(revertToBestQuestion(c.state)))) return;
    const { report, step } = await c.revertToBest();
    announceRestore(this.deps.logger, `run ${c.state.runId}`, report, restoredSentence(report.actions.map((a) => a.path), 'run', step));
    // The Problems panel shows what the checks say about the restored files.
    const settings = await this.settingsOf(c, 'the checks did not run');
    if (!settings) return;
    const verified = await verifyWithProgress(c, settings, 'Checking the restored state', this.deps.logger);
    this.deps.logger.info(`after the revert to step ${step}: ${plural(verified.failures.length, 'failure')}`);
  }

  async runChecks(folder?: string): Promise<void> {
    if (!this.trusted()) return;
    const c = await this.folderController('Run Checks', folder);
    if (!c) return;
    if (c.running) {
      void vscode.window.showInformationMessage(`Fix Until Green: a run is in progress in ${c.folderName}; its checks are already running.`);
      return;
    }
    const settings = await this.settingsOf(c, 'the checks did not run');
    if (settings) await announceChecks(c, await verifyWithProgress(c, settings, 'Running checks', this.deps.logger));
  }

  async setApiKey(offer: readonly string[] = [], provider?: KeyedProvider): Promise<{ stored: boolean; picked?: string }> {
    const active = this.deps.controllers.active;
    const folder = active ? vscode.Uri.file(active.folder) : vscode.workspace.workspaceFolders?.[0]?.uri;
    const read = folder ? readSettings(folder) : undefined;
    const model = read?.ok ? read.settings.model : undefined;
    // The key is stored for the endpoint the settings name (its origin), and sent nowhere else.
    return this.deps.keys.promptAndStore(provider ?? model?.provider, (p) => (model && p === model.provider ? endpointOrigin(effectiveBaseUrl(p, model.baseUrl)) : defaultOrigin(p)), offer, provider !== undefined);
  }

  private async offerRunAgain(ctl: RunController, again: string, what: string): Promise<void> {
    const pick = await vscode.window.showInformationMessage(`Fix Until Green${this.where(ctl)}: ${what}.`, again);
    if (pick === again) await this.run(ctl.folder);
  }

  /** Choose Model… from the palette: the guided set-up for the folder the user means. */
  async chooseModel(folder?: string): Promise<void> {
    const c = await this.folderController('Choose Model', folder);
    if (c) await (await this.setUp()).chooseModel(c.folder, this.deps.keys);
  }

  /** Choose Model…'s set-up (its quick inputs, the servers' model lists) is the engine bundle's: rarely used, never at startup. */
  private setUp(): ReturnType<typeof loadEngine> {
    return loadEngine(this.deps.logger);
  }

  /** The run-wide review: the panel lists the changed files with Keep and Undo; the multi-file diff shows them. */
  async review(folder?: string): Promise<void> {
    const c = await this.pickController('Review Changes', (x) => !x.running && pendingFiles(x.state.review).length > 0, folder, 'the last run left no changes to review.');
    if (!c) return;
    this.deps.controllers.setActive(c.folder);
    this.deps.showPanel();
    await openReviewDiff(c);
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
}

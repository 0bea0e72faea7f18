// What the Language Model Tools and the `@fix` chat participant share: which folder a call means,
// its settings, the workspace-trust refusal, one seen-counter for the window's session, and the
// check pass and run through the folder's controller (so the locks, checkpoints, Problems panel,
// status bar and panel are the same as for the palette's commands). Shell side: the engine bundle
// loads at the first check pass or run, never at activation.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readWorkspaceText } from '../core/edit/readText';
import { SeenCounter } from '../core/gate/seen';
import type { ChecksToolResult } from '../core/gate/tools';
import type { Settings } from '../core/settings';
import type { Logger, VerifyResult } from '../core/types';
import { UNTRUSTED_MESSAGE } from './commands';
import { FolderBusyError, RunInProgressError } from './controller';
import type { RunController, RunExtras } from './controller';
import type { RunControllers } from './runControllers';
import type { PreparedRun } from '../core/launch';
import { refusalProblem } from './common/refusals';
import { resolveInterrupted } from './recovery';
import { readSettings, settingsSource } from './settings';
import { loadEngine } from './shellEngine';
import { plural } from './common/chatWords';

export interface GateDeps {
  controllers: RunControllers;
  logger: Logger;
}

/** A refusal the caller (a model, a chat) reads as the tool's or the participant's answer. */
export class GateRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GateRefusal';
  }
}

/** A refusal a caller reads as the answer: ours, or the controller's (the folder busy with a run or a revert). */
export function isRefusal(e: unknown): e is Error {
  return e instanceof GateRefusal || e instanceof FolderBusyError || e instanceof RunInProgressError;
}

export class GateHost {
  /** Identities seen in this window's session, per folder: what makes "same failures as 2 attempts ago". */
  readonly seen = new SeenCounter();

  constructor(readonly deps: GateDeps) {}

  get logger(): Logger {
    return this.deps.logger;
  }

  /** @throws GateRefusal in Restricted Mode: nothing of the workspace runs until it is trusted. */
  requireTrust(): void {
    if (!vscode.workspace.isTrusted) throw new GateRefusal(UNTRUSTED_MESSAGE);
  }

  /**
   * The folder a call names (an absolute path inside the workspace, or a folder's name), else the
   * active editor's, else the only one. Never asks: a model cannot answer a quick pick.
   */
  folder(named: string | undefined): vscode.WorkspaceFolder {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    if (folders.length === 0) throw new GateRefusal('no workspace folder is open: open the project folder first');
    if (named !== undefined) {
      const byName = folders.find((f) => f.name === named);
      if (byName) return byName;
      const inside = path.isAbsolute(named) ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(named)) : undefined;
      if (inside && inside.uri.scheme === 'file') return inside;
      throw new GateRefusal(`"${named}" is not a workspace folder; the folders are: ${folders.map((f) => `${f.name} (${f.uri.fsPath})`).join(', ')}`);
    }
    const editor = vscode.window.activeTextEditor;
    const own = editor ? vscode.workspace.getWorkspaceFolder(editor.document.uri) : undefined;
    if (own && own.uri.scheme === 'file') return own;
    if (folders.length === 1) return folders[0]!;
    throw new GateRefusal(`this workspace has ${folders.length} folders: name one (${folders.map((f) => f.name).join(', ')})`);
  }

  controller(f: vscode.WorkspaceFolder): RunController {
    const c = this.deps.controllers.get(f.uri.fsPath, f.name);
    this.deps.controllers.setActive(f.uri.fsPath);
    return c;
  }

  settings(c: RunController): Settings {
    const read = readSettings(vscode.Uri.file(c.folder));
    if (!read.ok) throw new GateRefusal(`the settings of ${c.folderName} are not valid: ${read.message}`);
    return read.settings;
  }

  /** One check pass through the folder's controller, counted as an attempt of this session. */
  async runChecks(c: RunController, signal?: AbortSignal): Promise<ChecksToolResult> {
    return (await this.checkPass(c, signal)).result;
  }

  /** A check pass counted as the tools count it, with what the checks found (`@fix /checks` words each failure). */
  async checkPass(c: RunController, signal?: AbortSignal): Promise<{ result: ChecksToolResult; verify: VerifyResult }> {
    if (c.running) throw new GateRefusal(`a Fix Until Green run is in progress in ${c.folderName}; wait for it to stop (its checks are running)`);
    const v = await c.verify(this.settings(c), signal);
    const engine = await loadEngine(this.logger);
    const r = engine.checksToolResult(v, this.seen, c.folder, { root: c.folder, readText: (rel) => readWorkspaceText(c.folder, rel) });
    this.logger.info(`checks for an agent in ${c.folderName}: ${r.green ? 'green' : `${plural(r.failureCount, 'failure')}`}, identity ${r.failureHash.slice(0, 12)} seen ${plural(r.seen, 'time')}`);
    return { result: r, verify: v };
  }

  /**
   * The run prepared by the launcher (core/launch.ts), with the caller's model when it brings one
   * and its step budget; an interrupted run's files are offered Revert or Keep first, then preflight
   * runs once more. @throws GateRefusal with the launcher's refusal in VS Code's words.
   */
  async prepare(c: RunController, extras: RunExtras, maxSteps?: number): Promise<PreparedRun> {
    const read = settingsSource(vscode.Uri.file(c.folder));
    const settings = maxSteps === undefined ? read : (): ReturnType<typeof read> => {
      const a = read();
      return a.ok ? { ok: true, settings: { ...a.settings, maxSteps } } : a;
    };
    for (let asked = false; ; asked = true) {
      const launch = await c.prepare(settings, extras);
      if (launch.ok) {
        if (launch.prepared.problems.length > 0) throw new GateRefusal(`the run cannot start in ${c.folderName}: ${launch.prepared.problems.join('; ')}`);
        return launch.prepared;
      }
      const r = launch.refusal;
      if (r.kind === 'interrupted' && !asked && (await resolveInterrupted(c, this.logger))) continue;
      throw new GateRefusal(`the run cannot start in ${c.folderName}: ${refusalProblem(r, { folderName: c.folderName, what: 'the settings are not valid' }).message}`);
    }
  }
}

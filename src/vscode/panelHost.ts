// Hosts the status panel webview: strict CSP with a crypto nonce, resources only from dist/ and
// media/, typed messages checked on arrival, state restored after a reload by a serializer. A
// button runs the registered command of its name with the panel's folder (the same path as the
// palette); the panel knows the controllers, never the command handlers.
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import type { RunControllers } from './runControllers';
import type { FromWebview, ToWebview } from './common/protocol';
import { isFromWebview, isPersistedPanelState, PANEL_ACTION_COMMANDS, PANEL_LAUNCHES, PANEL_VIEW_TYPE } from './common/protocol';
import { PANEL_FIX_COMMAND } from './common/commandIds';
import { notAppliedWhy } from './common/explain';
import type { RunState } from './common/runState';
import { canContinue } from './common/runState';
import { readSettings } from './settings';
import { panelIcon } from './common/meterView';
import { SnapshotDocuments, snapshotUri } from './snapshotDocs';
import { keepReviewed, openReviewDiff, undoReviewed } from './reviewUi';

/** Posts at most this often while a run streams events; the last state always goes out. */
const POST_INTERVAL_MS = 100;

export class PanelHost implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private panelDisposables: vscode.Disposable[] = [];
  private pending: NodeJS.Timeout | undefined;
  private lastPost = 0;
  private icon: string | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controllers: RunControllers,
    private readonly logger: Logger,
  ) {
    const sub = controllers.onDidChange(() => this.schedulePost());
    this.disposables.push({ dispose: () => sub.dispose() });
    // The step diff's sides are virtual documents of our scheme: no language server checks them.
    this.disposables.push(SnapshotDocuments.register());
    this.disposables.push(
      vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, saved) => {
          // The webview redraws its saved state itself; a live run's state replaces it on `ready`.
          if (!isPersistedPanelState(saved)) this.logger.debug('panel restored without a saved state');
          this.adopt(panel);
        },
      }),
    );
  }

  get visible(): boolean {
    return this.panel?.visible === true;
  }

  /**
   * Opens the panel, or brings it forward. `focus`: the user asked for it (Show Panel from the palette,
   * a notification, the status item), so keyboard focus moves into the webview, as Focus on Problems
   * View does; a run that opens it as it starts leaves the focus where the user is.
   */
  show(focus = false): void {
    if (this.panel) {
      this.panel.reveal(undefined, !focus);
      this.post();
      return;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'Fix Until Green', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: !focus }, this.options());
    this.adopt(panel);
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.webview.options = this.options();
    this.icon = undefined;
    this.setIcon(this.controllers.active?.state ?? null);
    panel.webview.html = this.html(panel.webview);
    this.panelDisposables = [
      panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      panel.onDidChangeViewState(() => {
        if (panel.visible) this.post();
      }),
      panel.onDidDispose(() => {
        for (const d of this.panelDisposables) d.dispose();
        this.panelDisposables = [];
        if (this.panel === panel) this.panel = undefined;
      }),
    ];
  }

  private async receive(m: unknown): Promise<void> {
    if (!isFromWebview(m)) {
      this.logger.warn(`panel: ignored a malformed message: ${JSON.stringify(m)?.slice(0, 200)}`);
      return;
    }
    const msg: FromWebview = m;
    try {
      switch (msg.type) {
        case 'ready':
          this.post();
          return;
        case 'action':
          if (PANEL_LAUNCHES.has(msg.action)) {
            // The command reports its own errors and runs on in its own UI; the panel shows the run it starts.
            void vscode.commands.executeCommand(PANEL_ACTION_COMMANDS[msg.action], ...(msg.folder !== null ? [msg.folder] : []));
            return;
          }
          await this.send({ type: 'busy', action: msg.action });
          try {
            // The command reports its own errors; its folder argument skips the folder question.
            await vscode.commands.executeCommand(PANEL_ACTION_COMMANDS[msg.action], ...(msg.folder !== null ? [msg.folder] : []));
          } finally {
            await this.send({ type: 'busy', action: null });
          }
          return;
        case 'openDiff':
          await this.openStepDiff(msg.step, msg.folder);
          return;
        case 'review':
          await this.review(msg);
          return;
        case 'fix': {
          // Runs on in its own UI (the key box, the settings): the panel does not wait for it.
          const folder = msg.folder ?? this.controllers.active?.folder;
          if (folder !== undefined) void vscode.commands.executeCommand(PANEL_FIX_COMMAND, folder, msg.index);
          return;
        }
      }
    } catch (e) {
      const text = e instanceof Error ? e.message : String(e);
      this.logger.error(`panel: ${msg.type} failed: ${text}`);
      void vscode.window.showErrorMessage(`Fix Until Green: ${text}`);
    }
  }

  /** A review button: a file's diff, Keep or Undo (one file, or every pending one when `path` is null). */
  private async review(msg: Extract<FromWebview, { type: 'review' }>): Promise<void> {
    const c = msg.folder ? this.controllers.find(msg.folder) : this.controllers.active;
    if (!c) throw new Error('the run on screen is not open in this window');
    const file = msg.path ?? undefined;
    // The diff opens beside the panel, never over it: Keep and Undo stay in view.
    if (msg.action === 'diff') return openReviewDiff(c, file, this.panel?.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One);
    if (msg.action === 'keep') return keepReviewed(c, file);
    return undoReviewed(c, this.logger, file);
  }

  /** Opens the diff of one step: VS Code's diff editor for one file, the multi-file view for more. */
  private async openStepDiff(step: number, folder: string | null): Promise<void> {
    const c = folder ? this.controllers.find(folder) : this.controllers.active;
    const s = c?.state.steps.find((x) => x.index === step);
    if (!c || !s) throw new Error(`step ${step} is not part of the run on screen`);
    // A rolled-back step keeps its snapshot: its diff shows what the critics refused.
    if (!s.snapshotDir || s.files.length === 0) {
      const why = s.applied ? 'it changed no files' : `its edit was not applied: ${notAppliedWhy(s.editErrors ?? [], s.feedback)}`;
      void vscode.window.showInformationMessage(`Fix Until Green: step ${step} has no diff; ${why}.`);
      return;
    }
    const dir = s.snapshotDir;
    const side = (which: 'before' | 'after', rel: string): vscode.Uri => snapshotUri({ dir, side: which, rel });
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

  private schedulePost(): void {
    if (!this.panel) return;
    const wait = POST_INTERVAL_MS - (Date.now() - this.lastPost);
    if (wait <= 0) {
      this.post();
      return;
    }
    if (!this.pending) {
      this.pending = setTimeout(() => {
        this.pending = undefined;
        this.post();
      }, wait);
    }
  }

  private post(): void {
    this.lastPost = Date.now();
    const active = this.controllers.active?.state ?? null;
    this.setIcon(active);
    // Continue says what it adds before it is pressed (issue 40): the settings' run size, as the command reads it.
    const state = active && canContinue(active) ? { ...active, continueAdds: continueAdds(active.folder) } : active;
    void this.send({ type: 'state', state, now: Date.now() });
  }

  /** The tab's icon tells the state at a glance: running, green, stopped short of green, or an error. */
  private setIcon(state: RunState | null): void {
    if (!this.panel) return;
    const name = panelIcon(state);
    if (name === this.icon) return;
    this.icon = name;
    this.panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', name);
  }

  private async send(m: ToWebview): Promise<void> {
    if (!this.panel) return;
    const delivered = await this.panel.webview.postMessage(m);
    if (!delivered) this.logger.debug(`panel: ${m.type} not delivered (panel hidden)`);
  }

  private html(webview: vscode.Webview): string {
    const nonce = randomBytes(18).toString('base64');
    const res = (...p: string[]): string => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...p)).toString();
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource} 'nonce-${nonce}'`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${res('dist', 'codicons', 'codicon.css')}" nonce="${nonce}">
<link rel="stylesheet" href="${res('media', 'panel.css')}" nonce="${nonce}">
<title>Fix Until Green</title>
</head>
<body>
<main id="app" aria-live="polite"></main>
<script nonce="${nonce}" src="${res('dist', 'panel.js')}"></script>
</body>
</html>`;
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** One more run's budget from the folder's settings (what Continue adds); null when they do not read. */
function continueAdds(folder: string): RunState['continueAdds'] {
  const read = readSettings(vscode.Uri.file(folder));
  return read.ok ? { steps: read.settings.maxSteps, tokens: read.settings.tokenCeiling } : null;
}

// Hosts the status panel webview: strict CSP with a crypto nonce, resources only from dist/ and
// media/, typed messages checked on arrival, state restored after a reload by a serializer.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import type { RunControllers } from './controller';
import type { FromWebview, PanelAction, ToWebview } from './protocol';
import { isFromWebview, isPersistedPanelState, PANEL_VIEW_TYPE } from './protocol';

export interface PanelHandlers {
  action(action: PanelAction, folder: string | null): Promise<void>;
  openDiff(step: number, folder: string | null): Promise<void>;
}

/** Posts at most this often while a run streams events; the last state always goes out. */
const POST_INTERVAL_MS = 100;

export class PanelHost implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private panelDisposables: vscode.Disposable[] = [];
  private pending: NodeJS.Timeout | undefined;
  private lastPost = 0;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controllers: RunControllers,
    private readonly handlers: PanelHandlers,
    private readonly logger: Logger,
  ) {
    const sub = controllers.onDidChange(() => this.schedulePost());
    this.disposables.push({ dispose: () => sub.dispose() });
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

  show(): void {
    if (this.panel) {
      this.panel.reveal(undefined, true);
      this.post();
      return;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'Fix Until Green', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, this.options());
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
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.png');
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
          await this.send({ type: 'busy', action: msg.action });
          try {
            await this.handlers.action(msg.action, msg.folder);
          } finally {
            await this.send({ type: 'busy', action: null });
          }
          return;
        case 'openDiff':
          await this.handlers.openDiff(msg.step, msg.folder);
          return;
      }
    } catch (e) {
      const text = e instanceof Error ? e.message : String(e);
      this.logger.error(`panel: ${msg.type} failed: ${text}`);
      void vscode.window.showErrorMessage(`Fix Until Green: ${text}`);
    }
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
    void this.send({ type: 'state', state: this.controllers.active?.state ?? null, now: Date.now() });
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

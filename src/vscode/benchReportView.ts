// The bench's HTML report in a webview, under the panel's rules (panelHost.ts): a crypto nonce and
// `default-src 'none'`, nothing loaded from anywhere. The report runs no script, so the webview
// enables none; its one stylesheet is allowed by the nonce, and its trace links are command links
// (the only kind a script-free webview can follow), each opening its trace in an editor.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { ReportHtmlOptions } from '../core/bench/reportHtml';
import { BENCH_REPORT_VIEW_TYPE, reportCsp, traceCommandHref } from './common/benchWords';
import { BENCH_OPEN_TRACE_COMMAND } from './common/commandIds';

/** Opens the report: `html` builds the page with the options the webview needs. */
export function showBenchReport(title: string, html: (opts: ReportHtmlOptions) => string): vscode.WebviewPanel {
  const panel = vscode.window.createWebviewPanel(BENCH_REPORT_VIEW_TYPE, title, vscode.ViewColumn.Active, {
    enableScripts: false,
    enableCommandUris: [BENCH_OPEN_TRACE_COMMAND],
    localResourceRoots: [],
  });
  const nonce = randomBytes(18).toString('base64');
  panel.webview.html = html({ csp: reportCsp(nonce), styleNonce: nonce, traceHref: traceCommandHref });
  return panel;
}


// The status-bar budget meter (id `fixUntilGreen.budget`): the last result when idle, the step and
// token budget while running; click opens the panel.
import * as vscode from 'vscode';
import type { RunControllers } from './runControllers';
import { meterView } from './common/meterView';

export const METER_ID = 'fixUntilGreen.budget';

export class BudgetMeter implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscription: { dispose(): void };
  private ticker: NodeJS.Timeout | undefined;

  constructor(private readonly controllers: RunControllers) {
    this.item = vscode.window.createStatusBarItem(METER_ID, vscode.StatusBarAlignment.Left, 50);
    // The name VS Code lists in the status bar's context menu, as ESLint and GitLens name theirs.
    this.item.name = 'Fix Until Green';
    this.item.command = 'fixUntilGreen.showPanel';
    this.subscription = controllers.onDidChange(() => this.render());
    this.render();
    this.item.show();
  }

  render(): void {
    const c = this.controllers.active;
    const v = meterView(c?.state);
    this.item.text = v.text;
    const md = new vscode.MarkdownString(v.tooltip);
    md.supportThemeIcons = true;
    this.item.tooltip = md;
    this.item.accessibilityInformation = { label: v.ariaLabel, role: 'button' };
    this.item.backgroundColor = v.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    // The tooltip's elapsed time moves while a run is on even when no event arrives.
    const running = c?.running === true;
    if (running && !this.ticker) this.ticker = setInterval(() => this.render(), 1000);
    if (!running && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  dispose(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.subscription.dispose();
    this.item.dispose();
  }
}

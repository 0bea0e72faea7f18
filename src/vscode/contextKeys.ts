// Context keys that show commands only while relevant (see `menus.commandPalette` and `enablement`):
// Stop while a run is in progress, Continue after a stop that can continue, the revert and export
// commands once a run exists, Review Changes while a run's changes wait for a decision.
import * as vscode from 'vscode';
import type { RunControllers } from './runControllers';
import { pendingFiles } from './common/reviewState';

export class ContextKeys implements vscode.Disposable {
  private readonly sub: { dispose(): void };
  private last = '';

  constructor(private readonly controllers: RunControllers) {
    this.sub = controllers.onDidChange(() => this.update());
    this.update();
  }

  private update(): void {
    const running = this.controllers.running().length > 0;
    const all = this.controllers.all();
    const canContinue = all.some((c) => c.canContinue);
    const hasRun = all.some((c) => c.state.runId !== null && c.state.status !== 'idle');
    const hasReview = all.some((c) => pendingFiles(c.state.review).length > 0);
    const key = `${running}:${canContinue}:${hasRun}:${hasReview}`;
    if (key === this.last) return;
    this.last = key;
    void vscode.commands.executeCommand('setContext', 'fixUntilGreen.running', running);
    void vscode.commands.executeCommand('setContext', 'fixUntilGreen.canContinue', canContinue);
    void vscode.commands.executeCommand('setContext', 'fixUntilGreen.hasRun', hasRun);
    void vscode.commands.executeCommand('setContext', 'fixUntilGreen.hasReview', hasReview);
  }

  dispose(): void {
    this.sub.dispose();
  }
}

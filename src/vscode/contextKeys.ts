// Context keys that show Stop and Continue only while relevant (see `menus.commandPalette`).
import * as vscode from 'vscode';
import type { RunControllers } from './controller';

export class ContextKeys implements vscode.Disposable {
  private readonly sub: { dispose(): void };
  private last = '';

  constructor(private readonly controllers: RunControllers) {
    this.sub = controllers.onDidChange(() => this.update());
    this.update();
  }

  private update(): void {
    const running = this.controllers.running().length > 0;
    const canContinue = this.controllers.all().some((c) => c.canContinue);
    const key = `${running}:${canContinue}`;
    if (key === this.last) return;
    this.last = key;
    void vscode.commands.executeCommand('setContext', 'fixUntilGreen.running', running);
    void vscode.commands.executeCommand('setContext', 'fixUntilGreen.canContinue', canContinue);
  }

  dispose(): void {
    this.sub.dispose();
  }
}

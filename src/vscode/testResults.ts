// Tests in VS Code's Testing view: the test controller and its Run profile are the shell's; what the
// view lists, the messages and the profile's check pass are testingView.ts, loaded with the engine
// (a run or a check pass loads it anyway; opening the Testing view or its Run button loads it too).
import * as vscode from 'vscode';
import type { Logger } from '../core/types';
import type { RunControllers } from './runControllers';
import { loadEngine, loadedEngine } from './shellEngine';
import type { TestingView } from './testingView';

export class FailureTests implements vscode.Disposable {
  private readonly ctrl = vscode.tests.createTestController('fixUntilGreen.failures', 'Fix Until Green');
  private readonly subs: { dispose(): void }[] = [];
  private impl: TestingView | undefined;

  constructor(
    private readonly controllers: RunControllers,
    private readonly logger: Logger,
  ) {
    // Before the engine is loaded no run or check pass has happened: a folder's last run waits for the Testing view.
    const sub = controllers.onDidChange((c) => this.view()?.follow(c));
    this.subs.push(sub, this.ctrl.createRunProfile('Run Checks', vscode.TestRunProfileKind.Run, async (req, token) => (await this.loaded()).runProfile(req, token), true));
    this.ctrl.resolveHandler = async (item) => {
      if (item) return;
      const v = await this.loaded();
      for (const c of this.controllers.all()) v.follow(c);
    };
  }

  private view(): TestingView | undefined {
    const m = loadedEngine();
    if (m && !this.impl) this.impl = new m.TestingView(this.ctrl, this.controllers);
    return this.impl;
  }

  private async loaded(): Promise<TestingView> {
    await loadEngine(this.logger);
    return this.view()!;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.ctrl.dispose();
  }
}

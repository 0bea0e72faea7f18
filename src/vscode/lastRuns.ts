// The last run of each folder survives a reload: the meter and the panel show it, and Revert works.
import type * as vscode from 'vscode';
import type { RunControllers } from './runControllers';
import { isRunState } from './common/protocol';
import type { RunState } from './common/runState';

const KEY = 'fixUntilGreen.lastRuns';

export class LastRuns {
  constructor(private readonly memento: vscode.Memento) {}

  load(folder: string): RunState | undefined {
    const all = this.memento.get<Record<string, unknown>>(KEY, {});
    const s = all[folder];
    return isRunState(s) ? s : undefined;
  }

  /**
   * Saves each folder's state when it changes in a way worth keeping (a run starts or stops, a
   * step ends, a revert, new remaining failures), not on every streamed event.
   */
  follow(controllers: RunControllers): vscode.Disposable {
    const lastSaved = new Map<string, string>();
    const sub = controllers.onDidChange((c) => {
      const s = c.state;
      if (s.status === 'idle') return;
      const mark = `${s.runId}:${s.status}:${s.reverted}:${s.steps.length}:${s.failuresPerStep.length}:${s.remainingFailures.length}`;
      if (lastSaved.get(c.folder) === mark) return;
      lastSaved.set(c.folder, mark);
      void this.save(s);
    });
    return { dispose: () => sub.dispose() };
  }

  private async save(s: RunState): Promise<void> {
    const all = { ...this.memento.get<Record<string, unknown>>(KEY, {}) };
    // A refused start is this window's news (its buttons act on this window's settings): not restored later.
    all[s.folder] = { ...s, refused: null };
    await this.memento.update(KEY, all);
  }
}

// Test failures in VS Code's Testing view: after a run stops, or after Run Checks, each failing
// test of the folder's test checks (mocha, jest, vitest, node:test, tap) is a test item marked
// failed, its message carrying what it expected and what it got, so the Test Results and the
// inline peek show the diff the user knows. Passing tests are not known to us (the checks report
// failures), so only the failures are listed; a test no longer failing leaves the list.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Failure, ParserId } from '../core/types';
import type { RunController, RunControllers } from './controller';
import { failureHeadline } from '../core/headline';

const TEST_PARSERS: ReadonlySet<ParserId> = new Set<ParserId>(['mocha', 'jest', 'vitest', 'node-test', 'tap']);

/** The failures of a state that are test failures. */
export function testFailures(failures: readonly Failure[], parsers: Readonly<Record<string, ParserId>>): Failure[] {
  return failures.filter((f) => {
    const p = parsers[f.check];
    return p !== undefined && TEST_PARSERS.has(p);
  });
}

export class FailureTests implements vscode.Disposable {
  private readonly ctrl = vscode.tests.createTestController('fixUntilGreen.failures', 'Fix Until Green');
  private readonly shown = new Map<string, readonly Failure[]>();
  private readonly sub: { dispose(): void };

  constructor(controllers: RunControllers) {
    this.sub = controllers.onDidChange((c) => {
      // Live failures change with every step: the Testing view shows a run's result once it stops.
      if (c.running) return;
      const failures = c.state.remainingFailures;
      if (this.shown.get(c.folder) === failures) return;
      this.shown.set(c.folder, failures);
      this.publish(c);
    });
  }

  private publish(c: RunController): void {
    const failing = testFailures(c.state.remainingFailures, c.state.checkParsers ?? {});
    const rootId = `folder:${c.folder}`;
    if (failing.length === 0) {
      this.ctrl.items.delete(rootId);
      return;
    }
    const root = this.ctrl.items.get(rootId) ?? this.ctrl.createTestItem(rootId, c.folderName, vscode.Uri.file(c.folder));
    this.ctrl.items.add(root);
    const items = failing.map((f, i) => {
      const uri = f.file ? vscode.Uri.file(path.join(c.folder, ...f.file.split('/'))) : undefined;
      const item = this.ctrl.createTestItem(`${rootId}::${f.check}::${f.id ?? i}::${f.file ?? ''}`, f.id ?? failureHeadline(f), uri);
      if (f.line) item.range = new vscode.Range(f.line - 1, 0, f.line - 1, 0);
      return { item, f };
    });
    root.children.replace(items.map((x) => x.item));
    const run = this.ctrl.createTestRun(new vscode.TestRunRequest([root]), `Fix Until Green (${c.folderName})`, false);
    for (const { item, f } of items) run.failed(item, message(f, item));
    run.end();
  }

  dispose(): void {
    this.sub.dispose();
    this.ctrl.dispose();
  }
}

function message(f: Failure, item: vscode.TestItem): vscode.TestMessage {
  // The values the verifier read (an older trace's failure has none: a plain message).
  const values = f.values;
  const text = `${failureHeadline(f)}\n\n${f.message.trim()}`;
  const m = values ? vscode.TestMessage.diff(text, values.expected, values.actual) : new vscode.TestMessage(text);
  if (item.uri && item.range) m.location = new vscode.Location(item.uri, item.range);
  return m;
}

// Remaining failures in the Problems panel under the source `fix-until-green`.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Failure } from '../core/types';
import type { RunControllers } from './controller';

export const DIAGNOSTIC_SOURCE = 'fix-until-green';

export class FailureDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection(DIAGNOSTIC_SOURCE);
  /** The files each folder last reported, so a folder's update leaves the others alone. */
  private readonly byFolder = new Map<string, vscode.Uri[]>();
  private readonly shown = new Map<string, readonly Failure[]>();
  private readonly sub: { dispose(): void };

  /** Follows every folder's run: live failures while running, the remaining ones after, none when green or reverted. */
  constructor(controllers: RunControllers) {
    this.sub = controllers.onDidChange((c) => {
      const failures = c.state.remainingFailures;
      if (this.shown.get(c.folder) === failures) return;
      this.shown.set(c.folder, failures);
      this.set(c.folder, failures);
    });
  }

  /** Replaces the folder's diagnostics with `failures` (those without a file stay in the panel only). */
  set(folder: string, failures: readonly Failure[]): void {
    this.clear(folder);
    const grouped = new Map<string, { uri: vscode.Uri; items: vscode.Diagnostic[] }>();
    for (const f of failures) {
      if (!f.file) continue;
      const uri = vscode.Uri.file(path.join(folder, ...f.file.split('/')));
      const line = Math.max(0, (f.line ?? 1) - 1);
      const col = Math.max(0, (f.column ?? 1) - 1);
      // Without an end position, underline to the end of the line: the check names only a point.
      const range = new vscode.Range(line, col, line, f.column !== undefined ? col + 1 : Number.MAX_SAFE_INTEGER);
      const d = new vscode.Diagnostic(range, `${f.check}: ${f.message}`, vscode.DiagnosticSeverity.Error);
      d.source = DIAGNOSTIC_SOURCE;
      if (f.id) d.code = f.id;
      const key = uri.toString();
      const g = grouped.get(key) ?? { uri, items: [] };
      g.items.push(d);
      grouped.set(key, g);
    }
    for (const g of grouped.values()) this.collection.set(g.uri, g.items);
    this.byFolder.set(folder, [...grouped.values()].map((g) => g.uri));
  }

  clear(folder: string): void {
    for (const uri of this.byFolder.get(folder) ?? []) this.collection.delete(uri);
    this.byFolder.delete(folder);
  }

  dispose(): void {
    this.sub.dispose();
    this.collection.dispose();
  }
}

// Remaining failures in the Problems panel under the source `fix-until-green`: every one the run
// knows, unless an editor already shows it (problemsFilter.ts: TypeScript reports open files only,
// so a type error in a closed file is listed here until the file is opened; `fixUntilGreen.diagnostics:
// all` lists every one). A file changed on disk outside a run loses its entries: they described the
// file as it was.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DiagnosticsMode } from '../core/settings';
import type { Failure } from '../core/types';
import type { RunController } from './controller';
import type { RunControllers } from './runControllers';
import type { ShownDiagnostic } from './common/problemsFilter';
import { diagnosticMessage, problemsToShow } from './common/problemsFilter';
import { readSettings, watchSettings } from './settings';

export const DIAGNOSTIC_SOURCE = 'fix-until-green';

export class FailureDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection(DIAGNOSTIC_SOURCE);
  /** The files each folder last reported, so a folder's update leaves the others alone. */
  private readonly byFolder = new Map<string, vscode.Uri[]>();
  private readonly shown = new Map<string, readonly Failure[]>();
  /** What each folder last published, so a diagnostics change that alters nothing sets nothing (our own set fires one too). */
  private readonly published = new Map<string, string>();
  private readonly subs: vscode.Disposable[] = [];

  /** Follows every folder's run: live failures while running, the remaining ones after, none when green or reverted. */
  constructor(private readonly controllers: RunControllers) {
    const sub = controllers.onDidChange((c) => {
      const failures = c.state.remainingFailures;
      if (this.shown.get(c.folder) === failures) return;
      this.shown.set(c.folder, failures);
      this.publish(c);
    });
    this.subs.push({ dispose: () => sub.dispose() });
    // The setting, and what the editors show by themselves (a file opened, TypeScript's report), decide what is listed.
    this.subs.push(watchSettings(() => this.publishAll()), vscode.languages.onDidChangeDiagnostics((e) => this.othersChanged(e.uris)));
    // An edit saved or made outside VS Code: the entries describe the file as it was, so they go.
    const watcher = vscode.workspace.createFileSystemWatcher('**/*', true, false, false);
    this.subs.push(watcher, watcher.onDidChange((u) => this.forget(u)), watcher.onDidDelete((u) => this.forget(u)));
  }

  private mode(folder: string): DiagnosticsMode {
    const read = readSettings(vscode.Uri.file(folder));
    return read.ok ? read.settings.diagnostics : 'deduplicated';
  }

  private publishAll(): void {
    for (const c of this.controllers.all()) this.publish(c);
  }

  private uriOf(folder: string, file: string): vscode.Uri {
    return vscode.Uri.file(path.join(folder, ...file.split('/')));
  }

  /** What the other sources (TypeScript, lint extensions) show for a file of the folder now. */
  private shownIn(folder: string, file: string): ShownDiagnostic[] {
    return vscode.languages
      .getDiagnostics(this.uriOf(folder, file))
      .filter((d) => d.source !== DIAGNOSTIC_SOURCE)
      .map((d) => ({ line: d.range.start.line + 1, code: typeof d.code === 'object' ? d.code.value : d.code }));
  }

  private othersChanged(uris: readonly vscode.Uri[]): void {
    const changed = new Set(uris.map((u) => u.toString()));
    for (const c of this.controllers.all()) {
      if (c.state.remainingFailures.some((f) => f.file && changed.has(this.uriOf(c.folder, f.file).toString()))) this.publish(c);
    }
  }

  private publish(c: RunController): void {
    const list = problemsToShow(c.state.remainingFailures, this.mode(c.folder), (file) => this.shownIn(c.folder, file));
    const key = JSON.stringify(list);
    if (this.published.get(c.folder) === key) return;
    this.set(c.folder, list);
    this.published.set(c.folder, key);
  }

  private forget(uri: vscode.Uri): void {
    const folder = [...this.byFolder.keys()].find((f) => this.byFolder.get(f)!.some((u) => u.toString() === uri.toString()));
    if (folder === undefined) return;
    // A run's own writes are followed by its own checks: their result replaces the entries.
    if (this.controllers.find(folder)?.running) return;
    this.collection.delete(uri);
    this.published.delete(folder);
    this.byFolder.set(folder, this.byFolder.get(folder)!.filter((u) => u.toString() !== uri.toString()));
  }

  /** Replaces the folder's diagnostics with `failures` (those without a file stay in the panel only). */
  set(folder: string, failures: readonly Failure[]): void {
    this.clear(folder);
    const grouped = new Map<string, { uri: vscode.Uri; items: vscode.Diagnostic[] }>();
    for (const f of failures) {
      if (!f.file) continue;
      const uri = this.uriOf(folder, f.file);
      const line = Math.max(0, (f.line ?? 1) - 1);
      const col = Math.max(0, (f.column ?? 1) - 1);
      // Without an end position, underline to the end of the line: the check names only a point.
      const range = new vscode.Range(line, col, line, f.column !== undefined ? col + 1 : Number.MAX_SAFE_INTEGER);
      const d = new vscode.Diagnostic(range, diagnosticMessage(f), vscode.DiagnosticSeverity.Error);
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
    this.published.delete(folder);
  }

  dispose(): void {
    for (const d of this.subs) d.dispose();
    this.collection.dispose();
  }
}

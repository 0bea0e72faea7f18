// Step snapshots as read-only virtual documents (scheme `fix-until-green-snapshot`). A content
// provider's documents cannot be edited or saved, and no language server checks them, so opening a
// step's diff adds nothing to the Problems panel.
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { SnapshotRef } from './snapshotRef';
import { parseSnapshotUri, SNAPSHOT_SCHEME, snapshotRefFile, snapshotUriParts } from './snapshotRef';

export function snapshotUri(ref: SnapshotRef): vscode.Uri {
  return vscode.Uri.from({ scheme: SNAPSHOT_SCHEME, ...snapshotUriParts(ref) });
}

export class SnapshotDocuments implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const ref = parseSnapshotUri(uri.path, uri.query);
    if (!ref) throw new Error(`not a step snapshot: ${uri.toString()}`);
    try {
      return await fs.readFile(snapshotRefFile(ref), 'utf8');
    } catch (e) {
      // A file the step created has no `before`, one it deleted no `after`: that side is empty.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw e;
    }
  }

  static register(): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(SNAPSHOT_SCHEME, new SnapshotDocuments());
  }
}

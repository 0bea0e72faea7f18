// Where a step snapshot's virtual document reads from. The step diff shows `before/` and `after/`
// copies through our own URI scheme (snapshotDocs.ts), not as `file:` URIs: a language server
// checks `file:` documents it sees open, and a storage copy's errors would land in Problems under a
// long storage path. No `vscode` import: the URI's parts are built and read here, unit-tested.
import * as path from 'node:path';
import { snapshotFile } from './runFiles';

/** The URI scheme of step snapshots; no language server checks documents of an unknown scheme. */
export const SNAPSHOT_SCHEME = 'fix-until-green-snapshot';

export interface SnapshotRef {
  /** The step's snapshot directory (holds `before/` and `after/`). */
  dir: string;
  side: 'before' | 'after';
  /** The workspace-relative path, with `/`. */
  rel: string;
}

/** The URI's path (the relative file path, so the tab shows its name and the language follows its extension) and query. */
export function snapshotUriParts(ref: SnapshotRef): { path: string; query: string } {
  return { path: `/${ref.rel}`, query: new URLSearchParams({ dir: ref.dir, side: ref.side }).toString() };
}

/** Reads a URI's parts back; undefined for anything that does not name a file inside a snapshot. */
export function parseSnapshotUri(uriPath: string, query: string): SnapshotRef | undefined {
  const q = new URLSearchParams(query);
  const dir = q.get('dir');
  const side = q.get('side');
  const rel = uriPath.replace(/^\/+/, '');
  if (!dir || !path.isAbsolute(dir) || (side !== 'before' && side !== 'after') || rel === '') return undefined;
  // A URI is input: it may only name a file inside the snapshot's side folder.
  if (rel.split('/').some((p) => p === '..' || p === '.' || p === '')) return undefined;
  return { dir, side, rel };
}

/** The snapshot file a reference reads. */
export function snapshotRefFile(ref: SnapshotRef): string {
  return snapshotFile(ref.dir, ref.side, ref.rel);
}

// Knows what the run last read or wrote for each file, so a file someone else changed in the
// meantime is never overwritten (DESIGN §5, concurrent edits).
import { createHash } from 'node:crypto';
import type { FileChange, Workspace } from './workspace';

export interface Conflict {
  path: string;
  message: string;
}

/** sha256 of the bytes, or null for "absent". */
export function contentHash(bytes: Uint8Array | null | undefined): string | null {
  if (bytes === null || bytes === undefined) return null;
  return createHash('sha256').update(bytes).digest('hex');
}

export class FileTracker {
  private readonly known = new Map<string, string | null>();
  /** Files the run wrote: what it wrote stays the reference until it writes again. */
  private readonly written = new Set<string>();

  constructor(private readonly workspace: Workspace) {}

  /**
   * The run showed the model (or otherwise relied on) this content. A file the run wrote keeps what
   * the run wrote as its reference: reading someone else's change must not adopt it as the run's,
   * or a rollback or the final restore would overwrite the user's text.
   */
  noteRead(rel: string, bytes: Uint8Array | null | undefined): void {
    if (this.written.has(rel)) return;
    this.known.set(rel, contentHash(bytes));
  }

  noteWritten(changes: readonly FileChange[]): void {
    for (const c of changes) {
      this.known.set(c.path, contentHash(c.content));
      this.written.add(c.path);
    }
  }

  knows(rel: string): boolean {
    return this.known.has(rel);
  }

  /** What the run last saw: a hash, null for absent, undefined when it never looked. */
  lastKnown(rel: string): string | null | undefined {
    return this.known.get(rel);
  }

  /**
   * The files among `paths` whose content is not what the run last read or wrote. `justRead` is
   * what the caller read a moment ago to compute its change: it must equal both the run's last
   * knowledge and (re-read now) the disk, so a change in either window is caught.
   */
  async changedSince(paths: readonly string[], justRead?: ReadonlyMap<string, Uint8Array | undefined>): Promise<Conflict[]> {
    const out: Conflict[] = [];
    for (const rel of paths) {
      if (await this.workspace.hasUnsavedChanges?.(rel)) {
        out.push({ path: rel, message: `${rel} has unsaved changes in an editor; it was not overwritten` });
        continue;
      }
      const disk = contentHash(await this.workspace.read(rel));
      const known = this.known.get(rel);
      if (known !== undefined && known !== disk) {
        out.push({ path: rel, message: conflictMessage(rel, known, disk) });
        continue;
      }
      if (justRead?.has(rel) && contentHash(justRead.get(rel)) !== disk) {
        out.push({ path: rel, message: `${rel} changed on disk while the edit was being prepared; it was not overwritten` });
      }
    }
    return out;
  }
}

function conflictMessage(rel: string, known: string | null, disk: string | null): string {
  if (known === null) return `${rel} was created outside the run since the run last looked; it was not overwritten`;
  if (disk === null) return `${rel} was deleted outside the run since the run last read or wrote it; it was not recreated`;
  return `${rel} was changed outside the run since the run last read or wrote it; it was not overwritten`;
}

// Before the first write to a file in a run, its original bytes (or absence) and mode are saved and
// flushed to disk. Every write batch is logged before it starts (the intended content) and after it
// ends, so after a crash at any point a revert can tell the run's writes (whole or torn) from
// someone else's, restore the former byte for byte and leave the latter alone.
import { closeSync, fsyncSync, openSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { contentHash } from './tracker';
import type { FileChange, Workspace } from './workspace';
import { writeFileAtomic } from '../atomicWrite';
import type { RefusedPath } from './storedPath';
import { checkStoredPath, isStoredHash, storedEntryRefusal, storedPathForm } from './storedPath';
import type { Entry, Manifest } from './checkpointManifest';
import { CHECKPOINT_FILE, readManifest } from './checkpointManifest';


/**
 * Writes a file whole, never through a link planted at its name (issue 36: blobs are named by their
 * hash, so a name can be known in advance); `durable` waits until it is on the disk, not only in
 * the page cache. The folder's entry is flushed by the caller, once for many files.
 */
function writeDurable(file: string, data: Uint8Array | string, durable = true): void {
  writeFileAtomic(file, data, { durable, syncDir: false });
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface RevertAction {
  path: string;
  /** restored: original content written back; removed: a file the run created; recreated: a file the run deleted. */
  action: 'restored' | 'removed' | 'recreated';
}

export interface RevertConflict {
  path: string;
  reason: string;
  /** Where the original bytes are kept, so nothing is lost even when the file is left alone. */
  originalAt: string | null;
  /**
   * Where a copy of what the run last wrote to the file is kept (`<checkpoint>/conflicts/<path>`),
   * so the user's bytes stay on disk and the run's version can still be offered; null when the run
   * never wrote the file or last deleted it.
   */
  runVersionAt: string | null;
}

export interface RevertPlan {
  changes: FileChange[];
  actions: RevertAction[];
  conflicts: RevertConflict[];
  /** Touched files already holding their original content. */
  unchanged: string[];
}

export class Checkpoint {
  private readonly manifest: Manifest;
  readonly dir: string;

  private constructor(dir: string, manifest: Manifest) {
    this.dir = dir;
    this.manifest = manifest;
  }

  static async create(dir: string, runId: string, root: string): Promise<Checkpoint> {
    await fs.mkdir(path.join(dir, 'blobs'), { recursive: true });
    const cp = new Checkpoint(dir, { version: 2, runId, root, createdAt: new Date().toISOString(), finished: false, reverted: false, writing: false, entries: [] });
    cp.flush();
    return cp;
  }

  static async load(dir: string): Promise<Checkpoint | undefined> {
    const manifest = await readManifest(dir);
    return manifest ? new Checkpoint(dir, manifest) : undefined;
  }

  get touched(): string[] {
    return this.manifest.entries.map((e) => e.path);
  }

  get finished(): boolean {
    return this.manifest.finished;
  }

  get reverted(): boolean {
    return this.manifest.reverted;
  }

  /** A write batch was started and never ended. */
  get interruptedWrite(): boolean {
    return this.manifest.writing;
  }

  get runId(): string {
    return this.manifest.runId;
  }

  get root(): string {
    return this.manifest.root;
  }

  get createdAt(): string {
    return this.manifest.createdAt;
  }

  has(rel: string): boolean {
    return this.manifest.entries.some((e) => e.path === rel);
  }

  private entry(rel: string): Entry | undefined {
    return this.manifest.entries.find((e) => e.path === rel);
  }

  private blobPath(hash: string): string {
    // Only a hash of ours names a blob: a tampered `../..` would read a file outside the checkpoint.
    if (!isStoredHash(hash)) throw new Error(`checkpoint ${path.join(this.dir, CHECKPOINT_FILE)} names a blob "${hash}" that is not a content hash; refused`);
    return path.join(this.dir, 'blobs', hash);
  }

  /** Why a revert must not act on entry `rel` in the folder `root` (storedPath.ts); checked at each use. */
  refusal(rel: string, root: string): string | undefined {
    const e = this.entry(rel);
    return storedEntryRefusal(root, rel, e ? [e.blob, e.last, e.pending] : []);
  }

  /** Blobs written by this process, and whether each was flushed: content-addressed, so none is written twice. */
  private readonly written = new Map<string, boolean>();
  /** A flushed blob's folder entry is not yet flushed. */
  private blobsDirDirty = false;

  /**
   * Saves a blob. An original must survive a power loss (`durable`); an intended content only has
   * to survive the process (a kill leaves the page cache to the kernel), since it serves to
   * recognise a torn write, and without it such a file is left alone rather than lost.
   */
  private saveBlob(bytes: Uint8Array, durable: boolean): string {
    const hash = contentHash(bytes)!;
    const flushed = this.written.get(hash);
    if (flushed === undefined || (durable && !flushed)) {
      writeDurable(this.blobPath(hash), bytes, durable);
      this.written.set(hash, durable);
      if (durable) this.blobsDirDirty = true;
    }
    return hash;
  }

  private flushBlobsDir(): void {
    if (!this.blobsDirDirty) return;
    fsyncDir(path.join(this.dir, 'blobs'));
    this.blobsDirDirty = false;
  }

  /** Saves (flushed, not yet listed) the originals of the files in `changes` not saved before; true when any was. */
  private async recordOriginals(ws: Workspace, changes: readonly FileChange[]): Promise<boolean> {
    let changed = false;
    for (const c of changes) {
      if (this.has(c.path)) continue;
      const bytes = await ws.read(c.path);
      const entry: Entry = { path: c.path, existed: bytes !== undefined };
      if (bytes !== undefined) {
        entry.blob = this.saveBlob(bytes, true);
        const mode = await ws.mode?.(c.path);
        if (mode !== undefined) entry.mode = mode;
      }
      this.manifest.entries.push(entry);
      changed = true;
    }
    return changed;
  }

  /** Saves the originals of every file in `changes` not yet saved, before any of them is written. */
  async saveOriginals(ws: Workspace, changes: readonly FileChange[]): Promise<void> {
    if (await this.recordOriginals(ws, changes)) {
      this.flushBlobsDir();
      this.flush();
    }
  }

  /**
   * Logs a write batch before it starts: originals saved, intended contents kept, and the manifest
   * naming them all flushed at once, so no original a write depends on can be lost to a crash.
   */
  async beginWrite(ws: Workspace, changes: readonly FileChange[]): Promise<void> {
    await this.recordOriginals(ws, changes);
    await this.recordMissingDirs(ws, changes);
    for (const c of changes) {
      const e = this.entry(c.path)!;
      e.pending = c.content === null ? null : this.saveBlob(c.content, false);
    }
    this.flushBlobsDir();
    this.manifest.writing = true;
    this.flush();
  }

  /**
   * Ends the logged batch: on success what was written becomes the run's last write. The manifest's
   * new content is flushed but its rename is not waited for: a crash that loses it leaves the
   * batch's log, which already tells the run's writes apart.
   */
  async endWrite(ok: boolean, leftBehind?: ReadonlyMap<string, Uint8Array | null>): Promise<void> {
    for (const e of this.manifest.entries) {
      if (e.pending === undefined) continue;
      if (ok) e.last = e.pending;
      // A failed batch that could not put a file back: what it left there is the run's doing.
      else if (leftBehind?.has(e.path)) e.last = contentHash(leftBehind.get(e.path));
      delete e.pending;
    }
    this.manifest.writing = false;
    this.flush(false);
  }

  /**
   * Before another writer acting for this run (an agent's edit tool) writes `paths`: their originals
   * (or absence) and the folders the writes will create, saved and flushed, as a run's own batch does.
   */
  async saveBeforeWriteBy(ws: Workspace, paths: readonly string[]): Promise<void> {
    const changes = paths.map((p) => ({ path: p, content: new Uint8Array() }));
    const before = this.manifest.createdDirs?.length ?? 0;
    const saved = await this.recordOriginals(ws, changes);
    await this.recordMissingDirs(ws, changes);
    if (saved || (this.manifest.createdDirs?.length ?? 0) > before) {
      this.flushBlobsDir();
      this.flush();
    }
  }

  /**
   * Records what another writer acting for this run (an agent's edit tool, in a hook session) left
   * in files whose originals are saved: those bytes become the run's last write, so a revert puts
   * them back and still leaves alone whatever the user writes after. Paths without an original are
   * ignored; returns those recorded.
   */
  async recordWrittenBy(ws: Workspace, paths: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const rel of paths) {
      const e = this.entry(rel);
      if (!e) continue;
      e.last = contentHash(await ws.read(rel));
      out.push(rel);
    }
    if (out.length > 0) this.flush();
    return out;
  }

  /** Folders the file writes of `changes` will create: recorded before the write, so a revert can remove them. */
  private async recordMissingDirs(ws: Workspace, changes: readonly FileChange[]): Promise<void> {
    const dirs = new Set(this.manifest.createdDirs ?? []);
    for (const c of changes) {
      if (c.content === null) continue;
      const parts = c.path.split('/');
      for (let k = 1; k < parts.length; k++) {
        const dir = parts.slice(0, k).join('/');
        if (dirs.has(dir)) continue;
        if (!(await ws.exists(dir))) dirs.add(dir);
      }
    }
    if (dirs.size > (this.manifest.createdDirs?.length ?? 0)) this.manifest.createdDirs = [...dirs];
  }

  /** Folders the run created, deepest first. */
  get createdDirs(): string[] {
    return [...(this.manifest.createdDirs ?? [])].map(String).sort((a, b) => b.split('/').length - a.split('/').length || b.localeCompare(a));
  }

  /**
   * Removes the folders the run created that are empty now (deepest first); a folder holding
   * anything, or one that existed before the run, is never touched. Returns those removed.
   */
  async removeCreatedDirs(ws: Workspace): Promise<{ removed: string[]; refused: RefusedPath[] }> {
    const out: { removed: string[]; refused: RefusedPath[] } = { removed: [], refused: [] };
    if (!ws.removeEmptyDir) return out;
    for (const dir of this.createdDirs) {
      // A folder named `../x`, or reached through a link to outside, is not the run's to remove.
      const c = checkStoredPath(ws.root, dir);
      if (!c.ok) out.refused.push({ path: String(dir), reason: c.reason });
      else if (await ws.removeEmptyDir(dir)) out.removed.push(dir);
    }
    return out;
  }

  /**
   * Keeps a copy of what the run last wrote to `rel` under `<checkpoint>/conflicts/<rel>` and
   * returns its path; null when the run never wrote the file, last deleted it, or its bytes are gone.
   */
  async keepRunVersion(rel: string): Promise<string | null> {
    const e = this.entry(rel);
    if (!e || e.last === undefined || e.last === null) return null;
    // The copy goes under the checkpoint: a path of another form would put it elsewhere.
    if (storedPathForm(rel) !== undefined || !isStoredHash(e.last)) return null;
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(this.blobPath(e.last));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const file = path.join(this.dir, 'conflicts', ...rel.split('/'));
    await fs.mkdir(path.dirname(file), { recursive: true });
    writeDurable(file, bytes);
    return file;
  }

  async original(rel: string): Promise<Uint8Array | null | undefined> {
    const e = this.entry(rel);
    if (!e) return undefined;
    if (!e.existed || !e.blob) return null;
    return fs.readFile(this.blobPath(e.blob));
  }

  /** Where the original bytes of a touched file are kept; null when it did not exist or is not touched. */
  originalAt(rel: string): string | null {
    const e = this.entry(rel);
    return e?.blob && isStoredHash(e.blob) ? this.blobPath(e.blob) : null;
  }

  /** The original mode bits of a touched file, when known. */
  originalMode(rel: string): number | undefined {
    return this.entry(rel)?.mode;
  }

  /**
   * The changes that bring every touched file back to its original bytes, unconditionally (entries
   * whose blob is not ours are left out: restoreState refuses their paths by `refusal`).
   */
  async revertChanges(): Promise<FileChange[]> {
    const out: FileChange[] = [];
    for (const e of this.manifest.entries) {
      if (e.blob !== undefined && !isStoredHash(e.blob)) continue;
      const content = e.existed && e.blob ? await fs.readFile(this.blobPath(e.blob)) : null;
      out.push({ path: e.path, content, ...(content !== null && e.mode !== undefined ? { mode: e.mode } : {}) });
    }
    return out;
  }

  /**
   * Whether the disk content of a touched file is the run's doing: its original, what the run last
   * wrote, or (after a crash mid-batch) the intended content, whole or torn (a prefix of it).
   */
  async owns(rel: string, disk: Uint8Array | undefined): Promise<boolean> {
    const e = this.entry(rel);
    return e !== undefined && this.isRuns(e, disk);
  }

  private async isRuns(e: Entry, disk: Uint8Array | undefined): Promise<boolean> {
    const h = contentHash(disk);
    const origHash = e.existed ? (e.blob ?? null) : null;
    if (h === origHash) return true;
    if (e.last !== undefined && h === e.last) return true;
    if (this.manifest.writing && e.pending !== undefined) {
      if (h === e.pending) return true;
      if (disk !== undefined && e.pending !== null && isStoredHash(e.pending)) {
        const want = await fs.readFile(this.blobPath(e.pending));
        if (disk.length <= want.length && Buffer.compare(Buffer.from(disk), want.subarray(0, disk.length)) === 0) return true;
      }
    }
    return false;
  }

  /** What a revert would do: restore what the run wrote, leave anything changed by someone else. */
  async planRevert(ws: Workspace): Promise<RevertPlan> {
    const plan: RevertPlan = { changes: [], actions: [], conflicts: [], unchanged: [] };
    for (const e of this.manifest.entries) {
      const refused = this.refusal(e.path, ws.root);
      if (refused !== undefined) {
        plan.conflicts.push({ path: String(e.path), reason: refused, originalAt: this.originalAt(e.path), runVersionAt: null });
        continue;
      }
      if (await ws.hasUnsavedChanges?.(e.path)) {
        plan.conflicts.push({
          path: e.path,
          reason: `${e.path} has unsaved changes in an editor; it was left as it is`,
          originalAt: e.blob ? this.blobPath(e.blob) : null,
          runVersionAt: await this.keepRunVersion(e.path),
        });
        continue;
      }
      let disk: Uint8Array | undefined;
      try {
        disk = await ws.read(e.path);
      } catch (err) {
        // A folder or FIFO where the file was: not the run's to replace.
        plan.conflicts.push({
          path: e.path,
          reason: `${e.path} cannot be read (${(err as Error).message.replace(/\s*\n\s*/g, ' ')}); it was left as it is`,
          originalAt: e.blob ? this.blobPath(e.blob) : null,
          runVersionAt: await this.keepRunVersion(e.path),
        });
        continue;
      }
      const original = e.existed && e.blob ? await fs.readFile(this.blobPath(e.blob)) : null;
      const originalAt = e.blob ? this.blobPath(e.blob) : null;
      if (contentHash(disk) === contentHash(original)) {
        const mode = disk !== undefined ? await ws.mode?.(e.path) : undefined;
        if (original !== null && e.mode !== undefined && mode !== undefined && mode !== e.mode) {
          plan.changes.push({ path: e.path, content: original, mode: e.mode, expect: contentHash(disk) });
          plan.actions.push({ path: e.path, action: 'restored' });
        } else plan.unchanged.push(e.path);
        continue;
      }
      if (!(await this.isRuns(e, disk))) {
        plan.conflicts.push({
          path: e.path,
          reason: `${e.path} was changed after the run last wrote it; it was left as it is${originalAt ? ` (its original is kept at ${originalAt})` : ' (the run created it)'}`,
          originalAt,
          runVersionAt: await this.keepRunVersion(e.path),
        });
        continue;
      }
      // Guarded by what was just checked: a save in between is not overwritten.
      plan.changes.push({ path: e.path, content: original, expect: contentHash(disk), ...(original !== null && e.mode !== undefined ? { mode: e.mode } : {}) });
      plan.actions.push({ path: e.path, action: original === null ? 'removed' : disk === undefined ? 'recreated' : 'restored' });
    }
    return plan;
  }

  async markFinished(): Promise<void> {
    this.manifest.finished = true;
    this.flush();
  }

  /** A continued run writes again: until it finishes, a crash must be offered for restore. */
  async reopen(): Promise<void> {
    if (this.manifest.reverted) throw new Error(`run ${this.manifest.runId} was reverted; it cannot write again`);
    this.manifest.finished = false;
    this.flush();
  }

  async markReverted(): Promise<void> {
    this.manifest.reverted = true;
    this.manifest.finished = true;
    this.flush();
  }

  /** `renameDurable` false: the new manifest may be lost to a crash (the old one stays whole). */
  private flush(renameDurable = true): void {
    // Written under an unpredictable temporary name and renamed: a crash leaves the old or the new
    // manifest, never half of one, and no link at a known name is written through.
    writeDurable(path.join(this.dir, CHECKPOINT_FILE), JSON.stringify(this.manifest, null, 1));
    if (renameDurable) fsyncDir(this.dir);
  }
}

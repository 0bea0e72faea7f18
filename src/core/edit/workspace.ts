// The Workspace port: the engine's only way to touch the user's files.
import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync, promises as fs, readSync, rmSync, statSync, writeSync, constants as fsc } from 'node:fs';
import * as path from 'node:path';

export interface FileChange {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** New bytes, or null to delete the file. */
  content: Uint8Array | null;
  /** Permission bits to give the file (restores use it; edits leave a file's mode alone). */
  mode?: number;
}

export interface Workspace {
  /** Absolute path of the workspace folder. */
  readonly root: string;
  read(rel: string): Promise<Uint8Array | undefined>;
  exists(rel: string): Promise<boolean>;
  /** Permission bits of the file, when the host has them (undefined when absent or unknown). */
  mode?(rel: string): Promise<number | undefined>;
  /** Whether an editor holds unsaved changes to the file (VS Code's dirty documents); such a file is never written. */
  hasUnsavedChanges?(rel: string): Promise<boolean>;
  /**
   * Applies a batch of changes: every one or none. VS Code implements it as one WorkspaceEdit (one
   * undo step); the file-system implementation restores what it wrote if a later write fails.
   */
  apply(changes: readonly FileChange[]): Promise<void>;
}

/** Where a write stands, for tests that must stop a process at an exact point of an apply. */
export type WritePoint = 'before' | 'truncated' | 'after';

export interface FsWorkspaceOptions {
  /** Awaited at each point of each file's write; the index counts files within the batch. */
  onWrite?: (rel: string, index: number, point: WritePoint) => Promise<void>;
}

/** Files up to this size are read synchronously: four thread-pool round trips cost more than the read. */
const SYNC_READ_MAX = 1024 * 1024;

/**
 * The bytes of a small regular file, read at once; undefined for anything else (a large file, a
 * FIFO or device that could block), which the caller reads asynchronously. Throws ENOENT as usual.
 */
function readSmallFile(abs: string): Buffer | undefined {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const fd = openSync(abs, fsc.O_RDONLY | (fsc.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > SYNC_READ_MAX) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < st.size) {
      const got = readSync(fd, buf, n, st.size - n, n);
      if (got === 0) break;
      n += got;
    }
    // A file that grew meanwhile is read again whole by the caller.
    if (n === st.size && readSync(fd, Buffer.alloc(1), 0, 1, n) === 0) return buf;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** One file's change written at once (source files are small; thread-pool hops cost more than the write). */
function writeNow(abs: string, c: FileChange): void {
  if (c.content === null) {
    rmSync(abs, { force: true });
    return;
  }
  mkdirSync(path.dirname(abs), { recursive: true });
  // In place (not rename), as below.
  const fd = openSync(abs, 'w', c.mode);
  try {
    let n = 0;
    while (n < c.content.length) n += writeSync(fd, c.content, n, c.content.length - n);
    if (c.mode !== undefined) fchmodSync(fd, c.mode);
  } finally {
    closeSync(fd);
  }
}

export class FsWorkspace implements Workspace {
  readonly root: string;
  private readonly onWrite: FsWorkspaceOptions['onWrite'];

  constructor(root: string, opts: FsWorkspaceOptions = {}) {
    this.root = path.resolve(root);
    this.onWrite = opts.onWrite;
  }

  abs(rel: string): string {
    return path.join(this.root, ...rel.split('/'));
  }

  async read(rel: string): Promise<Uint8Array | undefined> {
    try {
      return readSmallFile(this.abs(rel)) ?? (await fs.readFile(this.abs(rel)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async exists(rel: string): Promise<boolean> {
    return (await this.read(rel)) !== undefined;
  }

  async mode(rel: string): Promise<number | undefined> {
    try {
      return statSync(this.abs(rel)).mode & 0o7777;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async apply(changes: readonly FileChange[]): Promise<void> {
    const done: FileChange[] = [];
    let index = 0;
    try {
      for (const c of changes) {
        const before = await this.read(c.path);
        const mode = before === undefined ? undefined : await this.mode(c.path);
        done.push({ path: c.path, content: before ?? null, ...(mode !== undefined ? { mode } : {}) });
        await this.writeOne(c, index++);
      }
    } catch (e) {
      // Put back what this batch already wrote, newest first, then report the original fault.
      for (const d of done.reverse()) await this.writeOne(d, -1);
      throw e;
    }
  }

  private async writeOne(c: FileChange, index: number): Promise<void> {
    const abs = this.abs(c.path);
    const hook = index >= 0 ? this.onWrite : undefined;
    if (!hook) {
      writeNow(abs, c);
      return;
    }
    await hook?.(c.path, index, 'before');
    if (c.content === null) {
      await fs.rm(abs, { force: true });
      await hook?.(c.path, index, 'after');
      return;
    }
    await fs.mkdir(path.dirname(abs), { recursive: true });
    // Write in place (not rename) so the file keeps its inode, mode bits and any hard links; the
    // checkpoint already holds the original, so a torn write is recoverable.
    const fh = await fs.open(abs, 'w', c.mode);
    try {
      await hook?.(c.path, index, 'truncated');
      await fh.writeFile(c.content);
      if (c.mode !== undefined) await fh.chmod(c.mode);
    } finally {
      await fh.close();
    }
    await hook?.(c.path, index, 'after');
  }
}

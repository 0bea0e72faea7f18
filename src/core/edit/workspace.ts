// The Workspace port: the engine's only way to touch the user's files.
import { promises as fs } from 'node:fs';
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
      return await fs.readFile(this.abs(rel));
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
      return (await fs.stat(this.abs(rel))).mode & 0o7777;
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

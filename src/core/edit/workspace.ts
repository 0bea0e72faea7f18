// The Workspace port: the engine's only way to touch the user's files.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export interface FileChange {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** New bytes, or null to delete the file. */
  content: Uint8Array | null;
}

export interface Workspace {
  /** Absolute path of the workspace folder. */
  readonly root: string;
  read(rel: string): Promise<Uint8Array | undefined>;
  exists(rel: string): Promise<boolean>;
  /**
   * Applies a batch of changes: every one or none. VS Code implements it as one WorkspaceEdit (one
   * undo step); the file-system implementation restores what it wrote if a later write fails.
   */
  apply(changes: readonly FileChange[]): Promise<void>;
}

export class FsWorkspace implements Workspace {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
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

  async apply(changes: readonly FileChange[]): Promise<void> {
    const done: { path: string; before: Uint8Array | undefined }[] = [];
    try {
      for (const c of changes) {
        const before = await this.read(c.path);
        done.push({ path: c.path, before });
        await this.writeOne(c.path, c.content);
      }
    } catch (e) {
      for (const d of done.reverse()) await this.writeOne(d.path, d.before ?? null);
      throw e;
    }
  }

  private async writeOne(rel: string, content: Uint8Array | null): Promise<void> {
    const abs = this.abs(rel);
    if (content === null) {
      await fs.rm(abs, { force: true });
      return;
    }
    await fs.mkdir(path.dirname(abs), { recursive: true });
    // Write in place (not rename) so the file keeps its inode, mode bits and any hard links.
    await fs.writeFile(abs, content);
  }
}

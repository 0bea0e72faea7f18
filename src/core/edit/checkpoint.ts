// Before the first write to a file in a run, its original bytes (or absence) are saved and flushed.
import { promises as fs, openSync, writeSync, fsyncSync, closeSync, renameSync } from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import type { FileChange, Workspace } from './workspace';

interface Entry {
  path: string;
  existed: boolean;
  blob?: string;
}

interface Manifest {
  version: 1;
  runId: string;
  root: string;
  finished: boolean;
  entries: Entry[];
}

function writeDurable(file: string, data: Uint8Array | string): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class Checkpoint {
  private readonly manifest: Manifest;
  private readonly dir: string;

  private constructor(dir: string, manifest: Manifest) {
    this.dir = dir;
    this.manifest = manifest;
  }

  static async create(dir: string, runId: string, root: string): Promise<Checkpoint> {
    await fs.mkdir(path.join(dir, 'blobs'), { recursive: true });
    const cp = new Checkpoint(dir, { version: 1, runId, root, finished: false, entries: [] });
    cp.flush();
    return cp;
  }

  static async load(dir: string): Promise<Checkpoint | undefined> {
    try {
      const m = JSON.parse(await fs.readFile(path.join(dir, 'checkpoint.json'), 'utf8')) as Manifest;
      return new Checkpoint(dir, m);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  get touched(): string[] {
    return this.manifest.entries.map((e) => e.path);
  }

  get finished(): boolean {
    return this.manifest.finished;
  }

  get runId(): string {
    return this.manifest.runId;
  }

  has(rel: string): boolean {
    return this.manifest.entries.some((e) => e.path === rel);
  }

  /** Saves the originals of every file in `changes` not yet saved, before any of them is written. */
  async saveOriginals(ws: Workspace, changes: readonly FileChange[]): Promise<void> {
    let changed = false;
    for (const c of changes) {
      if (this.has(c.path)) continue;
      const bytes = await ws.read(c.path);
      const entry: Entry = { path: c.path, existed: bytes !== undefined };
      if (bytes !== undefined) {
        const blob = createHash('sha256').update(bytes).digest('hex');
        writeDurable(path.join(this.dir, 'blobs', blob), bytes);
        entry.blob = blob;
      }
      this.manifest.entries.push(entry);
      changed = true;
    }
    if (changed) this.flush();
  }

  async original(rel: string): Promise<Uint8Array | null | undefined> {
    const e = this.manifest.entries.find((x) => x.path === rel);
    if (!e) return undefined;
    if (!e.existed || !e.blob) return null;
    return fs.readFile(path.join(this.dir, 'blobs', e.blob));
  }

  /** The changes that bring every touched file back to its original bytes. */
  async revertChanges(): Promise<FileChange[]> {
    const out: FileChange[] = [];
    for (const e of this.manifest.entries) {
      out.push({ path: e.path, content: e.existed && e.blob ? await fs.readFile(path.join(this.dir, 'blobs', e.blob)) : null });
    }
    return out;
  }

  async markFinished(): Promise<void> {
    this.manifest.finished = true;
    this.flush();
  }

  private flush(): void {
    const tmp = path.join(this.dir, 'checkpoint.json.tmp');
    writeDurable(tmp, JSON.stringify(this.manifest, null, 1));
    // rename is atomic: a crash leaves the old or the new manifest, never half of one.
    renameSync(tmp, path.join(this.dir, 'checkpoint.json'));
  }
}

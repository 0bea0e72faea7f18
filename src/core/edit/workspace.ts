// The Workspace port: the engine's only way to touch the user's files.
import type { Stats } from 'node:fs';
import { closeSync, fchmodSync, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, promises as fs, readSync, rmdirSync, rmSync, statSync, writeSync, constants as fsc } from 'node:fs';
import { createHash } from 'node:crypto';
import * as path from 'node:path';

export interface FileChange {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** New bytes, or null to delete the file. */
  content: Uint8Array | null;
  /** Permission bits to give the file (restores use it; edits leave a file's mode alone). */
  mode?: number;
  /**
   * sha256 (hex) the file must hold right before it is written, null: it must be absent. A restore
   * sets it to what it checked, so a file the user saves in between is not overwritten: the batch
   * fails with a WriteError whose code is CHANGED_ON_DISK.
   */
  expect?: string | null;
}

/** The WriteError code for a file whose content was not `FileChange.expect` when its write came. */
export const CHANGED_ON_DISK = 'ECHANGED';

/** sha256 (hex) of the bytes, null for absent (the hash FileChange.expect holds). */
export function bytesHash(bytes: Uint8Array | null | undefined): string | null {
  if (bytes === null || bytes === undefined) return null;
  return createHash('sha256').update(bytes).digest('hex');
}

export interface Workspace {
  /** Absolute path of the workspace folder. */
  readonly root: string;
  /** The file's bytes, undefined when absent; throws for a directory, FIFO, socket or device (never opened). */
  read(rel: string): Promise<Uint8Array | undefined>;
  exists(rel: string): Promise<boolean>;
  /** Permission bits of the file, when the host has them (undefined when absent or unknown). */
  mode?(rel: string): Promise<number | undefined>;
  /**
   * Why the file cannot be written in place, or undefined when it can: a directory, FIFO, socket or
   * device there, a file with other hard links, a file where a folder of the path should be.
   */
  whyNotWritable?(rel: string): Promise<string | undefined>;
  /** Removes the folder if it is empty (true), leaves it otherwise (false). */
  removeEmptyDir?(rel: string): Promise<boolean>;
  /**
   * Workspace-relative paths of the regular files named `name` (a basename), for an edit that names
   * a file by its basename alone; `.git` and `node_modules` are not searched. Absent: not looked up.
   */
  findByName?(name: string): Promise<string[]>;
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

/** What a non-regular file is, for the refusal. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/**
 * A path that is not a regular file (a directory, FIFO, socket or device), refused before it is
 * opened: opening a FIFO blocks until a writer comes, and reading a device may never end.
 */
export class NotRegularFileError extends Error {
  readonly code: string;
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    const code = what === 'a directory' ? 'EISDIR' : 'ENOTREG';
    super(`${path} is ${what}, not a regular file (${code}); it is never read or written`);
    this.name = 'NotRegularFileError';
    this.code = code;
  }
}

/** A write refused or failed for one file; `message` is one line naming the file and the OS error. */
export class WriteError extends Error {
  readonly code: string | undefined;
  constructor(
    message: string,
    readonly path: string,
    override readonly cause: unknown,
    /** Files of the batch already written that could not be put back, each with why. */
    readonly notRestored: { path: string; error: string }[] = [],
    code?: string,
  ) {
    super(message);
    this.name = 'WriteError';
    this.code = code ?? (cause as { code?: string } | undefined)?.code;
  }
}

/** An OS error as one line: Node's message already names the call and the path. */
export function oneLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.replace(/\s*\n\s*/g, ' ').trim();
}

function errnoCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

function hardLinked(rel: string, n: number): string {
  return `${rel} has ${n} hard links; writing it in place would change the same file under its other names, so it is never written`;
}

/**
 * Why `rel` under `root` cannot be written in place (or created), or undefined when it can: a
 * non-regular file, a file with other hard links (writing in place would change it under its
 * other names, maybe outside the workspace), or a file where a folder of its path should be.
 */
export function whyNotWritable(root: string, rel: string): string | undefined {
  const abs = path.join(root, ...rel.split('/'));
  let st: Stats | undefined;
  try {
    st = lstatSync(abs);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT' && errnoCode(e) !== 'ENOTDIR') return `${rel}: ${oneLine(e)}`;
  }
  if (st) {
    if (!st.isFile()) return new NotRegularFileError(rel, kindOf(st)).message;
    if (st.nlink > 1) return hardLinked(rel, st.nlink);
    return undefined;
  }
  // Absent: each existing ancestor must be a folder, or the file cannot be created.
  const parts = rel.split('/');
  for (let k = 1; k < parts.length; k++) {
    const dirRel = parts.slice(0, k).join('/');
    let d: Stats;
    try {
      d = statSync(path.join(root, ...parts.slice(0, k)));
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return undefined;
      return `${rel}: ${oneLine(e)}`;
    }
    if (!d.isDirectory()) return `${rel} cannot be created: ${dirRel} is ${d.isFile() ? 'a file' : kindOf(d)}, not a folder (ENOTDIR)`;
  }
  return undefined;
}

/**
 * The bytes of a regular file, or undefined when it does not exist. A FIFO, socket, device or
 * directory is refused after a stat, before any open; the open itself is non-blocking and checked
 * again, so a file swapped for a FIFO in between cannot block either.
 */
async function readRegular(abs: string, rel: string): Promise<Uint8Array | undefined> {
  let st: Stats;
  try {
    st = statSync(abs);
  } catch (e) {
    // ENOTDIR: a file stands where a folder of the path would be, so the file does not exist.
    if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return undefined;
    throw e;
  }
  if (!st.isFile()) throw new NotRegularFileError(rel, kindOf(st));
  let fd: number;
  try {
    fd = openSync(abs, fsc.O_RDONLY | (fsc.O_NONBLOCK ?? 0));
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  let large = false;
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile()) throw new NotRegularFileError(rel, kindOf(fst));
    if (fst.size <= SYNC_READ_MAX) {
      const buf = Buffer.allocUnsafe(fst.size);
      let n = 0;
      while (n < fst.size) {
        const got = readSync(fd, buf, n, fst.size - n, n);
        if (got === 0) break;
        n += got;
      }
      // A file that grew meanwhile is read again whole below.
      if (n === fst.size && readSync(fd, Buffer.alloc(1), 0, 1, n) === 0) return buf;
    }
    large = true;
  } finally {
    closeSync(fd);
  }
  if (!large) return undefined;
  const fh = await fs.open(abs, fsc.O_RDONLY | (fsc.O_NONBLOCK ?? 0));
  try {
    const fst = await fh.stat();
    if (!fst.isFile()) throw new NotRegularFileError(rel, kindOf(fst));
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** Opens a regular file for an in-place write (created if absent) without blocking or following a link. */
function openForWrite(abs: string, rel: string, mode: number | undefined): number {
  const fd = openSync(abs, fsc.O_WRONLY | fsc.O_CREAT | (fsc.O_NONBLOCK ?? 0) | (fsc.O_NOFOLLOW ?? 0), mode ?? 0o666);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFileError(rel, kindOf(st));
    if (st.nlink > 1) throw new WriteError(hardLinked(rel, st.nlink), rel, undefined);
    // Truncated only once known to be a regular file of one name.
    ftruncateSync(fd, 0);
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function refuseUnwritable(root: string, rel: string): void {
  const why = whyNotWritable(root, rel);
  if (why !== undefined) throw new WriteError(why, rel, undefined);
}

/** Removes a file; a directory or other non-file in its place is refused, not removed. */
function removeFile(abs: string, rel: string): void {
  let st: Stats;
  try {
    st = lstatSync(abs);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return;
    throw e;
  }
  if (st.isDirectory()) throw new NotRegularFileError(rel, kindOf(st));
  rmSync(abs, { force: true });
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
    return readRegular(this.abs(rel), rel);
  }

  async exists(rel: string): Promise<boolean> {
    try {
      statSync(this.abs(rel));
      return true;
    } catch (e) {
      if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return false;
      throw e;
    }
  }

  async findByName(name: string): Promise<string[]> {
    return findFilesNamed(this.root, name);
  }

  async mode(rel: string): Promise<number | undefined> {
    try {
      return statSync(this.abs(rel)).mode & 0o7777;
    } catch (e) {
      if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return undefined;
      throw e;
    }
  }

  async whyNotWritable(rel: string): Promise<string | undefined> {
    return whyNotWritable(this.root, rel);
  }

  async removeEmptyDir(rel: string): Promise<boolean> {
    try {
      rmdirSync(this.abs(rel));
      return true;
    } catch (e) {
      // Not empty (someone's files, or the run's that were kept), already gone, or not a folder.
      if (['ENOTEMPTY', 'EEXIST', 'ENOENT', 'ENOTDIR'].includes(errnoCode(e) ?? '')) return false;
      throw e;
    }
  }

  /**
   * Writes the batch in order. When a write fails, every file of the batch already written (and
   * the one that failed, which may be torn) is put back, newest first; a file that cannot be put
   * back, or that someone changed meanwhile, is skipped and named, and the others still are.
   * Throws a WriteError whose one-line message names the failed file and the OS error.
   */
  async apply(changes: readonly FileChange[]): Promise<void> {
    const done: { before: FileChange; wrote: Uint8Array | null }[] = [];
    const madeDirs: string[] = [];
    let index = 0;
    for (const c of changes) {
      try {
        const before = await this.read(c.path);
        if (c.expect !== undefined && bytesHash(before) !== c.expect) {
          throw new WriteError(`${c.path} changed on disk since it was checked; it was not overwritten`, c.path, undefined, [], CHANGED_ON_DISK);
        }
        const mode = before === undefined ? undefined : await this.mode(c.path);
        done.push({ before: { path: c.path, content: before ?? null, ...(mode !== undefined ? { mode } : {}) }, wrote: c.content });
        await this.writeOne(c, index++, madeDirs);
      } catch (e) {
        const notRestored = await this.rollBack(done);
        // Folders this batch created and left empty go too: the tree is as before.
        for (const d of madeDirs.reverse()) await this.removeEmptyDir(d).catch(() => false);
        const put = done.filter((d) => d.before.path !== c.path).length;
        const head = e instanceof WriteError && e.code === CHANGED_ON_DISK ? e.message : `could not write ${c.path}: ${oneLine(e)}`;
        const tail =
          notRestored.length > 0
            ? `; ${notRestored.length} file(s) already written could NOT be put back: ${notRestored.map((n) => `${n.path} (${n.error})`).join(', ')}`
            : put > 0
              ? `; the ${put} file(s) already written were put back`
              : '';
        throw new WriteError(head + tail, c.path, e, notRestored, e instanceof WriteError ? e.code : undefined);
      }
    }
  }

  /** Puts back what `done` wrote, newest first, whatever fails; returns the files left as they are. */
  private async rollBack(done: { before: FileChange; wrote: Uint8Array | null }[]): Promise<{ path: string; error: string }[]> {
    const left: { path: string; error: string }[] = [];
    for (const d of [...done].reverse()) {
      try {
        const disk = (await this.read(d.before.path)) ?? null;
        if (sameBytes(disk, d.before.content)) continue;
        // Only what this batch wrote (whole, or torn: a prefix of it) is put back.
        const ours = disk === null ? d.wrote === null : d.wrote !== null && disk.length <= d.wrote.length && sameBytes(disk, d.wrote.subarray(0, disk.length));
        if (!ours) {
          left.push({ path: d.before.path, error: 'changed by someone else during the write; left as it is' });
          continue;
        }
        await this.writeOne(d.before, -1);
      } catch (e) {
        left.push({ path: d.before.path, error: oneLine(e) });
      }
    }
    return left;
  }

  private async writeOne(c: FileChange, index: number, madeDirs: string[] = []): Promise<void> {
    const abs = this.abs(c.path);
    const hook = index >= 0 ? this.onWrite : undefined;
    await hook?.(c.path, index, 'before');
    if (c.content === null) {
      removeFile(abs, c.path);
      await hook?.(c.path, index, 'after');
      return;
    }
    refuseUnwritable(this.root, c.path);
    const first = mkdirSync(path.dirname(abs), { recursive: true });
    if (first !== undefined) {
      // mkdir made `first` and every folder below it down to the file's.
      for (let d = path.dirname(abs); d.length >= first.length; d = path.dirname(d)) madeDirs.unshift(path.relative(this.root, d).split(path.sep).join('/'));
    }
    // Write in place (not rename) so the file keeps its inode and mode bits; the checkpoint
    // already holds the original, so a torn write is recoverable. Small files are written at
    // once: thread-pool hops cost more than the write.
    const fd = openForWrite(abs, c.path, c.mode);
    try {
      await hook?.(c.path, index, 'truncated');
      let n = 0;
      while (n < c.content.length) n += writeSync(fd, c.content, n, c.content.length - n);
      if (c.mode !== undefined) fchmodSync(fd, c.mode);
    } finally {
      closeSync(fd);
    }
    await hook?.(c.path, index, 'after');
  }
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/**
 * The workspace files (relative, sorted) whose basename is `name`, for the edit parser's basename
 * lookup. Bounded: a basename lookup is a convenience, never a crawl of a huge tree; `.git` and
 * `node_modules` are skipped and links are not followed (Dirent types come from lstat).
 */
export async function findFilesNamed(root: string, name: string): Promise<string[]> {
  const out: string[] = [];
  let budget = 20_000;
  const walk = async (dir: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      if (--budget < 0) return;
      const r = rel === '' ? d.name : `${rel}/${d.name}`;
      if (d.isDirectory()) {
        if (d.name !== '.git' && d.name !== 'node_modules') await walk(path.join(dir, d.name), r);
      } else if (d.isFile() && d.name === name) out.push(r);
    }
  };
  await walk(root, '');
  return out.sort();
}

// Every file the product writes whole (a host's settings file, a checkpoint's manifest and blobs, a
// hook session's record, the run lock) goes through here (issue 36). The folder a file lives in may
// be one a repository controls (`.claude/`, `.gemini/`), so a fixed temporary name beside the target
// is a name the repository can plant as a link to a file of the user's: a plain write would go
// through it. So the temporary file is created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) under an
// unpredictable name, filled, flushed, given the target's mode, and renamed over the target: rename
// replaces the name itself, never what a link there points to. A read-only target, or one with other
// names (hard links) that a replacement would part from, is refused, never replaced. Appends (the trace) open with O_NOFOLLOW and take only a regular file.
import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants as fsc, fchmodSync, fchownSync, fstatSync, fsyncSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';
import * as path from 'node:path';
import { NotRegularFile } from './fileText';

/** The target is read-only (no write bit, or not writable by us): it is left as it is. */
export class ReadOnlyFile extends Error {
  readonly code = 'EREADONLY';
  constructor(
    readonly file: string,
    readonly mode: number,
  ) {
    super(`${file} is read-only (mode ${(mode & 0o7777).toString(8).padStart(4, '0')}); it was left as it is (make it writable, then try again)`);
    this.name = 'ReadOnlyFile';
  }
}

/** The target has more names (hard links): a replaced file would no longer be the one they show. */
export class HardLinkedFile extends Error {
  readonly code = 'EHARDLINKED';
  constructor(
    readonly file: string,
    readonly links: number,
  ) {
    super(`${file} has ${links} hard links; it was left as it is (a replaced file would no longer be the one its other names show)`);
    this.name = 'HardLinkedFile';
  }
}

export interface AtomicWriteOptions {
  /** Mode of a new file, before the umask (default 0o666). An existing file keeps its own mode. */
  mode?: number;
  /** Wait until the bytes and the rename are on the disk, not only in the page cache (default true). */
  durable?: boolean;
  /** Flush the folder's entry too (default: as `durable`); false when the caller flushes it once for many files. */
  syncDir?: boolean;
}

function lstatOrNull(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function writable(file: string, st: Stats): boolean {
  // root passes access(W_OK) whatever the mode: a file nobody may write is read-only for us too.
  if ((st.mode & 0o222) === 0) return false;
  try {
    accessSync(file, fsc.W_OK);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return false;
    throw e;
  }
}

/** Throws ReadOnlyFile (or HardLinkedFile) when `file` is a regular file we may not replace or remove. */
export function assertWritable(file: string): void {
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (st.isFile() && !writable(file, st)) throw new ReadOnlyFile(file, st.mode);
  if (st.isFile() && st.nlink > 1) throw new HardLinkedFile(file, st.nlink);
}

function kind(st: Stats): string {
  return st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO (named pipe)' : st.isSocket() ? 'a socket' : 'not a regular file';
}

function writeAll(fd: number, data: Uint8Array): void {
  for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
}

/** The unpredictable name of a temporary file beside `file`; the pid last, so a sweep can tell a dead writer's. */
export function tempNameBeside(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString('hex')}.${process.pid}.tmp`);
}

/** Creates `file` exclusively (never through a link, never over anything) with `data`; EEXIST when something is there. */
export function createExclusiveSync(file: string, data: string | Uint8Array, o: AtomicWriteOptions = {}): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const fd = openSync(file, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | (fsc.O_NOFOLLOW ?? 0), o.mode ?? 0o666);
  try {
    writeAll(fd, bytes);
    if (o.durable ?? true) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, fsc.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `file` with `data` at once: a reader sees the old bytes or the new, a crash leaves one of
 * them whole. A link at `file` is replaced, not followed (resolve a link the user made first, and
 * pass its target). An existing regular file keeps its mode (and owner, where we may set it); a
 * read-only one throws ReadOnlyFile; a folder, FIFO or socket there throws NotRegularFile.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, o: AtomicWriteOptions = {}): void {
  const st = lstatOrNull(file);
  if (st && !st.isFile() && !st.isSymbolicLink()) throw new NotRegularFile(file, kind(st));
  if (st?.isFile() && !writable(file, st)) throw new ReadOnlyFile(file, st.mode);
  if (st?.isFile() && st.nlink > 1) throw new HardLinkedFile(file, st.nlink);
  const durable = o.durable ?? true;
  const tmp = tempNameBeside(file);
  const fd = openSync(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | (fsc.O_NOFOLLOW ?? 0), st?.isFile() ? 0o600 : (o.mode ?? 0o666));
  let renamed = false;
  try {
    try {
      writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
      if (st?.isFile()) {
        fchmodSync(fd, st.mode & 0o7777);
        const mine = fstatSync(fd);
        if (mine.uid !== st.uid || mine.gid !== st.gid) chownIfAllowed(fd, st);
      }
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    renamed = true;
  } finally {
    if (!renamed) unlinkQuiet(tmp);
  }
  if (o.syncDir ?? durable) fsyncDir(path.dirname(file));
}

function chownIfAllowed(fd: number, st: Stats): void {
  try {
    fchownSync(fd, st.uid, st.gid);
  } catch (e) {
    // Only root may give a file away: anyone else's replaced file becomes theirs, as any editor's save does.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') throw e;
  }
}

function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Appends to `file` (created when absent), never through a link and only to a regular file. */
export function appendFileNoFollow(file: string, data: string | Uint8Array, mode = 0o666): void {
  let fd: number;
  try {
    fd = openSync(file, fsc.O_WRONLY | fsc.O_APPEND | fsc.O_CREAT | (fsc.O_NOFOLLOW ?? 0) | (fsc.O_NONBLOCK ?? 0), mode);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new NotRegularFile(file, 'a symbolic link');
    // A FIFO with no reader (opened non-blocking, so never waited on).
    if (code === 'ENXIO') throw new NotRegularFile(file, kind(lstatSync(file)));
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFile(file, kind(st));
    writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
  } finally {
    closeSync(fd);
  }
}

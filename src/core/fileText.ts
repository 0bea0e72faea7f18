// A file's text where a missing file is an answer, not a fault: a package.json a folder may lack, a
// lock or a record another process may have removed. Every such read goes through here, so "missing"
// means the same everywhere; any other error (permissions, a full disk, a broken file system) is thrown.
//
// Every read of a file the product keeps or trusts (the run lock, a checkpoint's manifest, a check's
// record, settings, a replay script, a trace, a package.json) never blocks: a FIFO, socket or device
// put at its path would hang a plain read forever, before any time limit can fire. The file is opened
// non-blocking and anything but a regular file is a clear error naming it (code ENOTREG or EISDIR).
import { closeSync, constants as fsc, fstatSync, openSync, readFileSync, promises as fs } from 'node:fs';
import type { Stats } from 'node:fs';

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** What is at `file` is not a regular file: never read, never waited on. */
export class NotRegularFile extends Error {
  readonly code: string;
  constructor(
    readonly file: string,
    readonly what: string,
  ) {
    const code = what === 'a directory' ? 'EISDIR' : 'ENOTREG';
    super(`${file} is ${what}, not a regular file (${code}); it is not read`);
    this.name = 'NotRegularFile';
    this.code = code;
  }
}

const FLAGS = fsc.O_RDONLY | (fsc.O_NONBLOCK ?? 0);

/** The file's text; ENOENT and the other open errors are thrown as the OS gives them. */
export function readRegularFileSync(file: string): string {
  const fd = openSync(file, FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFile(file, kindOf(st));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** As readRegularFileSync, without blocking the event loop on a large file. */
export async function readRegularFile(file: string): Promise<string> {
  const fh = await fs.open(file, FLAGS);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new NotRegularFile(file, kindOf(st));
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
}

/**
 * `file`'s text (UTF-8), or undefined when it is not there (`ENOENT`). `alsoMissing` names more error
 * codes the caller reads as "no file" (`ENOTDIR`: a part of the path is a file; `EISDIR`: a folder
 * where the file would be; `EACCES` and `ENOTREG` (a FIFO, socket or device) for a report's source
 * lines). Anything but a regular file is never read: `ENOTREG` (or `EISDIR`) is thrown unless named.
 */
export function readTextIfPresent(file: string, alsoMissing: readonly string[] = []): string | undefined {
  try {
    return readRegularFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOENT' || alsoMissing.includes(code)) return undefined;
    throw e;
  }
}

/**
 * A JSON file's top-level object (a package.json, a config); undefined where the file is missing
 * (or fails with one of `alsoMissing`), is not valid JSON, or holds no object. Other errors throw.
 */
export function readJsonObjectIfPresent(file: string, alsoMissing: readonly string[] = []): Record<string, unknown> | undefined {
  const text = readTextIfPresent(file, alsoMissing);
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}

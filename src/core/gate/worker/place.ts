// Where a folder's hook worker lives (issue 39): its record (pid, socket, token) under the folder's
// storage, `<storage>/worker/`, and its socket beside it when that path is short enough for a Unix
// socket (sun_path holds 108 bytes on Linux, 104 on macOS), else in a per-user folder under the
// system's temp folder named by a hash of the storage path. Both folders are the user's own, 0700:
// the socket's mode alone is not honoured everywhere, the folder's is. On Windows a named pipe.
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Longest socket path used: below macOS's 104-byte sun_path with room for the terminating NUL. */
export const MAX_SOCKET_PATH = 100;

export interface WorkerPlace {
  /** `<storage>/worker`: the record and, when short enough, the socket. */
  dir: string;
  /** The record the worker writes once it listens: pid, start, socket, token (0600). */
  recordFile: string;
  /** The socket or pipe the worker listens on. */
  socket: string;
  /** The folder the socket lies in (undefined for a Windows pipe). */
  socketDir: string | undefined;
}

export function workerPlace(storageDir: string, platform: NodeJS.Platform = process.platform): WorkerPlace {
  const dir = path.join(path.resolve(storageDir), 'worker');
  const id = createHash('sha256').update(path.resolve(storageDir)).digest('hex').slice(0, 16);
  const recordFile = path.join(dir, 'worker.json');
  if (platform === 'win32') return { dir, recordFile, socket: `\\\\.\\pipe\\fix-until-green-${id}`, socketDir: undefined };
  const near = path.join(dir, 'w.sock');
  if (Buffer.byteLength(near) <= MAX_SOCKET_PATH) return { dir, recordFile, socket: near, socketDir: dir };
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const far = path.join(os.tmpdir(), `fug-${uid}`);
  return { dir, recordFile, socket: path.join(far, `${id}.sock`), socketDir: far };
}

/**
 * Makes `dir` a folder only this user can enter (0700), or says why it cannot be one: a link, not a
 * folder, another user's, or open to others and not ours to close. Never follows a link.
 */
export function privateDir(dir: string): string | undefined {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) return `${dir} is not a plain folder`;
  if (process.platform === 'win32') return undefined;
  const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
  if (st.uid !== uid) return `${dir} belongs to another user (uid ${st.uid})`;
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return undefined;
}

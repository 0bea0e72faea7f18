// Where the CLI keeps runs and checkpoints: outside the user's tree, one folder per workspace.
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { UsageError } from './errors';

export function defaultStorageDir(cwd: string): string {
  let real = path.resolve(cwd);
  try {
    real = realpathSync(real);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const base = process.env.FIX_UNTIL_GREEN_STORAGE ?? path.join(process.env.XDG_STATE_HOME ?? path.join(os.homedir(), '.local', 'state'), 'fix-until-green');
  const id = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return path.join(base, `${path.basename(real) || 'root'}-${id}`);
}

/**
 * Makes sure the storage folder exists and takes a write, before a command writes anything to the
 * user's tree: a checkpoint that cannot be written would leave edits nothing can revert. A folder
 * that cannot be created or written is a preflight error naming the flag and the OS's reason.
 */
export function ensureWritableStorage(dir: string, flagGiven: boolean): void {
  const probe = path.join(dir, `.write-probe-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, 'fix-until-green storage probe\n'.repeat(32));
    unlinkSync(probe);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw e;
    // A probe cut short by a full disk may have left a partial file.
    if (code === 'ENOSPC' || code === 'EDQUOT') rmSync(probe, { force: true });
    const why = code === 'ENOSPC' ? 'the disk is full' : code === 'ENOTDIR' ? 'a part of the path is a file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'read-only file system' : code;
    throw new UsageError(
      `${flagGiven ? '--storage' : 'the storage folder'} ${dir} cannot be written (${code}: ${why}); ${flagGiven ? 'pass a writable folder' : 'set FIX_UNTIL_GREEN_STORAGE or --storage to a writable folder'}`,
      'preflight',
      { storage: dir, errno: code },
    );
  }
}

// Where the CLI keeps runs and checkpoints: outside the user's tree, one folder per workspace.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The folder every workspace's storage folder is in (FIX_UNTIL_GREEN_STORAGE, or the XDG state home's). */
function storageBase(): string {
  return process.env.FIX_UNTIL_GREEN_STORAGE ?? path.join(process.env.XDG_STATE_HOME ?? path.join(os.homedir(), '.local', 'state'), 'fix-until-green');
}

/**
 * Where `hooks install` keeps, per host file, what uninstall needs to give the file's bytes back;
 * undefined when the state folder is not an absolute path (an empty HOME), so nothing is written in
 * whatever folder the command runs in.
 */
export function hookInstallRecordDir(): string | undefined {
  const base = storageBase();
  return path.isAbsolute(base) ? path.join(base, 'hook-installs') : undefined;
}

export function defaultStorageDir(cwd: string): string {
  let real = path.resolve(cwd);
  try {
    real = realpathSync(real);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const base = storageBase();
  const id = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return path.join(base, `${path.basename(real) || 'root'}-${id}`);
}

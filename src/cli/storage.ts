// Where the CLI keeps runs and checkpoints: outside the user's tree, one folder per workspace.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

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

// Where the CLI keeps runs and checkpoints: outside the user's tree, one folder per workspace.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { stateDirectory } from '../core/home';

export function defaultStorageDir(cwd: string): string {
  let real = path.resolve(cwd);
  try {
    real = realpathSync(real);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const base = stateDirectory();
  const id = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return path.join(base, `${path.basename(real) || 'root'}-${id}`);
}

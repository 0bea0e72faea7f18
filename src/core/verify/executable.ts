// Where a check's executable is found: node_modules/.bin of the folder and its parents, then PATH,
// as the check's own environment looks (../verify/runner checkEnv).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { checkEnv } from './runner';

export function findExecutable(exe: string, cwd: string): string | undefined {
  if (exe.includes('/')) {
    const p = path.resolve(cwd, exe);
    return existsSync(p) ? p : undefined;
  }
  const env = checkEnv(cwd);
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, exe);
    if (existsSync(p)) return p;
  }
  return undefined;
}

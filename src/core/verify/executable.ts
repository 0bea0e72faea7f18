// Where a check's executable is found: node_modules/.bin of the folder and its parents, then PATH,
// as the check's own environment looks (../verify/runner checkEnv).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { checkEnv, splitCommand } from './runner';

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

const SHELL_BUILTINS = new Set(['cd', 'exec', 'export', 'set', 'test', '[', 'true', 'false', 'echo', 'printf', ':', '.', 'source', 'eval', 'if', 'for', 'while', '(', '{']);

/**
 * The executable a command starts, or undefined when a shell decides (a builtin such as `cd`
 * first). Leading `VAR=value` assignments are skipped.
 */
export function executableOf(command: string): string | undefined {
  const argv = splitCommand(command);
  if (argv) return argv[0];
  const tokens = command.trim().split(/\s+/);
  while (tokens.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(tokens[0]!)) tokens.shift();
  const m = /^([A-Za-z0-9_./@+-]+)/.exec(tokens[0] ?? '');
  if (!m || SHELL_BUILTINS.has(m[1]!)) return undefined;
  return m[1];
}

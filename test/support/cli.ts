// Runs the built CLI as a real process.
import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO } from './fixtures';

export const CLI = path.join(REPO, 'dist', 'cli.js');

export function ensureBuilt(): void {
  execFileSync(process.execPath, [path.join(REPO, 'scripts', 'ensureBuilt.mjs')], { cwd: REPO, stdio: 'inherit' });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], opts: { cwd?: string; input?: string; env?: Record<string, string> } = {}): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? REPO,
    input: opts.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, ...opts.env },
    timeout: 300_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

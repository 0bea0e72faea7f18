// Installs the real Claude Code from the npm registry into .cache/claude-code (outside the tracked
// tree, gitignored) for the real-host hook tests (issue 30), and prints its binary's path. Not a
// devDependency: its native binary is ~370 MB per platform, and a lockfile holding every platform's
// binary would make every `npm ci` fetch one for a test most runs skip. Pinned: the version whose
// hook contract the tests were written against. Idempotent: an installed binary is reused.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export const CLAUDE_CODE_VERSION = '2.1.328';
const REPO = path.resolve(import.meta.dirname, '..');
export const CLAUDE_CODE_DIR = path.join(REPO, '.cache', 'claude-code');

/** The native binary of this platform's optional package (the wrapper's postinstall only copies it). */
export function claudeBinary(dir = CLAUDE_CODE_DIR) {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  return path.join(dir, 'node_modules', '@anthropic-ai', `claude-code-${process.platform}-${arch}`, process.platform === 'win32' ? 'claude.exe' : 'claude');
}

function installedVersion(bin) {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 }).trim().split(' ')[0];
  } catch {
    return undefined;
  }
}

export function ensureClaudeCode() {
  const bin = claudeBinary();
  if (existsSync(bin) && installedVersion(bin) === CLAUDE_CODE_VERSION) return bin;
  mkdirSync(CLAUDE_CODE_DIR, { recursive: true });
  writeFileSync(path.join(CLAUDE_CODE_DIR, 'package.json'), JSON.stringify({ name: 'claude-code-cache', private: true }) + '\n');
  // Its engines field asks for Node 22; the native binary does not run on Node at all.
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--engine-strict=false', '--loglevel=error', `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`], { cwd: CLAUDE_CODE_DIR, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
  const got = installedVersion(bin);
  if (got !== CLAUDE_CODE_VERSION) throw new Error(`Claude Code ${CLAUDE_CODE_VERSION} did not install a runnable binary at ${bin} (got ${got ?? 'nothing'})`);
  return bin;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  process.stdout.write(ensureClaudeCode() + '\n');
}

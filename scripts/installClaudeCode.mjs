// Installs the real Claude Code from the npm registry into .cache/claude-code (outside the tracked
// tree, gitignored) for the real-host hook tests (issue 30), and prints its binary's path. Not a
// devDependency: its native binary is ~370 MB per platform, and a lockfile holding every platform's
// binary would make every `npm ci` fetch one for a test most runs skip. Pinned: the version whose
// hook contract the tests were written against. Idempotent: an installed binary is reused.
import * as path from 'node:path';
import { binaryVersion, ensureHost } from './hostCache.mjs';

export const CLAUDE_CODE_VERSION = '2.1.328';
const REPO = path.resolve(import.meta.dirname, '..');
export const CLAUDE_CODE_DIR = path.join(REPO, '.cache', 'claude-code');

/** The native binary of this platform's optional package (the wrapper's postinstall only copies it). */
export function claudeBinary(dir = CLAUDE_CODE_DIR) {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  return path.join(dir, 'node_modules', '@anthropic-ai', `claude-code-${process.platform}-${arch}`, process.platform === 'win32' ? 'claude.exe' : 'claude');
}

export function ensureClaudeCode() {
  const target = claudeBinary();
  // Its engines field asks for Node 22; the native binary does not run on Node at all.
  return ensureHost({ name: 'Claude Code', dir: CLAUDE_CODE_DIR, spec: `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`, version: CLAUDE_CODE_VERSION, target, versionOf: () => binaryVersion(target, (w) => w[0]), npmArgs: ['--engine-strict=false'] });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  process.stdout.write(ensureClaudeCode() + '\n');
}

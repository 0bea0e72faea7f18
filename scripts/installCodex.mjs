// Installs the real Codex CLI from the npm registry into .cache/codex (outside the tracked tree,
// gitignored) for the real-host hook tests (issue 30), and prints its binary's path. Not a
// devDependency: its native binary is ~300 MB per platform (the platform package is an npm alias,
// `@openai/codex-linux-x64` → `@openai/codex@<version>-linux-x64`). Pinned: the version whose hook
// contract the tests were written against. Idempotent: an installed binary is reused.
import * as path from 'node:path';
import { binaryVersion, ensureHost } from './hostCache.mjs';

export const CODEX_VERSION = '0.171.0';
const REPO = path.resolve(import.meta.dirname, '..');
export const CODEX_DIR = path.join(REPO, '.cache', 'codex');

const TRIPLES = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
  'win32-x64': 'x86_64-pc-windows-msvc',
  'win32-arm64': 'aarch64-pc-windows-msvc',
};

/** The native binary of this platform's optional package (the wrapper's bin/codex.js only spawns it). */
export function codexBinary(dir = CODEX_DIR) {
  const key = `${process.platform}-${process.arch}`;
  const triple = TRIPLES[key];
  if (!triple) throw new Error(`Codex publishes no native binary for ${key}`);
  return path.join(dir, 'node_modules', '@openai', `codex-${key}`, 'vendor', triple, 'bin', process.platform === 'win32' ? 'codex.exe' : 'codex');
}

export function ensureCodex() {
  const target = codexBinary();
  // "codex-cli 0.171.0"
  return ensureHost({ name: 'Codex', dir: CODEX_DIR, spec: `@openai/codex@${CODEX_VERSION}`, version: CODEX_VERSION, target, versionOf: () => binaryVersion(target, (w) => w.at(-1)) });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  process.stdout.write(ensureCodex() + '\n');
}

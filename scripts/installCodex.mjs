// Installs the real Codex CLI from the npm registry into .cache/codex (outside the tracked tree,
// gitignored) for the real-host hook tests (issue 30), and prints its binary's path. Not a
// devDependency: its native binary is ~300 MB per platform (the platform package is an npm alias,
// `@openai/codex-linux-x64` → `@openai/codex@<version>-linux-x64`). Pinned: the version whose hook
// contract the tests were written against. Idempotent: an installed binary is reused.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

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

function installedVersion(bin) {
  try {
    // "codex-cli 0.171.0"
    return execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim().split(' ').at(-1);
  } catch {
    return undefined;
  }
}

export function ensureCodex() {
  const bin = codexBinary();
  if (existsSync(bin) && installedVersion(bin) === CODEX_VERSION) return bin;
  mkdirSync(CODEX_DIR, { recursive: true });
  writeFileSync(path.join(CODEX_DIR, 'package.json'), JSON.stringify({ name: 'codex-cache', private: true }) + '\n');
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', `@openai/codex@${CODEX_VERSION}`], { cwd: CODEX_DIR, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
  const got = installedVersion(bin);
  if (got !== CODEX_VERSION) throw new Error(`Codex ${CODEX_VERSION} did not install a runnable binary at ${bin} (got ${got ?? 'nothing'})`);
  return bin;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  process.stdout.write(ensureCodex() + '\n');
}

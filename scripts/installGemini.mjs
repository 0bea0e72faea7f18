// Installs the real Gemini CLI from the npm registry into .cache/gemini (outside the tracked tree,
// gitignored) for the real-host hook tests (issue 30), and prints the path of its entry script.
// Not a devDependency: it is a large bundle the unit suite never loads, with native optional
// dependencies (node-pty) that the hook tests do not need, hence `--ignore-scripts`. Pinned: the
// version whose hook contract the tests were written against. Idempotent: an installed bundle of
// that version is reused. It runs on Node >= 20 (`engines`), as the repo does.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureHost } from './hostCache.mjs';

export const GEMINI_VERSION = '0.61.0';
const REPO = path.resolve(import.meta.dirname, '..');
export const GEMINI_DIR = path.join(REPO, '.cache', 'gemini');

/** The CLI's entry script (package.json `bin.gemini`), run with `node`. */
export function geminiEntry(dir = GEMINI_DIR) {
  return path.join(dir, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
}

function installedVersion(dir) {
  // Read from the package, not `gemini --version`: starting the CLI takes seconds.
  const pkg = path.join(dir, 'node_modules', '@google', 'gemini-cli', 'package.json');
  if (!existsSync(pkg)) return undefined;
  const v = JSON.parse(readFileSync(pkg, 'utf8')).version;
  return typeof v === 'string' ? v : undefined;
}

export function ensureGemini() {
  return ensureHost({ name: 'Gemini CLI', dir: GEMINI_DIR, spec: `@google/gemini-cli@${GEMINI_VERSION}`, version: GEMINI_VERSION, target: geminiEntry(), versionOf: () => installedVersion(GEMINI_DIR) });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  process.stdout.write(ensureGemini() + '\n');
}

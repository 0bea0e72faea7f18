// Mocha's global setup: runs once in the main process before any test file (and any parallel
// worker) starts. The bundles in dist/ are built here when stale, so test files that spawn the CLI
// never race each other building them.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function mochaGlobalSetup() {
  execFileSync(process.execPath, [path.join(REPO, 'scripts', 'ensureBuilt.mjs')], { cwd: REPO, stdio: 'inherit' });
}

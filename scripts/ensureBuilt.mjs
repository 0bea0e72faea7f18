// Builds the bundles when they are missing or older than the sources (esbuild takes under a second).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { PROGRAMS } from '../esbuild.mjs';

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

// The programs too: a dist/ built before they were shipped has the bundles but not them.
const outputs = ['dist/cli.js', 'dist/extension.js', ...readdirSync(PROGRAMS.from).map((f) => `dist/${PROGRAMS.to}/${f}`)];
const stale = outputs.some((o) => !existsSync(o) || statSync(o).mtimeMs < Math.max(newest('src'), existsSync('media') ? newest('media') : 0));
if (stale) execFileSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit' });

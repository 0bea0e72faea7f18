// The one way the real-host tests install a pinned agent host from the npm registry into a folder of
// the gitignored .cache (scripts/installClaudeCode.mjs, installCodex.mjs, installGemini.mjs): reused
// when what is there answers the pinned version, else installed with npm (no install scripts), then
// checked again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Returns `target` (the host's binary or entry script) once `versionOf()` answers `version`.
 * @param {{ name: string, dir: string, spec: string, version: string, target: string, versionOf: () => string | undefined, npmArgs?: string[] }} o
 */
export function ensureHost(o) {
  if (existsSync(o.target) && o.versionOf() === o.version) return o.target;
  mkdirSync(o.dir, { recursive: true });
  writeFileSync(path.join(o.dir, 'package.json'), JSON.stringify({ name: `${path.basename(o.dir)}-cache`, private: true }) + '\n');
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...(o.npmArgs ?? []), o.spec], { cwd: o.dir, stdio: ['ignore', 'inherit', 'inherit'], timeout: 15 * 60_000 });
  const got = existsSync(o.target) ? o.versionOf() : undefined;
  if (got !== o.version) throw new Error(`${o.name} ${o.version} did not install a runnable ${path.basename(o.target)} at ${o.target} (got ${got ?? 'nothing'})`);
  return o.target;
}

/** The version a binary prints for `--version` (the `pick`ed word of its output), or undefined. */
export function binaryVersion(bin, pick) {
  try {
    return pick(execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim().split(' '));
  } catch {
    return undefined;
  }
}

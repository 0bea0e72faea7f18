// The gate's folder is the project, never where the agent walked (issue 36). After `cd src` a host
// sends `cwd` = src/: taken as it is, the gate found no checks there and let the agent stop
// unchecked, and the session (keyed by its folder) started over. A hook call is placed in the
// project the hooks were installed for:
//   1. `--cwd`, when the hook command names it;
//   2. the host's own project-dir variable (CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR, …), when the
//      agent's cwd lies inside it (a stale or foreign value is ignored);
//   3. the nearest folder, from the cwd up, whose host config file holds our hook (a project-scope
//      install writes it there: the file is the install's own marker);
//   4. the nearest folder with a package.json, lifted to the workspace root that lists it (a
//      package.json with `workspaces`, or pnpm-workspace.yaml), for a user-scope install;
//   5. the cwd itself.
// The user's home is never taken for a project (its config files are the user-scope install's).
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { HookHost } from './hookHosts';
import { hookConfigFile } from './hookInstall';

/** The variables in which each host names the project of the session (read from their docs). */
const PROJECT_DIR_VARS: Record<HookHost, readonly string[]> = {
  claude: ['CLAUDE_PROJECT_DIR'],
  vscode: ['CLAUDE_PROJECT_DIR'],
  gemini: ['GEMINI_PROJECT_DIR', 'CLAUDE_PROJECT_DIR'],
  cursor: ['CURSOR_PROJECT_DIR'],
  codex: [],
  'copilot-cli': [],
};

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readSmall(p: string): string | undefined {
  try {
    const st = statSync(p);
    // A config file is small and regular; anything else (a FIFO, a huge file) is no marker.
    if (!st.isFile() || st.size > 1_000_000) return undefined;
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

function insideOrSame(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The host config files a project-scope install of `host` writes under `dir` (VS Code also reads Claude's). */
function markerFiles(host: HookHost, dir: string, home: string): string[] {
  const own = hookConfigFile(host, 'project', dir, home);
  if (host === 'claude' || host === 'vscode') {
    return [...new Set([own, hookConfigFile('claude', 'project', dir, home), hookConfigFile('vscode', 'project', dir, home), path.join(dir, '.claude', 'settings.local.json')])];
  }
  return [own];
}

const OUR_COMMAND = /\bhook --host [a-z-]+/;

/** The folders from `start` up to the filesystem's root, the user's home left out. */
function ancestors(start: string, home: string): string[] {
  const out: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (dir !== home) out.push(dir);
    if (path.dirname(dir) === dir) return out;
  }
}

function packageJson(dir: string): Record<string, unknown> | undefined {
  const text = readSmall(path.join(dir, 'package.json'));
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function isWorkspaceRoot(dir: string): boolean {
  const pkg = packageJson(dir);
  return (pkg !== undefined && pkg.workspaces !== undefined) || readSmall(path.join(dir, 'pnpm-workspace.yaml')) !== undefined;
}

export interface ProjectRootInput {
  host: HookHost;
  /** `--cwd` of the hook command. */
  explicit?: string;
  /** The cwd the host sent (absolute), or null. */
  cwd: string | null;
  /** Where the hook process runs: the cwd when the host sent none. */
  processCwd: string;
  env: Readonly<Record<string, string | undefined>>;
  home: string;
}

/** The project folder a hook call belongs to, and which rule placed it (for the trace and stderr). */
export function projectRoot(o: ProjectRootInput): { root: string; by: string } {
  if (o.explicit !== undefined) return { root: path.resolve(o.explicit), by: '--cwd' };
  const start = path.resolve(o.processCwd, o.cwd ?? '.');
  const home = o.home !== '' && path.isAbsolute(o.home) ? path.resolve(o.home) : '';
  for (const name of PROJECT_DIR_VARS[o.host]) {
    const v = o.env[name];
    if (v === undefined || v === '' || !path.isAbsolute(v)) continue;
    const dir = path.resolve(v);
    if (isDir(dir) && insideOrSame(dir, start)) return { root: dir, by: name };
  }
  const up = ancestors(start, home);
  for (const dir of up) {
    if (markerFiles(o.host, dir, home).some((f) => OUR_COMMAND.test(readSmall(f) ?? ''))) return { root: dir, by: 'the hooks installed there' };
  }
  const pkg = up.find((d) => packageJson(d) !== undefined);
  if (pkg !== undefined) {
    const ws = ancestors(pkg, home).find((d) => isWorkspaceRoot(d));
    return ws !== undefined ? { root: ws, by: 'the workspace root above the cwd' } : { root: pkg, by: 'the package.json above the cwd' };
  }
  return { root: start, by: 'the cwd' };
}

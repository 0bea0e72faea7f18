// Monorepos: the packages of an npm/yarn (`workspaces`) or pnpm (`pnpm-workspace.yaml`) workspace,
// and which of them depend on which, so a run checks each package by its own scripts and a change
// in one package also runs the checks of the packages that depend on it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readJsonObjectIfPresent } from '../fileText';
import { load } from 'js-yaml';
import picomatch from 'picomatch';

export interface WorkspacePackage {
  /** The package's `name` (its folder's path when it has none). */
  name: string;
  /** Absolute folder. */
  dir: string;
  /** Names of the workspace's packages it depends on (any dependency field). */
  deps: string[];
}

export interface Workspace {
  /** Absolute folder of the workspace root (the package.json with `workspaces`, or pnpm-workspace.yaml). */
  root: string;
  /** Where the package globs come from: `package.json workspaces` or `pnpm-workspace.yaml`. */
  source: string;
  packages: WorkspacePackage[];
}

/** How deep package globs are followed (`packages/*` is 2, `packages/group/*` 3). */
const MAX_DEPTH = 4;
/** A package.json read as JSON; a broken one is discovery's to report (it reads the same file): here it is no workspace. */
const readJson = (file: string): Record<string, unknown> | undefined => readJsonObjectIfPresent(file, ['ENOTDIR', 'EISDIR']);
const DEP_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
}

/** The package globs a folder declares as a workspace root, and where they come from; undefined for none. */
function packageGlobs(dir: string): { globs: string[]; source: string } | undefined {
  const pnpm = path.join(dir, 'pnpm-workspace.yaml');
  if (existsSync(pnpm)) {
    const v = load(readFileSync(pnpm, 'utf8')) as { packages?: unknown } | null;
    const globs = strings(v?.packages);
    if (globs.length > 0) return { globs, source: 'pnpm-workspace.yaml' };
  }
  const pkg = readJson(path.join(dir, 'package.json'));
  const ws = pkg?.workspaces;
  // npm and yarn: an array, or yarn's `{ packages: [...] }`.
  const globs = Array.isArray(ws) ? strings(ws) : strings((ws as { packages?: unknown } | undefined)?.packages);
  return globs.length > 0 ? { globs, source: 'package.json workspaces' } : undefined;
}

/** Folders under `root` (node_modules and dot-folders skipped) holding a package.json, workspace-relative. */
export function packageDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    let names: string[];
    try {
      names = readdirSync(path.join(root, rel), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    } catch (e) {
      if (['ENOENT', 'ENOTDIR', 'EACCES'].includes((e as NodeJS.ErrnoException).code ?? '')) return;
      throw e;
    }
    for (const n of names) {
      if (n === 'node_modules' || n.startsWith('.')) continue;
      const sub = rel === '' ? n : `${rel}/${n}`;
      if (existsSync(path.join(root, sub, 'package.json'))) out.push(sub);
      walk(sub, depth + 1);
    }
  };
  walk('', 1);
  return out;
}

/** The workspace whose root is `dir`, with its packages; undefined when `dir` declares none. */
export function workspaceAt(dir: string): Workspace | undefined {
  const root = path.resolve(dir);
  const declared = packageGlobs(root);
  if (!declared) return undefined;
  const clean = (g: string): string => g.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  // An entry naming the root itself (`./`, `.`: pnpm lists it to take the root's own scripts) is no
  // package of its own, and an empty pattern is one picomatch refuses.
  const own = (g: string): boolean => g !== '' && g !== '.';
  const included = declared.globs.filter((g) => !g.startsWith('!')).map(clean).filter(own);
  const include = included.length > 0 ? picomatch(included) : (): boolean => false;
  const excluded = declared.globs.filter((g) => g.startsWith('!')).map((g) => clean(g.slice(1))).filter(own);
  const exclude = excluded.length > 0 ? picomatch(excluded) : (): boolean => false;
  const found = packageDirs(root).filter((rel) => include(rel) && !exclude(rel));
  const manifests = found.map((rel) => ({ rel, pkg: readJson(path.join(root, rel, 'package.json')) ?? {} }));
  const names = new Map(manifests.map(({ rel, pkg }) => [typeof pkg.name === 'string' && pkg.name !== '' ? pkg.name : rel, rel]));
  const packages = manifests.map(({ rel, pkg }) => {
    const deps = new Set<string>();
    for (const field of DEP_FIELDS) {
      const d = pkg[field];
      if (typeof d === 'object' && d !== null) for (const k of Object.keys(d)) if (names.has(k)) deps.add(k);
    }
    const name = typeof pkg.name === 'string' && pkg.name !== '' ? pkg.name : rel;
    deps.delete(name);
    return { name, dir: path.join(root, rel), deps: [...deps].sort() };
  });
  return { root, source: declared.source, packages };
}

/**
 * The workspace `dir` is a package of (the nearest ancestor declaring one that lists it), with that
 * package; undefined when `dir` is no workspace's package.
 */
export function enclosingWorkspace(dir: string): { workspace: Workspace; self: WorkspacePackage } | undefined {
  const here = path.resolve(dir);
  for (let up = path.dirname(here); ; up = path.dirname(up)) {
    if (packageGlobs(up) !== undefined) {
      const workspace = workspaceAt(up)!;
      const self = workspace.packages.find((p) => p.dir === here);
      return self ? { workspace, self } : undefined;
    }
    if (path.dirname(up) === up) return undefined;
  }
}

/**
 * What a package's checks are named by (`<this>:<script>`): its name; where packages of the workspace
 * share a name (an example copied with its package.json: gql.tada's two `example-pokemon-api`), each
 * of those by its folder instead, so no two checks share a name.
 */
export function checkPrefix(p: WorkspacePackage, workspace: Workspace): string {
  if (workspace.packages.filter((q) => q.name === p.name).length < 2) return p.name;
  return path.relative(workspace.root, p.dir).split(path.sep).join('/');
}

/**
 * The packages that depend on `self`, directly or through others, in the workspace's order. Followed
 * by folder: a package whose name another shares (./checkPrefix) is not taken for a dependent of
 * what only the other depends on.
 */
export function dependentsOf(workspace: Workspace, self: WorkspacePackage): WorkspacePackage[] {
  const hit = new Set<string>([self.dir]);
  const names = new Set<string>([self.name]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of workspace.packages) {
      if (!hit.has(p.dir) && p.deps.some((d) => names.has(d))) {
        hit.add(p.dir);
        names.add(p.name);
        grew = true;
      }
    }
  }
  return workspace.packages.filter((p) => p.dir !== self.dir && hit.has(p.dir));
}

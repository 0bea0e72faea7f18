// Real fixture projects copied to a scratch dir, with the repo's pinned tools reachable.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '..', '..');

export interface Scratch {
  dir: string;
  project: string;
  storage: string;
  cleanup(): void;
}

export interface FixtureOptions {
  /**
   * A package of the repo's devDependencies whose own dependencies the project resolves at the top,
   * as a project that depends on it alone would (`gts` brings ESLint 8 and its plugins, which the
   * repo's tree keeps nested under gts since the repo itself pins ESLint 9).
   */
  hoist?: string;
}

export function copyFixture(rel: string, opts: FixtureOptions = {}): Scratch {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-test-'));
  const project = path.join(dir, 'project');
  cpSync(path.join(REPO, 'test', 'fixtures', rel), project, { recursive: true });
  if (opts.hoist !== undefined) hoistedModules(path.join(project, 'node_modules'), opts.hoist);
  else symlinkSync(path.join(REPO, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  return { dir, project, storage: path.join(dir, 'storage'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A node_modules of links: every package of the repo's, those nested under `pkg` in its place (its
 * scoped ones merged into their scope), and a .bin whose commands come from `pkg`'s own first.
 */
function hoistedModules(dest: string, pkg: string): void {
  const top = path.join(REPO, 'node_modules');
  const nested = path.join(top, pkg, 'node_modules');
  if (!existsSync(nested)) throw new Error(`${pkg} has no dependencies of its own under ${nested}: run npm ci`);
  const link = (dir: string, name: string, over: string | undefined): void => {
    mkdirSync(dir, { recursive: true });
    const from = over !== undefined && existsSync(path.join(over, name)) ? path.join(over, name) : path.join(top, path.relative(dest, dir), name);
    symlinkSync(from, path.join(dir, name));
  };
  const names = (d: string): string[] => (existsSync(d) ? readdirSync(d).filter((n) => !n.startsWith('.')) : []);
  for (const name of new Set([...names(top), ...names(nested)])) {
    if (!name.startsWith('@') || !existsSync(path.join(nested, name))) {
      link(dest, name, nested);
      continue;
    }
    for (const sub of new Set([...names(path.join(top, name)), ...names(path.join(nested, name))])) link(path.join(dest, name), sub, path.join(nested, name));
  }
  const bin = path.join(dest, '.bin');
  mkdirSync(bin);
  for (const from of [path.join(nested, '.bin'), path.join(top, '.bin')]) {
    for (const name of existsSync(from) ? readdirSync(from) : []) {
      if (existsSync(path.join(bin, name))) continue;
      symlinkSync(path.resolve(from, readlinkSync(path.join(from, name))), path.join(bin, name));
    }
  }
}

/** A scratch tree of these files (path → text) in the system's temp folder. */
export function tempTree(files: Record<string, string>, prefix = 'fug-tree-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** SHA-256 over every file's path and bytes (node_modules excluded): equal means byte-identical trees. */
export function treeHash(root: string): string {
  const h = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules') continue;
      const p = path.join(dir, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else {
        h.update(path.relative(root, p) + '\0' + (st.mode & 0o777).toString(8) + '\0');
        h.update(st.isSymbolicLink() ? 'link' : readFileSync(p));
        h.update('\0');
      }
    }
  };
  walk(root);
  return h.digest('hex');
}

// Real fixture projects copied to a scratch dir, with the repo's pinned tools reachable.
import { createHash } from 'node:crypto';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '..', '..');

export interface Scratch {
  dir: string;
  project: string;
  storage: string;
  cleanup(): void;
}

export function copyFixture(rel: string): Scratch {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-test-'));
  const project = path.join(dir, 'project');
  cpSync(path.join(REPO, 'test', 'fixtures', rel), project, { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  return { dir, project, storage: path.join(dir, 'storage'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
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

// Scratch workspaces for edit tests, and a hash over everything in a tree (modes and symlinks too).
import { createHash } from 'node:crypto';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from '../../../support/fixtures';

export const REPLIES = path.join(REPO, 'test', 'fixtures', 'replies');

/** SHA-256 over every entry's path, type, mode and bytes (or link target); `skip` leaves some out. */
export function fullTreeHash(root: string, skip: (rel: string) => boolean = () => false): string {
  const h = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      const rel = path.relative(root, p).split(path.sep).join('/');
      if (skip(rel)) continue;
      const st = lstatSync(p);
      h.update(`${rel}\0${(st.mode & 0o170000).toString(8)}\0${(st.mode & 0o7777).toString(8)}\0`);
      if (st.isSymbolicLink()) h.update(`link:${readlinkSync(p)}`);
      else if (st.isDirectory()) walk(p);
      else h.update(readFileSync(p));
      h.update('\0');
    }
  };
  walk(root);
  return h.digest('hex');
}

export interface ReplyWorkspace {
  /** Scratch folder holding `project/` and an `outside/` folder the project must never reach. */
  dir: string;
  project: string;
  /** The run storage inside the project, refused as an edit target. */
  storage: string;
  cleanup(): void;
}

/**
 * A copy of the replies fixture project plus what git cannot carry: a .git folder, node_modules,
 * a symlink to a folder outside the workspace, a symlinked file, run storage inside the tree.
 */
export function replyWorkspace(settings?: Record<string, unknown>): ReplyWorkspace {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-replies-'));
  const project = path.join(dir, 'project');
  cpSync(path.join(REPLIES, 'project'), project, { recursive: true });
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  write('project/.git/config', '[core]\n\tbare = false\n');
  write('project/node_modules/left-pad/index.js', 'module.exports = function leftPad() {};\n');
  write('project/.fix-until-green/runs/r1/checkpoint/checkpoint.json', '{"version":2}\n');
  write('outside/keep.txt', 'outside the workspace\n');
  write('outside.ts', 'export const x = 1;\n');
  if (settings) write('project/.vscode/settings.json', JSON.stringify(settings, null, 2) + '\n');
  symlinkSync('../outside', path.join(project, 'linked'));
  symlinkSync('math.ts', path.join(project, 'src', 'alias.ts'));
  return { dir, project, storage: path.join(project, '.fix-until-green'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

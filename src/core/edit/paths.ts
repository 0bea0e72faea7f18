// Every path an edit names is resolved inside the workspace, or refused with the reason.
import { realpathSync } from 'node:fs';
import * as path from 'node:path';

export type PathCheck = { ok: true; rel: string } | { ok: false; reason: string };

export interface PathPolicy {
  root: string;
  /** Absolute directories that edits may never touch (the run's storage). */
  forbiddenDirs?: string[];
}

function stripPrefix(p: string): string {
  return p.replace(/^"(.*)"$/, '$1').replace(/^(?:a|b)\//, '');
}

export function resolveEditPath(raw: string, policy: PathPolicy): PathCheck {
  const name = stripPrefix(raw.trim());
  if (name === '') return { ok: false, reason: 'empty path' };
  if (name.includes('\0')) return { ok: false, reason: `path "${raw}" contains a NUL byte` };
  if (path.isAbsolute(name) || /^[A-Za-z]:[\\/]/.test(name)) {
    return { ok: false, reason: `absolute path "${raw}" refused: edits must name workspace-relative paths` };
  }
  const root = path.resolve(policy.root);
  const abs = path.resolve(root, name);
  const rel = path.relative(root, abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
    return { ok: false, reason: `path "${raw}" escapes the workspace folder` };
  }
  const parts = rel.split(path.sep);
  if (parts.includes('.git')) return { ok: false, reason: `path "${raw}" is inside .git/` };
  if (parts.includes('node_modules')) return { ok: false, reason: `path "${raw}" is inside node_modules/` };
  for (const dir of policy.forbiddenDirs ?? []) {
    const r = path.relative(path.resolve(dir), abs);
    if (r === '' || (!r.startsWith('..') && !path.isAbsolute(r))) {
      return { ok: false, reason: `path "${raw}" is inside the run's storage` };
    }
  }
  // Symlinks: the deepest existing ancestor must resolve inside the real root.
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return { ok: false, reason: `workspace folder ${root} does not exist` };
  }
  let probe = abs;
  for (;;) {
    try {
      const real = realpathSync(probe);
      const r = path.relative(realRoot, real);
      if (r.startsWith('..') || path.isAbsolute(r)) {
        return { ok: false, reason: `path "${raw}" resolves through a symlink to outside the workspace` };
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { ok: false, reason: `path "${raw}": ${(e as Error).message}` };
      const parent = path.dirname(probe);
      if (parent === probe) break;
      probe = parent;
    }
  }
  return { ok: true, rel: parts.join('/') };
}

// Every path an edit names is resolved inside the workspace, or refused with the reason.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { landingPath, relBelow } from './landing';

/**
 * `rel` is the file's real name in the folder (the write lands there); `asWritten` the name the edit
 * used when it differs (through a folder link, `..` after a link, another case): rules judge both.
 */
export type PathCheck = { ok: true; rel: string; asWritten?: string } | { ok: false; reason: string };

export interface PathPolicy {
  root: string;
  /** Absolute directories that edits may never touch (the run's storage). */
  forbiddenDirs?: string[];
}

function inside(dir: string, abs: string): boolean {
  const r = path.relative(dir, abs);
  return r === '' || (!r.startsWith('..') && !path.isAbsolute(r));
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return p;
    throw e;
  }
}

/** The target of `p` when `p` is a symlink whose target does not exist. */
function danglingLink(p: string): string | undefined {
  try {
    return lstatSync(p).isSymbolicLink() ? readlinkSync(p) : undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** Resolves a workspace-relative path (forward or back slashes) or says why it is refused. */
export function resolveEditPath(raw: string, policy: PathPolicy): PathCheck {
  const name = raw.trim().replace(/^"(.*)"$/, '$1');
  if (name === '') return { ok: false, reason: 'empty path' };
  if (name.includes('\0')) return { ok: false, reason: `path "${raw}" contains a NUL byte` };
  if (path.isAbsolute(name) || /^[A-Za-z]:[\\/]/.test(name) || name.startsWith('\\\\') || name.startsWith('~')) {
    return { ok: false, reason: `absolute path "${raw}" refused: edits must name workspace-relative paths` };
  }
  const root = path.resolve(policy.root);
  const abs = path.resolve(root, ...name.split(/[\\/]/));
  const rel = path.relative(root, abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
    return { ok: false, reason: `path "${raw}" escapes the workspace folder` };
  }
  const parts = rel.split(path.sep);
  if (parts.includes('.git')) return { ok: false, reason: `path "${raw}" is inside .git/, which edits never touch` };
  if (parts.includes('node_modules')) return { ok: false, reason: `path "${raw}" is inside node_modules/, which edits never touch` };
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch (e) {
    return { ok: false, reason: `workspace folder ${root} cannot be resolved: ${(e as Error).message}` };
  }
  for (const dir of policy.forbiddenDirs ?? []) {
    const d = path.resolve(dir);
    if (inside(d, abs) || inside(realOrSelf(d), path.join(realRoot, rel))) {
      return { ok: false, reason: `path "${raw}" is inside the run's storage, which edits never touch` };
    }
  }
  const linked = refusedThroughLinks(raw, abs, root, realRoot, policy);
  if (linked !== undefined) return { ok: false, reason: linked };
  const landed = landingRel(raw, name, realRoot, policy);
  if ('reason' in landed) return { ok: false, reason: landed.reason };
  const real = landed.real;
  const written = parts.join('/');
  return { ok: true, rel: real, ...(real !== written ? { asWritten: written } : {}) };
}

/** Why `abs` is refused for a symbolic link on its way (the file itself, or a folder above it), if it is. */
function refusedThroughLinks(raw: string, abs: string, root: string, realRoot: string, policy: PathPolicy): string | undefined {
  // The file itself may not be a symlink: writing through it would change a file under another name.
  try {
    if (lstatSync(abs).isSymbolicLink()) {
      const target = realOrSelf(abs);
      return inside(realRoot, target)
        ? `path "${raw}" is a symbolic link; edit the file it points to (${path.relative(realRoot, target).split(path.sep).join('/')}) instead`
        : `path "${raw}" is a symbolic link pointing outside the workspace`;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') {
      return `path "${raw}": ${(e as Error).message}`;
    }
  }
  // Symlinked folders: the deepest existing ancestor must resolve inside the real root.
  let probe = abs;
  for (;;) {
    try {
      const real = realpathSync(probe);
      if (!inside(realRoot, real)) return `path "${raw}" resolves through a symlink to outside the workspace`;
      const realRel = path.relative(realRoot, real).split(path.sep);
      if (realRel.includes('.git') || realRel.includes('node_modules')) {
        return `path "${raw}" resolves through a symlink into ${realRel.includes('.git') ? '.git/' : 'node_modules/'}`;
      }
      for (const dir of policy.forbiddenDirs ?? []) {
        if (inside(realOrSelf(path.resolve(dir)), real)) return `path "${raw}" resolves through a symlink into the run's storage`;
      }
      return undefined;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return `path "${raw}": ${(e as Error).message}`;
      const link = danglingLink(probe);
      if (link !== undefined) {
        return `path "${raw}" goes through a broken symbolic link (${path.relative(root, probe).split(path.sep).join('/')} -> ${link})`;
      }
      const parent = path.dirname(probe);
      if (parent === probe) return undefined;
      probe = parent;
    }
  }
}

/** The workspace-relative path where a write to `name` really lands, or why it is refused. */
function landingRel(raw: string, name: string, realRoot: string, policy: PathPolicy): { real: string } | { reason: string } {
  // Where the write really lands, resolved part by part as the OS does (`src/specs/../x` through a
  // link `src/specs -> ../test` is not `src/x`): inside, and not in .git, node_modules or the storage.
  let landing: string;
  try {
    landing = landingPath(realRoot, name.split(/[\\/]/).join('/'));
  } catch (e) {
    return { reason: `path "${raw}" cannot be resolved: ${(e as Error).message}` };
  }
  const real = relBelow(realRoot, landing);
  if (real === undefined) return { reason: `path "${raw}" resolves through a symlink to outside the workspace` };
  const realParts = real.split('/');
  if (realParts.includes('.git') || realParts.includes('node_modules')) {
    return { reason: `path "${raw}" resolves through a symlink into ${realParts.includes('.git') ? '.git/' : 'node_modules/'}` };
  }
  for (const dir of policy.forbiddenDirs ?? []) {
    if (inside(realOrSelf(path.resolve(dir)), landing)) return { reason: `path "${raw}" resolves through a symlink into the run's storage` };
  }
  return { real };
}

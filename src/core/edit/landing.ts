// Where a write really lands (issue 36). A guard that judges the path as written lets through
// `src/helper.js` that is a link to `test/a.test.js`, `src/specs/a.test.js` under a folder link
// `src/specs -> ../test`, a file not yet made under such a folder, and `src/specs/../x` (which the
// OS resolves from the link's target, not lexically). Every guard judges the written name AND the
// name this returns; where either is protected, the write is.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

function missing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function realOrSelf(p: string): string {
  try {
    return realpathSync.native(p);
  } catch (e) {
    if (missing(e)) return p;
    throw e;
  }
}

/** Splits a written path on its separators (a backslash is a name character on POSIX). */
function partsOf(p: string): string[] {
  return p.split(path.sep === '\\' ? /[\\/]+/ : /\/+/);
}

/**
 * The real path a write to `p` (absolute, or relative to `from`) lands on: each part resolved as the
 * OS does, from the real folder before it (links followed, `..` taken from the link's target, the
 * real case of a name on a case-insensitive disk), a dangling link followed to the file it would
 * create, and the parts that do not exist yet appended. Throws on a link loop or an unreadable folder
 * (the caller refuses what it cannot place).
 */
export function landingPath(from: string, p: string, hops = { left: 40 }): string {
  const root = path.isAbsolute(p) ? path.parse(p).root : undefined;
  const parts = partsOf(root !== undefined ? p.slice(root.length) : p);
  let cur = realOrSelf(root ?? path.resolve(from));
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      cur = path.dirname(cur);
      continue;
    }
    const next = path.join(cur, part);
    try {
      cur = realpathSync.native(next);
      continue;
    } catch (e) {
      if (!missing(e)) throw e;
    }
    let link: string | undefined;
    try {
      if (lstatSync(next).isSymbolicLink()) link = readlinkSync(next);
    } catch (e) {
      if (!missing(e)) throw e;
    }
    // Nothing there yet: the write creates it (and its folders) under the real folder found so far.
    if (link === undefined) return path.join(next, ...parts.slice(i + 1));
    if (--hops.left < 0) throw Object.assign(new Error(`too many symbolic links in ${p}`), { code: 'ELOOP' });
    cur = landingPath(cur, link, hops);
  }
  return cur;
}

/** `abs` relative to `dir` with forward slashes, or undefined when it is not below `dir`. */
export function relBelow(dir: string, abs: string): string | undefined {
  const rel = path.relative(dir, abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/** Where a write named `p` lands, as a path of the folder `root`. */
export type Landing =
  /** Below the folder: `rel` is its real name there; `asWritten` the name the tool used, when it differs. */
  | { kind: 'inside'; rel: string; asWritten?: string }
  /** Neither written nor landing below the folder: not the folder's to judge. */
  | { kind: 'outside' }
  /** Written below the folder but landing elsewhere (a link out), or not resolvable: refuse. */
  | { kind: 'refused'; asWritten: string; reason: string };

/** Places a tool's or a reply's path (absolute, or relative to `cwd`) in the folder `root`. */
export function landingIn(root: string, cwd: string | null, p: string): Landing {
  const base = cwd ?? root;
  const written = relBelow(path.resolve(root), path.resolve(base, p));
  let landing: string;
  let realRoot: string;
  try {
    landing = landingPath(base, p);
    realRoot = realOrSelf(path.resolve(root));
  } catch (e) {
    if (written === undefined) return { kind: 'outside' };
    return { kind: 'refused', asWritten: written, reason: `${written} cannot be resolved (${(e as Error).message})` };
  }
  const real = relBelow(realRoot, landing);
  if (real === undefined) {
    if (written === undefined) return { kind: 'outside' };
    return { kind: 'refused', asWritten: written, reason: `${written} resolves through a symbolic link to ${landing}, outside the workspace` };
  }
  return { kind: 'inside', rel: real, ...(written !== undefined && written !== real ? { asWritten: written } : {}) };
}

// A path read back from our own storage (a checkpoint's entries and created folders, a hook
// session's record, a run's step snapshots) is data, not a promise: the file may have been edited
// or planted since we wrote it. Before a revert deletes or writes at such a path, it must still name
// a place inside the workspace folder, with the symbolic links of its existing part resolved: a
// `../victim.txt`, an absolute path, or a folder that is now a link to outside is refused, and the
// refusal is the caller's to report while every other path is still served.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

export type StoredPathCheck = { ok: true } | { ok: false; reason: string };

/** A stored path a revert refused to act on, and why. */
export interface RefusedPath {
  path: string;
  reason: string;
}

/** A content hash as the checkpoint writes it (sha256, hex): anything else would name a file outside its blobs. */
export function isStoredHash(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
}

function inside(dir: string, abs: string): boolean {
  const r = path.relative(dir, abs);
  return r === '' || (!r.startsWith(`..${path.sep}`) && r !== '..' && !path.isAbsolute(r));
}

function errno(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? '';
}

/**
 * The form of a stored workspace-relative path, before any file is looked at: forward slashes, no
 * empty, `.` or `..` part, not absolute, no NUL. What our writers store always has this form.
 */
export function storedPathForm(rel: unknown): string | undefined {
  if (typeof rel !== 'string') return `a stored path is not a string (${JSON.stringify(rel)})`;
  const shown = JSON.stringify(rel);
  if (rel === '') return 'a stored path is empty';
  if (rel.includes('\0')) return `stored path ${shown} contains a NUL byte`;
  if (rel.startsWith('/') || rel.startsWith('\\') || /^[A-Za-z]:/.test(rel) || rel.startsWith('~')) return `stored path ${shown} is absolute`;
  if (rel.includes('\\')) return `stored path ${shown} holds a backslash`;
  const parts = rel.split('/');
  if (parts.some((p) => p === '..')) return `stored path ${shown} leaves the workspace folder (..)`;
  if (parts.some((p) => p === '' || p === '.')) return `stored path ${shown} is not in the form our writers store`;
  return undefined;
}

/**
 * Whether the stored workspace-relative path `rel` still names a place inside `root`: its form
 * (storedPathForm), then the real path of its deepest existing part (the file itself when it
 * exists, else its nearest existing folder) inside the real root. A broken link on the way is
 * refused: writing or removing there would act on whatever the link names.
 */
export function checkStoredPath(root: string, rel: unknown): StoredPathCheck {
  const form = storedPathForm(rel);
  if (form !== undefined) return { ok: false, reason: `${form}; refused (was the storage edited?)` };
  const name = rel as string;
  let realRoot: string;
  try {
    realRoot = realpathSync(path.resolve(root));
  } catch (e) {
    return { ok: false, reason: `the workspace folder ${root} cannot be resolved (${(e as Error).message}); ${name} refused` };
  }
  let probe = path.join(realRoot, ...name.split('/'));
  for (;;) {
    try {
      const real = realpathSync(probe);
      if (!inside(realRoot, real)) return { ok: false, reason: `stored path "${name}" resolves through a symbolic link to ${real}, outside the workspace folder; refused` };
      return { ok: true };
    } catch (e) {
      const code = errno(e);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return { ok: false, reason: `stored path "${name}" cannot be resolved (${(e as Error).message}); refused` };
    }
    try {
      if (lstatSync(probe).isSymbolicLink()) {
        return { ok: false, reason: `stored path "${name}" goes through a broken symbolic link (${path.relative(realRoot, probe)} -> ${readlinkSync(probe)}); refused` };
      }
    } catch (e) {
      const code = errno(e);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return { ok: false, reason: `stored path "${name}" cannot be resolved (${(e as Error).message}); refused` };
    }
    const parent = path.dirname(probe);
    if (parent === probe || !inside(realRoot, parent)) return { ok: true };
    probe = parent;
  }
}

/**
 * Why a revert must not act on a checkpoint entry: its path does not stay inside `root` (links
 * resolved), or a hash it names is not one of ours (it would name a file outside the blobs).
 * Checked at each use, not at load: a folder may become a link to outside in between.
 */
export function storedEntryRefusal(root: string, rel: string, hashes: readonly unknown[]): string | undefined {
  if (hashes.some((h) => h !== undefined && h !== null && !isStoredHash(h))) return `the checkpoint's record of ${JSON.stringify(rel)} names a blob that is not a content hash; refused (was the storage edited?)`;
  const c = checkStoredPath(root, rel);
  return c.ok ? undefined : c.reason;
}

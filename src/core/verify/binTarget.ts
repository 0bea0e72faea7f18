// The file a `node_modules/.bin` entry runs. npm links it to the package's bin (a symlink);
// pnpm (and npm on Windows, cmd-shim) writes a small shell script instead, which execs node on the
// package's bin at a path relative to itself (`exec node "$basedir/../typescript/bin/tsc" "$@"`).
// Both are the package's own tool: whoever asks which package a bin belongs to (the warm type
// checker, the integrity record) reads the wrapper as it reads a link.
import { lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

/** Wrappers are a few hundred bytes; anything larger is a program of its own, not read. */
const WRAPPER_MAX_BYTES = 16 * 1024;

/**
 * The script a shell wrapper execs, relative to its folder (`"$basedir/../x/bin/x.js"`), as pnpm's
 * and cmd-shim's wrappers write it; undefined for any other file.
 */
export function wrapperTarget(text: string): string | undefined {
  if (!text.startsWith('#!/bin/sh') && !text.startsWith('#!/usr/bin/env sh')) return undefined;
  // The last exec line wins over the `[ -x "$basedir/node" ]` branch's: both name the same script.
  let target: string | undefined;
  for (const m of text.matchAll(/^\s*exec\s+(?:"\$basedir\/node"|node|"?\$NODE_EXE"?)?\s*(?:"[^"]*"\s+)*?"\$basedir\/([^"]+)"\s+"\$@"/gm)) target = m[1];
  return target;
}

function realpathOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch (e) {
    if (['ENOENT', 'ENOTDIR', 'ELOOP', 'EACCES'].includes((e as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw e;
  }
}

/**
 * The path a `.bin` entry names as the file it runs, as written (not resolved through further
 * links, so a path under the project stays under it): a link's target, a wrapper's script; undefined
 * for a plain file (it is the tool itself) or a missing one.
 */
export function binEntryTarget(bin: string): string | undefined {
  let stat;
  try {
    stat = lstatSync(bin);
  } catch (e) {
    if (['ENOENT', 'ENOTDIR', 'EACCES'].includes((e as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw e;
  }
  if (stat.isSymbolicLink()) return path.resolve(path.dirname(bin), readlinkSync(bin));
  if (!stat.isFile() || stat.size > WRAPPER_MAX_BYTES) return undefined;
  let text: string;
  try {
    text = readFileSync(bin, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EACCES') return undefined;
    throw e;
  }
  // `$basedir` is the folder the wrapper lies in, as the shell sees it.
  const rel = wrapperTarget(text);
  return rel === undefined ? undefined : path.resolve(path.dirname(bin), rel);
}

/**
 * The real path of the file `bin` runs: links followed to their end, a pnpm/cmd-shim shell wrapper
 * read to the script it execs (itself perhaps a link); `bin`'s own real path for any other file;
 * undefined when missing.
 */
export function binTarget(bin: string): string | undefined {
  let p = bin;
  // A link to a link to a wrapper: a few hops at most; a loop ends at the guard.
  for (let hop = 0; hop < 8; hop++) {
    const next = binEntryTarget(p);
    if (next === undefined) break;
    p = next;
  }
  return realpathOrUndefined(p);
}

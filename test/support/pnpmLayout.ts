// A project's node_modules laid out as pnpm lays it out, for tools that must find the package a
// .bin entry runs when the entry is pnpm's shell wrapper rather than npm's link.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO } from './fixtures';

/**
 * Lays `project/node_modules` out as pnpm does: the package under .pnpm/NAME@VERSION (here a link
 * to the repo's copy), a link to it at the top, and a .bin entry that is pnpm's shell wrapper.
 */
export function pnpmLayout(project: string, name: string, version: string, binRel: string, binName: string): void {
  const nm = path.join(project, 'node_modules');
  rmSync(nm, { recursive: true, force: true });
  const store = path.join(nm, '.pnpm', `${name}@${version}`, 'node_modules');
  mkdirSync(store, { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules', name), path.join(store, name), 'dir');
  symlinkSync(path.join('.pnpm', `${name}@${version}`, 'node_modules', name), path.join(nm, name), 'dir');
  mkdirSync(path.join(nm, '.bin'));
  const target = `$basedir/../.pnpm/${name}@${version}/node_modules/${name}/${binRel}`;
  const nodePath = `${store}/${name}/bin/node_modules:${store}/${name}/node_modules:${store}:${nm}/.pnpm/node_modules`;
  writeFileSync(path.join(nm, '.bin', binName), [
    '#!/bin/sh',
    'basedir=$(dirname "$(echo "$0" | sed -e \'s,\\\\,/,g\')")',
    '',
    'case `uname` in',
    '    *CYGWIN*) basedir=`cygpath -w "$basedir"`;;',
    'esac',
    '',
    'if [ -z "$NODE_PATH" ]; then',
    `  export NODE_PATH="${nodePath}"`,
    'else',
    `  export NODE_PATH="${nodePath}:$NODE_PATH"`,
    'fi',
    'if [ -x "$basedir/node" ]; then',
    `  exec "$basedir/node"  "${target}" "$@"`,
    'else',
    `  exec node  "${target}" "$@"`,
    'fi',
    '',
  ].join('\n'), { mode: 0o755 });
}

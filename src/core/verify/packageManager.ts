// How a project's scripts and tools are run when npm cannot: Yarn Berry's Plug'n'Play installs no
// node_modules, so `npm test` finds no `mocha` and no `node_modules/.bin/tsc` exists. There the
// project's own yarn runs its scripts (`yarn run test`) and its tools (`yarn run tsc`), resolved
// through `.pnp.cjs`. Corepack would download yarn; the project's `yarnPath` release needs no
// network, so it is run with node directly.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { readTextIfPresent } from '../fileText';
import { findExecutable } from './executable';

export interface PnpRunner {
  /** The folder holding `.pnp.cjs` (the project root). */
  root: string;
  /** The command that runs yarn: `node /abs/.yarn/releases/yarn-4.x.cjs`, or `yarn` when on PATH. */
  yarn: string;
  /** Where that yarn comes from, for notes. */
  from: string;
}

/** The Plug'n'Play install `dir` is in (a `.pnp.cjs` above it and no node_modules/.bin on the way), or undefined. */
export function pnpRunner(dir: string): PnpRunner | { root: string; missing: string } | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    // A node_modules install wins: npm run finds the tools there.
    if (existsSync(path.join(d, 'node_modules', '.bin'))) return undefined;
    if (existsSync(path.join(d, '.pnp.cjs'))) return runnerAt(d);
    if (path.dirname(d) === d) return undefined;
  }
}

function runnerAt(root: string): PnpRunner | { root: string; missing: string } {
  const rc = path.join(root, '.yarnrc.yml');
  if (existsSync(rc)) {
    const v = yarnrc(rc);
    if (typeof v?.yarnPath === 'string' && existsSync(path.resolve(root, v.yarnPath))) {
      return { root, yarn: `node ${path.resolve(root, v.yarnPath)}`, from: `.yarnrc.yml yarnPath (${v.yarnPath})` };
    }
  }
  if (findExecutable('yarn', root) !== undefined) return { root, yarn: 'yarn', from: 'yarn on PATH' };
  return { root, missing: 'the project installs with Yarn Plug\'n\'Play (.pnp.cjs, no node_modules) and neither a .yarnrc.yml yarnPath release nor yarn on PATH is there to run its scripts' };
}

/** A .yarnrc.yml's settings; a file yaml cannot read names no yarnPath (yarn itself will say what is wrong). */
function yarnrc(file: string): { yarnPath?: unknown } | null {
  try {
    return load(readFileSync(file, 'utf8')) as { yarnPath?: unknown } | null;
  } catch (e) {
    if ((e as Error).name === 'YAMLException') return null;
    throw e;
  }
}

/** Whether the package at `dir` declares `name` in any dependency field (what `yarn bin` resolves under PnP). */
export function declares(dir: string, name: string): boolean {
  const text = readTextIfPresent(path.join(dir, 'package.json'));
  if (text === undefined) return false;
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch (e) {
    // A broken package.json is discovery's to report; here it declares nothing.
    if (e instanceof SyntaxError) return false;
    throw e;
  }
  if (typeof pkg !== 'object' || pkg === null) return false;
  const fields = pkg as Record<string, unknown>;
  return ['dependencies', 'devDependencies', 'optionalDependencies'].some((f) => typeof fields[f] === 'object' && fields[f] !== null && Object.hasOwn(fields[f], name));
}

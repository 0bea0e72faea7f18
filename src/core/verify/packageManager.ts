// How a project's scripts and tools are run when npm cannot: Yarn Berry's Plug'n'Play installs no
// node_modules, so `npm test` finds no `mocha` and no `node_modules/.bin/tsc` exists. There the
// project's own yarn runs its scripts (`yarn run test`) and its tools (`yarn run tsc`), resolved
// through `.pnp.cjs`. Corepack would download yarn; the project's `yarnPath` release needs no
// network, so it is run with node directly.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { findExecutable } from './verifier';

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
    const v = load(readFileSync(rc, 'utf8')) as { yarnPath?: unknown } | null;
    if (typeof v?.yarnPath === 'string' && existsSync(path.resolve(root, v.yarnPath))) {
      return { root, yarn: `node ${path.resolve(root, v.yarnPath)}`, from: `.yarnrc.yml yarnPath (${v.yarnPath})` };
    }
  }
  if (findExecutable('yarn', root) !== undefined) return { root, yarn: 'yarn', from: 'yarn on PATH' };
  return { root, missing: 'the project installs with Yarn Plug\'n\'Play (.pnp.cjs, no node_modules) and neither a .yarnrc.yml yarnPath release nor yarn on PATH is there to run its scripts' };
}

/** Whether the package at `dir` declares `name` in any dependency field (what `yarn bin` resolves under PnP). */
export function declares(dir: string, name: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    return ['dependencies', 'devDependencies', 'optionalDependencies'].some((f) => typeof pkg[f] === 'object' && pkg[f] !== null && name in (pkg[f] as object));
  } catch {
    return false;
  }
}

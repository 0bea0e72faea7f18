// Whether a tsc call writes files, read as tsc reads it: `--noEmit` on its command line, else the
// `noEmit` of the tsconfig it reads, set there or inherited through `extends` (a relative path, a
// package's config, or a list of them, where a later one wins). Two things ask: discovery (a script
// `check:types: tsc -p tsconfig.js.json` whose config inherits `noEmit` is a type check, not a
// build) and the check plan (a call that writes nothing runs beside the others). A config that
// cannot be read or followed counts as writing: the call is then a build, as before.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { readTextIfPresent } from '../fileText';

/** How deep an `extends` chain is followed (tsc itself reports a cycle; a chain this long is none we read). */
const MAX_DEPTH = 16;

/** Whether `command` (tsc, vue-tsc, tsgo, as `node …/tsc` too) writes nothing when run in `cwd`. */
export function tscWritesNothing(command: string, cwd: string): boolean {
  const t = command.trim().split(/\s+/);
  if (t.some((a) => a === '-b' || a === '--build')) return false;
  const flag = t.findIndex((a) => a === '--noEmit' || a.startsWith('--noEmit='));
  if (flag >= 0) {
    const value = t[flag]!.includes('=') ? t[flag]!.slice(t[flag]!.indexOf('=') + 1) : t[flag + 1];
    return value !== 'false';
  }
  const i = t.findIndex((a) => a === '-p' || a === '--project' || a.startsWith('--project='));
  const named = i < 0 ? undefined : t[i]!.startsWith('--project=') ? t[i]!.slice('--project='.length) : t[i + 1];
  let file = path.resolve(cwd, named ?? 'tsconfig.json');
  if (named !== undefined && !/\.json$/i.test(named)) file = path.join(file, 'tsconfig.json');
  return noEmitOf(file, new Set()) === true;
}

/** The `noEmit` a tsconfig file ends up with; undefined where it sets none or cannot be read. */
function noEmitOf(file: string, seen: Set<string>): boolean | undefined {
  if (seen.has(file) || seen.size >= MAX_DEPTH) return undefined;
  seen.add(file);
  const text = readTextIfPresent(file, ['ENOTDIR', 'EISDIR']);
  if (text === undefined) return undefined;
  const config = parse(text, [], { allowTrailingComma: true }) as { compilerOptions?: { noEmit?: unknown }; extends?: unknown } | undefined;
  const own = config?.compilerOptions?.noEmit;
  if (typeof own === 'boolean') return own;
  const bases = typeof config?.extends === 'string' ? [config.extends] : Array.isArray(config?.extends) ? config.extends.filter((e): e is string => typeof e === 'string') : [];
  // Of several bases, a later one overrides an earlier one.
  for (const base of [...bases].reverse()) {
    const at = baseFile(base, file);
    const v = at !== undefined ? noEmitOf(at, seen) : undefined;
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The file an `extends` entry names, as tsc finds it: a path (`.json` optional), else a package's config. */
function baseFile(base: string, from: string): string | undefined {
  if (base.startsWith('.') || path.isAbsolute(base)) {
    const p = path.resolve(path.dirname(from), base);
    return /\.json$/i.test(p) ? p : readTextIfPresent(p, ['ENOTDIR', 'EISDIR']) !== undefined ? p : `${p}.json`;
  }
  const req = createRequire(from);
  for (const candidate of [base, `${base}.json`, `${base}/tsconfig.json`]) {
    try {
      return req.resolve(candidate);
    } catch {
      // the next spelling
    }
  }
  return undefined;
}

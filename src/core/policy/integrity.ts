// Verifier integrity (DESIGN §3): the model may change the code under test, never what decides
// whether it passes. At step 0 the run records what defines each check: its resolved command, the
// files the command names, the package.json fields that define scripts and runner configuration,
// tsconfig files with their `extends` chains, lint and test-runner configs, and the workspace
// settings. An edit that touches any of them is refused (retry, the reason fed back) unless the
// user set `allowVerifierEdits`; a definition that changes on disk during a step stops the run.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import type { CheckSpec } from '../types';
import { landingPath, relBelow } from '../edit/landing';
import { binEntryTarget } from '../verify/binTarget';
import type { Critic, ProposedFile } from './critics';
import { namesOf } from './critics';

/** Files that configure a type checker, linter or test runner wherever they sit in the folder. */
export const VERIFIER_CONFIG_GLOBS: readonly string[] = [
  '**/tsconfig*.json',
  '**/jsconfig*.json',
  '**/eslint.config.*',
  '**/.eslintrc',
  '**/.eslintrc.*',
  '**/.eslintignore',
  '**/jest.config.*',
  '**/jest.setup.*',
  '**/vitest.config.*',
  '**/vitest.workspace.*',
  '**/vitest.setup.*',
  '**/vite.config.*',
  '**/.mocharc',
  '**/.mocharc.*',
  '**/ava.config.*',
  '**/.c8rc',
  '**/.c8rc.*',
  '**/.nycrc',
  '**/.nycrc.*',
  '**/babel.config.*',
  '**/.babelrc',
  '**/.babelrc.*',
  '**/.swcrc',
  '**/biome.json',
  '**/biome.jsonc',
  '**/.oxlintrc.json',
  '**/.xo-config*',
  '**/xo.config.*',
  '**/karma.conf.*',
  '**/playwright.config.*',
  '**/.taprc',
  '**/.vscode/settings.json',
  '**/.vscode/tasks.json',
  '**/.npmrc',
  '**/.yarnrc*',
  '**/pnpm-workspace.yaml',
  // The tools themselves: a rewritten `node_modules/typescript` would pass anything.
  'node_modules/**',
  '**/node_modules/**',
];

/** package.json fields that define scripts, how modules load, and runner or linter configuration. */
export const PACKAGE_JSON_VERIFIER_FIELDS: readonly string[] = [
  'scripts',
  'type',
  'workspaces',
  'jest',
  'mocha',
  'ava',
  'vitest',
  'c8',
  'nyc',
  'tap',
  'xo',
  'prettier',
  'eslintConfig',
  'eslintIgnore',
  'babel',
  'imports',
];

export interface VerifierRecord {
  /** The checks' resolved commands, as step 0 ran them. */
  commands: string[];
  /** Workspace-relative path → its fingerprint at step 0 (null: absent then). */
  files: Map<string, string | null>;
}

/** sha256 of a file's bytes; of a package.json, of the fields that define the checks only. */
function fingerprint(abs: string): string | null {
  try {
    if (!statSync(abs).isFile()) return null;
    const bytes = readFileSync(abs);
    if (path.basename(abs) !== 'package.json') return createHash('sha256').update(bytes).digest('hex');
    const json = parseObject(bytes.toString('utf8'));
    const fields = json ? PACKAGE_JSON_VERIFIER_FIELDS.map((k) => [k, json[k] ?? null]) : bytes.toString('utf8');
    return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
  } catch {
    // Absent (or unreadable) is itself the recorded state: a file appearing there later is a change.
    return null;
  }
}

function toRel(root: string, abs: string): string | undefined {
  const rel = path.relative(root, abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

function readJson(abs: string): Record<string, unknown> | undefined {
  try {
    // tsconfig files may carry comments and trailing commas; strip what JSON does not allow.
    const text = readFileSync(abs, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:"'\\])\/\/.*$/gm, '$1')
      .replace(/,(\s*[}\]])/g, '$1');
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A tsconfig and every file its `extends` chain names that lives inside the folder. */
function tsconfigChain(root: string, abs: string, out: Set<string>): void {
  const rel = toRel(root, abs);
  if (rel === undefined || out.has(rel)) return;
  out.add(rel);
  const json = readJson(abs);
  const ext = json?.extends;
  for (const e of typeof ext === 'string' ? [ext] : Array.isArray(ext) ? ext.filter((x): x is string => typeof x === 'string') : []) {
    const base = path.dirname(abs);
    const candidates = e.startsWith('.') || path.isAbsolute(e) ? [path.resolve(base, e), path.resolve(base, `${e}.json`)] : [path.join(base, 'node_modules', e), path.join(base, 'node_modules', `${e}.json`), path.join(base, 'node_modules', e, 'tsconfig.json')];
    const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
    if (hit) tsconfigChain(root, hit, out);
  }
}

/** Programs that run a script named by their first argument: that script is part of the verifier. */
const INTERPRETERS = new Set(['node', 'nodejs', 'bash', 'sh', 'zsh', 'dash', 'tsx', 'ts-node', 'python', 'python3', 'deno', 'bun', 'perl', 'ruby', 'awk']);
/** Flags whose value names a configuration or program file. */
const CONFIG_FLAGS = new Set(['-p', '--project', '-c', '--config', '--config-file', '--rcfile', '--rc', '-f', '--file']);

function existingFile(root: string, cwd: string, word: string): string | undefined {
  const clean = word.replace(/^['"]|['"]$/g, '');
  if (clean === '' || /[*?$`|&;<>()]/.test(clean)) return undefined;
  const abs = path.resolve(cwd, clean);
  const rel = toRel(root, abs);
  if (rel === undefined || rel.startsWith('node_modules/')) return undefined;
  try {
    return statSync(abs).isFile() ? rel : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Files a command runs or reads its configuration from: a script it executes (`./check.sh`,
 * `node scripts/check.mjs`, `bash test.sh`) and the value of a config flag (`-p tsconfig.build.json`,
 * `--config vitest.ci.ts`). Files it merely takes as input (`eslint src/a.ts`) are the code under
 * check, not the verifier.
 */
function namedFiles(root: string, cwd: string, command: string): string[] {
  const out: string[] = [];
  for (const segment of command.split(/&&|\|\||;|\|/)) {
    const words = segment.trim().split(/\s+/).filter((w) => w !== '' && !/^[A-Z_][A-Z0-9_]*=/.test(w));
    const first = words[0];
    if (first === undefined) continue;
    const program = existingFile(root, cwd, first);
    if (program) out.push(program);
    if (INTERPRETERS.has(path.basename(first)) && words[1] !== undefined && !words[1].startsWith('-')) {
      const script = existingFile(root, cwd, words[1]);
      if (script) out.push(script);
    }
    for (let i = 1; i < words.length; i++) {
      const w = words[i]!;
      const eq = w.indexOf('=');
      const [flag, value] = eq > 0 && w.startsWith('--') ? [w.slice(0, eq), w.slice(eq + 1)] : [w, words[i + 1]];
      if (!CONFIG_FLAGS.has(flag) || value === undefined) continue;
      const file = existingFile(root, cwd, value);
      if (file) out.push(file);
    }
  }
  return out;
}

/**
 * What a package manager writes on every install: an `npm install` (or yarn, pnpm, bun) in another
 * terminal during a step rewrites one of these, and the tools the checks run may have changed.
 */
const INSTALL_MARKERS: readonly string[] = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'node_modules/.package-lock.json',
  'node_modules/.yarn-state.yml',
  'node_modules/.yarn-integrity',
  'node_modules/.modules.yaml',
  'node_modules/.pnpm/lock.yaml',
  '.yarn/install-state.gz',
  '.pnp.cjs',
  '.pnp.loader.mjs',
];

/**
 * A package folder's stamp (key `node_modules/dep/`): the folder's and its package.json's inodes,
 * the manifest's size and mtime. Replacing a package by hand (`rm -rf` and a copy, a re-link by
 * pnpm) rewrites no marker above, but gives new inodes: stats only, no hashing, so a thousand
 * packages cost a few milliseconds. The listing (key `node_modules/`) is the sorted package names:
 * one added or removed is a change too.
 */
function folderStamp(dir: string): string | null {
  if (path.basename(dir) === 'node_modules') {
    const names = packageNames(dir);
    return names.length === 0 ? null : createHash('sha256').update(names.join('\n')).digest('hex');
  }
  try {
    const d = statSync(dir);
    if (!d.isDirectory()) return null;
    let manifest = 'none';
    try {
      const m = statSync(path.join(dir, 'package.json'));
      manifest = `${m.ino}:${m.size}:${m.mtimeMs}`;
    } catch {
      // A folder without a manifest is still a package folder node can load from.
    }
    return `${d.ino}:${manifest}`;
  } catch {
    return null;
  }
}

/** The top-level package folders of a node_modules (`dep`, `@scope/dep`), sorted; dot entries are the managers' own. */
function packageNames(nm: string): string[] {
  const list = (d: string): string[] => {
    try {
      return readdirSync(d).filter((n) => !n.startsWith('.'));
    } catch {
      return [];
    }
  };
  const out: string[] = [];
  for (const n of list(nm)) {
    if (n.startsWith('@')) for (const m of list(path.join(nm, n))) out.push(`${n}/${m}`);
    else out.push(n);
  }
  return out.sort();
}

/** Stamps of every package a check can load from this node_modules, and of the listing itself. */
function installedPackages(root: string, dir: string, rels: Set<string>): void {
  const nm = path.join(dir, 'node_modules');
  const rel = toRel(root, nm);
  if (rel === undefined) return;
  const names = packageNames(nm);
  if (names.length === 0) return;
  rels.add(`${rel}/`);
  for (const n of names) rels.add(`${rel}/${n}/`);
}

const LAUNCHERS = new Set(['npx', 'exec', 'pnpm', 'yarn', 'bunx', 'dlx']);

/**
 * The runner binaries a command starts from `node_modules/.bin` (in its folder or one above, inside
 * the workspace): the `.bin` entry and the file it links to or its wrapper runs, whose bytes are the tool itself.
 */
function installedTools(root: string, cwd: string, command: string): string[] {
  const out: string[] = [];
  for (const segment of command.split(/&&|\|\||;|\|/)) {
    const words = segment.trim().split(/\s+/).filter((w) => w !== '' && !/^[A-Z_][A-Z0-9_]*=/.test(w));
    const program = words.find((w) => !LAUNCHERS.has(w) && !w.startsWith('-'));
    if (program === undefined || program.includes('/')) continue;
    for (let dir = cwd; ; dir = path.dirname(dir)) {
      const bin = path.join(dir, 'node_modules', '.bin', program);
      const rel = toRel(root, bin);
      if (rel === undefined) break;
      if (existsSync(bin)) {
        out.push(rel);
        // npm's link, or pnpm's shell wrapper read to the script it runs; a plain file is the tool itself.
        const named = binEntryTarget(bin);
        const target = named === undefined ? undefined : toRel(root, named);
        if (target) out.push(target);
        break;
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  return out;
}

/** A recorded entry's state now: a file's fingerprint, or a package folder's stamp (`…/`). */
function stampOf(root: string, rel: string): string | null {
  const abs = path.join(root, ...rel.split('/').filter((x) => x !== ''));
  return rel.endsWith('/') ? folderStamp(abs) : fingerprint(abs);
}

/** What defines the checks at step 0. Reads the disk directly: this runs before any edit. */
export function recordVerifier(root: string, checks: readonly CheckSpec[]): VerifierRecord {
  const rels = new Set<string>(['package.json', '.vscode/settings.json', '.vscode/tasks.json']);
  const dirs = new Set<string>([root]);
  for (const c of checks) {
    const cwd = path.resolve(root, c.cwd ?? '.');
    dirs.add(cwd);
    for (const f of [...namedFiles(root, cwd, c.command), ...installedTools(root, cwd, c.command)]) rels.add(f);
    // Scripts the command runs through npm/pnpm/yarn: the files and tools their text names too.
    const scripts = readJson(path.join(cwd, 'package.json'))?.scripts;
    if (typeof scripts === 'object' && scripts !== null) {
      for (const text of Object.values(scripts as Record<string, unknown>)) if (typeof text === 'string') for (const f of [...namedFiles(root, cwd, text), ...installedTools(root, cwd, text)]) rels.add(f);
    }
  }
  const tsconfigs = new Set<string>();
  for (const d of dirs) {
    const rel = toRel(root, path.join(d, 'package.json'));
    if (rel) rels.add(rel);
    // node_modules is part of what defines the checks: an install during the run is seen.
    for (const m of INSTALL_MARKERS) {
      const marker = d === root ? m : toRel(root, path.join(d, m));
      if (marker) rels.add(marker);
    }
    installedPackages(root, d, rels);
    const tsconfig = path.join(d, 'tsconfig.json');
    if (existsSync(tsconfig)) tsconfigChain(root, tsconfig, tsconfigs);
  }
  for (const r of [...rels]) if (/(^|\/)tsconfig[^/]*\.json$/.test(r)) tsconfigChain(root, path.join(root, r), tsconfigs);
  for (const t of tsconfigs) rels.add(t);
  // A recorded file that is a link (`check.sh -> scripts/real.sh`) is also recorded by the name it
  // resolves to: an edit of the target changes the verifier as much as one of the link.
  let realRoot: string | undefined;
  try {
    realRoot = landingPath(root, '.');
  } catch {
    realRoot = undefined;
  }
  for (const r of [...rels]) {
    if (realRoot === undefined || r.endsWith('/') || r.startsWith('node_modules/') || r.includes('/node_modules/')) continue;
    try {
      const real = relBelow(realRoot, landingPath(root, r));
      if (real !== undefined && real !== r) rels.add(real);
    } catch {
      // A link loop: the name as written is recorded, and its fingerprint is "absent".
    }
  }
  const files = new Map<string, string | null>();
  for (const r of [...rels].sort()) files.set(r, stampOf(root, r));
  return { commands: checks.map((c) => c.command), files };
}

function parseObject(text: string | null): Record<string, unknown> | undefined | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The package.json fields an edit changes among those that define the checks (parse failure counts as all). */
export function changedVerifierFields(before: string | null, after: string | null): string[] {
  const b = parseObject(before);
  const a = parseObject(after);
  if (b === undefined || a === undefined || b === null || a === null) return ['the whole file'];
  return PACKAGE_JSON_VERIFIER_FIELDS.filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]));
}

const OPT_IN = 'set fixUntilGreen.allowVerifierEdits to true to let the model change it';

/** Why an edited file is protected as part of the verifier, or undefined when it is not. */
export function verifierProtection(f: ProposedFile, record: VerifierRecord | undefined, isConfig: (p: string) => boolean): string | undefined {
  // Every name the file goes by (its real one, and a link's the edit used) is judged.
  const names = namesOf(f);
  const shown = f.asWritten !== undefined ? `${f.path} (written as ${f.asWritten})` : f.path;
  if (names.some((n) => n.split('/').pop() === 'package.json' && !n.includes('node_modules/'))) {
    const fields = changedVerifierFields(f.before, f.after);
    if (fields.length === 0) return undefined;
    return `${shown} (${f.kind}): ${fields.map((x) => (x === 'the whole file' ? x : `"${x}"`)).join(', ')} define${fields.length === 1 && fields[0] !== 'the whole file' ? 's' : ''} how the checks run`;
  }
  if (names.some((n) => record?.files.has(n))) return `${shown} (${f.kind}): the checks read it (recorded at step 0)`;
  if (names.some(isConfig)) return `${shown} (${f.kind}): it configures the type checker, linter or test runner`;
  return undefined;
}

/** The recorded files that define the checks whose content differs on disk now (by any writer). */
export function changedVerifierFiles(root: string, r: VerifierRecord): string[] {
  return [...r.files].filter(([rel, hash]) => stampOf(root, rel) !== hash).map(([rel]) => rel);
}

/**
 * Refuses proposals that touch what defines the checks, and stops a run whose recorded definition
 * changed on disk while a step ran (the checks would no longer be the ones the run started with).
 */
export function verifierIntegrityCritic(root: string, record: () => VerifierRecord | undefined): Critic {
  const isConfig = picomatch([...VERIFIER_CONFIG_GLOBS], { dot: true });
  return {
    name: 'verifier-integrity',
    reviewProposal(p) {
      const hits = p.files.map((f) => verifierProtection(f, record(), isConfig)).filter((x): x is string => x !== undefined);
      if (hits.length === 0) return { verdict: 'continue', reason: 'the edit leaves the checks and their configuration as step 0 recorded them' };
      return {
        verdict: 'retry',
        reason: `the edit changes the verifier, which decides whether the code passes: ${hits.join('; ')}. Fix the code under test, not the checks (${OPT_IN})`,
      };
    },
    reviewResult() {
      const r = record();
      if (!r) return { verdict: 'continue', reason: 'no verifier record' };
      const changed = changedVerifierFiles(root, r);
      if (changed.length === 0) return { verdict: 'continue', reason: `${r.files.size} file(s) defining the checks unchanged since step 0` };
      return { verdict: 'stop', reason: `what defines the checks changed on disk during the run: ${changed.join(', ')}; the checks are no longer the ones step 0 recorded` };
    },
  };
}

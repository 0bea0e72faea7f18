// A check that failed because a tool it launches is not installed: the shell's `karma: not found`
// (exit 127), a tool's own `Cannot find module 'karma-jasmine'` for a plugin it loads. That is the
// environment's problem, not the code's: no edit of the project's source can fix it, so it is
// reported ("not installed: karma-jasmine (examples/angular/simple test)"), never handed to the
// model as a failure, and never keeps the verdict from green. Discovery already leaves out a script
// whose program is nowhere (discover.ts `missingTool`); this is the same rule at run time, for what
// only the run shows (a plugin, a program a shell script or a tool starts).
//
// The rule that tells the two apart: a missing *program* named by bare name is not installed (a
// path, `./scripts/x.sh`, is the project's own file). A missing *module* is not installed when it is
// a package (a bare specifier, not a path) that no node_modules folder holds, and either a tool
// asked for it (the importing file lies in node_modules, or is no file at all: Angular's CLI
// resolves karma's plugins from a made-up `noop.js`) or the project declares it in a package.json
// (declared, not installed: an install is missing). Everything else stays the code's failure: a
// relative import of a file that is not there, a package the project's own source imports and
// declares nowhere (a typo the model can fix), tsc's TS2307 (a type-level finding, never matched).
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Failure } from '../types';
import { readJsonObjectIfPresent } from '../fileText';

/** The shell's "not found" for a program: sh/dash (`sh: 1: karma: not found`), bash, zsh; node's spawn ENOENT. */
const PROGRAM_NOT_FOUND = [
  // `sh: 1: karma: not found`, `scripts/ci.sh: 2: karma: not found`, `scripts/ci.sh: line 2: karma: command not found`
  /^[#>\s]*\S+?:\s*(?:line\s+)?\d+:\s*(?:exec:\s*)?([^\s:]+):\s*(?:command\s+)?not found\s*$/gm,
  // `bash: karma: command not found`
  /^[#>\s]*(?:\S*\/)?(?:ba|da|z)?sh:\s*([^\s:]+):\s*(?:command\s+)?not found\s*$/gm,
  /^[#>\s]*(?:\S*\/)?zsh:\s*command not found:\s*(\S+)\s*$/gm,
  /\bspawn ([^\s/\\]+) ENOENT\b/g,
];
/** Node's CJS resolver: `Cannot find module 'x'` and, on the lines after, its require stack (the importer first). */
const CJS = /Cannot find module '([^']+)'(?! or its corresponding type declarations)(?:\s*\n[#>\s]*Require stack:\s*\n[#>\s]*-\s*(\S+))?/g;
/** Node's ESM resolver: `Cannot find package 'x' imported from /a/b.js` (and `module`). */
const ESM = /Cannot find (?:package|module) '([^']+)' imported from (\S+)/g;
/** Jest's resolver: `Cannot find module 'x' from 'src/a.test.js'`. */
const JEST = /Cannot find module '([^']+)' from '([^']+)'/g;
/** Vite's resolver (Vitest): `Failed to resolve import "x" from "src/a.ts"`. */
const VITE = /Failed to resolve import "([^"]+)" from "([^"]+)"/g;
/**
 * A tool's configuration names a package it cannot load: Jest's `Module ts-jest in the transform
 * option was not found`, `Preset ts-jest not found`, `Test environment jest-environment-jsdom cannot
 * be found`; ESLint 8's `ESLint couldn't find the plugin "eslint-plugin-react"`.
 */
const CONFIG = /\bModule (\S+) in the \w+ option was not found\b|\bPreset (\S+) not found\b|\bTest environment (\S+) cannot be found\b|ESLint couldn't find the (?:plugin|config) "([^"]+)"/g;

export interface NotInstalled {
  /** The programs and packages not installed, each once, in the order the output names them. */
  tools: string[];
}

const isPath = (s: string): boolean => /^(?:\.{1,2}(?:[/\\]|$)|\/|[A-Za-z]:[/\\]|file:)/.test(s);

/** The package a bare specifier names: `@scope/name` or `name`, its subpath dropped. */
function packageOf(spec: string): string | undefined {
  if (isPath(spec) || spec.startsWith('node:') || spec.startsWith('#')) return undefined;
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return /^(?:@[\w.-]+\/)?[\w.-]+$/.test(name) ? name : undefined;
}

/** Whether some node_modules from `dir` up holds the package (then it is installed: the failure is another's). */
function installedFrom(pkg: string, dir: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'node_modules', pkg, 'package.json'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

/** Whether a package.json from `dir` up to `root` declares the package in any dependency field. */
function declaredFrom(pkg: string, dir: string, root: string): boolean {
  const top = path.resolve(root);
  for (let d = dir; ; d = path.dirname(d)) {
    const j = readJsonObjectIfPresent(path.join(d, 'package.json'));
    const fields = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
    if (j !== undefined && fields.some((f) => typeof j[f] === 'object' && j[f] !== null && pkg in (j[f] as object))) return true;
    if (d === top || path.dirname(d) === d || !d.startsWith(top)) return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The package a missing module names when the environment lacks it, by the rule in this file's header; undefined when it is the code's. */
function missingPackage(spec: string, importer: string | undefined, ctx: { cwd: string; root: string }): string | undefined {
  // A file inside node_modules that is not there: a broken or partial install.
  if (isPath(spec)) {
    const m = /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(spec.replace(/^file:\/\//, ''));
    return m ? m[1]!.replace(/\\/g, '/') : undefined;
  }
  const pkg = packageOf(spec);
  if (pkg === undefined || importer === undefined) return undefined;
  const from = path.resolve(ctx.cwd, importer.replace(/^file:\/\//, ''));
  const dir = isFile(from) ? path.dirname(from) : ctx.cwd;
  if (installedFrom(pkg, dir) || installedFrom(pkg, ctx.cwd)) return undefined;
  const byTool = /[/\\]node_modules[/\\]/.test(from) || !isFile(from);
  return byTool || declaredFrom(pkg, dir, ctx.root) || declaredFrom(pkg, ctx.cwd, ctx.root) ? pkg : undefined;
}

/**
 * What a failed run's output says is not installed, or undefined when nothing is (or the run passed:
 * a passing run that prints `not found` is no problem of anyone's).
 */
export function notInstalled(output: string, exitCode: number | null, ctx: { cwd: string; root: string }): NotInstalled | undefined {
  if (exitCode === 0 || exitCode === null) return undefined;
  const tools: string[] = [];
  const add = (t: string | undefined): void => {
    if (t !== undefined && !tools.includes(t)) tools.push(t);
  };
  for (const re of PROGRAM_NOT_FOUND) for (const m of output.matchAll(re)) if (!isPath(m[1]!) && /^[\w@.+-]+$/.test(m[1]!)) add(m[1]);
  for (const re of [CJS, ESM, JEST, VITE]) for (const m of output.matchAll(re)) add(missingPackage(m[1]!, m[2], ctx));
  for (const m of output.matchAll(CONFIG)) {
    const pkg = packageOf((m[1] ?? m[2] ?? m[3] ?? m[4] ?? '').replace(/[.]$/, ''));
    if (pkg !== undefined && !installedFrom(pkg, ctx.cwd)) add(pkg);
  }
  return tools.length > 0 ? { tools } : undefined;
}

/**
 * The failures that are the code's when `missing` is not installed: those placed in the project's
 * files and not about a missing tool. An unplaced one (the run's exit, a crash's tail) and one that
 * only says a tool is missing are the missing tool's doing.
 */
export function codeFailures(failures: readonly Failure[], missing: NotInstalled): Failure[] {
  const names = missing.tools.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const about = new RegExp(`(?:Cannot find (?:module|package) '(?:${names})(?:/[^']*)?'|Failed to resolve import "(?:${names})(?:/[^"]*)?"|\\b(?:${names}): (?:command )?not found|command not found: (?:${names})\\b|spawn (?:${names}) ENOENT)`);
  return failures.filter((f) => f.file !== undefined && !/(?:^|\/)node_modules\//.test(f.file) && !about.test(f.message));
}

/** How the check's note reads: `not installed: karma-jasmine (examples/angular/simple test)`. */
export function notInstalledNote(missing: NotInstalled, where: { cwd?: string; command: string; name: string }): string {
  const script = /^(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?([\w:.-]+)/.exec(where.command)?.[1];
  const what = script !== undefined && script !== 'run' ? script : where.name;
  const dir = where.cwd !== undefined && where.cwd !== '' && where.cwd !== '.' ? `${where.cwd} ` : '';
  return `not installed: ${missing.tools.join(', ')} (${dir}${what})`;
}

// Which checks run as a chain of static checkers part by part (issue 39): a lint whose script is
// `eslint src && prettier --check src` (`npm run lint --silent`) costs npm's start, a shell, and a
// cold ESLint at every pass. Run part by part, each part is the same command npm's shell would have
// run, in the same folder, with the same PATH (node_modules/.bin of the folder and its parents: the
// check's own, ../runner checkEnv), in the same order, stopping where `&&` stops: the output is the
// parts' own, one after the other, as `npm run … --silent` prints nothing of its own, and the exit
// code is the failing part's, as npm hands the shell's on. So the ESLint part can be answered by its
// warm linter (../staged/warmEslint: byte for byte what the command prints).
// Only where that is exact: npm's own script run quieted (`--silent`: no banner lines to miss), no
// npm setting that changes how scripts run (`node-options`, `script-shell`), no
// `pre`/`post` script around any script it runs, every step a plain command (no shell syntax: no
// globs, quotes or variables a shell would expand, ../runner splitCommand), and every step one of
// the static checkers below behind launchers only (npx, cross-env): tools that read nothing npm sets
// for a script (npm_package_*, npm_lifecycle_event). Anything else runs through npm, as written.
import * as os from 'node:os';
import * as path from 'node:path';
import { readTextIfPresent } from '../../fileText';
import type { ParserId } from '../../types';
import { splitCommand } from '../runner';
import { STATIC_PARSERS } from '../chainOnce';
import { packageScripts, plainSteps } from '../staged/commands';
import { toolIndex } from '../staged/launchers';

/** One step of the chain: its line, the argv it runs, and the checker it runs. */
export interface ChainPart {
  line: string;
  argv: string[];
  tool: string;
}

/** The parts a check runs, in order (two or more). */
export interface CheckerChain {
  parts: ChainPart[];
}

/** The checkers a chain may be made of: each reads its config and its files, and nothing npm sets. */
const CHECKERS = new Set(['eslint', 'prettier', 'tsc', 'biome', 'oxlint']);
/** How deep scripts that call scripts are followed (`lint: npm run lint:js && npm run lint:format`). */
const MAX_DEPTH = 4;

/** The chain `command` runs, part by part, or why it runs as written. */
export function checkerChain(command: string, cwd: string, parser: ParserId): CheckerChain | { reason: string } {
  if (!STATIC_PARSERS.has(parser)) return { reason: `a ${parser} check is no chain of static checkers` };
  const scripts = packageScripts(cwd) ?? {};
  const own = splitCommand(command);
  let body: string;
  if (own) {
    const npmrc = scriptConfig(cwd);
    if (npmrc !== undefined) return { reason: npmrc };
    const name = quietScript(own);
    if (name === undefined) return { reason: 'the command is no `npm run <script> --silent`' };
    const s = plainScript(scripts, name);
    if (typeof s !== 'string') return s;
    body = s;
  } else {
    body = command;
  }
  const parts = partsOf(body, scripts, 0);
  if ('reason' in parts) return parts;
  if (parts.length < 2) return { reason: 'the command is no chain' };
  return { parts };
}

/** npm settings that change how a script runs (`node-options` sets NODE_OPTIONS for it; `script-shell`), read where npm reads them: its environment, the global, the user's and the project's npmrc files. */
const SCRIPT_SETTINGS = /^\s*(node-options|script-shell)\s*=/m;

/** Why npm would run the script otherwise than its shell line says, or undefined. */
function scriptConfig(cwd: string): string | undefined {
  for (const k of Object.keys(process.env)) if (/^npm_config_(node_options|script_shell)$/i.test(k)) return `npm's ${k} is set: it changes how npm runs the script`;
  const env = (k: string): string | undefined => process.env[`npm_config_${k}`] ?? process.env[`NPM_CONFIG_${k.toUpperCase()}`];
  const user = env('userconfig') ?? path.join(os.homedir(), '.npmrc');
  const global = env('globalconfig') ?? path.join(path.dirname(path.dirname(process.execPath)), 'etc', 'npmrc');
  const files = [global, user, ...ancestors(cwd).map((d) => path.join(d, '.npmrc'))];
  for (const f of files) {
    const m = SCRIPT_SETTINGS.exec(readTextIfPresent(f, ['EISDIR', 'ENOTDIR', 'EACCES']) ?? '');
    if (m) return `${f} sets ${m[1]}: it changes how npm runs the script`;
  }
  return undefined;
}

function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    out.push(d);
    if (path.dirname(d) === d) return out;
  }
}

/** The script an `npm run <name> --silent` (or `npm test -s`) runs; undefined for anything else. */
function quietScript(argv: readonly string[]): string | undefined {
  if (argv[0] !== 'npm') return undefined;
  const rest = argv.slice(1);
  if (!rest.some((a) => a === '--silent' || a === '-s')) return undefined;
  const words = rest.filter((a) => a !== '--silent' && a !== '-s');
  if ((words[0] === 'run' || words[0] === 'run-script') && words.length === 2) return words[1];
  if ((words[0] === 'test' || words[0] === 't') && words.length === 1) return 'test';
  return undefined;
}

/** The body of a script npm runs nothing around, or why not. */
function plainScript(scripts: Record<string, unknown>, name: string): string | { reason: string } {
  const body = scripts[name];
  if (typeof body !== 'string') return { reason: `no script "${name}" in package.json` };
  const hook = [`pre${name}`, `post${name}`].find((h) => scripts[h] !== undefined);
  if (hook !== undefined) return { reason: `npm runs scripts.${hook} around scripts.${name}` };
  return body;
}

/** A script body's steps as parts, scripts it calls through npm followed (quieted by the outer `--silent`, as npm passes its log level on). */
function partsOf(body: string, scripts: Record<string, unknown>, depth: number): ChainPart[] | { reason: string } {
  const lines = plainSteps(body);
  if (!lines) return { reason: 'the script needs a shell for more than `&&`' };
  const out: ChainPart[] = [];
  for (const line of lines) {
    const argv = splitCommand(line);
    if (!argv) return { reason: `\`${line}\` needs a shell (globs, quotes, variables)` };
    const called = argv[0] === 'npm' ? calledScript(argv) : undefined;
    if (called !== undefined) {
      if (depth >= MAX_DEPTH) return { reason: 'its scripts call scripts too deep' };
      const s = plainScript(scripts, called);
      if (typeof s !== 'string') return s;
      const inner = partsOf(s, scripts, depth + 1);
      if ('reason' in inner) return inner;
      out.push(...inner);
      continue;
    }
    const i = toolIndex(argv, (a) => CHECKERS.has(a));
    if (i < 0) return { reason: `\`${line}\` runs no static checker this knows behind launchers only` };
    out.push({ line, argv, tool: argv[i]!.replace(/^.*\//, '') });
  }
  return out;
}

/** The script `npm run <name>` (`--silent` or not: the outer one quiets it) calls; undefined for other npm calls. */
function calledScript(argv: readonly string[]): string | undefined {
  const words = argv.slice(1).filter((a) => a !== '--silent' && a !== '-s');
  return (words[0] === 'run' || words[0] === 'run-script') && words.length === 2 ? words[1] : undefined;
}

/** The name a part's warm linter is kept under: one per part of a check. */
export function partKey(check: string, index: number): string {
  return `${check} (part ${index + 1})`;
}

/** The ESLint parts of `check`'s chain, each under the name its warm linter is kept by (none where it runs as written). */
export function eslintParts(check: string, command: string, cwd: string, parser: ParserId): { name: string; argv: string[] }[] {
  const chain = checkerChain(command, cwd, parser);
  if ('reason' in chain) return [];
  return chain.parts.flatMap((p, i) => (p.tool === 'eslint' ? [{ name: partKey(check, i), argv: p.argv }] : []));
}

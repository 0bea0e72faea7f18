// How a command reaches its tool (../staged/commands narrows the tool's own arguments): the launchers
// that may stand before it (npx, pnpm exec, cross-env and env with their variables, node with its
// flags running a package's bin file), where the tool starts in an argv, and the local bin a launcher
// would run. Arguments added after the tool reach it as the command's own do only where each token
// before it does nothing but launch it.
import { existsSync } from 'node:fs';
import * as path from 'node:path';

const LAUNCHERS = new Set(['npx', 'pnpm', 'yarn', 'exec', 'bunx', '--no-install', '--silent', '-s']);
/** `NAME=value`: a variable cross-env or env sets for the command after it (first in a line: the shell's assignment). */
export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** npx's own flags that change nothing about which local bin it runs. */
const NPX_FLAGS = new Set(['--no-install', '--no', '--yes', '-y', '--prefer-offline', '--offline', '--silent', '-s', '--quiet', '-q']);

/** node's own flags that take the next argument as their value. */
export const NODE_VALUE_FLAGS: ReadonlySet<string> = new Set(['--require', '-r', '--import', '--loader', '--experimental-loader', '--test-reporter', '--test-reporter-destination', '--test-name-pattern', '--test-skip-pattern', '--test-concurrency', '--test-timeout', '--test-shard', '--env-file', '--conditions', '-C', '--input-type']);

/**
 * `npx tool …` or `pnpm exec tool …` where the tool is installed locally runs that local bin, the
 * one the check's PATH finds first (node_modules/.bin of the folder and its parents, as the
 * launcher looks): the narrowed runs call it directly and skip the launcher's own start (npm's
 * CLI, ~0.5 s a run). A tool that is not installed, a `pkg@version` or a `--package` keeps the
 * launcher, which may fetch it.
 */
export function withoutLauncher(argv: readonly string[], cwd: string): string[] {
  let i = argv[0] === 'npx' ? 1 : argv[0] === 'pnpm' && argv[1] === 'exec' ? 2 : 0;
  if (i === 0) return [...argv];
  if (argv[0] === 'npx') while (i < argv.length && NPX_FLAGS.has(argv[i]!)) i++;
  const tool = argv[i];
  if (tool === undefined || !/^\w[\w.-]*$/.test(tool)) return [...argv];
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const bin = path.join(dir, 'node_modules', '.bin', tool);
    if (existsSync(bin) || existsSync(`${bin}.cmd`)) return argv.slice(i);
    if (path.dirname(dir) === dir) return [...argv];
  }
}

/** Launchers that set variables and run the rest as its own argv, no shell between (cross-env 7, env). */
const ENV_SETTERS = new Set(['cross-env', 'env']);

/**
 * The name a token runs as a tool: its file name, or, for a package's bin file run by node, that
 * file's name without its extension (`node_modules/jest/bin/jest.js` → `jest`).
 */
export function toolName(a: string): string {
  const base = path.basename(a);
  return a.split(/[\\/]/).includes('node_modules') ? base.replace(/\.[cm]?js$/, '') : base;
}

/**
 * Whether the tokens before a tool do nothing but launch it, so that arguments added after the tool
 * reach it as the command's own do: npx and the like; cross-env or env with their assignments (the
 * variables are set for the narrowed run too); node with its own flags, running a package's bin file.
 */
function onlyLaunches(prefix: readonly string[], tool: string): boolean {
  for (let k = 0; k < prefix.length; k++) {
    const a = prefix[k]!;
    if (LAUNCHERS.has(a)) continue;
    if (ENV_SETTERS.has(path.basename(a))) {
      while (k + 1 < prefix.length && ASSIGNMENT.test(prefix[k + 1]!)) k++;
      continue;
    }
    if (path.basename(a) !== 'node' || !tool.split(/[\\/]/).includes('node_modules')) return false;
    // node's flags, then the bin file: a flag that takes a value must not take the bin file as it.
    for (k++; k < prefix.length; k++) {
      const f = prefix[k]!;
      if (!f.startsWith('-') || (NODE_VALUE_FLAGS.has(f) && ++k >= prefix.length)) return false;
    }
  }
  return true;
}

/** The variables the launchers before a tool set (`cross-env NODE_ENV=test`), as tokens to keep in front of what it runs. */
export function envPrefix(prefix: readonly string[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < prefix.length; k++) {
    if (!ENV_SETTERS.has(path.basename(prefix[k]!))) continue;
    const set = [prefix[k]!];
    while (k + 1 < prefix.length && ASSIGNMENT.test(prefix[k + 1]!)) set.push(prefix[++k]!);
    out.push(...set);
  }
  return out;
}

/** Where the tool starts in an argv (after npx, cross-env and the like: onlyLaunches), or -1. */
export function toolIndex(argv: readonly string[], tool: (a: string, i: number) => boolean): number {
  const i = argv.findIndex((a, k) => tool(toolName(a), k));
  return i >= 0 && onlyLaunches(argv.slice(0, i), argv[i]!) ? i : -1;
}

/** What the launchers before a tool give it: the variables cross-env and env set (a later one wins) and, where node runs its bin file, that node and its flags. */
export interface Launch {
  vars: Record<string, string>;
  node?: { bin: string; flags: string[] };
}

/**
 * The launch of the tool after `prefix` (tokens onlyLaunches accepted). The values are literal: the
 * command was split without a shell (no `$`, quote or backslash in it), so neither cross-env nor env
 * changes them (cross-env turns `:` into `;` on Windows only).
 */
export function launchOf(prefix: readonly string[]): Launch {
  const vars: Record<string, string> = {};
  for (const a of envPrefix(prefix)) {
    if (!ASSIGNMENT.test(a)) continue;
    const eq = a.indexOf('=');
    vars[a.slice(0, eq)] = a.slice(eq + 1);
  }
  const n = prefix.findIndex((a) => path.basename(a) === 'node');
  return { vars, ...(n >= 0 ? { node: { bin: prefix[n]!, flags: prefix.slice(n + 1) } } : {}) };
}

/**
 * `cross-env A=b … tool …` or `env A=b … tool …` (each launcher `installed`): the variables they set
 * and the argv they run, with no launcher before it: the argv itself. Undefined where a token before
 * the tool does more than set a variable to its literal text: a flag of env's, or a value cross-env
 * rewrites (`$VAR` and `${VAR}` expanded, `;` made the platform's list delimiter, `\` escaping them).
 */
export function variablesBefore(argv: readonly string[], installed: (exe: string) => boolean): { vars: Record<string, string>; rest: string[] } | undefined {
  let k = 0;
  while (k < argv.length && ENV_SETTERS.has(path.basename(argv[k]!))) {
    // One that is not there fails the command ("not found"): only a process of its own says so.
    if (!installed(argv[k]!)) return undefined;
    for (k++; k < argv.length && ASSIGNMENT.test(argv[k]!); k++);
  }
  const { vars } = launchOf(argv.slice(0, k));
  return Object.values(vars).some((v) => /[$;\\]/.test(v)) ? undefined : { vars, rest: argv.slice(k) };
}

// Which parser reads a command's output: from the tool it runs, through package.json scripts.
import * as path from 'node:path';
import { readJsonObjectIfPresent } from '../fileText';
import type { ParserId } from '../types';
import type { FanOut } from './fanOut';
import { fanOut } from './fanOut';

/** Tools that run ESLint under their own name, printing its stylish report: gts (`gts lint`, `gts check`). */
export const LINTS_WITH_ESLINT = /(?:^|[\s/])gts\s+(?:lint|check)\b/;

/** Prettier in check mode (`--check`, `-c`, `--list-different`, `-l`): a check whose failures name files. */
const PRETTIER_CHECKS = /(?:^|[\s/])prettier\s(?:.*\s)?(?:--check|-c|--list-different|-l)(?:\s|$)/;

/** Infers a parser from a command line; test runners win over tsc and eslint in a chain. */
export function inferParser(command: string): ParserId {
  if (/\bvitest\b/.test(command)) return 'vitest';
  if (/\bjest\b/.test(command)) return 'jest';
  if (/\bmocha\b/.test(command)) return 'mocha';
  if (/(^|\s)--test\b/.test(command)) return 'node-test';
  // AVA's TAP reporter is read as TAP; its own reporter by the ava parser.
  if (/(^|[\s/])ava(\s|$)/.test(command)) return /(^|\s)(--tap|-t)(\s|$)/.test(command) ? 'tap' : 'ava';
  if (/(^|[\s/])(tap|tape)(\s|$)/.test(command)) return 'tap';
  if (/(^|[\s/])uvu(\s|$)/.test(command)) return 'uvu';
  if (PRETTIER_CHECKS.test(command)) return 'prettier';
  if (/(^|[\s/])tsc(\s|$)/.test(command) || /\bvue-tsc\b/.test(command)) return 'tsc';
  if (/\beslint\b/.test(command) || LINTS_WITH_ESLINT.test(command)) return 'eslint';
  if (/(^|[\s/])biome\s/.test(command) && /--reporter[= ]github\b/.test(command)) return 'biome';
  if (/(^|[\s/])oxlint(\s|$)/.test(command) && /(?:--format[= ]|(?:^|\s)-f[= ]?)github\b/.test(command)) return 'oxlint';
  return 'generic';
}

const SCRIPT_REF = /\b(?:npm run(?:-script)?|npm|yarn(?: run)?|pnpm(?: run)?|bun run)\s+(?:--silent\s+|-s\s+)?([\w:.-]+)/g;

/**
 * The text a script runs, with `npm run x` / `yarn x` / `pnpm x` references to other scripts
 * followed (a few levels), so the runner it ends up calling can be recognized.
 */
export function expandScript(scripts: Record<string, string>, name: string, depth = 0): string {
  const body = scripts[name] ?? '';
  if (depth >= 3) return body;
  return body.replace(SCRIPT_REF, (all, ref: string) => {
    const target = ref === 't' ? 'test' : ref;
    return target !== name && scripts[target] !== undefined ? `${all} (${expandScript(scripts, target, depth + 1)})` : all;
  });
}

/** The parser for a package.json script: the runner it calls, followed through script references. */
export function parserForScript(scripts: Record<string, string>, name: string): ParserId {
  return parserForSteps(resolveScript(scripts, name));
}

/**
 * The scripts of the package.json in `cwd`, those whose value is a string: undefined where there is
 * no package.json or it is not a JSON object; empty where its `scripts` is not an object (an array,
 * a string). Every reader of a folder's scripts reads them here, so a malformed file is read alike.
 */
export function scriptsIn(cwd: string): Record<string, string> | undefined {
  const pkg = readJsonObjectIfPresent(path.join(cwd, 'package.json'), ['ENOTDIR', 'EISDIR']);
  if (pkg === undefined) return undefined;
  const raw = typeof pkg.scripts === 'object' && pkg.scripts !== null && !Array.isArray(pkg.scripts) ? (pkg.scripts as Record<string, unknown>) : {};
  return Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/**
 * The parser for a check with none named: a command that runs a package.json script (`npm test`,
 * `yarn lint`) is read by what that script runs; any other by the tool it names.
 */
export function parserForCommand(command: string, cwd: string): ParserId {
  const direct = inferParser(command);
  if (direct !== 'generic') return direct;
  const scripts = new RegExp(SCRIPT_REF.source).test(command) ? scriptsIn(cwd) : undefined;
  if (!scripts) return direct;
  // Resolve the command as if it were a script of its own.
  return parserForScript({ ...scripts, '\0command': command }, '\0command');
}

/** The parsers of the tools a command's chain runs (script references followed, `pre`/`post` hooks left out), each once. */
export function chainParsers(command: string, cwd: string): ParserId[] {
  const scripts = new RegExp(SCRIPT_REF.source).test(command) ? scriptsIn(cwd) : undefined;
  const steps = resolveScript({ ...(scripts ?? {}), '\0command': command }, '\0command');
  return [...new Set(steps.filter((s) => s.hook !== true && s.parser !== 'generic').map((s) => s.parser))];
}

/**
 * The tools a command runs, in order: a package.json script's chain followed (its `pre`/`post`
 * hooks and builds left out), else the command's own chain; each by its program's name
 * (`node test/run.js` by `node`). For saying which tool printed output no parser reads.
 */
export function commandTools(command: string, cwd: string): string[] {
  const scripts = new RegExp(SCRIPT_REF.source).test(command) ? scriptsIn(cwd) : undefined;
  const steps = resolveScript({ ...(scripts ?? {}), '\0command': command }, '\0command');
  const names = steps.filter((s) => s.hook !== true && !QUIET.test(s.command)).map((s) => toolName(s.command)).filter((n) => n !== '');
  return [...new Set(names)];
}

/** Programs that run a file of the project's: named with the file (`node test/run.js`), or not at all for inline code. */
const LAUNCHES = new Set(['node', 'tsx', 'ts-node', 'bun', 'deno', 'sh', 'bash']);

function toolName(command: string): string {
  const [head = '', ...rest] = tokens(command);
  const name = head.replace(/^.*\//, '');
  if (!LAUNCHES.has(name)) return name;
  if (rest.some((a) => /^(?:-e|--eval|-p|--print|-c)$/.test(a))) return '';
  // `node --test` runs the test files it finds: the test runner, named as such (a chain's later tool is never blamed for it).
  if (rest.includes('--test')) return `${name} --test`;
  const file = rest.find((a) => !a.startsWith('-'));
  return file === undefined ? '' : `${name} ${file}`;
}

/** One command a script ends up running, after script references and wrappers are followed. */
export interface ScriptStep {
  /** The package.json script it came from (`test`, `test-coverage`), or undefined for a command given directly. */
  script?: string;
  /** The command with wrappers (`cross-env`, `c8`, `npx`…) taken off: what decides the parser. */
  command: string;
  parser: ParserId;
  /** A step of a `pre`/`post` script npm runs around the one named: preparation, not what the check is read for. */
  hook?: boolean;
  /** Why this step will not do what it looks like it does (`npm test:unit`: npm runs no script by bare name). */
  problem?: string;
  /** The step runs a script in every package of a monorepo (`pnpm -r test`): which manager, which scripts. */
  fanOut?: FanOut;
}

/** npm's own commands: `npm <other>` runs no script (npm answers `Unknown command`), unlike pnpm and yarn. */
const NPM_COMMANDS = new Set([
  'access', 'adduser', 'audit', 'bugs', 'cache', 'ci', 'completion', 'config', 'dedupe', 'deprecate', 'diff', 'dist-tag', 'docs', 'doctor',
  'edit', 'exec', 'explain', 'explore', 'find-dupes', 'fund', 'help', 'hook', 'init', 'install', 'i', 'install-ci-test', 'install-test', 'link',
  'll', 'login', 'logout', 'ls', 'org', 'outdated', 'owner', 'pack', 'ping', 'pkg', 'prefix', 'profile', 'prune', 'publish', 'query', 'rebuild',
  'repo', 'restart', 'root', 'run', 'run-script', 'sbom', 'search', 'shrinkwrap', 'star', 'stars', 'start', 'stop', 'team', 'test', 't', 'token',
  'uninstall', 'unpublish', 'unstar', 'update', 'version', 'view', 'whoami', 'x',
]);

/** Why a step that names a script will not run it, or undefined. */
function stepProblem(command: string, scripts: Record<string, string>): string | undefined {
  const [pm, a] = tokens(command);
  if (pm === 'npm' && a !== undefined && !a.startsWith('-') && !NPM_COMMANDS.has(a) && scripts[a] !== undefined) {
    return `\`${command}\` runs no script: npm answers "Unknown command" (\`npm run ${a}\` would run scripts.${a})`;
  }
  return undefined;
}

/** Wrappers that run the command after them: their own options are skipped to reach it. */
const WRAPPERS = new Set(['cross-env', 'cross-env-shell', 'dotenv', 'dotenvx', 'env-cmd', 'c8', 'nyc', 'npx', 'bunx', 'nodemon', 'time', 'env']);
/** Commands a wrapper's option value is never mistaken for. */
const COMMANDS = new Set([
  'node', 'npm', 'pnpm', 'yarn', 'bun', 'npx', 'tsx', 'ts-node', 'mocha', 'jest', 'vitest', 'tap', 'tape', 'ava', 'uvu',
  'tsc', 'vue-tsc', 'eslint', 'biome', 'oxlint', 'xo', 'c8', 'nyc', 'cross-env', 'dotenv', 'run-s', 'run-p', 'npm-run-all',
]);
/** Tools that build or format: their output is not what a chain's check is read for. */
export const QUIET = /^(?:rimraf|del-cli|del|mkdirp|mkdir|cp|rm|mv|echo|esbuild|rollup|webpack|tsup|tshy|pkgroll|unbuild|babel|swc|prettier(?!\s(?:.*\s)?(?:--check|-c|--list-different|-l)(?:\s|$))|dprint\s+fmt|vite\s+build|node\s+(?:\S*\/)?(?:esbuild|build|scripts\/build)\S*|shx|copyfiles|true|exit\s+0)\b/;

function tokens(command: string): string[] {
  return command.trim().split(/\s+/).filter(Boolean);
}

/** Splits a shell line into the commands it runs in turn (`&&`, `||`, `;`), quotes respected. */
export function splitChain(command: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
    } else if ((ch === '&' && command[i + 1] === '&') || (ch === '|' && command[i + 1] === '|')) {
      out.push(cur);
      cur = '';
      i++;
    } else if (ch === ';') {
      out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** A command with its leading `VAR=x` assignments and wrappers (`cross-env`, `c8 --reporter lcov`, `npx`) taken off. */
export function unwrapCommand(command: string): string {
  let t = tokens(command);
  for (let guard = 0; guard < 8; guard++) {
    while (t.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t[0]!)) t.shift();
    const head = t[0] === undefined ? '' : t[0].replace(/^.*\//, '');
    if (!WRAPPERS.has(head) && !(head === 'pnpm' && t[1] === 'exec') && !(head === 'yarn' && t[1] === 'exec')) break;
    t = t.slice(head === 'pnpm' || head === 'yarn' ? 2 : 1);
    // The wrapper's options: `-x`, `--x=y`, `--x y` (y taken as the option's value unless it is a command), `VAR=x`, `--`.
    while (t.length > 0) {
      const a = t[0]!;
      if (a === '--') {
        t.shift();
        break;
      }
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
        t.shift();
        continue;
      }
      if (!a.startsWith('-')) break;
      t.shift();
      const next = t[0];
      if (!a.includes('=') && next !== undefined && !next.startsWith('-') && !COMMANDS.has(next) && !/^--(?:all|check-coverage|silent|no-[\w-]+|clean|100)$/.test(a)) t.shift();
    }
  }
  return t.join(' ');
}

/**
 * pnpm's script selector: `pnpm run "/^test:/"` (or `pnpm "/^test:/"`) runs every script whose name the
 * pattern matches. pnpm reads the argument as a RegExp literal without flags (it refuses flags);
 * undefined for any other command.
 */
export function pnpmScriptPattern(command: string): RegExp | undefined {
  const t = tokens(command);
  if (t[0] !== 'pnpm') return undefined;
  let i = 1;
  if (t[i] === 'run' || t[i] === 'run-script') i++;
  // Its options (`--parallel`, `--sequential`, `--no-bail`, `--silent`) before the selector.
  while (t[i]?.startsWith('-')) i++;
  const selector = /^(["'])(.*)\1$/.exec(t[i] ?? '')?.[2] ?? t[i] ?? '';
  const m = /^\/((?:\\\/|[^/])+)\/$/.exec(selector);
  if (!m) return undefined;
  try {
    return new RegExp(m[1]!);
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}

/** The scripts a script that is one pnpm selector call runs, in package.json's order (pnpm's); undefined for any other script. */
export function pnpmSelected(scripts: Record<string, string>, name: string): { pattern: string; names: string[] } | undefined {
  const parts = splitChain(scripts[name] ?? '');
  const re = parts.length === 1 ? pnpmScriptPattern(unwrapCommand(parts[0]!)) : undefined;
  if (re === undefined) return undefined;
  return { pattern: `/${re.source}/`, names: Object.keys(scripts).filter((k) => k !== name && re.test(k)) };
}

/** The script a command runs (`npm run x`, `npm test`, `pnpm x`, `yarn run x`, `bun run x`), if it runs one. */
function scriptReference(command: string, scripts: Record<string, string>): string[] | undefined {
  const selected = pnpmScriptPattern(command);
  if (selected !== undefined) return Object.keys(scripts).filter((k) => selected.test(k));
  const t = tokens(command).filter((a) => a !== '--silent' && a !== '-s' && a !== '--if-present');
  const [pm, a, b] = t;
  if (pm === 'npm' || pm === 'bun') {
    if (a === 'run' || a === 'run-script') return b !== undefined ? [b] : undefined;
    if (pm === 'npm' && (a === 'test' || a === 't')) return ['test'];
    if (pm === 'npm' && (a === 'start' || a === 'stop' || a === 'restart')) return [a];
    return undefined;
  }
  if (pm === 'pnpm' || pm === 'yarn') {
    if (a === 'run') return b !== undefined ? [b] : undefined;
    if (a !== undefined && !a.startsWith('-') && scripts[a] !== undefined) return [a];
    if (a === 'test' || a === 't') return ['test'];
    return undefined;
  }
  if (pm === 'run-s' || pm === 'run-p' || pm === 'npm-run-all') {
    const names: string[] = [];
    for (const pat of t.slice(1).filter((x) => !x.startsWith('-'))) {
      const unq = pat.replace(/^["']|["']$/g, '');
      if (unq.includes('*')) {
        const re = new RegExp('^' + unq.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^:]*') + '$');
        names.push(...Object.keys(scripts).filter((k) => re.test(k)));
      } else {
        names.push(unq);
      }
    }
    return names;
  }
  return undefined;
}

/**
 * The arguments a script reference hands on to the script it names, as the package manager appends
 * them to that script's text: `npm run fmt -- --check` runs `prettier . --check` (npm and bun take
 * what follows `--`; pnpm and yarn what follows the script's name, a leading `--` dropped). Lost,
 * a step run on its own would format instead of checking.
 */
function forwardedArgs(command: string): string {
  const t = tokens(command);
  const [pm, a] = t;
  if (pm === 'npm' || pm === 'bun') {
    const dash = t.indexOf('--');
    return dash >= 0 ? t.slice(dash + 1).join(' ') : '';
  }
  if (pm === 'pnpm' || pm === 'yarn') {
    const rest = t.slice(a === 'run' ? 3 : 2).filter((x, i) => !(i === 0 && x === '--'));
    return rest.filter((x) => x !== '--silent' && x !== '-s' && x !== '--if-present').join(' ');
  }
  return '';
}

/**
 * The commands a script runs in turn, with `npm run x` / `pnpm x` / `yarn x` / `npm-run-all`
 * references followed (npm's `pre`/`post` scripts included) and wrappers taken off, each with the
 * parser its tool's output is read with.
 */
export function resolveScript(scripts: Record<string, string>, name: string): ScriptStep[] {
  const out: ScriptStep[] = [];
  const visit = (script: string | undefined, body: string, depth: number, seen: ReadonlySet<string>, hook: boolean): void => {
    for (const part of splitChain(body)) {
      const command = unwrapCommand(part);
      // `npm test -ws` names a script as `npm test` does, but runs every package's, not this one's.
      const fans = fanOut(command);
      if (fans !== undefined) {
        out.push({ ...(script !== undefined ? { script } : {}), command, parser: 'generic', ...(hook ? { hook } : {}), fanOut: fans });
        continue;
      }
      const refs = depth < 6 ? scriptReference(command, scripts) : undefined;
      if (refs) {
        // Arguments handed on go to the one script named (never to its pre/post hooks, as npm does).
        const args = refs.length === 1 ? forwardedArgs(command) : '';
        for (const ref of refs) {
          if (seen.has(ref) || scripts[ref] === undefined) continue;
          const next = new Set(seen).add(ref);
          for (const s of [`pre${ref}`, ref, `post${ref}`]) if (scripts[s] !== undefined) visit(s, s === ref && args !== '' ? `${scripts[s]!} ${args}` : scripts[s]!, depth + 1, next, hook || s !== ref);
        }
        continue;
      }
      const problem = stepProblem(command, scripts);
      out.push({ ...(script !== undefined ? { script } : {}), command, parser: inferParser(command), ...(hook ? { hook } : {}), ...(problem !== undefined ? { problem } : {}) });
    }
  };
  // npm runs a script's `pre` and `post` scripts around it, as for the scripts it references.
  if (scripts[name] !== undefined) for (const s of [`pre${name}`, name, `post${name}`]) if (scripts[s] !== undefined) visit(s, scripts[s]!, 0, new Set([name]), s !== name);
  return out;
}

/**
 * The parser for what a chain of steps prints: the last test runner in it; else, when a step
 * runs something no parser names (a test file run by plain `node`, a linter of its own), `generic`,
 * which reads the output with every parser that recognises it; else the last tool named.
 */
export function parserForSteps(steps: readonly ScriptStep[]): ParserId {
  const runners = steps.filter((s) => TEST_RUNNER_IDS.has(s.parser));
  if (runners.length > 0) return runners[runners.length - 1]!.parser;
  // A `pre`/`post` hook's own tool (a generator, a build) does not make the check generic: when it
  // fails, the named parser finds nothing and every parser that recognises the output reads it.
  if (steps.some((s) => s.parser === 'generic' && !QUIET.test(s.command) && s.hook !== true)) return 'generic';
  const named = steps.filter((s) => s.parser !== 'generic');
  return named.length > 0 ? named[named.length - 1]!.parser : 'generic';
}

export const TEST_RUNNER_IDS: ReadonlySet<ParserId> = new Set(['mocha', 'jest', 'vitest', 'node-test', 'tap', 'ava', 'uvu']);

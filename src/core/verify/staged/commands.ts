// How a check's command is narrowed to some files: the tool it runs (through an npm script when it
// names one), its own flags kept, its targets replaced by ours through the tool's own filtering:
// ESLint on the changed files, jest --findRelatedTests, vitest related, node --test, mocha and
// node-tap on the test files. A command that cannot be narrowed exactly (a shell line, a chain, an output file, a
// glob of its own) says why, and the check runs in full.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { readJsonObjectIfPresent } from '../../fileText';
import type { ParserId } from '../../types';
import { fanOut } from '../fanOut';
import { scriptsIn } from '../infer';
import { splitCommand } from '../runner';
import { jestPathMatcher, readJestArgs } from './jestPatterns';
import { ASSIGNMENT, envPrefix, NODE_VALUE_FLAGS, toolIndex, withoutLauncher } from './launchers';

const SCRIPT_RUNNERS = new Set(['npm', 'yarn', 'pnpm']);

/**
 * A script the package manager runs before the check's script (`pretest`: a build, often `tshy` or
 * `tsc`): a narrowed run runs it first, through the same manager, since the tests may read what it
 * builds. `post` names the script the manager runs after it, which a narrowed run leaves out (a
 * coverage gate or a lint of its own: nothing the tests read); the full run at the end runs both.
 */
export interface ScriptHooks {
  pre?: { name: string; body: string; argv: string[] };
  post?: { name: string; body: string };
}

/**
 * A command split as the shell would split it where its only shell syntax is glob patterns and flags'
 * `=` (`node --import=tsx/esm --test test/*.ts`, `c8 --reporter=text mocha test/*.mjs`): for a run
 * that names its test files in place of the globs (the caller checks that every glob is a target).
 */
function splitWithGlobs(command: string): string[] | undefined {
  if (/[|&;<>()$`\\"'#~%\n]/.test(command)) return undefined;
  const t = command.trim().split(/\s+/).filter(Boolean);
  return t.length > 0 && !ASSIGNMENT.test(t[0]!) ? t : undefined;
}

/**
 * The argv a command runs, an npm/yarn/pnpm script followed to the line it runs, with its pre/post
 * scripts; or why not. `globs`: a line whose only shell syntax is globs is split too (splitWithGlobs).
 */
export function resolveArgv(command: string, cwd: string, globs = false): ({ argv: string[] } & ScriptHooks) | { reason: string } {
  const split = splitCommand(command) ?? (globs ? splitWithGlobs(command) : undefined);
  if (!split) return { reason: 'the command needs a shell' };
  const argv = withoutLauncher(split, cwd);
  const fans = fanOut(split.join(' '));
  if (fans !== undefined) return { reason: `the command runs ${fans.scripts.join(', ')} in every package (${fans.manager}), each a check of its own to narrow` };
  if (!SCRIPT_RUNNERS.has(argv[0]!)) return { argv };
  const rest = argv.slice(1).filter((a) => a !== '--silent' && a !== '-s');
  const sep = rest.indexOf('--');
  const head = sep >= 0 ? rest.slice(0, sep) : rest;
  const passed = sep >= 0 ? rest.slice(sep + 1) : argv[0] === 'npm' ? [] : rest.slice(head[0] === 'run' ? 2 : 1);
  const name = head[0] === 'run' || head[0] === 'run-script' ? head[1] : head[0] === 't' ? 'test' : head[0];
  if (name === undefined || (argv[0] === 'npm' && head.length > (head[0] === 'run' || head[0] === 'run-script' ? 2 : 1))) return { reason: 'the command passes npm options this cannot follow' };
  const scripts = scriptsIn(cwd);
  const body = scripts?.[name];
  if (typeof body !== 'string') return { reason: `no script "${name}" in package.json` };
  // The manager runs `pre<name>` before it and `post<name>` after it: the pre script (a build the
  // tests read) runs before a narrowed run too; see ScriptHooks.
  const pre = scripts?.[`pre${name}`];
  const post = scripts?.[`post${name}`];
  const hooks: ScriptHooks = {
    ...(typeof pre === 'string' ? { pre: { name: `pre${name}`, body: pre, argv: [argv[0]!, 'run', `pre${name}`] } } : {}),
    ...(typeof post === 'string' ? { post: { name: `post${name}`, body: post } } : {}),
  };
  const inner = splitCommand(body) ?? (globs ? splitWithGlobs(body) : undefined);
  if (!inner) return { reason: `the script "${name}" needs a shell (${body})` };
  const innerFans = fanOut(inner.join(' '));
  if (innerFans !== undefined) return { reason: `the script "${name}" runs ${innerFans.scripts.join(', ')} in every package (${innerFans.manager})` };
  const direct = withoutLauncher(inner, cwd);
  if (SCRIPT_RUNNERS.has(direct[0]!)) return { reason: `the script "${name}" runs another script` };
  return { argv: [...direct, ...passed], ...hooks };
}

/** Flags (of the tools below) that take the next argument as their value. */
const VALUE_FLAGS: Record<'eslint' | 'mocha' | 'node' | 'vitest' | 'tap', ReadonlySet<string>> = {
  vitest: new Set(['-c', '--config', '-r', '--root', '--dir', '--reporter', '--project', '--environment', '--pool', '--outputFile', '-t', '--testNamePattern', '--maxWorkers', '--minWorkers', '--shard', '--mode', '--testTimeout', '--sequence.seed']),
  eslint: new Set(['-c', '--config', '-f', '--format', '--rule', '--plugin', '--parser', '--parser-options', '--ext', '--ignore-path', '--ignore-pattern', '--global', '--env', '--resolve-plugins-relative-to', '--rulesdir', '--max-warnings', '--cache-location', '--cache-strategy', '--report-unused-disable-directives-severity', '--flag', '--concurrency', '--stdin-filename']),
  mocha: new Set(['--require', '-r', '--file', '--ignore', '--exclude', '--config', '--package', '--reporter', '-R', '--reporter-option', '--reporter-options', '-O', '--grep', '-g', '--fgrep', '-f', '--timeout', '-t', '--slow', '-s', '--jobs', '-j', '--ui', '-u', '--extension', '--node-option', '-n', '--retries', '--spec']),
  // node-tap 18 and later, and the flags of 15 and 16 that take a value.
  tap: new Set(['-R', '--reporter', '-r', '--reporter-arg', '-g', '--grep', '-j', '--jobs', '-t', '--timeout', '-o', '--output-file', '-d', '--output-dir', '--include', '--exclude', '--plugin', '--before', '--after', '--node-arg', '--coverage-report', '-s', '--save', '--test-env', '--test-arg', '--test-regex', '--test-ignore', '--nyc-arg', '--coverage-map', '--reporter-file', '-c', '--config']),
  node: NODE_VALUE_FLAGS,
};

/** Splits the tool's arguments into flags (with their values) and positional targets. */
function splitTargets(args: readonly string[], values: ReadonlySet<string>): { flags: string[]; targets: string[] } {
  const flags: string[] = [];
  const targets: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('-')) {
      flags.push(a);
      if (values.has(a) && i + 1 < args.length) flags.push(args[++i]!);
    } else {
      targets.push(a);
    }
  }
  return { flags, targets };
}

const GLOB = /[*?[\]{}!]/;

/** An ESLint command narrowed to `files` (cwd-relative), with the targets it may lint them under. */
export interface LintCommand extends ScriptHooks {
  /** The argv for some files; none are linted when the list is empty. */
  forFiles(files: readonly string[]): string[];
  /** Whether a (cwd-relative) file lies under the command's own targets. */
  covers(file: string): boolean;
}

/** The ESLint a folder runs (the one Node resolves from it) and the config mode it runs in. */
export interface EslintInstall {
  version: string;
  /** Flat config (eslint.config.*), else eslintrc. */
  flat: boolean;
  /** `--no-warn-ignored`: ESLint 8.56 and later, in flat config mode only (eslintrc mode rejects it). */
  warnIgnoredFlag: boolean;
}

const FLAT_CONFIGS = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];

/**
 * The installed ESLint's version and config mode, as ESLint itself decides it: 10 and later are flat
 * only; 9 is flat unless ESLINT_USE_FLAT_CONFIG=false; 8 is eslintrc unless ESLINT_USE_FLAT_CONFIG=true
 * or an eslint.config file lies in the folder or above; before 8.21 there is no flat mode.
 * Undefined when no ESLint is installed for the folder.
 */
export function eslintInstall(cwd: string, env: Readonly<Record<string, string | undefined>> = process.env): EslintInstall | undefined {
  let version: string | undefined;
  for (let dir = path.resolve(cwd); version === undefined; dir = path.dirname(dir)) {
    const v = readJsonObjectIfPresent(path.join(dir, 'node_modules', 'eslint', 'package.json'), ['ENOTDIR'])?.version;
    if (typeof v === 'string') version = v;
    if (version === undefined && path.dirname(dir) === dir) return undefined;
  }
  const [major = 0, minor = 0] = version.split('.').map((n) => Number.parseInt(n, 10));
  const mode = env.ESLINT_USE_FLAT_CONFIG;
  let flat: boolean;
  if (major >= 10) flat = true;
  else if (major === 9) flat = mode !== 'false';
  else if (major === 8 && minor >= 21) flat = mode === 'true' || (mode !== 'false' && hasFlatConfig(cwd));
  else flat = false;
  return { version, flat, warnIgnoredFlag: flat && (major > 8 || minor >= 56) };
}

function hasFlatConfig(cwd: string): boolean {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (FLAT_CONFIGS.some((f) => existsSync(path.join(dir, f)))) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/**
 * ESLint narrowed to some files. Only options the installed ESLint accepts in its config mode are
 * added: `--no-warn-ignored` where it exists (elsewhere the note ESLint prints for a changed file it
 * ignores is no failure, see the eslint parser).
 */
export function lintCommand(command: string, cwd: string, env: Readonly<Record<string, string | undefined>> = process.env): LintCommand | { reason: string } {
  const r = resolveArgv(command, cwd);
  if ('reason' in r) return r;
  const i = toolIndex(r.argv, (a) => a === 'eslint');
  if (i < 0) return { reason: 'the command does not run eslint itself' };
  const { flags, targets } = splitTargets(r.argv.slice(i + 1), VALUE_FLAGS.eslint);
  if (flags.some((f) => /^(-o|--output-file|--fix|--fix-dry-run|--stdin|--init|--print-config|--inspect-config)(=|$)/.test(f))) return { reason: 'the command writes, fixes or reads stdin' };
  if (targets.some((t) => GLOB.test(t))) return { reason: 'the command lints a glob of its own' };
  const roots = (targets.length > 0 ? targets : ['.']).map((t) => path.normalize(t));
  const quiet = eslintInstall(cwd, env)?.warnIgnoredFlag === true ? ['--no-warn-ignored'] : [];
  return {
    ...hooksOf(r),
    forFiles: (files) => [...r.argv.slice(0, i + 1), ...flags, ...quiet, ...files],
    covers: (file) => roots.some((t) => t === '.' || file === t || file.startsWith(t.replace(/\/$/, '') + '/')),
  };
}

export type TestRunner = 'jest' | 'vitest' | 'mocha' | 'node-test' | 'tap';

/** A test command narrowed to some test files (or, with jest and vitest, to what relates to some files). */
export interface TestCommand extends ScriptHooks {
  runner: TestRunner;
  /** The full command's argv, resolved. */
  argv: string[];
  /** Runs these test files (cwd-relative) and nothing else. */
  files(files: readonly string[]): string[];
  /**
   * jest and vitest: the tests related to these files (the runner follows imports); undefined where
   * the runner has no such filter and the related test files are found by their imports.
   */
  related?(files: readonly string[]): string[];
  /** The targets the command names itself (node --test, mocha and tap), to find its test files by. */
  targets: string[];
  /** Where the targets are filters, not paths (Vitest's filters, Jest's path patterns): whether the command runs `file` (else: ./outsideTargets). */
  inside?(file: string): boolean;
}

/**
 * `confirm`: the command a confirmation re-runs, where a coverage wrapper (`c8 mocha`, `nyc --100
 * mocha`: validator.js) is left off: a re-run of some tests confirms a failure, it measures no
 * coverage (a threshold would fail on any part of the suite). Never for a run that may decide green.
 */
export function testCommand(command: string, cwd: string, parser: ParserId, use: 'run' | 'confirm' = 'run'): TestCommand | { reason: string } {
  // A confirmation names the failing test files: where the command's globs are its targets (`mocha
  // test/*.mjs`), those files replace them, and no shell is needed to expand them.
  const r = resolveArgv(command, cwd, use === 'confirm');
  if ('reason' in r) return r;
  const c = runnerCommand(use === 'confirm' ? withoutCoverage(r.argv) : r.argv, cwd, parser);
  if ('reason' in c) return c;
  const globs = r.argv.filter((a) => !a.startsWith('-') && GLOB.test(a) && !c.targets.includes(a));
  if (globs.length > 0) return { reason: `${globs[0]} is a glob the shell expands, and no test target of the command` };
  return { ...c, ...hooksOf(r) };
}

/** Coverage wrappers: they run the command after their own options. */
const COVERAGE_TOOLS = new Set(['c8', 'nyc']);
/** Their options that take the next argument as their value (c8's and nyc's). */
const COVERAGE_VALUE_FLAGS = new Set(['-r', '--reporter', '-o', '--reports-dir', '--report-dir', '-n', '--include', '-x', '--exclude', '-e', '--extension', '--temp-directory', '--temp-dir', '--src', '--lines', '--functions', '--branches', '--statements', '--config', '--cwd', '--exclude-after-remap', '--require', '-i', '--nycrc-path']);

/**
 * The argv with a leading coverage wrapper and its options taken off (`c8 --100 -r text mocha` →
 * `mocha`); as it is where there is none. Variables set for the wrapper stay set for what it runs
 * (`cross-env NODE_ENV=test c8 mocha` → `cross-env NODE_ENV=test mocha`); npx or node launched the
 * wrapper itself and go with it.
 */
function withoutCoverage(argv: readonly string[]): string[] {
  const w = toolIndex(argv, (a) => COVERAGE_TOOLS.has(a));
  if (w < 0) return [...argv];
  let i = w + 1;
  while (i < argv.length && argv[i]!.startsWith('-')) {
    const a = argv[i++]!;
    if (a === '--') break;
    if (COVERAGE_VALUE_FLAGS.has(a)) i++;
  }
  return i < argv.length ? [...envPrefix(argv.slice(0, w)), ...argv.slice(i)] : [...argv];
}

function hooksOf(h: ScriptHooks): ScriptHooks {
  return { ...(h.pre ? { pre: h.pre } : {}), ...(h.post ? { post: h.post } : {}) };
}

/** The runner's own command (`argv`, a script already followed) narrowed. */
function runnerCommand(argv: string[], cwd: string, parser: ParserId): TestCommand | { reason: string } {
  if (parser === 'jest') {
    const i = toolIndex(argv, (a) => a === 'jest');
    if (i < 0) return { reason: 'the command does not run jest itself' };
    const args = readJestArgs(argv.slice(i + 1));
    if ('reason' in args) return args;
    if (args.patterns.length === 0) return { runner: 'jest', argv, targets: [], files: (f) => [...argv, '--runTestsByPath', ...f], related: (f) => [...argv, '--passWithNoTests', '--findRelatedTests', ...f] };
    // Its own path patterns (`jest unit`, `--testPathPatterns=api`): the files a pattern matches, as
    // the installed Jest matches them, run by path with the patterns left out (./jestPatterns). No
    // related run: --findRelatedTests applies no pattern, it would run related tests the command does not.
    const inside = jestPathMatcher(cwd, args);
    if ('reason' in inside) return inside;
    const head = argv.slice(0, i + 1);
    return { runner: 'jest', argv, targets: args.patterns, inside, files: (f) => [...head, ...args.rest, '--runTestsByPath', ...f] };
  }
  if (parser === 'vitest') {
    const i = toolIndex(argv, (a) => a === 'vitest');
    if (i < 0) return { reason: 'the command does not run vitest itself' };
    const rest = argv.slice(i + 1);
    const sub = rest[0] === 'run' ? rest.slice(1) : rest;
    const head = argv.slice(0, i + 1);
    const { flags, targets } = splitTargets(sub, VALUE_FLAGS.vitest);
    if (targets.length === 0) return { runner: 'vitest', argv, targets: [], files: (f) => [...head, 'run', ...sub, ...f], related: (f) => [...head, 'related', '--run', '--passWithNoTests', ...sub, ...f] };
    // Vitest's own filters (`vitest test`, `vitest run unit`) select the test files whose path holds
    // one of them, case aside: a file whose own name holds one is run by the command from any folder,
    // so those files may stand in for the filters. A subcommand, a path or a `file:line` filter: not.
    if (VITEST_SUBCOMMANDS.has(sub[0] ?? '') || !targets.every((t) => /^[\w.-]+$/.test(t))) return { reason: 'the command uses a vitest subcommand or filter of its own' };
    const inside = (file: string): boolean => targets.some((t) => path.basename(file).toLowerCase().includes(t.toLowerCase()));
    return { runner: 'vitest', argv, targets, inside, files: (f) => [...head, 'run', ...flags, ...f] };
  }
  if (parser === 'node-test') {
    const i = toolIndex(argv, (a) => a === 'node');
    if (i < 0 || !argv.includes('--test')) return { reason: 'the command does not run node --test itself' };
    const { flags, targets } = splitTargets(argv.slice(i + 1), VALUE_FLAGS.node);
    return { runner: 'node-test', argv, targets, files: (f) => [...argv.slice(0, i + 1), ...flags, ...f] };
  }
  if (parser === 'mocha') {
    const i = toolIndex(argv, (a) => a === 'mocha');
    if (i < 0) return { reason: 'the command does not run mocha itself' };
    const { flags, targets } = splitTargets(argv.slice(i + 1), VALUE_FLAGS.mocha);
    if (flags.some((f) => /^(--spec|--config|--package|--file)(=|$)/.test(f))) return { reason: 'the command sets its own spec, config or files' };
    return { runner: 'mocha', argv, targets, files: (f) => [...argv.slice(0, i + 1), ...flags, ...f] };
  }
  if (parser === 'tap') {
    const t = toolIndex(argv, (a) => a === 'tap');
    if (t < 0) return { reason: 'the command does not run node-tap itself (another TAP producer: ava, tape)' };
    // `tap run` is `tap`.
    const i = argv[t + 1] === 'run' ? t + 1 : t;
    const { flags, targets } = splitTargets(argv.slice(i + 1), VALUE_FLAGS.tap);
    if (TAP_SUBCOMMANDS.has(targets[0] ?? '')) return { reason: `the command runs \`tap ${targets[0]}\`, not the tests` };
    if (flags.some((f) => /^(--changed|-n|--save|-s|--only|-O)(=|$)/.test(f))) return { reason: 'the command selects its own tests (--changed, --save, --only)' };
    // A run of some files checks coverage of those alone: tap fails it below its threshold (100 % by default) for no fault of the code.
    const noCoverage = flags.some((f) => /^--(?:disable-coverage|no-coverage|allow-incomplete-coverage|allow-empty-coverage)$/.test(f)) ? [] : [tapMajor(cwd) >= 18 ? '--disable-coverage' : '--no-coverage'];
    return { runner: 'tap', argv, targets, files: (f) => [...argv.slice(0, i + 1), ...flags, ...noCoverage, ...f] };
  }
  return { reason: `the ${parser} runner has no file filter here` };
}

/**
 * The files (cwd-relative) that lie outside the command's own targets (`node --test build/test/`,
 * `mocha "test/**\/*.js"`): a failure source-mapped to `test/x.ts` while the command runs the
 * compiled `build/test/x.js` names a file the command never runs, which a narrowed run could not
 * load. No targets: the runner's own defaults, nothing is outside.
 */
export function outsideTargets(files: readonly string[], targets: readonly string[]): string[] {
  if (targets.length === 0) return [];
  const inside = targets.map((t) => {
    const clean = t.replace(/^\.\//, '').replace(/\/$/, '');
    if (clean === '.' || clean === '') return (): boolean => true;
    if (GLOB.test(clean)) return picomatch(clean, { dot: true });
    return (f: string): boolean => f === clean || f.startsWith(`${clean}/`);
  });
  return files.filter((f) => !inside.some((ok) => ok(f.replace(/^\.\//, ''))));
}

/** Vitest's subcommands: each runs other tests than its filters name (or none). */
const VITEST_SUBCOMMANDS = new Set(['related', 'watch', 'dev', 'bench', 'init', 'list', 'typecheck']);

/** `tap <subcommand>`: runs no tests, or not the ones named. */
const TAP_SUBCOMMANDS = new Set(['replay', 'report', 'list', 'plugin', 'build', 'config', 'debug', 'versions', 'version', 'help']);

/** The major version of the node-tap the folder resolves (0 when none is found): flags changed at 18. */
function tapMajor(cwd: string): number {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const pkg = readJsonObjectIfPresent(path.join(dir, 'node_modules', 'tap', 'package.json'), ['ENOTDIR']);
    if (pkg !== undefined) return Number.parseInt(String(pkg.version ?? '0'), 10) || 0;
    if (path.dirname(dir) === dir) return 0;
  }
}

/** A chain this can take apart: steps joined by `&&` only, each a plain command (no other shell syntax). */
const CHAIN_OTHER_SHELL = /\|\||[;|<>`$()]|&(?!&)/;

/**
 * The test runner alone of a chain (issue 39): where the command, or the npm/yarn/pnpm script it
 * runs, is `lint && vitest run` and the like, the one step that runs the parser's runner, narrowed as
 * `testCommand` narrows a plain command. Used to confirm a failing test check's failures: the steps
 * before it (a lint, a build) already passed in the run being confirmed (`&&` reached the runner),
 * and a re-run of them confirms nothing about a test. Undefined, with why, where there is no such
 * single step.
 */
export function chainRunnerCommand(command: string, cwd: string, parser: ParserId): TestCommand | { reason: string } {
  const chain = chainSteps(command, cwd);
  if ('reason' in chain) return chain;
  const runners = chain.steps.map((step) => ({ step, cmd: testCommand(step, cwd, parser, 'confirm') })).filter((x): x is { step: string; cmd: TestCommand } => !('reason' in x.cmd));
  if (runners.length !== 1) return { reason: runners.length === 0 ? `no step of the chain runs ${parser} itself` : `${runners.length} steps of the chain run ${parser}` };
  return runners[0]!.cmd;
}

/**
 * The steps of a chain of plain commands joined by `&&`: the command itself, or the npm/yarn/pnpm
 * script it runs (`hooks`: the `pre`/`post` scripts npm runs around that script, which are no step
 * of the chain). Why not, where it is no such chain.
 */
export function chainSteps(command: string, cwd: string): { steps: string[]; hooks: string[] } | { reason: string } {
  const s = scriptOf(command, cwd);
  if (s !== undefined && 'reason' in s) return s;
  const hooks = s === undefined ? [] : [`pre${s.name}`, `post${s.name}`].filter((h) => typeof s.scripts[h] === 'string');
  const body = s === undefined ? command.trim() : s.body;
  if (s === undefined && splitCommand(body)) return { reason: 'the command is not a chain' };
  const steps = plainSteps(body);
  if (steps === undefined || steps.length < 2) return { reason: 'the command is not a chain of plain steps' };
  return { steps, hooks };
}

/**
 * The steps npm runs for a command, in order: its script's `pre` script's steps, then the script's
 * own (`pretest: npm run build && npm run lint`, `test: c8 mocha`: three steps). Why not,
 * where a `post` script runs after it (a coverage gate of its own, left whole) or a step needs a shell.
 */
export function stepsWithPre(command: string, cwd: string, withPost = false): { steps: string[]; pre: number; post?: string[] } | { reason: string } {
  const s = scriptOf(command, cwd);
  if (s === undefined) {
    const c = chainSteps(command, cwd);
    return 'reason' in c ? c : { steps: c.steps, pre: 0 };
  }
  if ('reason' in s) return s;
  // `withPost`: npm's `post` script, run after the script's steps passed, given apart (as `npm run post<name>`).
  const post = typeof s.scripts[`post${s.name}`] === 'string' && s.manager === 'npm' ? [`npm run post${s.name}`] : undefined;
  if (typeof s.scripts[`post${s.name}`] === 'string' && !(withPost && post)) return { reason: `npm runs scripts.post${s.name} after it` };
  // pnpm (7 and later) and yarn 2+ run no pre script unless configured to: which they do is theirs to say, so the chain runs as written.
  if (s.manager !== 'npm' && typeof s.scripts[`pre${s.name}`] === 'string') return { reason: `whether ${s.manager} runs scripts.pre${s.name} is its configuration's to say` };
  const preBody = s.scripts[`pre${s.name}`];
  const pre = typeof preBody === 'string' ? plainSteps(preBody.trim()) : [];
  const own = plainSteps(s.body);
  if (pre === undefined || own === undefined) return { reason: 'the command is not a chain of plain steps' };
  if (pre.length + own.length + (post?.length ?? 0) < 2) return { reason: 'the command is not a chain' };
  return { steps: [...pre, ...own], pre: pre.length, ...(post ? { post } : {}) };
}

/** A line's `&&` steps, or undefined where it needs a shell for more (`||`, `;`, pipes, redirections). */
export function plainSteps(body: string): string[] | undefined {
  if (CHAIN_OTHER_SHELL.test(body.replaceAll('&&', ' '))) return undefined;
  return body.split('&&').map((step) => step.trim());
}

/** The npm/yarn/pnpm script a command runs (name, body, all scripts); undefined where it runs none; why not where it cannot be followed. */
function scriptOf(command: string, cwd: string): { manager: string; name: string; body: string; scripts: Record<string, unknown> } | { reason: string } | undefined {
  const split = splitCommand(command.trim());
  if (!split) return undefined;
  const argv = withoutLauncher(split, cwd);
  if (!SCRIPT_RUNNERS.has(argv[0]!)) return undefined;
  const head = argv.slice(1).filter((a) => a !== '--silent' && a !== '-s');
  if (head.includes('--')) return { reason: 'the command passes arguments to its script' };
  const name = head[0] === 'run' || head[0] === 'run-script' ? head[1] : head[0] === 't' ? 'test' : head[0];
  if (name === undefined || head.length > (head[0] === 'run' || head[0] === 'run-script' ? 2 : 1)) return { reason: 'the command passes options this cannot follow' };
  const scripts = packageScripts(cwd) ?? {};
  const s = scripts[name];
  if (typeof s !== 'string') return { reason: `no script "${name}" in package.json` };
  return { manager: argv[0]!, name, body: s.trim(), scripts };
}

/** The folder's package.json scripts (undefined when there is none, or it is no JSON). */
export function packageScripts(cwd: string): Record<string, unknown> | undefined {
  return scriptsIn(cwd);
}

/** A test title as a regular expression matching it literally. */
export function literalPattern(title: string): string {
  return title.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The runner's flags that already select tests by name: the command's own filter is kept, none added. */
const OWN_NAME_FILTER: Record<TestRunner, RegExp> = {
  jest: /^(?:-t|--testNamePattern)(?:=|$)/,
  vitest: /^(?:-t|--testNamePattern)(?:=|$)/,
  mocha: /^(?:-g|--grep|-f|--fgrep|-i|--invert)(?:=|$)/,
  'node-test': /^--test-(?:name|skip)-pattern(?:=|$)/,
  tap: /^(?:-g|--grep|-O|--only)(?:=|$)/,
};

/**
 * `argv` (a run of some test files) narrowed further to the tests named `ids` (as the runner's parser
 * names them) by the runner's own name filter: Jest and Vitest `-t`, mocha `--grep` (each matched
 * against the test's full title, its suites' names and its own joined by spaces), node
 * `--test-name-pattern` (against the test's own name), node-tap `--grep` (top-level tests only: it
 * filters level by level). Each title is escaped, the titles joined as alternatives. Undefined where
 * no filter can be given: the command has one of its own, a title is not known, or a tap test is
 * nested. A filter that selects nothing is caught by the caller (the test is then not in the run).
 */
export function nameFilterArgv(cmd: TestCommand, argv: readonly string[], ids: readonly string[]): string[] | undefined {
  const titles = [...new Set(ids)];
  if (titles.length === 0 || titles.some((t) => t.trim() === '' || t === 'Test suite failed to run')) return undefined;
  if (argv.some((a) => OWN_NAME_FILTER[cmd.runner].test(a))) return undefined;
  const full = (t: string, sep: RegExp): string => t.split(sep).join(' ');
  const pattern = (ts: readonly string[]): string => ts.map(literalPattern).join('|');
  if (cmd.runner === 'jest') return [...argv, '-t', pattern(titles.map((t) => full(t, / › /)))];
  if (cmd.runner === 'vitest') return [...argv, '-t', pattern(titles.map((t) => full(t, / > /)))];
  if (cmd.runner === 'mocha') return [...argv, '--grep', pattern(titles)];
  if (cmd.runner === 'node-test') {
    const i = argv.findIndex((a) => path.basename(a) === 'node');
    if (i < 0) return undefined;
    return [...argv.slice(0, i + 1), `--test-name-pattern=${pattern(titles.map((t) => t.split(' > ').pop()!))}`, ...argv.slice(i + 1)];
  }
  if (titles.some((t) => t.includes(' > '))) return undefined;
  return [...argv, `--grep=${pattern(titles)}`];
}

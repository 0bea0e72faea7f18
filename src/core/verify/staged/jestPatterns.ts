// A Jest command's arguments read as Jest's own CLI (yargs, with jest-cli's option table) reads
// them, and the test path patterns among them (`jest unit`, `jest --testPathPatterns=api`): which
// test files the command runs, as Jest decides it, so that a narrowed run names only those.
//
// Jest's rules (jest-config `buildTestPathPatterns`, @jest/core SearchSource, @jest/pattern):
// - the positional arguments and the values of `--testPathPatterns` (Jest 29: `--testPathPattern`)
//   are regular expressions, case aside (`i`); a test file is run when ANY of them matches;
// - Jest 30 tests each pattern against the file's path relative to the project's rootDir and
//   against its absolute path (a leading `./` anchors it at the rootDir: `./test` → `^test`);
//   Jest 29 joins them with `|` into one expression and tests the absolute path only;
// - a pattern that is no valid expression makes Jest run every test ("Running all tests instead");
// - `--runTestsByPath` and `--findRelatedTests` take the positional arguments as paths and apply no
//   pattern at all; each still keeps only test files (roots, testMatch, testRegex, ignore patterns).
// So a run of `--runTestsByPath` with some files, the patterns left out, runs exactly those of the
// files that are test files; given only files a pattern matches, it runs nothing the command would not.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { readJsonObjectIfPresent } from '../../fileText';

/** jest-cli's options by the kind of value yargs gives them (Jest 30, and the Jest 29 names it dropped). */
const BOOLEAN = new Set(['all', 'automock', 'bail', 'cache', 'changedFilesWithAncestor', 'ci', 'clearCache', 'clearMocks', 'collectCoverage', 'collectTests', 'color', 'colors', 'coverage', 'debug', 'detectLeaks', 'detectOpenHandles', 'errorOnDeprecated', 'expand', 'findRelatedTests', 'forceExit', 'injectGlobals', 'json', 'lastCommit', 'listTests', 'logHeapUsage', 'noStackTrace', 'notify', 'onlyChanged', 'onlyFailures', 'passWithNoTests', 'randomize', 'resetMocks', 'resetModules', 'restoreMocks', 'runInBand', 'runTestsByPath', 'showConfig', 'showSeed', 'silent', 'skipFilter', 'testLocationInResults', 'updateSnapshot', 'useStderr', 'verbose', 'waitForUnhandledRejections', 'watch', 'watchAll', 'watchman', 'workerThreads', 'init', 'help', 'version']);
const VALUE = new Set(['cacheDirectory', 'changedSince', 'collectCoverageFrom', 'config', 'coverageDirectory', 'coverageThreshold', 'filter', 'globalSetup', 'globalTeardown', 'globals', 'haste', 'maxWorkers', 'moduleNameMapper', 'outputFile', 'preset', 'prettierPath', 'resolver', 'rootDir', 'runner', 'shard', 'testEnvironment', 'env', 'testEnvironmentOptions', 'testFailureExitCode', 'testNamePattern', 'testResultsProcessor', 'testRunner', 'testSequencer', 'transform', 'coverageProvider', 'notifyMode', 'maxConcurrency', 'openHandlesTimeout', 'seed', 'testTimeout', 'workerGracefulExitTimeout']);
/** yargs gives an array option every argument up to the next flag, with `--name=value` too. */
const ARRAY = new Set(['coveragePathIgnorePatterns', 'coverageReporters', 'ignoreProjects', 'moduleDirectories', 'moduleFileExtensions', 'modulePathIgnorePatterns', 'modulePaths', 'projects', 'reporters', 'roots', 'selectProjects', 'setupFiles', 'setupFilesAfterEnv', 'snapshotSerializers', 'testMatch', 'testPathIgnorePatterns', 'testPathPatterns', 'testPathPattern', 'testRegex', 'transformIgnorePatterns', 'unmockedModulePathPatterns', 'watchPathIgnorePatterns']);
const SHORT: Readonly<Record<string, string>> = { b: 'bail', e: 'expand', o: 'onlyChanged', f: 'onlyFailures', i: 'runInBand', u: 'updateSnapshot', c: 'config', w: 'maxWorkers', t: 'testNamePattern', h: 'help' };
const PATTERN_FLAGS = new Set(['testPathPatterns', 'testPathPattern']);
/** Flags under which the patterns select no files, or other files than their own (changed files, last failures, paths). */
const OWN_SELECTION = new Set(['runTestsByPath', 'findRelatedTests', 'onlyChanged', 'onlyFailures', 'lastCommit', 'changedSince', 'changedFilesWithAncestor', 'watch', 'watchAll', 'listTests', 'collectTests', 'showConfig', 'clearCache', 'init', 'help', 'version']);

/** A Jest command's arguments (after `jest`): its path patterns, and the rest as written. */
export interface JestArgs {
  /** The regular expressions: positional arguments and `--testPathPatterns` values, in order. */
  patterns: string[];
  /** The arguments without the patterns (and without the flags that gave them). */
  rest: string[];
  /** Which flag gave a pattern, when one did (`--testPathPatterns`, `--testPathPattern`). */
  patternFlags: string[];
  /** The options given, by jest-cli's names. */
  options: Set<string>;
  /** A flag jest-cli has no option for: its value, if any, cannot be told from a pattern. */
  unknown?: string;
}

function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function kindOf(name: string): 'boolean' | 'value' | 'array' | undefined {
  return BOOLEAN.has(name) ? 'boolean' : VALUE.has(name) ? 'value' : ARRAY.has(name) ? 'array' : undefined;
}

/** The arguments after `jest`, read as Jest's yargs reads them; why not where it cannot be told. */
export function readJestArgs(args: readonly string[]): JestArgs | { reason: string } {
  const r: JestArgs = { patterns: [], rest: [], patternFlags: [], options: new Set() };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return { reason: 'the command passes arguments after `--`, which Jest takes for test path patterns or paths' };
    let names: string[];
    let inline = false;
    if (a.startsWith('--')) {
      const body = a.slice(2);
      inline = body.includes('=');
      const name = camel(inline ? body.slice(0, body.indexOf('=')) : body);
      // yargs' `--no-cache`: a boolean option set false.
      const negated = kindOf(name) === undefined && /^no[A-Z]/.test(name) ? name[2]!.toLowerCase() + name.slice(3) : undefined;
      names = [negated !== undefined && BOOLEAN.has(negated) ? negated : name];
      if (negated !== undefined && BOOLEAN.has(negated)) inline = true;
    } else if (a.startsWith('-') && a.length > 1) {
      const body = a.slice(1);
      inline = body.includes('=');
      const letters = inline ? body.slice(0, body.indexOf('=')) : body;
      // A group of short flags (`-iu`): each a boolean; one that takes a value only last and alone.
      names = [...letters].map((l) => SHORT[l] ?? `-${l}`);
      if (names.length > 1 && names.some((n) => kindOf(n) !== 'boolean')) {
        r.unknown ??= a;
        r.rest.push(a);
        continue;
      }
    } else {
      r.patterns.push(a);
      continue;
    }
    const name = names[names.length - 1]!;
    const kind = kindOf(name);
    for (const n of names) r.options.add(n);
    const own = PATTERN_FLAGS.has(name);
    if (own) {
      r.patternFlags.push(a.split('=')[0]!);
      if (inline) r.patterns.push(a.slice(a.indexOf('=') + 1));
    } else {
      r.rest.push(a);
    }
    if (kind === undefined) {
      r.unknown ??= a;
    } else if (kind === 'boolean') {
      // yargs takes a following `true`/`false` as the boolean's value.
      if (!inline && (args[i + 1] === 'true' || args[i + 1] === 'false')) r.rest.push(args[++i]!);
    } else if (kind === 'value') {
      if (!inline && i + 1 < args.length) r.rest.push(args[++i]!);
    } else {
      while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) (own ? r.patterns : r.rest).push(args[++i]!);
    }
  }
  return r;
}

/** The major version of the Jest the folder resolves (undefined where none is found). */
export function jestMajor(cwd: string): number | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const pkg = readJsonObjectIfPresent(path.join(dir, 'node_modules', 'jest', 'package.json'), ['ENOTDIR']);
    if (pkg !== undefined) {
      const major = Number.parseInt(String(pkg.version ?? ''), 10);
      return Number.isFinite(major) && major > 0 ? major : undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

const CONFIG_FILES = ['jest.config.js', 'jest.config.ts', 'jest.config.mjs', 'jest.config.cjs', 'jest.config.cts', 'jest.config.mts', 'jest.config.json'];

/**
 * The rootDir Jest 30 tests the patterns' relative paths against, where it is certain: the check's
 * folder holds Jest's configuration (a jest.config file or package.json: Jest looks no further) and
 * neither it nor the command sets a rootDir, projects or a preset. Undefined otherwise: then only the
 * absolute path is tested, which can only leave a file out (and the check runs in full), never add one.
 */
function certainRootDir(cwd: string, a: JestArgs): string | undefined {
  if (['rootDir', 'config', 'projects', 'preset'].some((o) => a.options.has(o))) return undefined;
  const configs = CONFIG_FILES.filter((f) => existsSync(path.join(cwd, f)));
  const pkg = readJsonObjectIfPresent(path.join(cwd, 'package.json'), ['ENOTDIR']);
  // No config here, or a package.json that is no JSON object: Jest's own reading is not followed.
  if (configs.length === 0 && pkg === undefined) return undefined;
  const sets = (o: unknown): boolean => typeof o !== 'object' || o === null || ['rootDir', 'projects', 'preset'].some((k) => k in o);
  if (pkg?.jest !== undefined && sets(pkg.jest)) return undefined;
  for (const f of configs) {
    const file = path.join(cwd, f);
    if (f.endsWith('.json')) {
      if (sets(readJsonObjectIfPresent(file))) return undefined;
    } else if (/\b(?:rootDir|projects|preset)\b|\brequire\s*\(|^\s*import\s|\.\.\./m.test(readFileSync(file, 'utf8'))) {
      // A config of code may set them by another module or a spread: not read here.
      return undefined;
    }
  }
  return real(cwd);
}

/** Jest takes its rootDir and roots through realpath: its test paths are real paths. */
function real(p: string): string {
  return existsSync(p) ? realpathSync.native(p) : path.resolve(p);
}

const slash = (p: string): string => p.split(path.sep).join('/');

/**
 * Whether the command runs a (cwd-relative) test file, by its path patterns as the installed Jest
 * matches them (both versions' rules where the version is not known: a file only both would run);
 * why not where they cannot be read: a pattern that is no regular expression (Jest then runs every
 * test), a flag for the other version, a flag under which the patterns select nothing.
 */
export function jestPathMatcher(cwd: string, a: JestArgs, major = jestMajor(cwd)): ((file: string) => boolean) | { reason: string } {
  const own = [...a.options].find((o) => OWN_SELECTION.has(o));
  if (own !== undefined) return { reason: `the command names its own test paths, and selects its tests by --${own}` };
  if (a.unknown !== undefined) return { reason: `the command names its own test paths, and passes ${a.unknown}, no Jest option this can read (its value could be a path pattern)` };
  if (major !== undefined && major >= 30 && a.patternFlags.some((f) => f === '--testPathPattern')) return { reason: `the command names its own test paths by --testPathPattern, which Jest ${major} rejects (--testPathPatterns)` };
  if (major !== undefined && major < 30 && a.patternFlags.some((f) => /^--test-?[pP]ath-?[pP]atterns$/.test(f))) return { reason: `the command names its own test paths by --testPathPatterns, which Jest ${major} does not know (--testPathPattern)` };
  if (a.patterns.some((p) => p === '' || p.includes('\\'))) return { reason: 'the command names its own test paths, and one is empty or holds a backslash (separators Jest rewrites)' };
  let v30: RegExp[];
  let v29: RegExp;
  try {
    v30 = a.patterns.map((p) => new RegExp(p.replace(/^\.\//, '^'), 'i'));
    v29 = new RegExp(a.patterns.join('|'), 'i');
  } catch (e) {
    return { reason: `the command names its own test paths, and ${a.patterns.join(' ')} is no regular expression Jest can use (it would run every test): ${(e as Error).message}` };
  }
  const root = real(cwd);
  const rootDir = major === undefined || major >= 30 ? certainRootDir(cwd, a) : undefined;
  const matches30 = (abs: string): boolean =>
    a.patterns.some((p, k) => {
      const re = v30[k]!;
      const rel = rootDir === undefined ? undefined : path.isAbsolute(p) ? abs : slash(path.relative(rootDir, abs));
      return (rel !== undefined && re.test(rel)) || re.test(abs);
    });
  const matches29 = (abs: string): boolean => v29.test(abs);
  return (file) => {
    const abs = slash(path.resolve(root, file));
    if (major === undefined) return matches29(abs) && matches30(abs);
    return major >= 30 ? matches30(abs) : matches29(abs);
  };
}

// The folders a coverage tool writes as a check runs (c8, nyc, Jest and Vitest `--coverage`), read
// from its flags and its own config files as the tool itself finds them. Told with certainty or not
// at all: a setting only a program could tell (a jest.config.js that computes its value, a YAML
// config, an `extends`) makes the answer unknown, with the reason, and the check runs alone
// (./writers, ./verifier). Nothing here runs the project's code.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { readTextIfPresent } from '../fileText';
import { exportedLiteral } from './jsLiteral';

/** The absolute folders a step writes its coverage to, or why they cannot be told. */
export type CoverageFolders = { folders: string[] } | { unknown: string };

const unknown = (why: string): CoverageFolders => ({ unknown: why });

/** The words of a command line, quotes taken off a word they wrap whole. */
export function words(command: string): string[] {
  return command.trim().split(/\s+/).filter(Boolean).map((w) => (/^(["']).*\1$/.test(w) ? w.slice(1, -1) : w));
}

/**
 * The value of a flag among `args` (`--x v`, `--x=v`, `-o v`): undefined when absent, `many` when
 * given more than once (which one wins is the parser's business, not told here).
 */
export function flagValue(args: readonly string[], names: readonly string[]): string | undefined | { many: true } {
  const found: string[] = [];
  for (const [i, a] of args.entries()) {
    for (const n of names) {
      if (a === n && args[i + 1] !== undefined) found.push(args[i + 1]!);
      else if (a.startsWith(`${n}=`)) found.push(a.slice(n.length + 1));
    }
  }
  return found.length > 1 ? { many: true } : found[0];
}

/** A JSON object read from a file (JSONC as the tools accept), or undefined when absent; `bad` when it is no object. */
function jsonObject(file: string): Record<string, unknown> | undefined | 'bad' {
  const text = readTextIfPresent(file, ['ENOTDIR', 'EISDIR']);
  if (text === undefined) return undefined;
  const v = parse(text, [], { allowTrailingComma: true }) as unknown;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : 'bad';
}

/** The first of `names` found in `dir` or a folder above it, as find-up looks (each folder, names in order). */
function findUp(dir: string, names: readonly string[]): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    for (const n of names) if (existsSync(path.join(d, n))) return path.join(d, n);
    if (path.dirname(d) === d) return undefined;
  }
}

/** A setting in a config object under any of its spellings (`reports-dir`, `reportsDir`): `many` when more than one is set. */
function setting(config: Record<string, unknown>, keys: readonly string[]): unknown {
  const set = keys.filter((k) => config[k] !== undefined);
  return set.length > 1 ? { many: true } : set.length === 1 ? config[set[0]!] : undefined;
}

/** One folder setting, by precedence (flag, config file, package.json key, default), resolved against `base`. */
function pick(base: string, sources: readonly { from: string; value: unknown }[], fallback: string): string | { unknown: string } {
  for (const s of sources) {
    if (s.value === undefined) continue;
    if (typeof s.value !== 'string' || s.value === '') return { unknown: `${s.from} is not one folder name` };
    return path.resolve(base, s.value);
  }
  return path.resolve(base, fallback);
}

/** A step's tool options after its name, up to the command it wraps (c8 and nyc run one). */
function ownOptions(tokens: readonly string[], at: number): string[] {
  const out: string[] = [];
  for (let i = at + 1; i < tokens.length; i++) {
    const a = tokens[i]!;
    if (a === '--' || !a.startsWith('-')) break;
    out.push(a);
    const next = tokens[i + 1];
    if (!a.includes('=') && next !== undefined && !next.startsWith('-') && !/^(?:--(?:all|check-coverage|100|clean|per-file|skip-full|cache|silent|exclude-after-remap|merge-async|allowExternal|exclude-node-modules)|--no-[\w-]+)$/.test(a) && !/^(?:node|npm|npx|pnpm|yarn|tsx|ts-node|mocha|jest|vitest|tap|ava|tape|uvu|\.?\.?\/)/.test(next)) {
      out.push(next);
      i++;
    }
  }
  return out;
}

/** c8: `--reports-dir` (`-o`, `--report-dir`), `--temp-directory`, a `.c8rc`/`.nycrc` JSON or package.json `c8`; defaults coverage/ and its tmp/. */
function c8Folders(opts: readonly string[], cwd: string): CoverageFolders {
  const named = flagValue(opts, ['--config', '-c']);
  if (typeof named === 'object') return unknown('c8 is given more than one --config');
  const file = named !== undefined ? path.resolve(cwd, named) : findUp(cwd, ['.c8rc', '.c8rc.json', '.nycrc', '.nycrc.json']);
  const config = file !== undefined ? jsonObject(file) : undefined;
  if (config === 'bad' || (file !== undefined && config === undefined && named !== undefined)) return unknown(`c8's config ${file} is not a JSON object`);
  if (config?.extends !== undefined) return unknown(`c8's config ${file} extends another`);
  const pkgFile = findUp(cwd, ['package.json']);
  const pkg = pkgFile !== undefined ? jsonObject(pkgFile) : undefined;
  const fromPkg = typeof pkg === 'object' && typeof pkg.c8 === 'object' && pkg.c8 !== null ? (pkg.c8 as Record<string, unknown>) : {};
  const reportKeys = ['reports-dir', 'reportsDir', 'report-dir', 'reportDir', 'o'];
  const reports = pick(cwd, [
    { from: 'c8 --reports-dir', value: flagValue(opts, ['--reports-dir', '--report-dir', '-o']) },
    { from: `the reports folder in ${file}`, value: config ? setting(config, reportKeys) : undefined },
    { from: 'package.json c8 reports folder', value: setting(fromPkg, reportKeys) },
  ], 'coverage');
  if (typeof reports === 'object') return reports;
  const tempKeys = ['temp-directory', 'tempDirectory'];
  const temp = pick(cwd, [
    { from: 'c8 --temp-directory', value: flagValue(opts, ['--temp-directory']) },
    { from: `the temp folder in ${file}`, value: config ? setting(config, tempKeys) : undefined },
    { from: 'package.json c8 temp folder', value: setting(fromPkg, tempKeys) },
    { from: 'NODE_V8_COVERAGE', value: process.env.NODE_V8_COVERAGE },
  ], path.join(reports, 'tmp'));
  return typeof temp === 'object' ? temp : { folders: [reports, temp] };
}

/** nyc: `--report-dir`, `--temp-dir`, its cache, from flags, a `.nycrc`/`.nycrc.json` or package.json `nyc`; defaults coverage/, .nyc_output/, node_modules/.cache/nyc. */
function nycFolders(opts: readonly string[], cwd: string): CoverageFolders {
  if (flagValue(opts, ['--cwd', '--nycrc-path']) !== undefined) return unknown('nyc is given another --cwd or --nycrc-path');
  const file = findUp(cwd, ['.nycrc', '.nycrc.json', '.nycrc.yml', '.nycrc.yaml', 'nyc.config.js', 'nyc.config.cjs', 'nyc.config.mjs']);
  if (file !== undefined && !/\.nycrc(?:\.json)?$/.test(file)) return unknown(`nyc's config ${path.basename(file)} is read only by running it`);
  const config = file !== undefined ? jsonObject(file) : undefined;
  if (config === 'bad') return unknown(`nyc's config ${file} is not a JSON object`);
  if (config?.extends !== undefined) return unknown(`nyc's config ${file} extends another`);
  const pkgFile = findUp(cwd, ['package.json']);
  const pkg = pkgFile !== undefined ? jsonObject(pkgFile) : undefined;
  const fromPkg = typeof pkg === 'object' && typeof pkg.nyc === 'object' && pkg.nyc !== null ? (pkg.nyc as Record<string, unknown>) : {};
  const folder = (flags: string[], keys: string[], fallback: string): string | { unknown: string } =>
    pick(cwd, [
      { from: `nyc ${flags[0]!}`, value: flagValue(opts, flags) },
      { from: `${keys[0]!} in ${file ?? ''}`, value: config ? setting(config, keys) : undefined },
      { from: `package.json nyc ${keys[0]!}`, value: setting(fromPkg, keys) },
    ], fallback);
  const found = [
    folder(['--report-dir'], ['report-dir', 'reportDir'], 'coverage'),
    folder(['--temp-dir', '--temp-directory', '-t'], ['temp-dir', 'tempDir', 'temp-directory', 'tempDirectory'], '.nyc_output'),
    folder(['--cache-dir'], ['cache-dir', 'cacheDir'], 'node_modules/.cache/nyc'),
  ];
  const bad = found.find((f): f is { unknown: string } => typeof f === 'object');
  return bad ?? { folders: found as string[] };
}

/** A Jest config as read: its object, or why it is known only by running it; `file` undefined where none is found. */
type JestConfig = { file?: string; config: Record<string, unknown> } | { file?: string; unknown: string };

/** The Jest config a run in `cwd` reads, as jest-config finds it: `--config`, else jest.config.* or package.json `jest`, from `cwd` up. */
function jestConfig(args: readonly string[], cwd: string): JestConfig {
  const named = flagValue(args, ['--config', '-c']);
  if (typeof named === 'object') return { unknown: 'Jest is given more than one --config' };
  if (named !== undefined && named.trim().startsWith('{')) return { unknown: 'Jest is given its config inline' };
  const exts = ['.js', '.ts', '.mjs', '.mts', '.cjs', '.cts', '.json'];
  for (let d = cwd; named === undefined; d = path.dirname(d)) {
    const file = exts.map((e) => path.join(d, `jest.config${e}`)).find((f) => existsSync(f)) ?? (existsSync(path.join(d, 'package.json')) ? path.join(d, 'package.json') : undefined);
    if (file !== undefined) return readJestConfig(file);
    if (path.dirname(d) === d) return { config: {} };
  }
  return readJestConfig(path.resolve(cwd, named));
}

function readJestConfig(file: string): JestConfig {
  const base = path.basename(file);
  if (base === 'package.json') {
    const pkg = jsonObject(file);
    const jest = typeof pkg === 'object' ? pkg.jest : undefined;
    if (typeof jest === 'string') return { file, unknown: `package.json's jest names another config (${jest})` };
    return { file, config: typeof jest === 'object' && jest !== null ? (jest as Record<string, unknown>) : {} };
  }
  if (base.endsWith('.json')) {
    const config = jsonObject(file);
    return typeof config === 'object' ? { file, config } : { file, unknown: `${base} is not a JSON object` };
  }
  const text = readTextIfPresent(file, ['ENOTDIR', 'EISDIR']);
  const literal = text !== undefined ? exportedLiteral(text) : undefined;
  if (typeof literal !== 'object' || literal === null || Array.isArray(literal)) return { file, unknown: `${base} is a program whose coverageDirectory is known only by running it` };
  return { file, config: literal };
}

/**
 * Whether Jest run without `--coverage` collects coverage all the same (`collectCoverage: true` in
 * its config): true, false, or unknown where the config is a program that names collectCoverage.
 */
function jestCollects(args: readonly string[], cwd: string): boolean | 'unknown' {
  const found = jestConfig(args, cwd);
  if ('config' in found) return found.config.collectCoverage === true;
  const text = found.file !== undefined ? readTextIfPresent(found.file, ['ENOTDIR', 'EISDIR']) : undefined;
  // A program that names collectCoverage, or takes settings from another of the project's modules
  // (`...require('./jest.base')`), may turn it on; one that does neither cannot.
  return text === undefined || /collectCoverage|(?:\bfrom\s*|\b(?:require|import)\s*\(\s*)["']\./.test(text) ? 'unknown' : false;
}

/** Jest: `--coverageDirectory`, else the config's `coverageDirectory` (a preset may set it: unknown), under its rootDir; default `<rootDir>/coverage`. */
function jestFolders(args: readonly string[], cwd: string): CoverageFolders {
  const flag = flagValue(args, ['--coverageDirectory', '--coverage-directory']);
  if (typeof flag === 'object') return unknown('Jest is given more than one --coverageDirectory');
  const found = jestConfig(args, cwd);
  if ('unknown' in found) return unknown(found.unknown);
  const config = found.config;
  const rootFlag = flagValue(args, ['--rootDir']);
  if (typeof rootFlag === 'object' || (rootFlag === undefined && config.rootDir !== undefined && typeof config.rootDir !== 'string')) return unknown('Jest\'s rootDir is not one folder');
  const configDir = found.file !== undefined ? path.dirname(found.file) : cwd;
  const rootDir = rootFlag !== undefined ? path.resolve(cwd, rootFlag) : typeof config.rootDir === 'string' ? path.resolve(configDir, config.rootDir) : configDir;
  if (flag === undefined && config.preset !== undefined && config.coverageDirectory === undefined) return unknown(`Jest's preset ${JSON.stringify(config.preset)} may set coverageDirectory`);
  const dir = flag ?? config.coverageDirectory ?? '<rootDir>/coverage';
  if (typeof dir !== 'string' || dir === '') return unknown('Jest\'s coverageDirectory is not one folder');
  return { folders: [path.resolve(rootDir, dir.replace(/^<rootDir>\/?/, ''))] };
}

/** Vitest: `--coverage.reportsDirectory`, default `./coverage` under its root; a config that names a reportsDirectory or a root: unknown. */
function vitestFolders(args: readonly string[], cwd: string): CoverageFolders {
  if (flagValue(args, ['--root', '-r', '--config', '-c', '--dir']) !== undefined) return unknown('Vitest is given another root or config');
  const flag = flagValue(args, ['--coverage.reportsDirectory']);
  if (typeof flag === 'object') return unknown('Vitest is given more than one --coverage.reportsDirectory');
  if (flag !== undefined) return { folders: [path.resolve(cwd, flag)] };
  const names = ['vitest.config', 'vite.config'].flatMap((b) => ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'].map((e) => b + e));
  for (const n of names) {
    const text = readTextIfPresent(path.join(cwd, n), ['ENOTDIR', 'EISDIR']);
    if (text !== undefined && /\b(?:reportsDirectory|root)\b/.test(text)) return unknown(`${n} may set where coverage goes (it names reportsDirectory or root)`);
    // A config merged from another of the project's modules (`mergeConfig(viteConfig, …)`) may set it there.
    if (text !== undefined && /(?:\bfrom\s*|\b(?:require|import)\s*\(\s*)["']\./.test(text)) return unknown(`${n} imports another module of the project, which may set where coverage goes`);
  }
  return { folders: [path.resolve(cwd, 'coverage')] };
}

/** Whether a Vitest or Vite config in `cwd` may turn coverage on (`coverage: { enabled: true }`), read as text. */
function vitestConfigCovers(cwd: string): boolean {
  const names = ['vitest.config', 'vite.config'].flatMap((b) => ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'].map((e) => b + e));
  return names.some((n) => /\bcoverage\b[\s\S]*\benabled\b/.test(readTextIfPresent(path.join(cwd, n), ['ENOTDIR', 'EISDIR']) ?? ''));
}

/**
 * What one step of a check writes as coverage: undefined when it runs no coverage tool, else its
 * folders or why they cannot be told. `step` is the step as written (wrappers kept: c8 is one).
 */
export function coverageFolders(step: string, cwd: string): CoverageFolders | undefined {
  const t = words(step);
  let i = 0;
  while (i < t.length && (/^[A-Za-z_]\w*=/.test(t[i]!) || /^(?:\S*\/)?(?:cross-env|npx|env)$/.test(t[i]!))) i++;
  const head = (t[i] ?? '').replace(/^.*\//, '');
  if (head === 'c8' || head === 'nyc') {
    const opts = ownOptions(t, i);
    const own = head === 'c8' ? c8Folders(opts, cwd) : nycFolders(opts, cwd);
    const inner = coverageFolders(t.slice(i + 1 + opts.length).join(' '), cwd);
    if ('unknown' in own || inner === undefined) return own;
    return 'unknown' in inner ? inner : { folders: [...own.folders, ...inner.folders] };
  }
  const args = t.slice(i + 1);
  if (args.some((a) => /^--(?:coverage|collectCoverage)=(?:false|0)$/.test(a) || a === '--no-coverage')) return undefined;
  const flagged = args.some((a) => a === '--coverage' || a === '--collectCoverage' || a.startsWith('--coverage=') || a.startsWith('--coverage.enabled'));
  // Coverage turned on by the runner's config rather than a flag writes its report all the same.
  if (head === 'jest') {
    const collects = flagged || jestCollects(args, cwd);
    return collects === 'unknown' ? unknown('Jest\'s config is a program that may turn collectCoverage on') : collects ? jestFolders(args, cwd) : undefined;
  }
  if (head === 'vitest') return flagged || vitestConfigCovers(cwd) ? vitestFolders(args, cwd) : undefined;
  if (!flagged) return undefined;
  return unknown(`where \`${step}\` writes its coverage is not known`);
}

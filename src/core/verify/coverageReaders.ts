// Whether a check provably reads nothing inside a coverage report's folders, so that the check that
// writes the report can run beside it (./writers, ./verifier). Proven or not at all: the paths and
// globs a tool is given (a glob reads under its fixed prefix), a tsconfig whose files can never be in
// a report, an ignore file the tool itself is documented to read. A tool given nothing, `.`, or a
// pattern starting with `**` reads the whole project: proven outside only by such an ignore rule.
// Any other tool may read anything: unknown, and the coverage check runs alone.
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { readTextIfPresent } from '../fileText';
import { words } from './coverageFolders';
import { resolveScript, scriptsIn } from './infer';

/** Whether `inner` is `outer` or inside it. */
function within(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The folder a path or glob reads under: its segments before the first one with a glob character. */
function fixedPrefix(pattern: string, cwd: string): string {
  const segs = pattern.split('/');
  const k = segs.findIndex((s) => /[*?[\]{}()!+@]/.test(s));
  return path.resolve(cwd, (k < 0 ? segs : segs.slice(0, k)).join('/') || '.');
}

/** The words that are neither options nor the values of the options listed as taking one. */
function positionals(args: readonly string[], valued: RegExp): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') continue;
    if (!a.startsWith('-')) out.push(a);
    else if (!a.includes('=') && valued.test(a)) i++;
  }
  return out;
}

/**
 * Whether a .gitignore-format file excludes `folder` by a line naming it or a folder above it
 * literally, in a file with no negation (`!`) a later line could re-include it with.
 */
function ignoredBy(file: string, base: string, folder: string): boolean {
  const text = readTextIfPresent(file, ['ENOTDIR', 'EISDIR']);
  if (text === undefined) return false;
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.some((l) => l.startsWith('!'))) return false;
  const rel = path.relative(base, folder);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return false;
  const segs = rel.split(path.sep);
  return lines.some((raw) => {
    if (/[*?[\]\\]/.test(raw)) return false;
    const l = raw.replace(/\/+$/, '');
    if (l.startsWith('/') || l.includes('/')) return segs.some((_s, k) => segs.slice(0, k + 1).join('/') === l.replace(/^\//, ''));
    return segs.includes(l);
  });
}

/** The installed major version of a tool, as the check's folder resolves it. */
function major(tool: string, cwd: string): number | undefined {
  for (let d = cwd; ; d = path.dirname(d)) {
    const text = readTextIfPresent(path.join(d, 'node_modules', tool, 'package.json'), ['ENOTDIR', 'EISDIR']);
    if (text !== undefined) return Number(/"version"\s*:\s*"(\d+)/.exec(text)?.[1]) || undefined;
    if (path.dirname(d) === d) return undefined;
  }
}

/** Why reading the given paths may read into a folder, or undefined when each lies apart from every folder. */
function pathsApart(tool: string, patterns: readonly string[], cwd: string, folders: readonly string[], ignores?: (f: string) => boolean): string | undefined {
  for (const p of patterns) {
    const region = fixedPrefix(p, cwd);
    const hit = folders.find((f) => within(f, region) || within(region, f));
    if (hit !== undefined && !(within(hit, region) && ignores?.(hit) === true)) return `${tool} reads \`${p}\`, which holds ${path.relative(cwd, hit) || '.'}`;
  }
  return undefined;
}

const PRETTIER_VALUED = /^--(?:config|ignore-path|plugin|parser|log-level|cache-location|cache-strategy|stdin-filepath|config-precedence|end-of-line|print-width|tab-width|trailing-comma|arrow-parens|prose-wrap|quote-props|html-whitespace-sensitivity|embedded-language-formatting|object-wrap|experimental-operator-position|cursor-offset|range-start|range-end)$/;
const ESLINT_VALUED = /^(?:-c|-f|-o|--config|--format|--ext|--rulesdir|--plugin|--parser|--parser-options|--resolve-plugins-relative-to|--ignore-path|--ignore-pattern|--rule|--global|--env|--max-warnings|--output-file|--cache-location|--cache-strategy|--report-unused-disable-directives-severity|--stdin-filename|--flag|--concurrency)$/;
const BIOME_VALUED = /^--(?:config-path|max-diagnostics|reporter|diagnostic-level|log-level|log-kind|vcs-root|since|stdin-file-path|skip|only|colors|files-max-size)$/;

/** Prettier: its paths; one that holds a folder is fine where Prettier 3's default ignore files (.gitignore, .prettierignore) exclude it. */
function prettierReads(args: readonly string[], cwd: string, folders: readonly string[]): string | undefined {
  const patterns = positionals(args, PRETTIER_VALUED).filter((p) => !p.startsWith('!'));
  if (patterns.length === 0) return 'prettier is given no paths';
  const ownIgnores = !args.some((a) => a.startsWith('--ignore-path')) && (major('prettier', cwd) ?? 0) >= 3;
  return pathsApart('prettier', patterns, cwd, folders, (f) => ownIgnores && ['.gitignore', '.prettierignore'].some((n) => ignoredBy(path.join(cwd, n), cwd, f)));
}

/**
 * Biome: its paths (none: the folder). One that holds a folder is fine where its configuration in the
 * check's folder turns on the VCS ignore file (`vcs.enabled`, `useIgnoreFile`, git, no other root, no
 * `extends`, no `--vcs-*` flag): Biome then skips what that folder's .gitignore excludes.
 */
function biomeReads(args: readonly string[], cwd: string, folders: readonly string[]): string | undefined {
  const p = positionals(args, BIOME_VALUED).slice(1);
  const file = ['biome.json', 'biome.jsonc'].map((n) => path.join(cwd, n)).find((f) => readTextIfPresent(f, ['ENOTDIR', 'EISDIR']) !== undefined);
  const config = file !== undefined ? (parse(readTextIfPresent(file)!, [], { allowTrailingComma: true }) as { extends?: unknown; vcs?: Record<string, unknown> } | undefined) : undefined;
  const vcs = config?.vcs;
  const ownIgnores = config?.extends === undefined && vcs?.enabled === true && vcs.useIgnoreFile === true && vcs.clientKind === 'git' && vcs.root === undefined && !args.some((a) => /^--(?:vcs-|config-path)/.test(a));
  return pathsApart('biome', p.length > 0 ? p : ['.'], cwd, folders, (f) => ownIgnores && ignoredBy(path.join(cwd, '.gitignore'), cwd, f));
}

/**
 * tsc: the files its tsconfig includes. TypeScript takes only .ts/.tsx/.d.ts files from a folder
 * (and .js/.jsx with `allowJs`); a coverage report holds html, css, js, json and lcov, never those.
 * So with allowJs provably off (set false, or unset in a tsconfig that extends nothing) tsc reads
 * nothing of it whatever it includes; with allowJs on, its include/files must lie apart.
 */
function tscReads(args: readonly string[], cwd: string, folders: readonly string[]): string | undefined {
  if (args.some((a) => /^--allowJs(?:=true)?$/.test(a))) return 'tsc is given --allowJs: it may read the report\'s .js files';
  const files = positionals(args, /^(?:-p|--project|--target|--module|--lib|--jsx|--outDir|--rootDir|--moduleResolution|--types|--typeRoots)$/);
  if (files.length > 0) return files.every((f) => /\.(?:[cm]?ts|tsx)$/.test(f)) ? undefined : pathsApart('tsc', files, cwd, folders);
  const named = args[args.findIndex((a) => a === '-p' || a === '--project') + 1];
  let file = path.resolve(cwd, args.some((a) => a === '-p' || a === '--project') ? (named ?? '') : 'tsconfig.json');
  if (!/\.json$/i.test(file)) file = path.join(file, 'tsconfig.json');
  const text = readTextIfPresent(file, ['ENOTDIR', 'EISDIR']);
  const config = text !== undefined ? (parse(text, [], { allowTrailingComma: true }) as { extends?: unknown; include?: unknown; files?: unknown; compilerOptions?: { allowJs?: unknown } } | undefined) : undefined;
  if (config === undefined || typeof config !== 'object') return `tsc's ${path.relative(cwd, file)} could not be read`;
  const allowJs = config.compilerOptions?.allowJs;
  const base = path.dirname(file);
  const listed = [...(Array.isArray(config.include) ? config.include : []), ...(Array.isArray(config.files) ? config.files : [])];
  // A .json file is taken only where an include pattern or a file names .json itself (a report holds coverage-final.json).
  if (allowJs === false || (allowJs === undefined && config.extends === undefined)) return pathsApart('tsc', listed.filter((p): p is string => typeof p === 'string' && /\.json$/i.test(p)), base, folders);
  if (listed.length === 0 || !listed.every((p) => typeof p === 'string')) return `tsc's ${path.relative(cwd, file)} may take .js files (allowJs) from any folder`;
  return pathsApart('tsc', listed as string[], base, folders);
}

/** tsd: the test files under its directory (package.json `tsd.directory`, default test-d) or beside the typings, and what they import. */
function tsdReads(cwd: string, folders: readonly string[]): string | undefined {
  const text = readTextIfPresent(path.join(cwd, 'package.json'), ['ENOTDIR', 'EISDIR']);
  const pkg = text !== undefined ? (parse(text) as { tsd?: { directory?: unknown } } | undefined) : undefined;
  const dir = pkg?.tsd?.directory ?? 'test-d';
  if (typeof dir !== 'string') return 'tsd\'s directory is not one folder';
  return pathsApart('tsd', [dir, '*.test-d.ts'], cwd, folders);
}

/**
 * mocha: the files it is given and its config's `spec` (mocha adds the two), else ./test. A config
 * other than JSON (.mocharc.js, .yml) is known only by running or parsing it as mocha does: unknown.
 */
function mochaReads(args: readonly string[], cwd: string, folders: readonly string[]): string | undefined {
  const named = positionals(args, /^(?:-r|--require|--import|--loader|--reporter|-R|--reporter-option|-O|--timeout|-t|--slow|-s|--grep|-g|--fgrep|-f|--ui|-u|--config|--package|--extension|--ignore|--exclude|--file|--node-option|-n|--jobs|-j|--retries)$/);
  const configs = ['.mocharc.js', '.mocharc.cjs', '.mocharc.mjs', '.mocharc.yml', '.mocharc.yaml', '.mocharc.json', '.mocharc.jsonc'].filter((n) => readTextIfPresent(path.join(cwd, n), ['ENOTDIR', 'EISDIR']) !== undefined);
  if (args.some((a) => /^--(?:config|package)\b/.test(a)) || configs.some((n) => !/\.jsonc?$/.test(n))) return `mocha's config (${configs.join(', ') || 'named on its command line'}) may name more test files`;
  const pkg = parse(readTextIfPresent(path.join(cwd, 'package.json'), ['ENOTDIR', 'EISDIR']) ?? '{}') as { mocha?: { spec?: unknown } } | undefined;
  const specs = [...configs.map((n) => (parse(readTextIfPresent(path.join(cwd, n))!, [], { allowTrailingComma: true }) as { spec?: unknown } | undefined)?.spec), pkg?.mocha?.spec].flat().filter((x) => x !== undefined);
  if (!specs.every((x): x is string => typeof x === 'string')) return "mocha's spec is not a list of paths";
  const all = [...named, ...specs];
  return pathsApart('mocha', all.length > 0 ? all : ['test'], cwd, folders);
}

/** What one step of a check reads, against the folders: undefined when provably apart, else why not. */
function stepReads(step: string, cwd: string, folders: readonly string[]): string | undefined {
  const [head = '', ...args] = words(step);
  const tool = head.replace(/^.*\//, '');
  const given = (valued: RegExp): string[] => positionals(args, valued);
  switch (tool) {
    case 'prettier':
      return prettierReads(args, cwd, folders);
    case 'eslint': {
      const p = given(ESLINT_VALUED);
      return pathsApart('eslint', p.length > 0 ? p : ['.'], cwd, folders) === undefined ? undefined : `eslint lints ${p.length > 0 ? p.join(' ') : 'the whole folder (no paths given)'}, and its own ignores are known only by running its config`;
    }
    case 'biome':
      return biomeReads(args, cwd, folders);
    case 'tsc':
      return tscReads(args, cwd, folders);
    case 'tsd':
      return tsdReads(cwd, folders);
    case 'mocha':
      return mochaReads(args, cwd, folders);
    case 'node':
    case 'ava':
    case 'tap':
    case 'tape':
    case 'uvu': {
      // `node` reads the paths it is given only as `node --test PATHS`; a script it runs may read anything.
      if (tool === 'node' && !args.includes('--test')) break;
      const p = given(/^(?:-r|--require|--import|--loader|--reporter|--test-reporter|--test-reporter-destination|--timeout|-t|--grep|-g|--ui|-u|--config|--test-name-pattern|--test-concurrency)$/);
      return p.length > 0 ? pathsApart(tool, p, cwd, folders) : `${tool} is given no paths: it finds its tests across the project`;
    }
  }
  return `\`${step}\` may read any file`;
}

/**
 * Why the check running `command` in `cwd` may read a file inside `folders` as they are written, or
 * undefined when every step of it provably reads apart from them.
 */
export function mayReadFolders(command: string, cwd: string, folders: readonly string[]): string | undefined {
  const scripts: Record<string, string> = { ...(scriptsIn(cwd) ?? {}), '\0command': command };
  for (const s of resolveScript(scripts, '\0command')) {
    const why = stepReads(s.command, cwd, folders);
    if (why !== undefined) return why;
  }
  return undefined;
}

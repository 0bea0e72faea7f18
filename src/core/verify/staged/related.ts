// The test files related to some changed files, for runners that cannot find them themselves
// (node --test, mocha): the test files that import a changed module, directly or through other
// modules of the project. Imports are read from the source text (import, export from, import(),
// require) and resolved like Node and TypeScript resolve relative specifiers. Approximate on the
// safe side only in what it runs: green is never decided by this set, the full suite decides.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const SKIP_DIRS = new Set(['node_modules', '.git', 'coverage', 'dist', 'out', 'build', '.next', '.turbo', '.cache']);
/** What node --test and the usual mocha/jest layouts take for a test file. */
const TEST_FILE = /(?:^|\/)(?:test|tests|__tests__|spec)\/|(?:^|[./_-])(?:test|spec)\.[cm]?[jt]sx?$|^test-|[/]test-[^/]*$/;
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])([^'"\n]+)\1/gm;
const EXTENSIONS = ['', '.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const MAX_FILES = 20000;

/** Source files under `dir` (cwd-relative, forward slashes), skipping dependencies and outputs. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (out.length >= MAX_FILES) return;
      if (e.name.startsWith('.') && e.name !== '.') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(r);
      } else if (e.isFile() && SOURCE.test(e.name) && !e.name.endsWith('.d.ts')) {
        out.push(r);
      }
    }
  };
  walk('');
  return out;
}

export function isTestFile(rel: string): boolean {
  return TEST_FILE.test(rel);
}

function resolveImport(dir: string, from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(dir, path.dirname(from), spec);
  // TypeScript's `./x.js` names `./x.ts`.
  const stem = /\.[cm]?js$/.test(base) ? base.replace(/\.([cm]?)js$/, '') : undefined;
  const candidates = [...EXTENSIONS.map((e) => base + e), ...(stem ? ['.ts', '.tsx', '.mts', '.cts'].map((e) => stem + e) : []), ...EXTENSIONS.slice(1).map((e) => path.join(base, `index${e}`))];
  for (const c of candidates) {
    if (existsSync(c) && statSync(c).isFile()) return path.relative(dir, c).split(path.sep).join('/');
  }
  return undefined;
}

/** Who imports whom among `files`: importer lists per imported file (cwd-relative paths). */
function importers(dir: string, files: readonly string[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(path.join(dir, f), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(dir, f, m[2]!);
      if (target === undefined) continue;
      const list = by.get(target) ?? [];
      list.push(f);
      by.set(target, list);
    }
  }
  return by;
}

/**
 * The test files among `dir`'s sources (filtered by `isCandidate`) that depend on a changed file,
 * transitively; a changed test file is related to itself.
 */
export function relatedTestFiles(dir: string, changed: readonly string[], isCandidate: (rel: string) => boolean = isTestFile): string[] {
  const files = sourceFiles(dir);
  const graph = importers(dir, files);
  const seen = new Set<string>();
  const queue = [...changed];
  while (queue.length > 0) {
    const f = queue.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const i of graph.get(f) ?? []) queue.push(i);
  }
  const existing = new Set(files);
  return [...seen].filter((f) => existing.has(f) && isCandidate(f)).sort();
}

// Locations the runner does not print: a test found by its title in the test files (a mocha
// timeout has no stack), a module that cannot be found by its import line, and the tests a killed,
// hung run never finished.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { blockEnd, depths } from '../relevance';
import type { Failure, ParserId } from '../../types';
import type { ParseContext } from './common';
import { failure, splitLines } from './common';
import { readTap } from './tap';

/** Runners whose failure ids are test titles. */
export const TEST_RUNNERS: ReadonlySet<ParserId> = new Set(['mocha', 'jest', 'vitest', 'node-test', 'tap', 'ava', 'uvu']);

// `describe(`, `it.only(`, `test.each([...])(`, `suite(`, `context(` with a literal title on the same line.
const CALL = /(?<![\w$.])(describe|context|suite|it|test|specify)((?:\.\w+)*)\s*(?:\([^()]*\)\s*)?\(\s*(['"`])((?:\\.|(?!\3)[^\\])*)\3/g;

export interface TestDecl {
  /** Titles from the outermost suite to the test, as written (template holes and printf specs kept). */
  titles: string[];
  line: number;
  column: number;
  /** Whether it is a test case (`it`/`test`/`specify`) rather than a suite. */
  isTest: boolean;
}

/** Every suite and test declared in a file with a literal title, with its enclosing suites. */
export function testDeclarations(text: string): TestDecl[] {
  const src = splitLines(text);
  const d = depths(src);
  const calls: { kind: string; title: string; line: number; column: number; end: number }[] = [];
  src.forEach((l, i) => {
    for (const m of l.matchAll(CALL)) {
      const title = m[3] === '`' ? m[4]! : m[4]!.replace(/\\(.)/g, '$1');
      calls.push({ kind: m[1]!, title, line: i + 1, column: m.index + 1, end: blockEnd(d, i + 1, src.length) });
    }
  });
  const suites = calls.filter((c) => !/^(it|test|specify)$/.test(c.kind));
  return calls.map((c) => {
    const parents = suites.filter((s) => s !== c && s.line <= c.line && s.end >= c.end && (s.line < c.line || s.column < c.column)).sort((a, b) => a.line - b.line || a.column - b.column);
    return { titles: [...parents.map((s) => s.title), c.title], line: c.line, column: c.column, isTest: /^(it|test|specify)$/.test(c.kind) };
  });
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A written title as a pattern: `${…}` holes, printf specs (`%s`, `%d`, `%#`) and `$name` match anything. */
function titlePattern(title: string): string {
  return title
    .split(/(\$\{[^}]*\}|%[sdifjop#%]|\$[A-Za-z_][\w.]*)/)
    .map((part, i) => (i % 2 === 1 ? (part === '%%' ? '%' : '.*?') : escapeRegExp(part)))
    .join('');
}

// How runners join a title path: mocha with spaces, node:test and Vitest with ` > `, Jest with ` › `.
const SEPARATOR = '(?: > | › | )';

/** The declaration a test id names: the full title path first, else a test whose own title is the id's end. */
export function findTest(decls: readonly TestDecl[], id: string): TestDecl | undefined {
  const tests = decls.filter((t) => t.isTest);
  const full = tests.filter((t) => new RegExp(`^${t.titles.map(titlePattern).join(SEPARATOR)}$`, 's').test(id));
  if (full.length > 0) return full[0];
  const leaf = tests.filter((t) => new RegExp(`(?:^|${SEPARATOR})${titlePattern(t.titles[t.titles.length - 1]!)}$`, 's').test(id));
  return leaf.length === 1 ? leaf[0] : undefined;
}

function defaultRead(ctx: Pick<ParseContext, 'root'>): (rel: string) => string | undefined {
  return (rel) => {
    try {
      return readFileSync(path.join(ctx.root, rel), 'utf8');
    } catch (e) {
      // A file named in the output that is gone or unreadable leaves the failure without a line.
      if (['ENOENT', 'EISDIR', 'EACCES', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? '')) return undefined;
      throw e;
    }
  };
}

// Mocha's title for a failing hook: `suite "before each" hook for "test"`, `: name` for a named
// hook function, `in "suite"` for a hook of a suite with no test to name.
const HOOK = /^(.*?)\s*"(?:before|after) (?:each|all)" hook(?::[^"]*?)?(?: (for|in) "(.*)")?$/s;

/** The declaration a mocha hook's failure names: the test it ran for, else its suite. */
function findHookTarget(decls: readonly TestDecl[], id: string): TestDecl | undefined {
  const m = HOOK.exec(id);
  if (!m) return undefined;
  const suite = m[1]!.trim();
  if (m[2] === 'for') return findTest(decls, suite === '' ? m[3]! : `${suite} ${m[3]!}`);
  const name = suite !== '' ? suite : (m[3] ?? '');
  const suites = decls.filter((d) => !d.isTest && new RegExp(`(?:^| )${d.titles.map(titlePattern).join(' ')}$`, 's').test(name));
  return suites.length === 1 ? suites[0] : undefined;
}

/**
 * A position that is not in the file as written: past its end, past the end of its line, or on a
 * first line that declares no test while the test is declared further down. node:test under a
 * loader that compiles TypeScript (tsx) reports a test's `location` in the compiled code
 * (`file.ts:1:219`), which source maps do not reach.
 */
function notInSource(f: Failure, text: string, decl: TestDecl | undefined): boolean {
  const lines = splitLines(text);
  const l = lines[f.line! - 1];
  if (l === undefined || (f.column !== undefined && f.column > l.length + 1)) return true;
  return f.line === 1 && decl !== undefined && decl.line !== 1;
}

/**
 * Fills in the line of failures whose runner gave none: a test by its title in its file (a mocha
 * timeout, a Jest/Vitest report without a location), a failing mocha hook at the test it ran for,
 * a file that failed to load at the import of the module it could not find. A test placed where
 * its file has no such position (compiled code's line 1) is placed at its declaration instead.
 */
export function locateByTitle(failures: readonly Failure[], ctx: ParseContext): Failure[] {
  const read = ctx.readText ?? defaultRead(ctx);
  const texts = new Map<string, string | undefined>();
  const textOf = (file: string): string | undefined => {
    if (!texts.has(file)) texts.set(file, read(file));
    return texts.get(file);
  };
  const decls = new Map<string, TestDecl[] | undefined>();
  const declsOf = (file: string): TestDecl[] | undefined => {
    if (!decls.has(file)) {
      const t = textOf(file);
      decls.set(file, t === undefined ? undefined : testDeclarations(t));
    }
    return decls.get(file);
  };
  let files: string[] | undefined;
  return failures.map((f) => {
    if (f.line !== undefined && f.file !== undefined && f.id !== undefined && TEST_FILE.test(f.file)) {
      const text = textOf(f.file);
      const list = declsOf(f.file);
      const t = list ? (findTest(list, f.id) ?? findHookTarget(list, f.id)) : undefined;
      if (text === undefined || !notInSource(f, text, t)) return f;
      const { line: _line, column: _column, ...rest } = f;
      return t ? failure({ ...rest, line: t.line, column: t.column }) : failure(rest);
    }
    if (f.line === undefined && f.file === undefined && f.id !== undefined && f.id !== 'exit') {
      // A runner that names no file (ava's TAP): the one test file declaring that title, never a guess between two.
      files ??= testFiles(ctx);
      const found = files.flatMap((file) => {
        const t = findTest(declsOf(file) ?? [], f.id!);
        return t ? [{ file, t }] : [];
      });
      return found.length === 1 ? failure({ ...f, file: found[0]!.file, line: found[0]!.t.line, column: found[0]!.t.column }) : f;
    }
    if (f.line !== undefined || f.file === undefined || f.id === undefined) return f;
    const missing = /Cannot find (?:module|package) '([^']+)'/.exec(f.message);
    if (missing) {
      const text = read(f.file);
      const at = text === undefined ? -1 : splitLines(text).findIndex((l) => l.includes(`'${missing[1]}'`) || l.includes(`"${missing[1]}"`));
      return at >= 0 ? failure({ ...f, line: at + 1, column: 1 }) : f;
    }
    const list = declsOf(f.file);
    const t = list ? (findTest(list, f.id) ?? findHookTarget(list, f.id)) : undefined;
    return t ? failure({ ...f, line: t.line, column: t.column }) : f;
  });
}

const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$|(^|\/)(test|tests|spec|specs|__tests__)\/.*\.[cm]?[jt]sx?$/;
const MAX_FILES = 5000;

/** Source files under the workspace (node_modules and dot-directories skipped), sorted as runners sort them. */
function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(path.join(root, dir)).sort();
    } catch (e) {
      if (['ENOENT', 'ENOTDIR', 'EACCES'].includes((e as NodeJS.ErrnoException).code ?? '')) return;
      throw e;
    }
    for (const n of names) {
      if (out.length >= MAX_FILES) return;
      if (n === 'node_modules' || n.startsWith('.')) continue;
      const rel = dir ? `${dir}/${n}` : n;
      if (/\.[cm]?[jt]sx?$/.test(n)) out.push(rel);
      else if (!n.includes('.')) walk(rel);
    }
  };
  walk('');
  return out;
}

function testFiles(ctx: ParseContext): string[] {
  return (ctx.listFiles ? ctx.listFiles() : sourceFiles(ctx.root)).filter((f) => TEST_FILE.test(f) && !/(^|\/)node_modules\//.test(f)).sort();
}

/** Leaf titles of the tests a runner's output says finished (passed, failed or skipped). */
function finishedTitles(parser: ParserId, output: string): Set<string> {
  const done = new Set<string>();
  if (/^\s*(?:TAP version \d+|(?:not )?ok \d+\b)/m.test(output)) {
    for (const r of readTap(output).results) done.add(r.title);
  }
  for (const l of splitLines(output)) {
    // node:test's spec reporter and mocha's spec: `✔ title (3ms)`, `✖ title`, mocha's `1) title`, `- pending`.
    const m = /^\s*(?:✔|✓|✖|×|﹣|-|\d+\))\s+(.*?)(?:\s+\(\d+(?:\.\d+)?m?s\))?\s*$/.exec(l);
    if (m && parser !== 'generic') done.add(m[1]!.trim());
  }
  return done;
}

/**
 * The tests a run stopped at its timeout never finished, where its output allows: in each test
 * file, the first test (in source order) the output does not report as finished, from files where
 * some tests finished first; else the first such test of the first file, which is where a runner
 * taking files in order was. Jest and Vitest print nothing per test before a file ends: nothing.
 */
export function unfinishedTests(parser: ParserId, output: string, ctx: ParseContext): Failure[] {
  if (parser !== 'node-test' && parser !== 'mocha' && parser !== 'tap') return [];
  const read = ctx.readText ?? defaultRead(ctx);
  const done = finishedTitles(parser, output);
  const started: TestDecl[] = [];
  const untouched: { file: string; t: TestDecl }[] = [];
  for (const file of testFiles(ctx)) {
    const text = read(file);
    if (text === undefined) continue;
    const tests = testDeclarations(text).filter((t) => t.isTest);
    const open = tests.filter((t) => !done.has(t.titles[t.titles.length - 1]!));
    if (open.length === 0) continue;
    if (open.length < tests.length) started.push(...open.slice(0, 1).map((t) => Object.assign(t, { file })));
    else untouched.push({ file, t: open[0]! });
  }
  const pick = started.length > 0 ? (started as (TestDecl & { file: string })[]) : untouched.slice(0, 1).map((u) => Object.assign(u.t, { file: u.file }));
  const sep = parser === 'mocha' ? ' ' : ' > ';
  return pick.map((t) => failure({ check: ctx.check, file: t.file, line: t.line, column: t.column, id: t.titles.join(sep), message: '' }));
}

// What every parser needs: the parse context, workspace-relative paths, lines, stack frames.
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Failure, ParserId } from '../../types';

export interface ParseContext {
  check: string;
  /** Absolute workspace root, for making paths relative. */
  root: string;
  /** Absolute directory the check ran in, which relative paths in its output are relative to (default: root). */
  cwd?: string;
  exitCode: number | null;
  /**
   * The parsers of the tools the check's chain runs (`eslint . ; prettier -c src`): besides the
   * check's own parser, each that recognises the output reads it, whichever part failed.
   */
  chain?: readonly ParserId[];
  /**
   * The check's stdout alone, when the runner kept it apart: machine-readable reports (ESLint's or
   * Jest's JSON) are read from it so that stderr chatter cannot break them.
   */
  stdout?: string;
  /**
   * Reads a workspace file's text (workspace-relative path), to find a test by its title when the
   * runner printed no line; default: the file under `root` on disk.
   */
  readText?: (rel: string) => string | undefined;
  /** The workspace's files (workspace-relative), to look for the tests a hung run never finished; default: a walk of `root`. */
  listFiles?: () => string[];
  /**
   * The tools the check's command runs, in order (its package.json script's chain followed,
   * builds and hooks left out): a failure no parser can place says which of them printed it.
   */
  tools?: readonly string[];
}

/** Lines of a tool's output, whatever its line endings. */
export function splitLines(text: string): string[] {
  return text.replace(/\r\n?/g, '\n').split('\n');
}

export function indentOf(line: string): number {
  return /^[ \t]*/.exec(line)![0].length;
}

const rootAliasCache = new Map<string, string[]>();

/** The root as given and as the file system resolves it (tools print either, e.g. /var vs /private/var). */
function rootAliases(root: string): string[] {
  let aliases = rootAliasCache.get(root);
  if (!aliases) {
    const set = new Set([path.resolve(root)]);
    try {
      set.add(realpathSync(root));
    } catch (e) {
      // A root that does not exist (output parsed elsewhere, `parse --root`) has no other spelling.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    aliases = [...set];
    rootAliasCache.set(root, aliases);
  }
  return aliases;
}

/**
 * A test's full title from its suites and its own: node:test names a test file that failed (to load,
 * or stopped) by its absolute path, made workspace-relative here so its identity does not hold the root.
 */
export function testTitle(parts: readonly string[], ctx: Pick<ParseContext, 'root' | 'cwd'>): string {
  return parts.map((t) => (/^(\/|file:|[a-z]:\\)/i.test(t) ? (workspacePath(t, ctx) ?? t) : t)).join(' > ');
}

/**
 * A path as a tool printed it (absolute, relative to the check's cwd, or a file:// URL) made
 * workspace-relative with forward slashes; undefined when it lies outside the workspace.
 */
export function workspacePath(printed: string, ctx: Pick<ParseContext, 'root' | 'cwd'>): string | undefined {
  let p = printed.trim();
  if (p === '') return undefined;
  if (p.startsWith('file://')) {
    try {
      p = fileURLToPath(p);
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
      return undefined;
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(p) && !/^[a-z]:[\\/]/i.test(p)) return undefined; // node:internal, http:, ...
  const abs = path.resolve(ctx.cwd ?? ctx.root, p);
  for (const root of rootAliases(ctx.root)) {
    const rel = path.relative(root, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    return rel.split(path.sep).join('/');
  }
  return undefined;
}

export interface StackFrame {
  fn: string | undefined;
  /** Workspace-relative file. */
  file: string;
  line: number;
  column: number;
}

// `at fn (file:line:col)`, `at file:line:col`, and Node TAP's `fn (file:line:col)` without `at`.
const FRAME = /^\s*(?:at\s+)?(?:(.*?)\s+\()?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?\s*$/;

/** Stack frames that point into the workspace, outside node_modules: where the user's code failed. */
export function workspaceFrames(lines: readonly string[], ctx: Pick<ParseContext, 'root' | 'cwd'>): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const l of lines) {
    const m = FRAME.exec(l);
    if (!m) continue;
    const file = workspacePath(m[2]!, ctx);
    if (file === undefined || /(^|\/)node_modules\//.test(file)) continue;
    frames.push({ fn: m[1]?.replace(/^async\s+/, ''), file, line: Number(m[3]), column: Number(m[4]) });
  }
  return frames;
}

const TEST_NAMED = /\.(test|spec)\.[cm]?[jt]sx?$/;
const TEST_DIR = /(^|\/)(test|tests|spec|specs|__tests__)\//;

/**
 * The frame of the test that failed, where the output does not name the test's file: the test is
 * the outermost frame in a test file (the runner calls it; a shared helper it calls, such as
 * tests/tools.ts, lies inside it), files named `.test.`/`.spec.` before other files under a test
 * folder; the place is that file's innermost frame (the assertion, also inside a callback the helper
 * calls back). Else the innermost workspace frame. The helper's frames stay in the message.
 */
export function pickTestFrame(frames: readonly StackFrame[]): StackFrame | undefined {
  const named = frames.filter((f) => TEST_NAMED.test(f.file));
  const candidates = named.length > 0 ? named : frames.filter((f) => TEST_DIR.test(f.file));
  const test = candidates[candidates.length - 1];
  return test ? frameIn(frames, test.file) : frames[0];
}

/** A frame of the function a runner calls for a test (or an anonymous callback inside it): no name of its own. */
function isCallback(f: StackFrame): boolean {
  return f.fn === undefined || f.fn === '' || /(^|\.)<anonymous>$/.test(f.fn);
}

/**
 * The place in `file` a failure is the test's: its innermost frame there (the assertion, also inside
 * an anonymous callback such as `items.forEach((x) => expect(x)…)`), except when that frame is a
 * named helper declared in the test file itself (`function check(v) { expect(v)… }`) and the test's
 * own anonymous function calls it from further out: then the test's line, as for a helper in a file
 * of its own (the helper's frame stays in the message).
 */
export function frameIn(frames: readonly StackFrame[], file: string): StackFrame | undefined {
  const inFile = frames.filter((f) => f.file === file);
  const first = inFile[0];
  if (first === undefined || isCallback(first)) return first;
  return inFile.find(isCallback) ?? first;
}

export function isStackLine(line: string): boolean {
  return /^\s*at\s+\S/.test(line) || /^\s*at\s*$/.test(line);
}

/** The few frames a reader needs, as indented `at` lines with workspace-relative paths. */
export function formatFrames(frames: readonly StackFrame[], max = 3): string[] {
  return frames.slice(0, max).map((f) => `    at ${f.fn ? `${f.fn} (${f.file}:${f.line}:${f.column})` : `${f.file}:${f.line}:${f.column}`}`);
}

/** `AssertionError [ERR_ASSERTION]: x` and `RangeError [Error]: x` read as `AssertionError: x`. */
export function tidyErrorHead(line: string): string {
  return line.replace(/^(\w*Error) \[[\w-]+\](:|$)/, '$1$2');
}

/** Drops blank lines at both ends and the common indentation. */
export function dedent(lines: readonly string[]): string[] {
  let from = 0;
  let to = lines.length;
  while (from < to && lines[from]!.trim() === '') from++;
  while (to > from && lines[to - 1]!.trim() === '') to--;
  const body = lines.slice(from, to);
  const indents = body.filter((l) => l.trim() !== '').map(indentOf);
  const cut = indents.length > 0 ? Math.min(...indents) : 0;
  return body.map((l) => l.slice(Math.min(cut, indentOf(l))).trimEnd());
}

/** A failure with only the fields that are known (no `undefined` members, so JSON and equality stay clean). */
export function failure(f: Failure): Failure {
  const out: Failure = { check: f.check, message: f.message };
  if (f.file !== undefined) out.file = f.file;
  if (f.line !== undefined && Number.isFinite(f.line)) out.line = f.line;
  if (f.column !== undefined && Number.isFinite(f.column)) out.column = f.column;
  if (f.id !== undefined && f.id !== '') out.id = f.id;
  return out;
}

/**
 * Finds the first JSON document of the expected shape in a text that may carry other lines around
 * it (npm's banner, a runner's log lines, stderr interleaved).
 */
export function extractJson(text: string, accept: (v: unknown) => boolean): unknown {
  const starts: number[] = [];
  const re = /^[ \t]*[[{]/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) starts.push(m.index + m[0].length - 1);
  // Bounded work on big or hostile outputs: a few starts, a few ends each.
  let tries = 0;
  for (const s of starts.slice(0, 20)) {
    const close = text[s] === '[' ? ']' : '}';
    // The longest candidate first: from this start to each earlier closing bracket.
    let end = text.lastIndexOf(close);
    while (end > s && tries < 60) {
      tries++;
      try {
        const v: unknown = JSON.parse(text.slice(s, end + 1));
        if (accept(v)) return v;
        break;
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
        end = text.lastIndexOf(close, end - 1);
      }
    }
  }
  return undefined;
}

// TAP 13/14 (node:test's default reporter off a TTY, node-tap, mocha's `tap` reporter, tape...).
import { load } from 'js-yaml';
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { isCutMark } from '../cutMark';
import { dedent, failure, formatFrames, frameIn, indentOf, isStackLine, pickTestFrame, splitLines, testTitle, tidyErrorHead, workspaceFrames, workspacePath } from './common';

const RESULT = /^(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?(.*)$/;
const SUBTEST = /^# Subtest:\s*(.*)$/;
const BAIL = /^Bail out!\s*(.*)$/;

interface TapResult {
  ok: boolean;
  /** The result line's indent: deeper results just before it are its subtests'. */
  indent: number;
  /** Whether one of its own subtests failed (node-tap then fails the parent too, with no error of its own). */
  failedSubtests: boolean;
  title: string;
  parents: string[];
  directive: string | undefined;
  yaml: Record<string, unknown> | undefined;
  /** Raw diagnostic lines when the YAML block did not parse. */
  raw: string[];
}

/**
 * Splits `title # TODO reason` into the title and its directive; `\\#` is a literal hash. What
 * follows an unescaped `#` is never the title: a directive (TODO, SKIP) or a comment such as
 * node-tap's `# time=12.3ms`, which differs run to run and so must stay out of the test's id.
 */
function splitDirective(text: string): { title: string; directive: string | undefined } {
  const m = /^(.*?)(?<!\\)#\s*(.*)$/.exec(text);
  if (!m) return { title: text.replace(/\\#/g, '#').trim(), directive: undefined };
  const directive = /^(todo|skip)\b/i.exec(m[2]!)?.[1]?.toLowerCase();
  return { title: m[1]!.replace(/\\#/g, '#').trim(), directive };
}

function yamlBlock(lines: readonly string[], from: number, indent: number): { end: number; body: string[] } {
  // `---` opens, `...` closes, both at the result's indent + 2 (or any deeper indent in loose producers).
  const body: string[] = [];
  let i = from;
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === '...' && indentOf(l) >= indent) return { end: i, body };
    if (l.trim() !== '' && indentOf(l) < indent) return { end: i - 1, body };
    body.push(l);
  }
  return { end: i - 1, body };
}

function parseYaml(body: readonly string[]): Record<string, unknown> | undefined {
  try {
    const v = load(dedent(body).join('\n'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch (e) {
    // Producers write loose YAML now and then; the raw lines still make a message.
    if ((e as Error).name === 'YAMLException') return undefined;
    throw e;
  }
}

/** Every `ok` / `not ok` line with its subtest path and diagnostics. */
export function readTap(output: string): { results: TapResult[]; bailOut: string | undefined } {
  const lines = splitLines(output);
  const results: TapResult[] = [];
  // Subtests announced by `# Subtest: name`, by indentation; a result at indent i closes the one at i.
  let stack: { indent: number; name: string }[] = [];
  let bailOut: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = indentOf(line);
    const text = line.trim();
    // The output was cut at the limit: the subtests announced before the cut are not those after it.
    if (isCutMark(line)) {
      stack = [];
      continue;
    }
    const sub = SUBTEST.exec(text);
    if (sub) {
      stack = stack.filter((s) => s.indent < indent);
      stack.push({ indent, name: sub[1]!.trim() });
      continue;
    }
    const bail = BAIL.exec(text);
    if (bail) {
      bailOut = bail[1]!.trim() || 'bailed out';
      continue;
    }
    const r = RESULT.exec(text);
    if (!r) continue;
    stack = stack.filter((s) => s.indent <= indent);
    const { title, directive } = splitDirective(r[3] ?? '');
    const own = stack.length > 0 && stack[stack.length - 1]!.indent === indent ? stack.pop() : undefined;
    const parents = stack.filter((s) => s.indent < indent).map((s) => s.name);
    let yaml: Record<string, unknown> | undefined;
    let raw: string[] = [];
    const next = lines[i + 1];
    if (next !== undefined && next.trim() === '---' && indentOf(next) > indent) {
      const block = yamlBlock(lines, i + 2, indentOf(next));
      yaml = parseYaml(block.body);
      if (!yaml) raw = dedent(block.body);
      i = block.end;
    } else {
      // Diagnostics without YAML: `# ...` comment lines (tape) or plain indented lines (mocha's tap).
      while (i + 1 < lines.length) {
        const l = lines[i + 1]!;
        const t = l.trim();
        const comment = /^#\s?/.test(t) && !SUBTEST.test(t) && !/^# (tests|suites|pass|fail|ok|skip|todo|cancelled|duration_ms)\b/.test(t);
        const indented = t !== '' && indentOf(l) > indent && !RESULT.test(t) && !SUBTEST.test(t) && !/^\d+\.\.\d+/.test(t) && t !== '---';
        if (!comment && !indented && !(t === '' && i + 2 < lines.length && indentOf(lines[i + 2]!) > indent && lines[i + 2]!.trim() !== '' && !RESULT.test(lines[i + 2]!.trim()))) break;
        raw.push(comment ? l.replace(/^\s*#\s?/, '') : l);
        i++;
      }
      raw = dedent(raw);
    }
    let failedSubtests = false;
    for (let k = results.length - 1; k >= 0 && results[k]!.indent > indent; k--) if (!results[k]!.ok && results[k]!.directive === undefined) failedSubtests = true;
    results.push({ ok: r[1] === 'ok', indent, failedSubtests, title: title || own?.name || `test ${r[2] ?? results.length + 1}`, parents, directive, yaml, raw });
  }
  return { results, bailOut };
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const FRAME_AT = /\(\S+:\d+:\d+\)$/;

/** `file:line:col` or node-tap's `at: {file, line, column}`. */
function locationOf(y: Record<string, unknown>): { file: string; line?: number; column?: number } | undefined {
  const loc = y.location ?? y.at;
  // ava's `at:` is a stack frame (`fn (file:///…:309:16)`), read with the stack, not a location.
  if (typeof loc === 'string' && FRAME_AT.test(loc.trim())) return undefined;
  if (typeof loc === 'string') {
    const m = /^(.*?):(\d+)(?::(\d+))?$/.exec(loc.trim());
    if (m) return { file: m[1]!, line: Number(m[2]), ...(m[3] ? { column: Number(m[3]) } : {}) };
    return { file: loc };
  }
  if (typeof loc === 'object' && loc !== null) {
    const o = loc as Record<string, unknown>;
    if (typeof o.file === 'string') {
      return { file: o.file, ...(typeof o.line === 'number' ? { line: o.line } : {}), ...(typeof o.column === 'number' ? { column: o.column } : {}) };
    }
    // node-tap 18 and later: `at: {fileName, lineNumber, columnNumber}`.
    if (typeof o.fileName === 'string') {
      return { file: o.fileName, ...(typeof o.lineNumber === 'number' ? { line: o.lineNumber } : {}), ...(typeof o.columnNumber === 'number' ? { column: o.columnNumber } : {}) };
    }
  }
  return undefined;
}

/**
 * The message in raw diagnostics: the lines before the stack, and where a producer prints the
 * message and then the error's stack head repeating it (mocha), the stack head's version only.
 */
function rawMessage(raw: readonly string[]): string[] {
  const stackAt = raw.findIndex(isStackLine);
  const text = (stackAt >= 0 ? raw.slice(0, stackAt) : [...raw]).map((l) => l.trimEnd());
  const first = text[0]?.trim();
  const k = text.findIndex((l, n) => n > 0 && first !== undefined && first !== '' && tidyErrorHead(l.trim()).replace(/^\w*Error: /, '') === first);
  const out = k > 0 ? text.slice(k) : text;
  while (out.length > 0 && out[out.length - 1]!.trim() === '') out.pop();
  if (out.length > 0) out[0] = tidyErrorHead(out[0]!);
  return out;
}

/** The failure a `not ok` stands for; undefined for TODO/SKIP and for a parent whose only fault is its subtests. */
export function tapFailure(r: TapResult, ctx: ParseContext): Failure | undefined {
  if (r.ok || r.directive !== undefined) return undefined;
  const y = r.yaml ?? {};
  if (y.failureType === 'subtestsFailed') return undefined;
  // node-tap fails a test (and its file) whose subtest failed, with no error of its own: the
  // subtest's failure is the one to fix.
  if (r.failedSubtests && y.error === undefined && y.message === undefined && y.found === undefined && y.wanted === undefined && y.diff === undefined && y.stack === undefined) return undefined;
  const title = testTitle([...r.parents, r.title], ctx);
  const name = str(y.name);
  const error = str(y.error) ?? (str(y.message) || undefined);
  // ava says which assertion failed (`assertion: t.is()`) and leaves `message` empty.
  const assertion = str(y.assertion);
  const head = error !== undefined ? (name && name !== 'Error' && !error.startsWith(name) ? `${name}: ${error}` : error) : assertion !== undefined ? `${name ?? 'Error'}: ${assertion}` : undefined;
  const message: string[] = head !== undefined ? [head.trimEnd()] : [];
  // ava's `details`: `{'Difference (- actual, + expected):': '- 1\n+ 2'}`.
  if (typeof y.details === 'object' && y.details !== null) for (const [k, v] of Object.entries(y.details as Record<string, unknown>)) message.push(`${k}\n${str(v) ?? ''}`.trimEnd());
  // node-tap and tape say what was found and wanted rather than a whole message.
  const found = str(y.found ?? y.actual);
  const wanted = str(y.wanted ?? y.expected);
  if (head === undefined && (found !== undefined || wanted !== undefined)) message.push(`expected ${wanted}, got ${found}`);
  if (typeof y.diff === 'string' && y.diff.trim() !== '') message.push(y.diff.trimEnd());
  if (message.length === 0 && r.raw.length > 0) message.push(...rawMessage(r.raw));
  if (message.length === 0) message.push('failed');
  const stack = typeof y.stack === 'string' ? splitLines(y.stack) : typeof y.at === 'string' && FRAME_AT.test(y.at.trim()) ? [y.at] : r.raw;
  const frames = workspaceFrames(stack, ctx);
  const loc = locationOf(y);
  const locFile = loc ? workspacePath(loc.file, ctx) : undefined;
  // The test's own file, at the line where it failed when the stack says so.
  const inTest = locFile !== undefined ? frameIn(frames, locFile) : undefined;
  const testFrame = pickTestFrame(frames);
  // Mocha's timeout names the test file in its message, with no stack into it.
  const named = /\(([^()]+\.[cm]?[jt]sx?)\)\s*$/.exec(message[0] ?? '');
  // node-tap's `at` is the assertion's caller: a shared helper the test called (in the stack, in
  // another file than the test's frame) places the failure at the test's own frame instead.
  const inHelper = locFile !== undefined && testFrame !== undefined && testFrame.file !== locFile && frames.some((f) => f.file === locFile);
  const file = inHelper ? testFrame.file : (locFile ?? testFrame?.file ?? (named ? workspacePath(named[1]!, ctx) : undefined));
  const at = inHelper ? testFrame : (inTest ?? (locFile === undefined ? testFrame : undefined));
  return failure({
    check: ctx.check,
    ...(file !== undefined ? { file } : {}),
    ...(at ? { line: at.line, column: at.column } : loc && locFile !== undefined ? { line: loc.line, column: loc.column } : {}),
    id: title,
    message: [...message, ...formatFrames(frames)].join('\n'),
  });
}

export function parseTap(output: string, ctx: ParseContext): Failure[] {
  const { results, bailOut } = readTap(output);
  const out: Failure[] = [];
  for (const r of results) {
    const f = tapFailure(r, ctx);
    if (f) out.push(f);
  }
  if (bailOut !== undefined) out.push(failure({ check: ctx.check, id: 'bail-out', message: `Bail out! ${bailOut}` }));
  return out;
}

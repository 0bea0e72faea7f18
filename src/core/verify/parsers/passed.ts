// The tests a test runner's output names as passed, each by the same id (and file, when named) as
// the runner's failure parser gives it when it fails, so that one test is one entry whichever way
// it went. Read from: node:test (TAP and spec), TAP, mocha (json, tap, spec), Jest and Vitest (their
// JSON, and the text reporters that list each passing test). Never from a text report cut in the
// middle (`truncated`): its cut may have dropped the suite a test line sits in, which would name the
// test wrongly; a JSON report is read only whole, so it is read whatever the cut.
import stripAnsi from 'strip-ansi';
import type { ParserId, PassedTest } from '../../types';
import type { ParseContext } from './common';
import { extractJson, indentOf, splitLines, testTitle, workspacePath } from './common';
import { isJestJson, type JestJson } from './jest';
import { readTap } from './tap';

/** At most this many passing tests are kept per check. */
export const MAX_PASSED_TESTS = 2000;

export interface PassedTests {
  tests: PassedTest[];
  /** More were named than MAX_PASSED_TESTS. */
  capped: boolean;
}

type Ctx = Pick<ParseContext, 'root' | 'cwd' | 'stdout'>;

function test(id: string, file: string | undefined): PassedTest {
  return file !== undefined ? { id, file } : { id };
}

/** Passing tests of a Jest-shaped JSON report; `sep` joins the title path as the failure parser does. */
function fromJestJson(json: JestJson, ctx: Ctx, sep: string): PassedTest[] {
  const out: PassedTest[] = [];
  for (const file of json.testResults) {
    const rel = workspacePath(file.name, ctx);
    for (const a of file.assertionResults ?? []) if (a.status === 'passed') out.push(test([...(a.ancestorTitles ?? []), a.title].join(sep), rel));
  }
  return out;
}

/** TAP's `ok` lines without a directive, leaving out the parents of subtests (suites, files). */
function fromTap(output: string, ctx: Ctx): PassedTest[] {
  const { results } = readTap(output);
  const parents = new Set<string>();
  for (const r of results) for (let k = 1; k <= r.parents.length; k++) parents.add(JSON.stringify(r.parents.slice(0, k)));
  const out: PassedTest[] = [];
  for (const r of results) {
    if (!r.ok || r.directive !== undefined || r.yaml?.type === 'suite' || parents.has(JSON.stringify([...r.parents, r.title]))) continue;
    const loc = typeof r.yaml?.location === 'string' ? /^(.*?)(?::\d+)?(?::\d+)?$/.exec(r.yaml.location.trim())?.[1] : undefined;
    out.push(test(testTitle([...r.parents, r.title], ctx), loc !== undefined ? workspacePath(loc, ctx) : undefined));
  }
  return out;
}

const NODE_PASS = /^✔ (.*?)(?: \(\d+(?:\.\d+)?m?s\))?( # (?:TODO|SKIP)\b.*)?$/;

/** node:test's spec reporter: `▶ suite`, `✔ test (ms)`; a suite's own closing `✔ suite` is no test. */
function fromNodeSpec(output: string, ctx: Ctx): PassedTest[] {
  const out: PassedTest[] = [];
  let stack: { indent: number; name: string }[] = [];
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    const text = line.trim();
    if (/^✖ failing tests:$/.test(text) || /^ℹ tests \d/.test(text)) break;
    const indent = indentOf(line);
    if (text.startsWith('▶ ')) {
      stack = stack.filter((s) => s.indent < indent);
      stack.push({ indent, name: text.slice(2) });
      continue;
    }
    const m = NODE_PASS.exec(text) ?? (/^(?:✖|﹣) /.test(text) ? null : undefined);
    if (m === undefined) continue;
    const top = stack[stack.length - 1];
    const closesSuite = m !== null && top !== undefined && top.indent === indent && top.name === m[1];
    stack = stack.filter((s) => s.indent < indent);
    if (m === null || closesSuite || m[2] !== undefined) continue;
    out.push({ id: testTitle([...stack.map((s) => s.name), m[1]!], ctx) });
  }
  return out;
}

const MOCHA_PASS = /^[✔✓√] (.*?)(?: \(\d+ms\))?$/;

/** Mocha's spec reporter up to `N passing`: suites by indentation (from 2), `✔ test`, `N) test`, `- pending`. */
function fromMochaSpec(output: string): PassedTest[] {
  const out: PassedTest[] = [];
  let stack: { indent: number; name: string }[] = [];
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    const text = line.trim();
    if (/^\d+ passing\b/.test(text)) break;
    const indent = indentOf(line);
    // Console output of the tests is printed at the margin; the reporter indents everything.
    if (text === '' || indent < 2) continue;
    stack = stack.filter((s) => s.indent < indent);
    const m = MOCHA_PASS.exec(text);
    if (m) out.push({ id: [...stack.map((s) => s.name), m[1]!].join(' ') });
    else if (!/^\d+\) /.test(text) && !text.startsWith('- ')) stack.push({ indent, name: text });
  }
  return out;
}

interface MochaJsonPasses {
  stats: unknown;
  passes: { fullTitle: string; file?: string }[];
}

function isMochaJsonPasses(v: unknown): v is MochaJsonPasses {
  return typeof v === 'object' && v !== null && 'stats' in v && Array.isArray((v as MochaJsonPasses).passes);
}

const JEST_TEST = /^([✓✕○✎√×]) (.*?)(?: \(\d+(?:\.\d+)? m?s\))?$/;

/** Jest's verbose tree under each `PASS file` / `FAIL file` head: suites by indentation, `✓ test (N ms)`. */
function fromJestText(output: string, ctx: Ctx): PassedTest[] {
  const out: PassedTest[] = [];
  let file: string | undefined;
  let inTree = false;
  let stack: { indent: number; name: string }[] = [];
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    const head = /^\s*(?:PASS|FAIL)\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?$/.exec(line);
    if (head) {
      file = workspacePath(head[1]!.replace(/^\S+\s+(?=\S*[\\/.])/, '').trim(), ctx);
      inTree = file !== undefined;
      stack = [];
      continue;
    }
    // The tree ends at its first blank line (then come the `●` blocks).
    if (!inTree || line.trim() === '') {
      inTree = false;
      continue;
    }
    const indent = indentOf(line);
    stack = stack.filter((s) => s.indent < indent);
    const m = JEST_TEST.exec(line.trim());
    if (!m) stack.push({ indent, name: line.trim() });
    else if (m[1] === '✓' || m[1] === '√') out.push(test([...stack.map((s) => s.name), m[2]!].join(' › '), file));
  }
  return out;
}

const TEST_PATH = /^\S+\.[cm]?[jt]sx?$/;

/**
 * Vitest's text: `✓ file > suite > test` (the verbose reporter of Vitest 1 and 2), and the tree of
 * Vitest 3 (`✓ suite > test 1ms` under its file's ` ❯ file (5 tests | 1 failed)` line).
 */
function fromVitestText(output: string, ctx: Ctx): PassedTest[] {
  const out: PassedTest[] = [];
  let file: { indent: number; path: string | undefined } | undefined;
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd().replace(/(^|\s)\|[^|\s][^|]*\|\s+(?=\S)/, '$1');
    const text = line.trim();
    const indent = indentOf(line);
    const head = /^[✓❯×↓√] (\S+) \(\d+ tests?\b/.exec(text);
    if (head) {
      file = { indent, path: workspacePath(head[1]!, ctx) };
      continue;
    }
    if (/^⎯+/.test(text) || /^Test Files\s/.test(text)) file = undefined;
    const m = /^[✓√] (.*?)(?: \d+(?:\.\d+)?m?s)?$/.exec(text);
    if (!m) continue;
    const parts = m[1]!.split(' > ');
    if (parts.length > 1 && TEST_PATH.test(parts[0]!)) out.push(test(parts.slice(1).join(' > '), workspacePath(parts[0]!, ctx)));
    else if (file !== undefined && indent > file.indent) out.push(test(m[1]!, file.path));
  }
  return out;
}

/** AVA's default reporter: `✔ file › title` (a slow test adds its time, `(1.2s)`); the file is not named by path. */
function fromAva(output: string): PassedTest[] {
  const out: PassedTest[] = [];
  for (const line of splitLines(output)) {
    const m = /^\s*✔ (?!\[)(.*?)(?: \(\d+(?:\.\d+)?m?s\))?\s*$/.exec(line);
    if (m) out.push(test(m[1]!, undefined));
  }
  return out;
}

function jsonTests(parser: ParserId, output: string, ctx: Ctx): PassedTest[] | undefined {
  if (parser === 'jest' || parser === 'vitest') {
    const json = extractJson(ctx.stdout ?? output, isJestJson);
    if (isJestJson(json)) return fromJestJson(json, ctx, parser === 'jest' ? ' › ' : ' > ');
  }
  if (parser === 'mocha') {
    const json = extractJson(ctx.stdout ?? output, isMochaJsonPasses);
    if (isMochaJsonPasses(json)) return json.passes.map((t) => test(t.fullTitle, t.file !== undefined ? workspacePath(t.file, ctx) : undefined));
  }
  return undefined;
}

function textTests(parser: ParserId, output: string, ctx: Ctx): PassedTest[] {
  switch (parser) {
    case 'tap':
      return fromTap(output, ctx);
    case 'node-test':
      return /^\s*(?:TAP version \d+|(?:not )?ok \d+\b)/m.test(output) ? fromTap(output, ctx) : fromNodeSpec(output, ctx);
    case 'mocha':
      return /^\s*(?:not ok|ok) \d+\b/m.test(output) && /^\s*# (?:tests|fail) \d+/m.test(output) ? fromTap(output, ctx) : fromMochaSpec(output);
    case 'jest':
      return fromJestText(output, ctx);
    case 'vitest':
      return fromVitestText(output, ctx);
    case 'ava':
      return fromAva(output);
    default:
      return [];
  }
}

/**
 * The tests a check's output names as passed, each once, at most MAX_PASSED_TESTS; none for a tool
 * that is no test runner, and none from a text report when `truncated` (see the file's head).
 */
export function passingTests(parser: ParserId, output: string, ctx: Ctx, truncated: boolean): PassedTests {
  const text = stripAnsi(output);
  const clean: Ctx = ctx.stdout !== undefined ? { ...ctx, stdout: stripAnsi(ctx.stdout) } : ctx;
  const found = jsonTests(parser, text, clean) ?? (truncated ? [] : textTests(parser, text, clean));
  const seen = new Set<string>();
  const tests = found.filter((t) => {
    const k = JSON.stringify([t.id, t.file ?? '']);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { tests: tests.slice(0, MAX_PASSED_TESTS), capped: tests.length > MAX_PASSED_TESTS };
}

// What a failed assertion got and what it expected, read from each runner's own words, and the
// failure's headline built from them: `'12.5 EUR' !== '12.05 EUR'`, `Expected "12.05 EUR", received
// "12.5 EUR"`, never the diff's legend (`+ actual - expected`). Pure, no Node imports: the CLI, the
// extension and the panel's webview bundle all headline a failure the same way.
import { ERROR_HEAD as HEAD, headlineWith } from '../headline';
import type { Failure } from '../types';

/** How the runner words a mismatch, so a headline reads as the runner's own report does. */
export type ValuesStyle = 'node' | 'jest' | 'chai';

export interface AssertionValues {
  actual: string;
  expected: string;
  style: ValuesStyle;
  /** The changed lines alone, when the values came from a multi-line diff (one pair). */
  changed?: { actual: string; expected: string };
  /** The runner's own one-line statement of the mismatch, when it made one (chai, Vitest). */
  statement?: string;
  /** Node's loose `==` (assert.equal without strict): the headline says `!=`. */
  loose?: boolean;
}

const STACK = /^\s*at\s+\S|^\s*at\s*$/;
const CARET = /^\s*\^+\s*$/;
// Node's "... 3 lines skipped" and Jest's "..." rows of a long diff carry no values.
const SKIPPED = /^\s*[-+]?\s*\.\.\.(\s*Lines skipped.*)?\s*$|^\s*\.\.\. \d+ lines? skipped/;

function trimmedLines(message: string): string[] {
  return message.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trim());
}

/** The lines of a diff below its legend: to the stack, each `-`, `+` or common line. */
function diffBody(lines: readonly string[], from: number): string[] {
  const out: string[] = [];
  for (let i = from; i < lines.length; i++) {
    const l = lines[i]!;
    // The stack, or a runner's code frame (`> 12 | …`, `❯ file:12:5`), ends the diff.
    if (STACK.test(l) || /^(?:>\s*)?\d+\s*\|/.test(l) || /^❯ /.test(l)) break;
    if (l.trim() === '' || CARET.test(l) || SKIPPED.test(l)) continue;
    out.push(l);
  }
  return out;
}

/** One side of a diff: the common lines and that side's own, without the signs. */
function side(body: readonly string[], own: '-' | '+'): string {
  const other = own === '+' ? '-' : '+';
  return body
    .filter((l) => !l.trimStart().startsWith(`${other} `) && l.trimStart() !== other)
    .map((l) => l.trim().replace(/^[-+](?: |$)/, ''))
    .map((l) => l.trim())
    .join('\n');
}

function changedPair(body: readonly string[], actualSign: '-' | '+'): { actual: string; expected: string } | undefined {
  const expectedSign = actualSign === '+' ? '-' : '+';
  const pick = (sign: string): string[] => body.map((l) => l.trimStart()).filter((l) => l.startsWith(`${sign} `)).map((l) => l.slice(2).trim().replace(/,$/, ''));
  const a = pick(actualSign);
  const e = pick(expectedSign);
  if (a.length === 0 && e.length === 0) return undefined;
  return { actual: a[0] ?? '(nothing)', expected: e[0] ?? '(nothing)' };
}

function fromDiff(lines: readonly string[], legendAt: number, actualSign: '-' | '+', style: ValuesStyle): AssertionValues | undefined {
  const body = diffBody(lines, legendAt + 1);
  if (!body.some((l) => /^[-+](?: |$)/.test(l.trimStart()))) return undefined;
  const changed = changedPair(body, actualSign);
  return { actual: side(body, actualSign), expected: side(body, actualSign === '+' ? '-' : '+'), style, ...(changed ? { changed } : {}) };
}

/** A value Jest prints on the line(s) under a label ("Expected value to strictly be equal to:"). */
function indentedValue(raw: readonly string[], at: number): string | undefined {
  const v: string[] = [];
  for (let i = at + 1; i < raw.length && /^\s{2,}\S/.test(raw[i]!) && !STACK.test(raw[i]!); i++) v.push(raw[i]!.trim());
  return v.length > 0 ? v.join('\n') : undefined;
}

/**
 * The values of a failed assertion, from every runner's format: Node's assert (`190 !== 180`, the
 * `+ actual - expected` diff of strings and objects, loose `==`), chai and Vitest (`expected X to
 * equal Y`), Jest and Vitest (`Expected:`/`Received:` and the `- Expected + Received` diff), Jest's
 * reading of a Node assert, and AVA's `Difference (- actual, + expected)`. Carets and stack
 * frames are never part of a value. Undefined when the message shows no values.
 */
export function assertionValues(message: string): AssertionValues | undefined {
  const raw = message.replace(/\r\n?/g, '\n').split('\n');
  const lines = trimmedLines(message);

  const chaiLine = lines.map((l) => /^(?:AssertionError(?: \[\w+\])?: )?(expected (.+?) to (?:deeply |strictly )?(?:equal|be|eql) (.+?))(?:\s+\/\/ .*)?$/.exec(l)).find((m) => m);
  if (chaiLine) return { actual: chaiLine[2]!, expected: chaiLine[3]!, style: 'chai', statement: chaiLine[1]! };

  const exp = lines.find((l) => /^Expected:\s/.test(l));
  const rec = lines.find((l) => /^Received:\s/.test(l));
  if (exp && rec) return { expected: exp.replace(/^Expected:\s+/, ''), actual: rec.replace(/^Received:\s+/, ''), style: 'jest' };

  // Jest's own reading of a Node assert: "Expected value to strictly be equal to:\n  X\nReceived:\n  Y".
  const jestExpAt = lines.findIndex((l) => /^Expected value to (?:strictly )?(?:be )?(?:deeply )?(?:equal|be equal) to:$/.test(l));
  const jestRecAt = lines.findIndex((l, i) => i > jestExpAt && l === 'Received:');
  if (jestExpAt >= 0 && jestRecAt > jestExpAt) {
    const expected = indentedValue(raw, jestExpAt);
    const actual = indentedValue(raw, jestRecAt);
    if (expected !== undefined && actual !== undefined) return { expected, actual, style: 'jest' };
  }

  const strict = lines.map((l) => /^(.{1,200}?) !== (.{1,200})$/.exec(l)).find((m) => m && !HEAD.test(m[0]));
  if (strict) return { actual: strict[1]!, expected: strict[2]!, style: 'node' };
  const loose = lines.map((l) => /^AssertionError(?: \[\w+\])?: (.{1,200}?) == (.{1,200})$/.exec(l)).find((m) => m);
  if (loose) return { actual: loose[1]!, expected: loose[2]!, style: 'node', loose: true };

  const nodeLegend = lines.indexOf('+ actual - expected');
  if (nodeLegend >= 0) return fromDiff(lines, nodeLegend, '+', 'node');
  const avaLegend = lines.findIndex((l) => /^'?Difference \(- actual, \+ expected\):/.test(l));
  if (avaLegend >= 0) return fromDiff(lines, avaLegend, '-', 'node');
  const jestLegend = lines.findIndex((l, i) => /^- Expected\b/.test(l) && /^\+ Received\b/.test(lines[i + 1] ?? ''));
  if (jestLegend >= 0) return fromDiff(lines, jestLegend + 1, '+', 'jest');
  return undefined;
}

/** Two single-line values that share a long beginning, cut to the difference: `'…is 12.5 EUR' !== '…is 12.05 EUR'`. */
function focus(a: string, e: string, room: number): [string, string] {
  if (a.length + e.length <= room || a.includes('\n') || e.includes('\n')) return [a, e];
  let p = 0;
  while (p < a.length && p < e.length && a[p] === e[p]) p++;
  const keep = 12;
  if (p <= keep + 1) return [a, e];
  const quote = /^['"`]/.exec(a)?.[0] ?? '';
  // From the start of the word a few characters before the difference.
  const space = a.lastIndexOf(' ', p - keep);
  const from = space > 0 ? space + 1 : p - keep;
  const cut = (s: string): string => `${quote}…${s.slice(from)}`;
  return [cut(a), cut(e)];
}

/**
 * The values of a failed assertion in one line, worded as its runner words them: Node's
 * `'12.5 EUR' !== '12.05 EUR'`, Jest's `Expected "12.05 EUR", received "12.5 EUR"`, chai's
 * `expected '12.5 EUR' to equal '12.05 EUR'`. A multi-line diff is told by its changed line.
 */
export function valuesHeadline(message: string): string | undefined {
  const v = assertionValues(message);
  if (!v) return undefined;
  if (v.statement) return v.statement;
  const oneLine = (s: string): boolean => !s.includes('\n');
  const pair = oneLine(v.actual) && oneLine(v.expected) ? { actual: v.actual, expected: v.expected } : (v.changed ?? { actual: v.actual.split('\n')[0]!, expected: v.expected.split('\n')[0]! });
  const [a, e] = focus(pair.actual, pair.expected, 64);
  return v.style === 'jest' ? `Expected ${e}, received ${a}` : `${a} ${v.loose ? '!=' : '!=='} ${e}`;
}

/** A failure in a few words: its name (test title, rule, code) and its values, else the first line of its message. */
export function failureHeadline(f: Failure): string {
  return headlineWith(f, f.values?.headline ?? valuesHeadline(f.message));
}

/** The failure a sentence names: the first that shows its values, else the first. */
export function tellingFailure(failures: readonly Failure[]): Failure {
  return failures.find((f) => f.values !== undefined || assertionValues(f.message) !== undefined) ?? failures[0]!;
}

/**
 * Sets `f.values` from its message (the verifier does, for every failure it reports), so readers
 * without this module (the extension's shell: core/headline.ts) show the values. Returns `f`.
 */
export function readValues(f: Failure): Failure {
  const v = f.values === undefined ? assertionValues(f.message) : undefined;
  const headline = v ? valuesHeadline(f.message) : undefined;
  if (v && headline !== undefined) f.values = { headline, actual: v.actual, expected: v.expected };
  return f;
}

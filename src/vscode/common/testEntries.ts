// What VS Code's Testing view lists for a folder, without `vscode` (the unit tests read it directly):
// every test a run or a check pass of this window saw failing, failed while it fails and passed once
// a later verification no longer reports it; every test a check pass's output named as passed; and
// each failure's message as the Test Results and the peek show it: the values' one-line headline
// with expected and actual for the diff, the stack as frames, never the runner's caret lines or
// stack in the text.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { failureHeadline } from '../../core/headline';
import type { Failure, ParserId } from '../../core/types';

const TEST_PARSERS: ReadonlySet<ParserId> = new Set<ParserId>(['mocha', 'jest', 'vitest', 'node-test', 'tap', 'ava', 'uvu']);

/** The failures of a state that are test failures. */
export function testFailures(failures: readonly Failure[], parsers: Readonly<Record<string, ParserId>>): Failure[] {
  return failures.filter((f) => {
    const p = parsers[f.check];
    return p !== undefined && TEST_PARSERS.has(p);
  });
}

/** One test the Testing view lists: failing now, or seen failing and passing since, or named as passed by a check pass. */
export interface TestEntry {
  key: string;
  check: string;
  label: string;
  file?: string;
  line?: number;
  state: 'failed' | 'passed';
  /** The failure, while it fails. */
  failure?: Failure;
}

/** A test's identity across verifications: its check, name and file (not its line: an edit moves it). */
export function testKey(f: Failure): string {
  return `${f.check}::${f.id ?? f.message.split('\n')[0]!.trim()}::${f.file ?? ''}`;
}

/** A test a check's output named as passed (CheckResult.passed, with its check). */
export interface CheckPassed {
  check: string;
  id: string;
  file?: string;
}

/** The passing tests of a verification's checks, with their check. */
export function passedTests(checks: readonly { name: string; passed?: readonly { id: string; file?: string }[] }[]): CheckPassed[] {
  return checks.flatMap((c) => (c.passed ?? []).map((t) => ({ check: c.name, ...t })));
}

/**
 * The folder's tests after a verification: each failing one failed (new ones added at the end),
 * each known one no longer failing passed, unless its check said nothing reliable about its tests
 * (`unsure`: the check was cancelled, timed out, crashed or could not start), and each test its
 * output named as passed listed passed (the known entry of that test when there is one).
 */
export function recordFailures(known: ReadonlyMap<string, TestEntry>, failing: readonly Failure[], unsure: ReadonlySet<string> = new Set(), passed: readonly CheckPassed[] = []): Map<string, TestEntry> {
  const out = new Map<string, TestEntry>();
  for (const [k, e] of known) {
    if (unsure.has(e.check)) out.set(k, e);
    else out.set(k, passedEntry(e.key, e));
  }
  for (const p of passed) {
    const key = sameTest(out, p.check, p.id, p.file) ?? testKey({ check: p.check, id: p.id, ...(p.file !== undefined ? { file: p.file } : {}), message: '' });
    const e = out.get(key);
    out.set(key, passedEntry(key, { check: p.check, label: e?.label ?? p.id, ...(e?.file !== undefined || p.file !== undefined ? { file: e?.file ?? p.file } : {}), ...(e?.line ? { line: e.line } : {}) }));
  }
  return noteFailing(out, failing);
}

function passedEntry(key: string, e: Pick<TestEntry, 'check' | 'label' | 'file' | 'line'>): TestEntry {
  return { key, check: e.check, label: e.label, ...(e.file ? { file: e.file } : {}), ...(e.line ? { line: e.line } : {}), state: 'passed' };
}

/**
 * The key of the entry of this test of `check`: its key, or an entry by the same name whose file one
 * side does not know (a reporter that names no file for passing tests, or for failing ones).
 */
function sameTest(book: ReadonlyMap<string, TestEntry>, check: string, id: string, file: string | undefined): string | undefined {
  const exact = testKey({ check, id, ...(file !== undefined ? { file } : {}), message: '' });
  if (book.has(exact)) return exact;
  for (const e of book.values()) if (e.check === check && e.label === id && (e.file === undefined || file === undefined)) return e.key;
  return undefined;
}

/** The folder's tests with a run's verification in progress noted: its failing tests failed, the others as they were. */
export function noteFailing(known: ReadonlyMap<string, TestEntry>, failing: readonly Failure[]): Map<string, TestEntry> {
  const out = new Map(known);
  for (const f of failing) {
    const key = testKey(f);
    // The same test listed passed under another file (none known on one side) fails now: one entry, the failure's.
    const other = f.id !== undefined && !out.has(key) ? sameTest(out, f.check, f.id, f.file) : undefined;
    if (other !== undefined && out.get(other)!.state === 'passed') out.delete(other);
    out.set(key, entryOf(key, f));
  }
  return out;
}

function entryOf(key: string, f: Failure): TestEntry {
  return { key, check: f.check, label: f.id ?? failureHeadline(f), ...(f.file ? { file: f.file } : {}), ...(f.line ? { line: f.line } : {}), state: 'failed', failure: f };
}

/** Checks whose failures name no test (a crash, a timeout, a spawn error): their tests' fate is unknown. */
export function wholeCheckFailures(failures: readonly Failure[]): Set<string> {
  return new Set(failures.filter((f) => f.id === undefined || f.id === 'spawn').map((f) => f.check));
}

/** A stack frame of a failure's message: where it points, when it names a file of the folder or beyond. */
export interface FrameParts {
  label: string;
  /** Absolute path. */
  file?: string;
  line?: number;
  column?: number;
}

/** What a failure's TestMessage carries. */
export interface MessageParts {
  /** One line when the values were read: the failure's headline. */
  text: string;
  expected?: string;
  actual?: string;
  /** Empty unless at least one frame names a file. */
  stack: FrameParts[];
}

const STACK_LINE = /^\s*at\s+(.+?)\s*$/;
const CARET_LINE = /^\s*[~^]+\s*$/;
/** A runner's code frame: `> 10 |   assert.equal(...)`, `   |          ^`. */
const CODE_FRAME = /^\s*>?\s*\d*\s*\|/;
const MAX_FRAMES = 30;

/** The message without its stack, caret lines and code frames (for a failure whose values were not read). */
export function messageWithoutStack(message: string): string {
  const lines = message.replace(/\r\n?/g, '\n').split('\n');
  const end = lines.findIndex((l) => STACK_LINE.test(l));
  return (end < 0 ? lines : lines.slice(0, end))
    .filter((l) => !CARET_LINE.test(l) && !CODE_FRAME.test(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The stack frames of a message (`at fn (file:line:col)`, `at file:line:col`); none unless one names a file. */
export function stackFrames(message: string, folder: string): FrameParts[] {
  const frames = message
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => STACK_LINE.exec(l)?.[1])
    .filter((x): x is string => x !== undefined)
    .slice(0, MAX_FRAMES)
    .map((at) => frame(at, folder));
  return frames.some((f) => f.file !== undefined) ? frames : [];
}

function frame(at: string, folder: string): FrameParts {
  const m = /^(?:(.*?)\s+\()?(.+?):(\d+)(?::(\d+))?\)?$/.exec(at);
  if (!m) return { label: at };
  const where = m[2]!;
  const label = m[1] ?? where;
  // Node's own modules (node:internal/...) and anonymous evals have no file to open.
  if (/^(?:node:|internal\/|<anonymous>|native$)/.test(where)) return { label: at };
  const file = where.startsWith('file://') ? fileURLToPath(where) : path.isAbsolute(where) ? where : path.join(folder, where);
  return { label, file, line: Number(m[3]), ...(m[4] ? { column: Number(m[4]) } : {}) };
}

/** A failure's message for the Testing view: the values' headline and the clean values, else the message without stack; its frames. */
export function testMessageParts(f: Failure, folder: string): MessageParts {
  const stack = stackFrames(f.message, folder);
  const v = f.values;
  if (v) return { text: failureHeadline(f), expected: v.expected, actual: v.actual, stack };
  return { text: messageWithoutStack(f.message) || (f.id ?? failureHeadline(f)), stack };
}

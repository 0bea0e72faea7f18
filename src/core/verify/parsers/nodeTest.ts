// node:test output: TAP (Node 20's default off a TTY) or the spec reporter (`--test-reporter=spec`).
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { dedent, failure, formatFrames, frameIn, indentOf, isStackLine, pickTestFrame, splitLines, testTitle, tidyErrorHead, workspaceFrames, workspacePath } from './common';
import { parseTap } from './tap';
import { isCutMark } from '../cutMark';

const TAP_LINE = /^\s*(?:TAP version \d+|(?:not )?ok \d+\b)/m;
// `✖ title (1.23ms)`, optionally `# TODO` / `# SKIP` after the duration.
const SPEC_FAIL = /^✖ (.*?)(?: \((\d+(?:\.\d+)?m?s)\))?(?: # (TODO|SKIP)\b.*)?$/;
const SPEC_SUITE = /^▶ (.*)$/;
const SPEC_OTHER = /^(?:✔|﹣|ℹ|▶) /;
const SUMMARY_HEAD = /^✖ failing tests:\s*$/;
const SUMMARY_LOC = /^test at (.+?):(\d+):(\d+)$/;

interface SpecFailure {
  title: string;
  leaf: string;
  body: string[];
}

function errorBody(lines: readonly string[]): { message: string[]; stack: string[] } {
  const body = dedent(lines);
  const stackAt = body.findIndex(isStackLine);
  if (stackAt < 0) return { message: body, stack: [] };
  // After the stack, util.inspect prints the error's own properties (`{ code: ..., actual: ... }`): noise.
  const stack = body.slice(stackAt).filter(isStackLine);
  return { message: body.slice(0, stackAt), stack };
}

function unquote(s: string): string {
  const m = /^'(.*)'$/s.exec(s.trim());
  return m ? m[1]!.replace(/\\'/g, "'") : s;
}

/** The spec reporter's run section: `▶ suite`, `✖ test (ms)` and each failure's indented error. */
function readSpec(lines: readonly string[], ctx: ParseContext): { failures: SpecFailure[]; summaryAt: number } {
  const failures: SpecFailure[] = [];
  let stack: { indent: number; name: string }[] = [];
  let summaryAt = lines.length;
  // Past a cut at the output limit, the suites opened before it are unknown: a bare `✖ name` may close one.
  let afterCut = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trimEnd();
    if (isCutMark(line)) {
      stack = [];
      afterCut = true;
      continue;
    }
    if (SUMMARY_HEAD.test(line.trim())) {
      summaryAt = i;
      break;
    }
    const indent = indentOf(line);
    const text = line.trim();
    const suite = SPEC_SUITE.exec(text);
    if (suite) {
      stack = stack.filter((s) => s.indent < indent);
      stack.push({ indent, name: suite[1]! });
      continue;
    }
    const m = SPEC_FAIL.exec(text);
    if (!m) {
      // A passing test or a closing suite at this indent ends every suite opened at or below it.
      if (SPEC_OTHER.test(text)) stack = stack.filter((s) => s.indent < indent);
      continue;
    }
    const body: string[] = [];
    while (i + 1 < lines.length) {
      const next = lines[i + 1]!;
      if (next.trim() !== '' && indentOf(next) <= indent) break;
      body.push(next);
      i++;
    }
    const closesSuite = stack.length > 0 && stack[stack.length - 1]!.indent === indent && stack[stack.length - 1]!.name === m[1];
    stack = stack.filter((s) => s.indent < indent);
    if (m[3] !== undefined) continue; // TODO and SKIP do not fail a run
    const hasBody = body.some((l) => l.trim() !== '');
    // A suite's closing `✖` only repeats that a subtest failed, unless a hook of the suite threw.
    if ((closesSuite || afterCut) && !hasBody) continue;
    failures.push({ title: testTitle([...stack.map((s) => s.name), m[1]!], ctx), leaf: m[1]!, body });
  }
  return { failures, summaryAt };
}

interface Located {
  leaf: string;
  file: string;
  line: number;
  column: number;
  head: string;
  /** The error under the entry: Node 22 and later print it here only, not in the run section. */
  body: string[];
}

/** `test at file:l:c` then `✖ leaf (ms)` and the error: where each failing test lives, and its error. */
function readSummary(lines: readonly string[], from: number): Located[] {
  const out: Located[] = [];
  for (let i = from; i < lines.length; i++) {
    const loc = SUMMARY_LOC.exec(lines[i]!.trim());
    if (!loc) continue;
    const m = SPEC_FAIL.exec((lines[i + 1] ?? '').trim());
    if (!m) continue;
    const body: string[] = [];
    for (let j = i + 2; j < lines.length && !SUMMARY_LOC.test(lines[j]!.trim()) && (lines[j]!.trim() === '' || indentOf(lines[j]!) > 0); j++) body.push(lines[j]!);
    out.push({ leaf: m[1]!, file: loc[1]!, line: Number(loc[2]), column: Number(loc[3]), head: (lines[i + 2] ?? '').trim(), body });
  }
  return out;
}

export function parseNodeTestSpec(output: string, ctx: ParseContext): Failure[] {
  const lines = splitLines(output);
  const { failures, summaryAt } = readSpec(lines, ctx);
  const located = readSummary(lines, summaryAt);
  const out: Failure[] = [];
  for (const sf of failures) {
    const inRun = errorBody(sf.body);
    const runHead = inRun.message.length > 0 ? tidyErrorHead(inRun.message[0]!) : '';
    // Node 22 and later list a failed test bare in the run section: its error is in the summary.
    const idx = located.findIndex((l) => l.leaf === sf.leaf && (runHead === '' || tidyErrorHead(l.head) === runHead));
    const loc = idx >= 0 ? located.splice(idx, 1)[0] : undefined;
    const { message, stack } = runHead === '' && loc ? errorBody(loc.body) : inRun;
    const head = message.length > 0 ? tidyErrorHead(message[0]!) : '';
    const frames = workspaceFrames(stack, ctx);
    const locFile = loc ? workspacePath(loc.file, ctx) : undefined;
    const inTest = locFile !== undefined ? frameIn(frames, locFile) : undefined;
    const file = locFile ?? pickTestFrame(frames)?.file;
    const at = inTest ?? (loc && locFile !== undefined ? { line: loc.line, column: loc.column } : pickTestFrame(frames));
    const text = message.length > 0 ? [head, ...message.slice(1)].map((l, n) => (n === 0 ? unquote(l) : l)) : ['failed'];
    out.push(
      failure({
        check: ctx.check,
        ...(file !== undefined ? { file } : {}),
        ...(at ? { line: at.line, column: at.column } : {}),
        id: sf.title,
        message: [...dedent(text), ...formatFrames(frames)].join('\n'),
      }),
    );
  }
  return out;
}

export function parseNodeTest(output: string, ctx: ParseContext): Failure[] {
  return TAP_LINE.test(output) ? parseTap(output, ctx) : parseNodeTestSpec(output, ctx);
}

// Jest: `--json` (and Vitest's jest-compatible `--reporter=json`), and the default reporter's text.
import stripAnsi from 'strip-ansi';
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { dedent, extractJson, failure, formatFrames, frameIn, indentOf, isStackLine, pickTestFrame, splitLines, tidyErrorHead, workspaceFrames, workspacePath } from './common';
import { isCutMark } from '../cutMark';

interface AssertionResult {
  ancestorTitles?: string[];
  title: string;
  fullName?: string;
  status: string;
  failureMessages?: string[];
  location?: { line: number; column: number } | null;
}

interface TestFileResult {
  name: string;
  status?: string;
  message?: string;
  assertionResults?: AssertionResult[];
}

export interface JestJson {
  testResults: TestFileResult[];
}

export function isJestJson(v: unknown): v is JestJson {
  return typeof v === 'object' && v !== null && Array.isArray((v as JestJson).testResults) && 'numFailedTests' in v;
}

// Code frames (`  > 5 | code`, `    |   ^`) and Jest's own separators carry nothing a message needs.
const CODE_FRAME = /^\s*>?\s*\d*\s*\|/;

/** The message of one failure: lines before the code frame or the stack, `Error:` prefix dropped. */
function messageLines(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const l of lines) {
    if (isStackLine(l) || CODE_FRAME.test(l) || /^\s*Cause:\s*$/.test(l)) break;
    out.push(l);
  }
  const text = dedent(out);
  if (text.length > 0) text[0] = tidyErrorHead(text[0]!).replace(/^Error: /, '');
  return text.length > 0 ? text : ['failed'];
}

/** Where in the test file it failed: the frame in that file, else the first workspace frame. */
function place(frames: ReturnType<typeof workspaceFrames>, file: string | undefined): { file?: string; line?: number; column?: number } {
  const inFile = file !== undefined ? frameIn(frames, file) : undefined;
  const at = inFile ?? (file === undefined ? pickTestFrame(frames) : undefined);
  const f = file ?? at?.file;
  return { ...(f !== undefined ? { file: f } : {}), ...(at ? { line: at.line, column: at.column } : {}) };
}

/** Failures of a Jest-shaped JSON report; `sep` joins the title path as the runner prints it. */
export function jestJsonFailures(json: JestJson, ctx: ParseContext, sep: string): Failure[] {
  const out: Failure[] = [];
  for (const file of json.testResults) {
    const rel = workspacePath(file.name, ctx);
    const failed = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failed) {
      // Colour inside JSON strings (`\u001b[…`) survives the output's ANSI stripping: strip it here.
      const text = splitLines(stripAnsi((a.failureMessages ?? []).join('\n')));
      const frames = workspaceFrames(text, ctx);
      const where = place(frames, rel);
      if (a.location && where.line === undefined && rel !== undefined) Object.assign(where, { line: a.location.line, column: a.location.column });
      out.push(
        failure({
          check: ctx.check,
          ...where,
          id: [...(a.ancestorTitles ?? []), a.title].join(sep),
          message: [...messageLines(text), ...formatFrames(frames)].join('\n'),
        }),
      );
    }
    // A file that could not run at all has no assertion results, only its message.
    if (failed.length === 0 && file.status === 'failed' && (file.message ?? '').trim() !== '') {
      const message = stripAnsi(file.message!);
      const blocks = textBlocks(splitLines(message));
      if (blocks.length > 0) {
        for (const b of blocks) out.push(...blockFailures(b, rel, ctx));
      } else {
        const text = splitLines(message);
        const frames = workspaceFrames(text, ctx);
        out.push(failure({ check: ctx.check, ...place(frames, rel), id: 'Test suite failed to run', message: [...messageLines(text), ...formatFrames(frames)].join('\n') }));
      }
    }
  }
  return out;
}

interface Block {
  title: string;
  body: string[];
}

/** Jest's buffered console output of a suite (`● Console`, then `console.log` and what was logged): never a failure. */
function isConsoleBlock(b: Block): boolean {
  return b.title === 'Console' && /^\s*console\.\w+\s*$/.test(b.body.find((l) => l.trim() !== '') ?? '');
}

/** `  ● a › b` blocks, each up to the next one (a suite's `● Console` block left out). */
function textBlocks(lines: readonly string[]): Block[] {
  const out: Block[] = [];
  let cur: Block | undefined;
  for (const l of lines) {
    const m = /^\s*● (.*)$/.exec(l);
    if (m && indentOf(l) <= 4) {
      cur = { title: m[1]!.trim(), body: [] };
      out.push(cur);
    } else if (/^\s*(PASS|FAIL) /.test(l) || /^(Test Suites|Tests|Snapshots|Time):/.test(l)) {
      cur = undefined;
    } else if (cur) {
      cur.body.push(l);
    }
  }
  return out.filter((b) => !isConsoleBlock(b));
}

// A TypeScript diagnostic as ts-jest prints it in a suite that failed to run: `src/a.ts:11:9 - error TS2322: …`
// (tsc's pretty form), or `src/a.ts(11,9): error TS2322: …`.
const TS_DIAGNOSTIC = /^\s*(\S+?)(?::(\d+):(\d+) - |\((\d+),(\d+)\): )error (TS\d+): (.*)$/;

/**
 * The TypeScript errors listed by a suite that failed to run (ts-jest type-checks what a test
 * imports): each at its own file and line, as tsc reports it, naming the suite it stopped.
 */
function diagnosticFailures(b: Block, file: string | undefined, ctx: ParseContext): Failure[] {
  const out: Failure[] = [];
  for (const l of b.body) {
    const m = TS_DIAGNOSTIC.exec(l);
    if (!m) continue;
    const where = workspacePath(m[1]!, ctx);
    out.push(
      failure({
        check: ctx.check,
        ...(where !== undefined ? { file: where } : file !== undefined ? { file } : {}),
        ...(where !== undefined ? { line: Number(m[2] ?? m[4]), column: Number(m[3] ?? m[5]) } : {}),
        id: m[6]!,
        message: `${m[7]!.trim()}\n(${file ?? 'a test suite'} failed to run: ${m[1]}:${m[2] ?? m[4]}:${m[3] ?? m[5]})`,
      }),
    );
  }
  return out;
}

function blockFailures(b: Block, file: string | undefined, ctx: ParseContext): Failure[] {
  const ts = b.title === 'Test suite failed to run' ? diagnosticFailures(b, file, ctx) : [];
  return ts.length > 0 ? ts : [blockFailure(b, file, ctx)];
}

function blockFailure(b: Block, file: string | undefined, ctx: ParseContext): Failure {
  const frames = workspaceFrames(b.body, ctx);
  return failure({ check: ctx.check, ...place(frames, file), id: b.title, message: [...messageLines(b.body), ...formatFrames(frames)].join('\n') });
}

function fromText(output: string, ctx: ParseContext): Failure[] {
  const lines = splitLines(output);
  const out: Failure[] = [];
  // Each `FAIL path` section holds that file's `●` blocks; the summary repeats none of them.
  let file: string | undefined;
  let section: string[] = [];
  const flush = (): void => {
    for (const b of textBlocks(section)) out.push(...blockFailures(b, file, ctx));
    section = [];
  };
  for (const l of lines) {
    const head = /^\s*(PASS|FAIL)\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$/.exec(l);
    if (head) {
      flush();
      file = head[1] === 'FAIL' ? workspacePath(head[2]!.replace(/^\S+\s+(?=\S*[\\/.])/, '').trim(), ctx) : undefined;
      continue;
    }
    if (isCutMark(l)) {
      // The output was cut at the limit: the `FAIL path` heads between the two parts are gone, so the
      // blocks after the cut are placed by their own frames, never in the file of the last head kept.
      flush();
      file = undefined;
      continue;
    }
    if (/^Summary of all failing tests\s*$/.test(l)) {
      // Jest repeats every failure here when more than one file ran: the sections already hold them.
      flush();
      break;
    }
    section.push(l);
  }
  flush();
  return out;
}

export function parseJest(output: string, ctx: ParseContext): Failure[] {
  const json = extractJson(ctx.stdout ?? output, isJestJson);
  if (isJestJson(json)) return jestJsonFailures(json, ctx, ' › ');
  return fromText(output, ctx);
}

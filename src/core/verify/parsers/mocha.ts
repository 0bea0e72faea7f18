// Mocha: the `N failing` epilogue shared by spec, dot, list and min; the `json` reporter; `tap`.
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { extractJson, failure, formatFrames, frameIn, indentOf, isStackLine, pickTestFrame, splitLines, tidyErrorHead, workspaceFrames, workspacePath } from './common';
import { parseTap } from './tap';
import { isCutMark } from '../cutMark';

interface MochaJsonTest {
  title: string;
  fullTitle: string;
  file?: string;
  err: { message?: string; stack?: string; name?: string };
}

interface MochaJson {
  stats: unknown;
  failures: MochaJsonTest[];
}

function isMochaJson(v: unknown): v is MochaJson {
  return typeof v === 'object' && v !== null && 'stats' in v && Array.isArray((v as MochaJson).failures);
}

/** `Name: message` from an error's stack head, else its message; `[ERR_X]` codes dropped. */
function headOf(err: MochaJsonTest['err']): string[] {
  const stack = err.stack ? splitLines(err.stack) : [];
  const stackAt = stack.findIndex(isStackLine);
  const head = stackAt > 0 ? stack.slice(0, stackAt) : err.message !== undefined ? splitLines(`${err.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err.message}`) : [];
  if (head.length > 0) head[0] = tidyErrorHead(head[0]!);
  while (head.length > 0 && head[head.length - 1]!.trim() === '') head.pop();
  return head.length > 0 ? head : ['failed'];
}

function fromJson(json: MochaJson, ctx: ParseContext): Failure[] {
  return json.failures.map((t) => {
    const frames = workspaceFrames(t.err.stack ? splitLines(t.err.stack) : [], ctx);
    const testFile = t.file !== undefined ? workspacePath(t.file, ctx) : undefined;
    const at = (testFile !== undefined ? frameIn(frames, testFile) : undefined) ?? (testFile === undefined ? pickTestFrame(frames) : undefined);
    const file = testFile ?? at?.file;
    return failure({
      check: ctx.check,
      ...(file !== undefined ? { file } : {}),
      ...(at ? { line: at.line, column: at.column } : {}),
      id: t.fullTitle,
      message: [...headOf(t.err), ...formatFrames(frames)].join('\n'),
    });
  });
}

const FAILING = /^\s*\d+ failing\s*$/;
const ENTRY = /^ {2}(\d+)\) (.*)$/;

/** The epilogue's entries: `  1) Suite`, deeper title lines ending in `:`, the error, its stack. */
function fromEpilogue(output: string, ctx: ParseContext): Failure[] {
  const lines = splitLines(output);
  // A cut at the output limit may have taken the `N failing` header: then the entries after the cut are the epilogue's.
  const header = lines.findIndex((l) => FAILING.test(l));
  const start = header >= 0 ? header : lines.findIndex(isCutMark);
  if (start < 0) return [];
  const out: Failure[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const entry = ENTRY.exec(lines[i]!.trimEnd());
    if (!entry) continue;
    const title: string[] = [entry[2]!.trim()];
    // Title lines are indented deeper each level; the last one ends with a colon.
    while (!title[title.length - 1]!.endsWith(':') && i + 1 < lines.length && lines[i + 1]!.trim() !== '' && indentOf(lines[i + 1]!) > 2) {
      title.push(lines[++i]!.trim());
    }
    // A title the cut runs through (its deeper lines gone) names no test: left out, never a shorter title.
    if (!title[title.length - 1]!.endsWith(':') && i + 1 < lines.length && isCutMark(lines[i + 1]!)) continue;
    title[title.length - 1] = title[title.length - 1]!.replace(/:$/, '');
    const body: string[] = [];
    while (i + 1 < lines.length && !ENTRY.test(lines[i + 1]!.trimEnd())) body.push(lines[++i]!);
    const stackAt = body.findIndex(isStackLine);
    const textLines = stackAt >= 0 ? body.slice(0, stackAt) : body;
    // Mocha's own `+ expected - actual` diff repeats what Node's assertion message already says.
    const diffAt = textLines.findIndex((l) => /^\s*\+ expected - actual\s*$/.test(l));
    const message = (diffAt >= 0 ? textLines.slice(0, diffAt) : textLines).map((l) => l.trimEnd());
    while (message.length > 0 && message[0]!.trim() === '') message.shift();
    while (message.length > 0 && message[message.length - 1]!.trim() === '') message.pop();
    if (message.length > 0) message[0] = tidyErrorHead(message[0]!.trim());
    const frames = workspaceFrames(stackAt >= 0 ? body.slice(stackAt) : [], ctx);
    // Mocha names the test file in timeout errors; otherwise the first frame in a test-looking file.
    const named = /\(([^()]+\.[cm]?[jt]sx?)\)\s*$/.exec(message[0] ?? '');
    const namedFile = named ? workspacePath(named[1]!, ctx) : undefined;
    const at = (namedFile !== undefined ? frameIn(frames, namedFile) : undefined) ?? pickTestFrame(frames);
    const file = namedFile ?? at?.file;
    out.push(
      failure({
        check: ctx.check,
        ...(file !== undefined ? { file } : {}),
        ...(at && at.file === file ? { line: at.line, column: at.column } : {}),
        id: title.join(' '),
        message: [...(message.length > 0 ? message : ['failed']), ...formatFrames(frames)].join('\n'),
      }),
    );
  }
  return out;
}

export function parseMocha(output: string, ctx: ParseContext): Failure[] {
  const json = extractJson(ctx.stdout ?? output, isMochaJson);
  if (isMochaJson(json)) return fromJson(json, ctx);
  if (/^\s*(?:not ok|ok) \d+\b/m.test(output) && /^\s*# (?:tests|fail) \d+/m.test(output)) return parseTap(output, ctx);
  return fromEpilogue(output, ctx);
}

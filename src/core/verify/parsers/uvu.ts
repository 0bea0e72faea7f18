// uvu: its default reporter. Each file's progress line, then one block per failing test:
// `FAIL  <suite>  "<test name>"` (no suite for the default `test`), the assertion's message and diff,
// and a stack whose first frame in the project is the test's own line. Its closing summary is
// `Total: N` / `Passed: M` / `Skipped: K`; it never names a passing test.
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { dedent, failure, formatFrames, isStackLine, pickTestFrame, splitLines, testTitle, tidyErrorHead, workspaceFrames } from './common';

const HEAD = /^\s*FAIL\s+(?:(.*?)\s+)?"(.*)"\s*$/;
/** A file's progress line, `✘ • ✘   (1 / 3)`: a block without a stack ends before it. */
const PROGRESS = /\(\d+ \/ \d+\)\s*$/;
const TOTAL = /^\s*Total:\s+(\d+)\s*$/;

/** Whether this is uvu's output: its summary's `Total:` and `Passed:` lines, in that order. */
export function looksLikeUvu(text: string): boolean {
  return /^\s*Total:\s+\d+\s*\n\s*Passed:\s+\d+\s*$/m.test(text);
}

/** The counts of every `Total:` / `Passed:` summary (a chain may run uvu twice). */
export function uvuSummaries(text: string): { total: number; passed: number }[] {
  return [...text.matchAll(/^\s*Total:\s+(\d+)\s*\n\s*Passed:\s+(\d+)\s*$/gm)].map((m) => ({ total: Number(m[1]), passed: Number(m[2]) }));
}

export function parseUvu(output: string, ctx: ParseContext): Failure[] {
  const lines = splitLines(output);
  const out: Failure[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = HEAD.exec(lines[i]!.trimEnd());
    if (!head) continue;
    const body: string[] = [];
    while (i + 1 < lines.length && !HEAD.test(lines[i + 1]!) && !TOTAL.test(lines[i + 1]!) && !PROGRESS.test(lines[i + 1]!)) {
      body.push(lines[++i]!);
      // The stack ends the block: what follows is the next file's progress.
      if (isStackLine(body[body.length - 1]!) && (i + 1 >= lines.length || !isStackLine(lines[i + 1]!))) break;
    }
    const stackAt = body.findIndex(isStackLine);
    const message = dedent(stackAt >= 0 ? body.slice(0, stackAt) : body);
    if (message.length > 0) message[0] = tidyErrorHead(message[0]!);
    const frames = workspaceFrames(stackAt >= 0 ? body.slice(stackAt) : [], ctx);
    const at = pickTestFrame(frames);
    const title = head[1] !== undefined && head[1] !== '' ? [head[1], head[2]!] : [head[2]!];
    out.push(
      failure({
        check: ctx.check,
        ...(at ? { file: at.file, line: at.line, column: at.column } : {}),
        id: testTitle(title, ctx),
        message: [...(message.length > 0 ? message : ['failed']), ...formatFrames(frames)].join('\n'),
      }),
    );
  }
  return out;
}

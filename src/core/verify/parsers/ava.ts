// AVA's default reporter (ava 4 to 6; `ava --tap` is read by the tap parser). It lists each test
// (`✘ [fail]: file › title`), then after a rule (`─`) one block per failure: the title, the test
// file and line (`test/slug.test.js:5`), a code excerpt, the message, and the origin
// (`› file://test/slug.test.js:5:5`) or the error's stack. Failures outside a test: an uncaught
// exception or unhandled rejection in a file (a block of its own), a file that exited non-zero,
// a file with no tests, and the tests still pending when AVA timed out.
import type { Failure } from '../../types';
import type { ParseContext, StackFrame } from './common';
import { dedent, failure, formatFrames, frameIn, isStackLine, pickTestFrame, splitLines, workspaceFrames, workspacePath } from './common';

const FAIL = /^\s*✘ \[fail\]: (.+?)\s*$/;
const RULE = /^\s*─\s*$/;
/** The test file and line under a failure's title: `  test/slug.test.js:5`. */
const LOCATION = /^\s+(\S[^:]*\.[cm]?[jt]sx?):(\d+)\s*$/;
const EXCERPT = /^\s+\d+: /;
/** `› file://test/slug.test.js:5:5` or `› fn (file://test/x.js:2:26)`: where the assertion was, relative. */
const ORIGIN = /^\s*› (?:(.*?) \()?(?:file:\/\/)?([^\s()]+?):(\d+):(\d+)\)?\s*$/;
const OUTSIDE = /^\s*(Uncaught exception|Unhandled rejection) in (\S+)\s*$/;
const EXITED = /^\s*✘ (\S+) exited with a non-zero exit code: (\d+)/;
const NO_TESTS = /^\s*✘ No tests found in ([^\s,]+)/;
const TIMED_OUT = /^\s*✘ Timed out while running tests/;
const PENDING_IN = /^\s*\d+ tests? (?:were|was) pending in (\S+)\s*$/;
const PENDING = /^\s*◌ (.+?)\s*$/;

/** Whether the output is AVA's default reporter's. */
export function looksLikeAva(text: string): boolean {
  return /^\s*✘ \[fail\]: /m.test(text) || /^\s*(?:Uncaught exception|Unhandled rejection) in \S/m.test(text) || (/^\s*─\s*$/m.test(text) && /^\s*\d+ (?:tests? failed|uncaught exceptions?|unhandled rejections?|tests? remained pending)/m.test(text));
}

function originFrame(line: string, ctx: ParseContext): StackFrame | undefined {
  const m = ORIGIN.exec(line);
  if (!m) return undefined;
  const file = workspacePath(m[2]!, ctx);
  return file === undefined ? undefined : { fn: m[1], file, line: Number(m[3]), column: Number(m[4]) };
}

/** One failure block: its title line's text, then its lines up to the next block. */
function blockFailure(title: string, body: readonly string[], ctx: ParseContext, outsideFile?: string): Failure {
  let file: string | undefined;
  let line: number | undefined;
  const message: string[] = [];
  const frames: StackFrame[] = [];
  for (const l of body) {
    const loc = file === undefined ? LOCATION.exec(l) : null;
    if (loc) {
      file = workspacePath(loc[1]!, ctx);
      line = file !== undefined ? Number(loc[2]) : undefined;
      continue;
    }
    if (EXCERPT.test(l)) continue;
    const origin = originFrame(l, ctx);
    if (origin) {
      frames.push(origin);
      continue;
    }
    if (isStackLine(l)) {
      frames.push(...workspaceFrames([l], ctx));
      continue;
    }
    if (/^\s*›/.test(l)) continue;
    message.push(l);
  }
  const at = file === undefined ? pickTestFrame(frames) : frameIn(frames, file);
  const where = file ?? at?.file ?? (outsideFile !== undefined ? workspacePath(outsideFile, ctx) : undefined);
  const text = dedent(message).filter((l, i, all) => l !== '' || (all[i - 1] !== '' && i < all.length - 1));
  return failure({
    check: ctx.check,
    ...(where !== undefined ? { file: where } : {}),
    ...(line !== undefined ? { line } : at !== undefined && at.file === where ? { line: at.line, column: at.column } : {}),
    id: title,
    message: [...(text.length > 0 ? text : ['failed']), ...formatFrames(frames.filter((f) => f.file === where || frames.length === 1))].join('\n'),
  });
}

export function parseAva(output: string, ctx: ParseContext): Failure[] {
  const lines = splitLines(output);
  const failed = lines.map((l) => FAIL.exec(l)?.[1]).filter((t): t is string => t !== undefined);
  // A block's title is a failed test's (the list may add the error's kind after it: `title Error thrown in test`).
  const titleOf = (l: string): string | undefined => {
    if (!/^ {2}\S/.test(l)) return undefined;
    const t = l.trim();
    return failed.some((f) => f === t || f.startsWith(`${t} `)) ? t : undefined;
  };
  const out: Failure[] = [];
  const blocked = new Set<string>();
  const crashed = new Set<string>();
  const rules = lines.map((l, i) => (RULE.test(l) ? i : -1)).filter((i) => i >= 0);
  // Blocks of failed tests follow the first rule; blocks of uncaught errors come anywhere.
  const detailsFrom = rules[0] ?? lines.length;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const outside = OUTSIDE.exec(l);
    const title = outside ? undefined : i > detailsFrom ? titleOf(l) : undefined;
    if (outside === null && title === undefined) {
      const exited = EXITED.exec(l);
      const none = NO_TESTS.exec(l);
      if (exited && !crashed.has(exited[1]!)) {
        const file = workspacePath(exited[1]!, ctx);
        out.push(failure({ check: ctx.check, ...(file !== undefined ? { file } : {}), id: `${exited[1]} exited with a non-zero exit code`, message: l.trim().replace(/^✘ /, '') }));
      } else if (none) {
        const file = workspacePath(none[1]!, ctx);
        out.push(failure({ check: ctx.check, ...(file !== undefined ? { file } : {}), id: `No tests found in ${none[1]}`, message: l.trim().replace(/^✘ /, '') }));
      } else if (TIMED_OUT.test(l)) {
        let file: string | undefined;
        for (let k = i + 1; k < lines.length && !RULE.test(lines[k]!); k++) {
          const inFile = PENDING_IN.exec(lines[k]!);
          if (inFile) file = inFile[1];
          const pending = PENDING.exec(lines[k]!);
          if (pending) {
            const rel = file !== undefined ? workspacePath(file, ctx) : undefined;
            out.push(failure({ check: ctx.check, ...(rel !== undefined ? { file: rel } : {}), id: pending[1]!, message: 'still pending when AVA timed out (no test finished within its timeout)' }));
            blocked.add(pending[1]!);
          }
        }
      }
      continue;
    }
    const body: string[] = [];
    let k = i + 1;
    for (; k < lines.length; k++) {
      const n = lines[k]!;
      if (RULE.test(n) || /^\s*✘ /.test(n) || OUTSIDE.test(n) || (k > detailsFrom && titleOf(n) !== undefined)) break;
      body.push(n);
    }
    if (outside) {
      crashed.add(outside[2]!);
      out.push(blockFailure(`${outside[1]} in ${outside[2]}`, body, ctx, outside[2]));
    } else {
      blocked.add(title!);
      out.push(blockFailure(title!, body, ctx));
    }
    i = k - 1;
  }
  // A failed test whose block the output lost (cut short): its title, to be found in its file.
  for (const f of failed) {
    if ([...blocked].some((t) => f === t || f.startsWith(`${t} `))) continue;
    out.push(failure({ check: ctx.check, id: f, message: 'failed (AVA printed no details for it)' }));
  }
  return out;
}

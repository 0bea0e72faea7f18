// Vitest: `--reporter=json` (Jest-shaped) and the default reporter's `Failed Tests` / `Failed Suites`.
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { dedent, extractJson, failure, formatFrames, frameIn, pickTestFrame, splitLines, tidyErrorHead, workspaceFrames, workspacePath } from './common';
import { isJestJson, jestJsonFailures } from './jest';
import { isCutMark } from '../cutMark';

const SECTION = /^⎯+ Failed (Tests|Suites) \d+ ⎯+$/;
const SEPARATOR = /^⎯+(?:\[\d+\/\d+\]⎯*)?$/;
const FAIL = /^ *FAIL +(.+?)(?: \[ (.+) \])?\s*$/;
// Vitest's frames: ` ❯ file:line:col` or ` ❯ fn file:line:col`.
const ARROW_FRAME = /^\s*❯\s+(?:(\S+)\s+)?(\S+?):(\d+):(\d+)\s*$/;
const CODE_FRAME = /^\s*\d*\|/;
// With Vitest `projects` (or a workspace), each file and frame is printed after its project's label: `|name| file`.
const PROJECT_LABEL = /(^|\s)\|[^|\s][^|]*\|\s+(?=\S)/;

// With colours (Vitest turns them on under `CI`, as the project's own CI runs it), the label is a
// coloured badge instead: stripped of its codes it is the name padded by spaces, `FAIL   name  file`
// (`❯  name  file` on a file's summary line), where a file without a label follows after two spaces
// (one after the arrow). The padding tells the badge from a path.
const BADGE_LABEL = /^(\s*)(FAIL {3}|[❯✓×↓] {2})[^ ](?:[^ ]| (?! ))* {2}(?=\S)/;

/** A line with its project label taken out: the file after it is the file. */
function unlabelled(line: string): string {
  return line.replace(PROJECT_LABEL, '$1').replace(BADGE_LABEL, (_m, indent: string, mark: string) => `${indent}${mark.startsWith('FAIL') ? 'FAIL  ' : `${mark[0]} `}`);
}

interface Block {
  head: string;
  body: string[];
}

function blocks(lines: readonly string[]): Block[] {
  const out: Block[] = [];
  let inSection = false;
  let cur: Block | undefined;
  for (const l of lines) {
    const t = l.trimEnd();
    // A cut at the output limit may have taken the section's header: what follows it may be the section.
    if (SECTION.test(t.trim()) || isCutMark(t)) {
      inSection = true;
      cur = undefined;
      continue;
    }
    if (!inSection) continue;
    if (SEPARATOR.test(t.trim())) {
      cur = undefined;
      continue;
    }
    // The run summary (` Test Files  2 failed`) ends the failure sections.
    if (/^\s*Test Files\s+\d/.test(t)) {
      inSection = false;
      cur = undefined;
      continue;
    }
    const m = FAIL.exec(unlabelled(t));
    if (m) {
      // Several `FAIL` heads in a row share the one error block that follows them (tests that
      // failed the same way, e.g. in a `beforeEach`): each gets that block, with its location.
      const shared = cur !== undefined && cur.body.every((x) => x.trim() === '');
      cur = { head: unlabelled(t), body: shared ? cur!.body : [] };
      out.push(cur);
      continue;
    }
    cur?.body.push(t);
  }
  return out;
}

function fromText(output: string, ctx: ParseContext): Failure[] {
  const out: Failure[] = [];
  for (const b of blocks(splitLines(output))) {
    const m = FAIL.exec(b.head)!;
    // ` FAIL  file > suite > test` for a test; ` FAIL  file [ file ]` for a file that did not run.
    const parts = m[1]!.split(' > ');
    const fileText = parts.shift()!;
    const file = workspacePath(fileText, ctx);
    const id = m[2] !== undefined || parts.length === 0 ? 'Test suite failed to run' : parts.join(' > ');
    const message: string[] = [];
    const frameLines: string[] = [];
    let inCause = false;
    for (const l of b.body) {
      const f = ARROW_FRAME.exec(unlabelled(l));
      if (f) {
        if (!inCause) frameLines.push(`    at ${f[1] ? `${f[1]} (${f[2]}:${f[3]}:${f[4]})` : `${f[2]}:${f[3]}:${f[4]}`}`);
        continue;
      }
      if (CODE_FRAME.test(l)) continue;
      // `Caused by:` repeats the error from the loader's side, with its own (vite-internal) frames.
      if (/^Caused by: /.test(l)) inCause = true;
      if (inCause || frameLines.length > 0) continue;
      message.push(l);
    }
    const frames = workspaceFrames(frameLines, ctx);
    const text = dedent(message);
    if (text.length > 0) text[0] = tidyErrorHead(text[0]!);
    const at = (file !== undefined ? frameIn(frames, file) : undefined) ?? (file === undefined ? pickTestFrame(frames) : undefined);
    out.push(
      failure({
        check: ctx.check,
        ...(file !== undefined || at ? { file: file ?? at!.file } : {}),
        ...(at ? { line: at.line, column: at.column } : {}),
        id,
        message: [...(text.length > 0 ? text : ['failed']), ...formatFrames(frames)].join('\n'),
      }),
    );
  }
  return out;
}

export function parseVitest(output: string, ctx: ParseContext): Failure[] {
  const json = extractJson(ctx.stdout ?? output, isJestJson);
  if (isJestJson(json)) return jestJsonFailures(json, ctx, ' > ');
  return fromText(output, ctx);
}

// tsc diagnostics, plain (`file(l,c): error TS1: m`) and pretty (`file:l:c - error TS1: m` + code frame).
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { failure, indentOf, splitLines, workspacePath } from './common';

const PLAIN = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;
const PRETTY = /^(.+?):(\d+):(\d+) - error (TS\d+): (.*)$/;
const GLOBAL = /^error (TS\d+): (.*)$/;
const SUMMARY = /^Found \d+ errors?\b/;

export function parseTsc(output: string, ctx: ParseContext): Failure[] {
  const lines = splitLines(output);
  const out: Failure[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trimEnd();
    const plain = PLAIN.exec(line);
    const pretty = plain ? null : PRETTY.exec(line);
    const global = plain || pretty ? null : GLOBAL.exec(line.trimStart());
    const m = plain ?? pretty;
    if (!m && !global) continue;
    // Chained messages follow as indented lines; in pretty mode a blank line then the code frame follows.
    const message = [m ? m[5]! : global![2]!];
    while (i + 1 < lines.length) {
      const next = lines[i + 1]!.trimEnd();
      if (next.trim() === '' || indentOf(next) < 2 || SUMMARY.test(next)) break;
      message.push(next.trim());
      i++;
    }
    if (m) {
      const file = workspacePath(m[1]!, ctx) ?? m[1]!.replace(/\\/g, '/');
      out.push(failure({ check: ctx.check, file, line: Number(m[2]), column: Number(m[3]), id: m[4]!, message: message.join('\n') }));
    } else {
      out.push(failure({ check: ctx.check, id: global![1]!, message: message.join('\n') }));
    }
  }
  return out;
}

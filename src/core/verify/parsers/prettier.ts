// Prettier in check mode: `prettier --check` (`-c`) names each file it would reformat on a
// `[warn] FILE` line and ends with `[warn] Code style issues found…`; a file it cannot parse is an
// `[error] FILE: SyntaxError: message (line:col)` line followed by its code frame;
// `--list-different` (`-l`) prints each such file's path alone on a line. One failure per file.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { failure, splitLines, workspacePath } from './common';

const WARN = /^\[warn\] (.+?)\s*$/;
const SUMMARY = /^(?:Code style issues|All matched files|Forgot to run Prettier)/;
const ERROR = /^\[error\] (.+?): (\w*Error): (.*?)(?: \((\d+):(\d+)\))?\s*$/;

/** Whether this is Prettier's check-mode report: its closing `Code style issues` line, or a file it could not parse. */
export function looksLikePrettier(text: string): boolean {
  return /^\[warn\] Code style issues\b/m.test(text) || /^\[error\] \S.*: \w*Error: /m.test(text);
}

const MESSAGE = 'not formatted as Prettier formats it (run Prettier with --write to fix)';

export function parsePrettier(output: string, ctx: ParseContext): Failure[] {
  const out: Failure[] = [];
  const seen = new Set<string>();
  const add = (f: Failure): void => {
    const k = `${f.file ?? ''}\0${f.message}`;
    if (seen.has(k)) return;
    seen.add(k);
    out.push(f);
  };
  // `--check` names files on `[warn]` lines; `--list-different` prints none, only paths (and `[error]` lines).
  const listed = !/^\[warn\] /m.test(output);
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    const warn = WARN.exec(line);
    if (warn && !SUMMARY.test(warn[1]!)) {
      const file = workspacePath(warn[1]!, ctx);
      if (file !== undefined) add(failure({ check: ctx.check, file, id: 'prettier', message: MESSAGE }));
      continue;
    }
    const err = ERROR.exec(line);
    if (err) {
      const file = workspacePath(err[1]!, ctx);
      if (file === undefined) continue;
      add(failure({ check: ctx.check, file, ...(err[4] !== undefined ? { line: Number(err[4]), column: Number(err[5]) } : {}), id: 'prettier', message: `${err[2]}: ${err[3]}` }));
      continue;
    }
    // `--list-different`: a relative path alone on a line, naming a file that exists (never an
    // absolute path: ESLint's stylish report heads its files so, and may share a chain's output).
    if (listed && /^[^\s:[\]/][^\s:]*\.[A-Za-z0-9]+$/.test(line) && existsSync(path.resolve(ctx.cwd ?? ctx.root, line))) {
      const file = workspacePath(line, ctx);
      if (file !== undefined) add(failure({ check: ctx.check, file, id: 'prettier', message: MESSAGE }));
    }
  }
  return out;
}

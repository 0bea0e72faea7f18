// The fallback: one failure from the output's tail, for output no parser understands.
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { splitLines } from './common';

const TAIL_LINES = 30;

/**
 * A failing check (non-zero exit) yields one `exit` failure carrying the last lines of its output;
 * a check that exits 0 yields none, whatever it prints: for a tool no parser understands, the exit
 * code is the only verdict there is.
 */
export function parseGeneric(output: string, ctx: ParseContext): Failure[] {
  if (ctx.exitCode === 0) return [];
  const lines = splitLines(output).map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const tail = lines.slice(-TAIL_LINES).join('\n');
  const code = ctx.exitCode === null ? 'no exit code' : `exit code ${ctx.exitCode}`;
  return [{ check: ctx.check, id: 'exit', message: tail === '' ? `${ctx.check} failed with ${code} and no output` : tail }];
}

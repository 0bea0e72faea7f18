import type { Failure } from '../../types';

export interface ParseContext {
  check: string;
  /** Absolute workspace root, for making paths relative. */
  root: string;
  exitCode: number | null;
}

const TAIL_LINES = 30;

/** One failure from the output's tail, for output no parser understands. */
export function parseGeneric(output: string, ctx: ParseContext): Failure[] {
  if (ctx.exitCode === 0) return [];
  const lines = output.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const tail = lines.slice(-TAIL_LINES).join('\n');
  const code = ctx.exitCode === null ? 'no exit code' : `exit code ${ctx.exitCode}`;
  return [{ check: ctx.check, id: 'exit', message: tail === '' ? `${ctx.check} failed with ${code} and no output` : tail }];
}

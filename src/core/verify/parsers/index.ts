import type { Failure, ParserId } from '../../types';
import type { ParseContext } from './generic';
import { parseGeneric } from './generic';

export type Parser = (output: string, ctx: ParseContext) => Failure[];

const parsers: Partial<Record<ParserId, Parser>> = {
  generic: parseGeneric,
};

/**
 * Parses a check's output. A parser that finds nothing in a failing check's output falls back to
 * one generic failure, so a failing check never reads as green.
 */
export function parseOutput(parser: ParserId, output: string, ctx: ParseContext): Failure[] {
  const p = parsers[parser] ?? parseGeneric;
  const found = p(output, ctx);
  if (found.length === 0 && ctx.exitCode !== 0) return parseGeneric(output, ctx);
  return found;
}

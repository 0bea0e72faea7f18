// The fallback: one failure from the output's tail, for output no parser understands, saying which
// tool printed it (from the check's command, `xo && ava && tsd`) rather than only that it exited.
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { coverageFailures } from './coverage';
import { splitLines } from './common';

const TAIL_LINES = 30;

/** Signs in a tool's own output of the tools a chain commonly runs, for telling which one failed. */
const SIGNS: Readonly<Record<string, RegExp>> = {
  ava: /^\s*✘ \[fail\]: |^\s*\d+ tests? failed\s*$|^\s*(?:Uncaught exception|Unhandled rejection) in /m,
  // tsd and xo print through eslint-formatter-pretty: `✖  5:0  message  rule`.
  tsd: /^\s*✖\s+\d+:\d+\s+.*\bTS\d+\s*$|^\s*✖\s+\d+:\d+\s+.*(?:Parameter type|Argument of type|is declared but|expectType|expectError)/m,
  xo: /^\s*✖\s+\d+:\d+\s+.*\s{2}[@\w/-]+\s*$/m,
  uvu: /^\s*FAIL\s+".*"|^\s*Total:\s+\d+\s*$/m,
  standard: /^standard: Use JavaScript Standard Style/m,
};

/**
 * A coverage gate's own verdict. The gate is a wrapper (`c8 --100 node --test`, `nyc --check-coverage`)
 * or a runner's setting (Jest's `coverageThreshold`), so it is not among the command's tools: without
 * this, a chain's one other tool (`… && tsd`, which never ran) would be named for the gate's failure.
 */
const COVERAGE_GATE = /^ERROR: Coverage for \w+ \([\d.]+%\) does not meet (?:global|per-file) threshold|^Jest: "[^"]+" coverage threshold for \w+ \([\d.]+%\) not met|^Jest: Coverage for \w+ \([\d.]+%\) does not meet "[^"]+" threshold/m;

/**
 * Which of the command's tools printed the output: a coverage gate when its verdict is there; else
 * the last tool whose signs or name the output shows (a chain stops at the step that fails); the
 * only one when there is one; undefined otherwise.
 */
export function toolThatPrinted(tools: readonly string[], text: string): string | undefined {
  if (COVERAGE_GATE.test(text)) return 'the coverage threshold';
  if (tools.length === 1) return tools[0];
  for (const t of [...tools].reverse()) if (SIGNS[t]?.test(text) === true) return t;
  for (const t of [...tools].reverse()) if (new RegExp(`(^|[\\s/'"\`(])${t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([\\s:'"\`)]|$)`, 'm').test(text)) return t;
  return undefined;
}

/**
 * A failing check (non-zero exit) yields one `exit` failure carrying the last lines of its output,
 * headed by the tool that printed them (or the tools the command runs, when the output does not
 * tell which); a check that exits 0 yields none, whatever it prints: for a tool no parser
 * understands, the exit code is the only verdict there is.
 */
export function parseGeneric(output: string, ctx: ParseContext): Failure[] {
  if (ctx.exitCode === 0) return [];
  // A coverage gate's verdict with its table: each file below the threshold, at its uncovered lines.
  const covered = COVERAGE_GATE.test(output) ? coverageFailures(output, ctx) : [];
  if (covered.length > 0) return covered;
  const lines = splitLines(output).map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const tail = lines.slice(-TAIL_LINES).join('\n');
  const code = ctx.exitCode === null ? 'no exit code' : `exit code ${ctx.exitCode}`;
  const tools = ctx.tools ?? [];
  const tool = toolThatPrinted(tools, tail);
  const by = tool !== undefined ? `${tool} failed (${code})` : tools.length > 1 ? `one of ${tools.join(', ')} failed (${code}; the command runs them in turn)` : undefined;
  if (tail === '') {
    const from = tool !== undefined ? ` (${tool})` : tools.length > 1 ? ` (one of ${tools.join(', ')})` : '';
    return [{ check: ctx.check, id: 'exit', message: `${ctx.check} failed with ${code} and no output${from}` }];
  }
  return [{ check: ctx.check, id: 'exit', message: by !== undefined ? `${by}; its output ends:\n${tail}` : tail }];
}

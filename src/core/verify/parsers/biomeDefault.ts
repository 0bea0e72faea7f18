// Biome's default reporter, read for the files it names: Biome 1.x's GitHub reporter prints no line
// for a file that is only formatted differently (2.x prints `title=format`), so a `biome check
// --reporter=github` failing on formatting alone names no file. Each diagnostic of the default
// reporter starts with a header, `src/a.ts:2:12 lint/style/useTemplate  FIXABLE  ━━━` or
// `/abs/src/index.ts format ━━━`, and its first `×` (error), `!` (warning) or `i` (info) line says
// what is wrong.
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { failure, splitLines, workspacePath } from './common';

const HEADER = /^(\S+?)(?::(\d+):(\d+))?\s+([a-z][\w/-]*)(?:\s+[A-Z]+)*\s+━{3,}\s*$/;
const MARK = /^\s+([×!i]) (.*)$/;

/** The error diagnostics of Biome's default reporter, each at the file it names. */
export function parseBiomeDefault(output: string, ctx: ParseContext): Failure[] {
  const lines = splitLines(output);
  const out: Failure[] = [];
  for (let i = 0; i < lines.length; i++) {
    const h = HEADER.exec(lines[i]!.trimEnd());
    if (!h) continue;
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() === '') j++;
    const m = MARK.exec(lines[j] ?? '');
    if (!m || m[1] !== '×') continue;
    const file = workspacePath(h[1]!, ctx) ?? h[1]!.replace(/\\/g, '/');
    out.push(failure({ check: ctx.check, file, ...(h[2] !== undefined ? { line: Number(h[2]), column: Number(h[3]) } : {}), id: h[4]!, message: m[2]!.trim() }));
  }
  return out;
}

/**
 * The command that re-runs a `--reporter=github` Biome command with its default reporter, or
 * undefined when the command has no GitHub reporter to drop.
 */
export function biomeDefaultCommand(command: string): string | undefined {
  const REPORTER = /(^|\s)--reporter(?:=|\s+)github(?=\s|$)/;
  return REPORTER.test(command) ? command.replace(REPORTER, '').trim() : undefined;
}

/**
 * A failing Biome check's failures with every error of its default reporter the GitHub reporter did
 * not print (a format difference under Biome 1.x), each at its file; a failure at no file (the
 * `biome failed` of an output with no line to read) is dropped once a placed one stands for it.
 */
export function withDefaultReport(github: readonly Failure[], defaultOutput: string, ctx: ParseContext): Failure[] {
  const seen = new Set(github.filter((f) => f.file !== undefined).map((f) => `${f.file}\0${f.id ?? ''}`));
  const extra = parseBiomeDefault(defaultOutput, ctx).filter((f) => !seen.has(`${f.file}\0${f.id ?? ''}`));
  const placed = [...github.filter((f) => f.file !== undefined), ...extra];
  return placed.length > 0 ? placed : [...github];
}

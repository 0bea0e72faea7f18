// The parser table, and the rules that hold whatever the tool: a failing check never reads as green.
import { existsSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import stripAnsi from 'strip-ansi';
import type { Failure, ParserId } from '../../types';
import type { ParseContext } from './common';
import { parseBiome, parseOxlint } from './annotations';
import { looksLikeAva, parseAva } from './ava';
import { looksPretty, parseEslint } from './eslint';
import { parseGeneric } from './generic';
import { parseJest } from './jest';
import { locateByTitle, TEST_RUNNERS, unfinishedTests } from './locate';
import { parseMocha } from './mocha';
import { parseNodeTest } from './nodeTest';
import { parseTap } from './tap';
import { looksLikePrettier, parsePrettier } from './prettier';
import { parseTsc } from './tsc';
import { looksLikeUvu, parseUvu } from './uvu';
import { parseVitest } from './vitest';
import { packageDirs } from '../workspaces';

export type Parser = (output: string, ctx: ParseContext) => Failure[];

const parsers: Record<ParserId, Parser> = {
  tsc: parseTsc,
  eslint: parseEslint,
  biome: parseBiome,
  oxlint: parseOxlint,
  mocha: parseMocha,
  jest: parseJest,
  vitest: parseVitest,
  'node-test': parseNodeTest,
  tap: parseTap,
  ava: parseAva,
  uvu: parseUvu,
  prettier: parsePrettier,
  generic: parseGeneric,
};

/**
 * Signs that output is a tool's own, for output whose tool the command does not name (a chain, a
 * test file run by plain `node`): each parser that recognises it reads it. node:test's TAP is
 * node:test's, not plain TAP's.
 */
const RECOGNISERS: readonly [ParserId, (text: string) => boolean][] = [
  ['tsc', (t) => /^\S.*\(\d+,\d+\): error TS\d+:|^\S.*:\d+:\d+ - error TS\d+:/m.test(t)],
  ['eslint', (t) => /^\s*\[\s*\{\s*"filePath"/.test(t) || (/^\s+\d+:\d+\s+(?:error|warning)\s+\S/m.test(t) && /✖ \d+ problems?/.test(t)) || looksPretty(t)],
  ['biome', (t) => /^::(?:error|warning) title=[^,]*,file=[^,]+,line=\d+/m.test(t)],
  ['oxlint', (t) => /^::(?:error|warning) file=[^,]+,line=\d+,endLine=\d+,col=\d+,endColumn=\d+,title=/m.test(t)],
  ['jest', (t) => /^Test Suites:\s/m.test(t) && /^Tests:\s/m.test(t)],
  ['vitest', (t) => /^\s*Test Files\s+\d+ (?:failed|passed)/m.test(t)],
  ['mocha', (t) => /^\s*\d+ failing\s*$/m.test(t) && /^\s*\d+ passing\b/m.test(t)],
  ['node-test', (t) => /^[ℹ#] (?:tests|fail|duration_ms) \d/m.test(t) || /^\s*duration_ms: [\d.]+$/m.test(t)],
  ['tap', (t) => /^TAP version \d+/m.test(t) || /^not ok \d+ /m.test(t)],
  ['ava', looksLikeAva],
  ['uvu', looksLikeUvu],
  ['prettier', looksLikePrettier],
];

/** The parsers whose tool's output this is (see RECOGNISERS), in their table order. */
export function recognisedParsers(output: string): ParserId[] {
  const text = stripAnsi(output);
  const found = RECOGNISERS.filter(([, sees]) => sees(text)).map(([id]) => id);
  return found.includes('node-test') ? found.filter((id) => id !== 'tap') : found;
}

/** Every summary line `re` finds (a chain may run a runner twice) passes `ok`; undefined when there is none. */
function summaries(text: string, re: RegExp, ok: (line: string) => boolean): boolean | undefined {
  const lines = [...text.matchAll(re)].map((m) => m[1] ?? m[0]);
  return lines.length > 0 ? lines.every(ok) : undefined;
}

/** Whether a test runner's own closing summary says that nothing failed (undefined: it printed none). */
const ALL_PASSED: Partial<Record<ParserId, (text: string) => boolean | undefined>> = {
  jest: (t) => summaries(t, /^Tests:\s+(.*)$/gm, (l) => !/\bfailed\b/.test(l) && /\bpassed\b/.test(l)),
  vitest: (t) => summaries(t, /^\s*Tests\s+(\d.*)$/gm, (l) => !/\bfailed\b/.test(l) && /\bpassed\b/.test(l)),
  mocha: (t) => (/^\s*\d+ failing\s*$/m.test(t) ? false : summaries(t, /^\s*(\d+) passing\b/gm, (n) => Number(n) > 0)),
  'node-test': (t) => summaries(t, /^[ℹ#] fail (\d+)\s*$/gm, (n) => n === '0'),
  ava: (t) => (/^\s*\d+ (?:tests? failed|uncaught exceptions?|unhandled rejections?|tests? remained pending)/m.test(t) ? false : summaries(t, /^\s*(\d+) tests? passed\s*$/gm, (n) => Number(n) > 0)),
  uvu: (t) => (/^\s*FAIL\s/m.test(t) ? false : summaries(t, /^\s*Passed:\s+(\d+)\s*$/gm, (n) => Number(n) > 0)),
};

/** A check that exited 0 and whose runner says every test passed has no failure (Jest's `● Console` blocks are output, not failures). */
export function runnerSaysAllPassed(parser: ParserId, output: string, exitCode: number | null): boolean {
  return exitCode === 0 && ALL_PASSED[parser]?.(stripAnsi(output)) === true;
}

function rootPrefixes(root: string): string[] {
  const out = new Set([path.resolve(root) + path.sep]);
  try {
    out.add(realpathSync(root) + path.sep);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return [...out].filter((p) => p.length > 2);
}

/** Messages name workspace files as the failure's `file` does: relative, so the model reads them as such. */
function relativize(message: string, prefixes: readonly string[]): string {
  let m = message;
  for (const p of prefixes) m = m.split(`file://${p}`).join('').split(p).join('');
  return m;
}

function exactKey(f: Failure): string {
  return JSON.stringify([f.check, f.file ?? '', f.line ?? 0, f.column ?? 0, f.id ?? '', f.message]);
}

/**
 * Parses a check's output. Rules, whatever the tool:
 * - a parser that finds nothing in a failing check's output (non-zero exit) falls back to one
 *   generic failure, so a failing check never reads as green;
 * - failures a tool-specific parser finds count even when the check exited 0 (`tsc || true`, a
 *   wrapper script that loses the exit code): the tool said so;
 * - ANSI colour codes never reach a parser;
 * - messages name workspace files relative to the root, as `file` does;
 * - the same failure printed twice at the same place (a runner's inline report and its summary)
 *   counts once;
 * - a check that exited 0 whose test runner's own summary says that every test passed has no
 *   failure, whatever else it printed (console output, a reporter's notes);
 * - a test runner's failure with no line (a mocha timeout prints no stack) gets the line of the
 *   test, found by its title in its file.
 */
export function parseOutput(parser: ParserId, output: string, ctx: ParseContext): Failure[] {
  const p = parsers[parser];
  // Output piped in by hand (`parse`) may still carry colour codes; the runner's is already clean.
  const text = stripAnsi(output);
  const clean: ParseContext = ctx.stdout !== undefined ? { ...ctx, stdout: stripAnsi(ctx.stdout) } : ctx;
  if (runnerSaysAllPassed(parser, text, ctx.exitCode)) return [];
  let located: Failure[];
  if (parser === 'generic') {
    located = [];
  } else {
    const found = inProject(p(text, clean), clean);
    located = TEST_RUNNERS.has(parser) ? locateByTitle(found, clean) : found;
    // Each other part of the check's chain whose output is there is read by its own parser.
    const seen = recognisedParsers(text);
    for (const other of ctx.chain ?? []) {
      if (other === parser || other === 'generic' || !seen.includes(other)) continue;
      const more = inProject(parsers[other](text, clean), clean);
      located.push(...(TEST_RUNNERS.has(other) ? locateByTitle(more, clean) : more));
    }
  }
  if (located.length === 0 && ctx.exitCode !== 0) {
    // Output of another tool than the one named (a chain's other step): every parser that recognises it reads it.
    for (const other of recognisedParsers(text)) {
      if (other === parser) continue;
      const found = parsers[other](text, clean);
      located.push(...(TEST_RUNNERS.has(other) ? locateByTitle(found, clean) : found));
    }
    if (located.length === 0) return parseGeneric(text, clean);
  }
  if (parser === 'generic' && located.length === 0) return parseGeneric(text, clean);
  const seen = new Set<string>();
  const prefixes = rootPrefixes(ctx.root);
  return located
    .map((f) => ({ ...f, message: relativize(f.message, prefixes) }))
    .filter((f) => {
      const k = exactKey(f);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
}

/**
 * A failure's place is a file of the project. A runner that prints paths relative to a project of
 * its own (a Vitest workspace's or `test.projects`' package, `|cli-utils| src/x.test.ts`; a Jest
 * project's `rootDir`) names a file that is not there from the check's folder: it is the one package
 * folder holding that path, when exactly one does. Anything else is left as printed.
 */
function inProject(failures: Failure[], ctx: ParseContext): Failure[] {
  let dirs: string[] | undefined;
  return failures.map((f) => {
    if (f.file === undefined || path.isAbsolute(f.file) || existsSync(path.join(ctx.root, f.file))) return f;
    dirs ??= packageDirs(ctx.root);
    const holders = dirs.filter((d) => d !== '' && existsSync(path.join(ctx.root, d, f.file!)));
    return holders.length === 1 ? { ...f, file: `${holders[0]!.split(path.sep).join('/')}/${f.file}` } : f;
  });
}

/**
 * Failure ids that name no test: the check failed as a whole (`exit`: a failing exit no parser read a
 * failure from; `timeout`: stopped with no test shown running; `spawn`: it never started). Whoever
 * narrows a check to tests, or to the step of a chain that failed, cannot do so from one of these.
 */
export const WHOLE_CHECK_IDS: ReadonlySet<string> = new Set(['exit', 'spawn', 'timeout']);

/**
 * The failures of a check stopped at its timeout: those its output shows before it was stopped
 * (node:test reports each test as it ends), then the tests that never finished, with their file,
 * line and title, each with `message`; the check as one `timeout` failure when its output names no
 * test still running (Jest, Vitest, or not a test runner).
 */
export function timedOutFailures(parser: ParserId, output: string, ctx: ParseContext, message: string): Failure[] {
  const text = stripAnsi(output);
  const before = parser === 'generic' ? [] : parseOutput(parser, text, { ...ctx, exitCode: 0 });
  const hung = unfinishedTests(parser, text, ctx).map((f) => ({ ...f, message: `${message}; this test never finished` }));
  // node:test may report a file it saw die of our stop as failed ("test failed", at line 1) before it
  // ends itself: that file failed by the test of it that never finished, which is reported already.
  const stopped = new Set(hung.map((f) => f.file));
  const own = before.filter((f) => !(f.file !== undefined && f.id === f.file && stopped.has(f.file)));
  return [...own, ...(hung.length > 0 ? hung : [{ check: ctx.check, id: 'timeout', message }])];
}

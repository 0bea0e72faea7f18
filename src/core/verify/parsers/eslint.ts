// ESLint: `--format json` (or json-with-metadata), the default `stylish` text, and the `pretty`
// text of eslint-formatter-pretty, which xo (ESLint underneath) and tsd (type tests) print.
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { extractJson, failure, splitLines, workspacePath } from './common';

interface EslintMessage {
  ruleId: string | null;
  severity: number;
  message: string;
  line?: number;
  column?: number;
  fatal?: boolean;
}

interface EslintFileResult {
  filePath: string;
  messages: EslintMessage[];
}

function isResults(v: unknown): v is EslintFileResult[] {
  return Array.isArray(v) && v.every((r) => typeof r === 'object' && r !== null && typeof (r as EslintFileResult).filePath === 'string' && Array.isArray((r as EslintFileResult).messages));
}

function jsonResults(text: string): EslintFileResult[] | undefined {
  const v = extractJson(text, (x) => isResults(x) || (typeof x === 'object' && x !== null && isResults((x as { results?: unknown }).results)));
  if (v === undefined) return undefined;
  return isResults(v) ? v : (v as { results: EslintFileResult[] }).results;
}

interface Problem {
  file: string;
  line?: number;
  column?: number;
  rule: string | undefined;
  error: boolean;
  message: string;
  /** From eslint-formatter-pretty, where a problem without a rule is tsd's type error, not a fatal one. */
  pretty?: boolean;
}

const IGNORED_NOTE = /^File ignored\b/;
const STYLISH_PROBLEM = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)\s*$/;
const RULE_ID = /^(?:@[\w.-]+\/)?[\w.-]+(?:\/[\w.-]+)*$/;

function stylishProblems(output: string): Problem[] {
  const out: Problem[] = [];
  let file: string | undefined;
  for (const raw of splitLines(output)) {
    const line = raw.trimEnd();
    if (line === '') continue;
    if (!/^\s/.test(line)) {
      // A file heading is an unindented path; the summary (`✖ 3 problems`) is not one.
      file = /^(?:[a-z]:)?[\\/]|^\.{0,2}[\w@.-]*[\\/]|\.\w+$/i.test(line) && !/^✖ \d+ problems?/.test(line) ? line : undefined;
      continue;
    }
    const m = STYLISH_PROBLEM.exec(line);
    if (!m || file === undefined) continue;
    // The rule is the last column, two or more spaces after the message; fatal parse errors have none.
    const parts = m[4]!.split(/\s{2,}/);
    const rule = parts.length > 1 && RULE_ID.test(parts[parts.length - 1]!) ? parts.pop() : undefined;
    out.push({ file, line: Number(m[1]), column: Number(m[2]), rule, error: m[3] === 'error', message: parts.join('  ') });
  }
  return out;
}

/** eslint-formatter-pretty: a file heading `  file:line:col`, then `  ✖  line:col  message  rule` per problem. */
const PRETTY_HEADING = /^ {2}(\S.*?):(\d+):(\d+)\s*$/;
const PRETTY_PROBLEM = /^ {2}([✖⚠])\s+(\d+):(\d+)\s+(.*?)\s*$/;

/** Whether the output is eslint-formatter-pretty's (xo, tsd). */
export function looksPretty(text: string): boolean {
  return /^ {2}\S.*:\d+:\d+\s*\n {2}[✖⚠]\s+\d+:\d+\s/m.test(text);
}

function prettyProblems(output: string): Problem[] {
  const out: Problem[] = [];
  let file: string | undefined;
  for (const raw of splitLines(output)) {
    const heading = PRETTY_HEADING.exec(raw);
    if (heading) {
      file = heading[1];
      continue;
    }
    const m = PRETTY_PROBLEM.exec(raw);
    if (!m || file === undefined) {
      if (raw.trim() === '') file = undefined;
      continue;
    }
    const parts = m[4]!.split(/\s{2,}/);
    const rule = parts.length > 1 && RULE_ID.test(parts[parts.length - 1]!) ? parts.pop() : undefined;
    out.push({ file, line: Number(m[2]), column: Number(m[3]), rule, error: m[1] === '✖', message: parts.join('  '), pretty: true });
  }
  return out;
}

/**
 * Errors are failures; warnings are failures only when ESLint itself failed without an error
 * (`--max-warnings` exceeded), since that is the only way they fail a check.
 */
export function parseEslint(output: string, ctx: ParseContext): Failure[] {
  const json = jsonResults(ctx.stdout ?? output) ?? (ctx.stdout !== undefined ? jsonResults(output) : undefined);
  const problems: Problem[] = json
    ? json.flatMap((r) =>
        r.messages.map((m) => ({
          file: r.filePath,
          ...(m.line !== undefined ? { line: m.line } : {}),
          ...(m.column !== undefined ? { column: m.column } : {}),
          rule: m.ruleId ?? undefined,
          error: m.severity === 2 || m.fatal === true,
          message: m.message,
        })),
      )
    : [...stylishProblems(output), ...prettyProblems(output)];
  // ESLint's note on a file named to it that its ignore patterns skip (a staged lint of a changed
  // file, where the installed ESLint has no --no-warn-ignored) is about the call, not the code.
  const found = problems.filter((p) => p.error || p.rule !== undefined || !IGNORED_NOTE.test(p.message));
  const errors = found.filter((p) => p.error);
  const counted = errors.length > 0 || ctx.exitCode === 0 ? errors : found;
  return counted.map((p) =>
    failure({
      check: ctx.check,
      file: workspacePath(p.file, ctx) ?? p.file.replace(/\\/g, '/'),
      line: p.line,
      column: p.column,
      // A problem without a rule is a fatal one (a parse error): named so, not left blank.
      id: p.rule ?? (p.pretty === true ? 'error' : 'fatal'),
      message: p.message,
    }),
  );
}

// GitHub workflow-command annotations, one line per diagnostic:
// `::error title=RULE,file=PATH,line=L,endLine=…,col=C,endColumn=…::MESSAGE`, with GitHub's escapes
// (`%0A` a newline, `%25` a percent sign; `%3A`/`%2C` in the properties). Biome prints them with
// `--reporter=github`, oxlint with `--format=github` (its message led by `path:line:col: `).
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { failure, splitLines, workspacePath } from './common';

const ANNOTATION = /^::(error|warning|notice)\s+([^:]*)::(.*)$/;

function unescape(text: string, property: boolean): string {
  let t = text.replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
  if (property) t = t.replace(/%3A/gi, ':').replace(/%2C/gi, ',');
  return t.replace(/%25/g, '%');
}

interface Annotation {
  level: string;
  props: Record<string, string>;
  message: string;
}

function annotations(output: string): Annotation[] {
  const out: Annotation[] = [];
  for (const line of splitLines(output)) {
    const m = ANNOTATION.exec(line.trim());
    if (!m) continue;
    const props: Record<string, string> = {};
    for (const kv of m[2]!.split(',')) {
      const i = kv.indexOf('=');
      if (i > 0) props[kv.slice(0, i).trim()] = unescape(kv.slice(i + 1), true);
    }
    out.push({ level: m[1]!, props, message: unescape(m[3]!, false).trim() });
  }
  return out;
}

/**
 * Errors are failures; warnings only when the tool failed with no error (Biome's
 * `--error-on-warnings`, oxlint's `--deny-warnings` or `--max-warnings`), the one way they fail a
 * check. A diagnostic's rule (`lint/suspicious/noDebugger`, `eslint(no-debugger)`) is its id.
 */
function annotationFailures(output: string, ctx: ParseContext, tool: string): Failure[] {
  const all = annotations(output).filter((a) => a.level !== 'notice');
  const errors = all.filter((a) => a.level === 'error');
  const counted = errors.length > 0 || ctx.exitCode === 0 ? errors : all;
  return counted.map((a) => {
    const printed = a.props.file;
    // oxlint repeats the place at the head of the message: `src/a.js:2:1: `.
    const message = printed !== undefined && a.message.startsWith(`${printed}:`) ? a.message.replace(/^[^\n]*?:\d+:\d+:\s*/, '') : a.message;
    return failure({
      check: ctx.check,
      ...(printed !== undefined ? { file: workspacePath(printed, ctx) ?? printed.replace(/\\/g, '/') } : {}),
      ...(a.props.line !== undefined ? { line: Number(a.props.line) } : {}),
      ...(a.props.col !== undefined ? { column: Number(a.props.col) } : {}),
      id: a.props.title ?? tool,
      message,
    });
  });
}

/** Biome (`biome lint|check|ci`), run with `--reporter=github`. */
export function parseBiome(output: string, ctx: ParseContext): Failure[] {
  return annotationFailures(output, ctx, 'biome');
}

/** oxlint, run with `--format=github`. */
export function parseOxlint(output: string, ctx: ParseContext): Failure[] {
  return annotationFailures(output, ctx, 'oxlint');
}

// Which parser reads a command's output: from the tool it runs, through package.json scripts.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ParserId } from '../types';

/** Infers a parser from a command line; test runners win over tsc and eslint in a chain. */
export function inferParser(command: string): ParserId {
  if (/\bvitest\b/.test(command)) return 'vitest';
  if (/\bjest\b/.test(command)) return 'jest';
  if (/\bmocha\b/.test(command)) return 'mocha';
  if (/(^|\s)--test\b/.test(command)) return 'node-test';
  if (/(^|[\s/])(tap|tape)(\s|$)/.test(command)) return 'tap';
  if (/(^|[\s/])tsc(\s|$)/.test(command) || /\bvue-tsc\b/.test(command)) return 'tsc';
  if (/\beslint\b/.test(command)) return 'eslint';
  return 'generic';
}

const SCRIPT_REF = /\b(?:npm run(?:-script)?|npm|yarn(?: run)?|pnpm(?: run)?|bun run)\s+(?:--silent\s+|-s\s+)?([\w:.-]+)/g;

/**
 * The text a script runs, with `npm run x` / `yarn x` / `pnpm x` references to other scripts
 * followed (a few levels), so the runner it ends up calling can be recognized.
 */
export function expandScript(scripts: Record<string, string>, name: string, depth = 0): string {
  const body = scripts[name] ?? '';
  if (depth >= 3) return body;
  return body.replace(SCRIPT_REF, (all, ref: string) => {
    const target = ref === 't' ? 'test' : ref;
    return target !== name && scripts[target] !== undefined ? `${all} (${expandScript(scripts, target, depth + 1)})` : all;
  });
}

/** The parser for a package.json script: the runner it calls, followed through script references. */
export function parserForScript(scripts: Record<string, string>, name: string): ParserId {
  return inferParser(expandScript(scripts, name));
}

function scriptsIn(cwd: string): Record<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(cwd, 'package.json'), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const v = JSON.parse(text) as { scripts?: unknown };
    return typeof v.scripts === 'object' && v.scripts !== null ? (v.scripts as Record<string, string>) : undefined;
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}

/**
 * The parser for a check with none named: a command that runs a package.json script (`npm test`,
 * `yarn lint`) is read by what that script runs; any other by the tool it names.
 */
export function parserForCommand(command: string, cwd: string): ParserId {
  const direct = inferParser(command);
  if (direct !== 'generic') return direct;
  const scripts = new RegExp(SCRIPT_REF.source).test(command) ? scriptsIn(cwd) : undefined;
  if (!scripts) return direct;
  // Expand the command as if it were a script of its own.
  return inferParser(expandScript({ ...scripts, '\0command': command }, '\0command'));
}

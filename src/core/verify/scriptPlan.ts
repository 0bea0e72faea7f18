// How one of the project's scripts becomes a check: the command that runs it (through npm, or
// directly when a machine-readable report can be asked for), the parser that reads its output and
// why, and what a user should know about it (a runner without a parser, a config it cannot load).
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readJsonObjectIfPresent } from '../fileText';
import { load } from 'js-yaml';
import type { ParserId } from '../types';
import type { ScriptStep } from './infer';
import { parserForSteps, resolveScript, splitChain, TEST_RUNNER_IDS, unwrapCommand } from './infer';
import { findExecutable } from './executable';

export interface ScriptPlan {
  command: string;
  parser: ParserId;
  /** Why that parser: the tool the script ends in, the chain it follows, a formatter added. */
  reason: string;
  /** What a user should know: a runner read by the generic parser, a config that needs ts-node, a missing package manager. */
  notes: string[];
  steps: ScriptStep[];
}

/** A line a shell has to read (pipes, redirects, globs, subshells): run through npm as written. */
const SHELL_ONLY = /[|<>`$(){}]|&(?!&)/;
/** Tools a project may run in a script that no parser here reads: their output goes to the generic parser. */
const UNPARSED: Readonly<Record<string, string>> = {
  biome: "Biome's default reporter (a script that is one `biome lint`, `check`, `ci` or `format` call runs with `--reporter=github` instead)",
  oxlint: "oxlint's default format (a script that is one oxlint call runs with `--format=github` instead)",
  xo: 'xo',
  standard: 'standard',
  tsd: 'tsd',
};
/** Mocha reporters that end in the spec reporter's epilogue (`N failing` and the numbered failures). */
const MOCHA_EPILOGUE = new Set(['spec', 'dot', 'min', 'list', 'progress', 'nyan', 'landing']);

function toolOf(command: string): string {
  return (command.split(/\s+/)[0] ?? '').replace(/^.*\//, '');
}

/**
 * A single-command ESLint script, run directly with `--format json` in place of its formatter and
 * without `--fix` (a check must not write): undefined when the script is a chain or needs a shell.
 */
export function eslintJsonCommand(body: string): string | undefined {
  return oneCallRewritten(body, /^(?:\S*\/)?eslint(?:\s|$)/, /^--fix(?:-dry-run)?$|^--(?:fix-type|format|output-file)=/, ['--fix-type', '-f', '--format', '-o', '--output-file'], ['--format', 'json']);
}

/**
 * A script that is one call of a tool (`tool` tested on its line, wrappers unwrapped) with flags
 * dropped and `add` appended: `drop` matches a flag dropped alone, `dropWithValue` names one dropped
 * with the value after it. Undefined for a chain, a shell line or another tool.
 */
function oneCallRewritten(body: string, tool: RegExp, drop: RegExp, dropWithValue: readonly string[], add: readonly string[]): string | undefined {
  if (SHELL_ONLY.test(body) || splitChain(body).length !== 1 || !tool.test(unwrapCommand(body))) return undefined;
  const out: string[] = [];
  const t = body.trim().split(/\s+/);
  for (let i = 0; i < t.length; i++) {
    const a = t[i]!;
    if (dropWithValue.includes(a)) i++;
    else if (!drop.test(a)) out.push(a);
  }
  return [...out, ...add].join(' ');
}

/**
 * A single-command tsc script (not watching), run directly: the same check, and the verifier can
 * then keep its incremental build info in storage (a plain `tsc --noEmit` only; `tsc -b` as written).
 */
export function tscDirectCommand(body: string): string | undefined {
  if (SHELL_ONLY.test(body) || splitChain(body).length !== 1 || unwrapCommand(body) !== body.trim()) return undefined;
  if (!/^(?:\S*\/)?(?:tsc|vue-tsc)(?:\s|$)/.test(body.trim()) || /(?:^|\s)(?:-w|--watch)(?:\s|$)/.test(body)) return undefined;
  return body.trim();
}

/** A single-command ava script, run directly with `--tap` (one result per test, read by the tap parser; in a chain, ava's own reporter is read by the ava parser). */
export function avaTapCommand(body: string): string | undefined {
  if (SHELL_ONLY.test(body) || splitChain(body).length !== 1) return undefined;
  const unwrapped = unwrapCommand(body);
  if (!/^(?:\S*\/)?ava(?:\s|$)/.test(unwrapped) || /(?:^|\s)(?:--tap|-t|--watch|-w)(?:\s|$)/.test(unwrapped)) return undefined;
  return `${body.trim()} --tap`;
}

/**
 * A single-command Biome check (`biome lint`, `check`, `ci`, or `format` in check mode), run directly with
 * `--reporter=github` in place of its reporter (one line per diagnostic, with file, line and rule),
 * and without `--write`/`--fix` (a check must not write): undefined otherwise.
 */
export function biomeGithubCommand(body: string): string | undefined {
  return oneCallRewritten(body, /^(?:\S*\/)?biome\s+(?:lint|check|ci|format)(?:\s|$)/, /^--(?:write|fix|apply|apply-unsafe|unsafe|watch)(?:=|$)|^--reporter=/, ['--reporter'], ['--reporter=github']);
}

/**
 * A single-command oxlint script, run directly with `--format=github` in place of its format (one
 * line per diagnostic, with file, line, column and rule), and without `--fix` and its kin (a check
 * must not write): undefined otherwise.
 */
export function oxlintGithubCommand(body: string): string | undefined {
  return oneCallRewritten(body, /^(?:\S*\/)?oxlint(?:\s|$)/, /^--(?:fix|fix-suggestions|fix-dangerously|watch|init|print-config|rules|silent)(?:=|$)|^(?:--format|-f)=/, ['--format', '-f'], ['--format=github']);
}

const MOCHARC = ['.mocharc.js', '.mocharc.cjs', '.mocharc.mjs', '.mocharc.yaml', '.mocharc.yml', '.mocharc.jsonc', '.mocharc.json'];

/** The reporter mocha's config names (`.mocharc.*` or package.json `mocha`), with the file it is in. */
export function mochaReporter(dir: string): { reporter: string; from: string } | undefined {
  for (const f of MOCHARC) {
    const file = path.join(dir, f);
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    let reporter: unknown;
    if (/\.ya?ml$/.test(f)) reporter = (load(text) as { reporter?: unknown } | null)?.reporter;
    else if (/\.jsonc?$/.test(f)) reporter = /"(?:reporter|R)"\s*:\s*"([^"]+)"/.exec(text)?.[1];
    // A JS config is code: its literal `reporter: 'x'` is read, nothing is run.
    else reporter = /\breporter\s*:\s*['"`]([^'"`]+)['"`]/.exec(text)?.[1];
    // Mocha reads the first config file it finds, in this order.
    return typeof reporter === 'string' ? { reporter, from: f } : undefined;
  }
  const pkg = readJsonObjectIfPresent(path.join(dir, 'package.json'));
  const r = (pkg?.mocha as { reporter?: unknown } | undefined)?.reporter;
  return typeof r === 'string' ? { reporter: r, from: 'package.json mocha' } : undefined;
}

/** Whether `name` resolves from `dir` as Node would find it (its node_modules, then each parent's). */
function installed(name: string, dir: string): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'node_modules', name, 'package.json'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

const JEST_TS_CONFIG = ['jest.config.ts', 'jest.config.mts', 'jest.config.cts'];

/** Jest loads a TypeScript config through ts-node (unless its docblock names another loader): is the project's own there? */
function jestConfigNote(dir: string): string | undefined {
  const f = JEST_TS_CONFIG.find((n) => existsSync(path.join(dir, n)));
  if (f === undefined) return undefined;
  const loader = /@jest-config-loader\s+(\S+)/.exec(readFileSync(path.join(dir, f), 'utf8'))?.[1] ?? 'ts-node';
  return installed(loader, dir)
    ? `${f}: Jest loads it with the project's own ${loader}`
    : `${f}: Jest needs ${loader} to load it and the project does not install it: the check fails until it does (\`npm i -D ${loader}\`)`;
}

/** A mocha run's parser from its reporter (flag, else config); undefined when mocha's own parser reads it. */
function mochaPlan(runner: ScriptStep, dir: string): { parser: ParserId; reason: string } | undefined {
  const flag = /(?:^|\s)(?:--reporter|-R)[=\s]+(\S+)/.exec(runner.command)?.[1];
  const configured = flag === undefined ? mochaReporter(dir) : undefined;
  const reporter = flag ?? configured?.reporter;
  if (reporter === undefined || MOCHA_EPILOGUE.has(reporter) || reporter === 'json') {
    return configured ? { parser: 'mocha', reason: `mocha, reporter \`${configured.reporter}\` (from ${configured.from}), whose summary the mocha parser reads` } : undefined;
  }
  const from = configured ? ` (from ${configured.from})` : '';
  if (reporter === 'tap') return { parser: 'tap', reason: `mocha with its \`tap\` reporter${from}` };
  return { parser: 'generic', reason: `mocha's \`${reporter}\` reporter${from} has no parser here: the generic parser reads its output (every parser that recognises it, else one failure from its tail)` };
}

/** A package manager the scripts call that is not installed: every check through them fails there. */
function packageManagerNotes(scripts: Record<string, string>, steps: readonly ScriptStep[], dir: string): string[] {
  const bodies = [...new Set(steps.map((s) => s.script).filter((s): s is string => s !== undefined))].map((s) => scripts[s] ?? '');
  const out: string[] = [];
  for (const pm of ['pnpm', 'yarn', 'bun']) {
    if (bodies.some((b) => new RegExp(`(^|[\\s;&|])${pm}\\s`).test(b)) && findExecutable(pm, dir) === undefined) {
      out.push(`the scripts call ${pm}, which is not installed (not in node_modules/.bin or on PATH): the check fails where they do`);
    }
  }
  return out;
}

function parserReason(parser: ParserId, steps: readonly ScriptStep[]): string {
  if (parser === 'generic') {
    const tool = steps.find((s) => !s.hook && UNPARSED[toolOf(s.command)] !== undefined);
    if (tool) return `${UNPARSED[toolOf(tool.command)]} has no parser of its own here: the generic parser reads its output (every parser that recognises it, else one failure from its tail)`;
    return steps.length > 1
      ? 'no step names a test runner and a step runs a tool no parser names: the output is read by every parser that recognises it, else as one generic failure from its tail'
      : 'no parser knows this tool: the output is read by every parser that recognises it, else as one generic failure from its tail';
  }
  const runner = [...steps].reverse().find((s) => s.parser === parser);
  // A chain of checkers (`eslint . && prettier -c src`): each part's output is its own tool's, and
  // whichever part failed, the parser that recognises its output reads it.
  const checkers = steps.filter((s) => !s.hook && s.parser !== 'generic');
  if (!TEST_RUNNER_IDS.has(parser) && new Set(checkers.map((s) => s.parser)).size > 1) {
    return `a chain of checkers, each part read by its own parser: ${checkers.map((s) => `\`${s.command}\` (${s.parser}${s.script !== undefined ? `, scripts.${s.script}` : ''})`).join(', then ')}`;
  }
  const why = steps.length > 1 ? `the ${TEST_RUNNER_IDS.has(parser) ? 'test runner' : 'last tool'} in the chain` : 'the tool it runs';
  return `${why}${runner !== undefined ? ` (\`${runner.command}\`${runner.script !== undefined ? ` in scripts.${runner.script}` : ''})` : ''}`;
}

/**
 * The check for the project's script `name`: run through npm as the project runs it (its `pre` and
 * `post` scripts included), or directly for a machine-readable report when it is one ESLint or ava
 * call npm would run nothing around; `viaNpm` is the npm command line for it.
 */
export function planScript(scripts: Record<string, string>, name: string, dir: string, viaNpm: string): ScriptPlan {
  const steps = resolveScript(scripts, name);
  const body = scripts[name]!;
  const notes = [...steps.filter((s) => s.problem !== undefined).map((s) => `${s.script !== undefined ? `scripts.${s.script}: ` : ''}${s.problem}; the check runs it as the project does, and fails there until the script is fixed`)];
  notes.push(...packageManagerNotes(scripts, steps, dir));
  const hooked = scripts[`pre${name}`] !== undefined || scripts[`post${name}`] !== undefined;
  const eslint = hooked ? undefined : eslintJsonCommand(body);
  if (eslint !== undefined) {
    return { command: eslint, parser: 'eslint', reason: 'ESLint, its formatter replaced by `--format json` (and `--fix` left out: a check does not write)', notes, steps };
  }
  const tsc = hooked ? undefined : tscDirectCommand(body);
  if (tsc !== undefined) {
    return { command: tsc, parser: 'tsc', reason: 'tsc, run directly as the script runs it (so a plain check can be incremental)', notes, steps };
  }
  const biome = hooked ? undefined : biomeGithubCommand(body);
  if (biome !== undefined) {
    return { command: biome, parser: 'biome', reason: 'Biome, its reporter replaced by `--reporter=github` (one line per diagnostic, read by the biome parser; `--write` left out: a check does not write)', notes, steps };
  }
  const oxlint = hooked ? undefined : oxlintGithubCommand(body);
  if (oxlint !== undefined) {
    return { command: oxlint, parser: 'oxlint', reason: 'oxlint, its format replaced by `--format=github` (one line per diagnostic, read by the oxlint parser; `--fix` left out: a check does not write)', notes, steps };
  }
  const ava = hooked ? undefined : avaTapCommand(body);
  if (ava !== undefined) {
    return { command: ava, parser: 'tap', reason: 'ava, run with `--tap`: its TAP report is read by the tap parser (ava in a chain is read by the ava parser, from its own reporter)', notes, steps };
  }
  let parser = parserForSteps(steps);
  let reason = parserReason(parser, steps);
  if (parser === 'mocha') {
    const m = mochaPlan([...steps].reverse().find((s) => s.parser === 'mocha')!, dir);
    if (m) ({ parser, reason } = m);
  }
  if (parser === 'jest') {
    const n = jestConfigNote(dir);
    if (n !== undefined) notes.push(n);
  }
  return { command: viaNpm, parser, reason, notes, steps };
}

// Finds a workspace's checks when none are configured (DESIGN §4): its own scripts first (typecheck,
// lint, test), then its tsconfig.json and ESLint config.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckSpec, ParserId } from '../types';
import type { ScriptStep } from './infer';
import { parserForCommand, parserForSteps, resolveScript, splitChain, unwrapCommand } from './infer';
import { findExecutable } from './verifier';

/** Where a check came from and which parser reads it, for `check --explain` and `check --json`. */
export interface CheckOrigin {
  /** The script, config or setting the check comes from: `package.json scripts.lint`, `tsconfig.json`, `fixUntilGreen.checks`. */
  source: string;
  parser: ParserId;
  /** Why that parser: the tool the script ends in, the chain it follows, a formatter added. */
  reason: string;
}

export interface Discovery {
  checks: CheckSpec[];
  /** Why each check was added or left out, for `check` and the run's log. */
  notes: string[];
  /** Per check name, where it came from (DESIGN §4: scripts first, then configs). */
  origins: Record<string, CheckOrigin>;
}

const ESLINT_FLAT = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
const ESLINT_LEGACY = ['.eslintrc', '.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintrc.json'];
/** What `npm init` writes when there are no tests: not a check. */
const NPM_PLACEHOLDER = /no test specified/;

interface PackageJson {
  scripts?: Record<string, string>;
  eslintConfig?: unknown;
}

function readPackageJson(root: string, notes: string[]): PackageJson | undefined {
  const file = path.join(root, 'package.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as PackageJson) : undefined;
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    notes.push(`package.json is not valid JSON (${e.message}): its scripts were not looked at`);
    return undefined;
  }
}

/** Scripts that type-check, in the order looked for. */
const TYPECHECK_SCRIPTS = ['typecheck', 'type-check', 'check-types', 'types:check', 'check:types', 'tsc'];
/** Scripts that run the tests, in the order looked for: the first found is the check. */
const TEST_SCRIPTS = ['test', 'test:unit', 'test:all', 'tests'];
/** `lint:*` scripts that change files or only format: not checks. */
const WRITES = /(?:^|[:-])(?:fix|format|write|prettier)(?:$|[:-])/;
/** A line a shell has to read (pipes, redirects, globs, subshells): run through npm as written. */
const SHELL_ONLY = /[|<>`$(){}]|&(?!&)/;

/** How a chain reads, for the explanation: `test → test-coverage → node test/index.js`. */
function describeSteps(name: string, steps: readonly ScriptStep[]): string {
  const tail = steps.map((s) => (s.script !== undefined && s.script !== name ? `${s.script}: ${s.command}` : s.command));
  return tail.join(' && ');
}

function parserReason(parser: ParserId, steps: readonly ScriptStep[]): string {
  if (parser === 'generic') {
    return steps.length > 1
      ? 'no step names a test runner and a step runs a tool no parser names: the output is read by every parser that recognises it, else as one generic failure from its tail'
      : 'no parser knows this tool: the output is read by every parser that recognises it, else as one generic failure from its tail';
  }
  const runner = [...steps].reverse().find((s) => s.parser === parser);
  const why = steps.length > 1 ? `the ${parser === 'tsc' || parser === 'eslint' ? 'last tool' : 'test runner'} in the chain` : 'the tool it runs';
  return `${why}${runner !== undefined ? ` (\`${runner.command}\`${runner.script !== undefined ? ` in scripts.${runner.script}` : ''})` : ''}`;
}

/**
 * A single-command ESLint script, run directly with `--format json` in place of its formatter and
 * without `--fix` (a check must not write): undefined when the script is a chain or needs a shell.
 */
export function eslintJsonCommand(body: string): string | undefined {
  if (SHELL_ONLY.test(body) || splitChain(body).length !== 1) return undefined;
  const unwrapped = unwrapCommand(body);
  if (!/^(?:\S*\/)?eslint(?:\s|$)/.test(unwrapped)) return undefined;
  const out: string[] = [];
  const t = body.trim().split(/\s+/);
  for (let i = 0; i < t.length; i++) {
    const a = t[i]!;
    if (a === '--fix' || a === '--fix-dry-run' || a.startsWith('--fix-type')) {
      if (a === '--fix-type') i++;
      continue;
    }
    if (a === '-f' || a === '--format' || a === '-o' || a === '--output-file') {
      i++;
      continue;
    }
    if (a.startsWith('--format=') || a.startsWith('--output-file=')) continue;
    out.push(a);
  }
  return [...out, '--format', 'json'].join(' ');
}

export function discoverChecks(root: string): Discovery {
  const checks: CheckSpec[] = [];
  const notes: string[] = [];
  const origins: Record<string, CheckOrigin> = {};
  const has = (f: string): boolean => existsSync(path.join(root, f));
  const own = (exe: string): boolean => findExecutable(exe, root) !== undefined;
  const pkg = readPackageJson(root, notes);
  const scripts: Record<string, string> = {};
  for (const [k, v] of Object.entries(pkg?.scripts ?? {})) if (typeof v === 'string' && v.trim() !== '') scripts[k] = v;

  /** A check that runs the project's script `name` (through npm, or directly when it is one tool call that can be). */
  const addScript = (name: string, kind: string, direct?: { command: string; parser: ParserId; reason: string }): void => {
    const steps = resolveScript(scripts, name);
    const parser = direct?.parser ?? parserForSteps(steps);
    const command = direct?.command ?? (name === 'test' ? 'npm test --silent' : `npm run ${name} --silent`);
    checks.push({ name, command, parser });
    const reason = direct?.reason ?? parserReason(parser, steps);
    origins[name] = { source: `package.json scripts.${name}`, parser, reason };
    notes.push(`${name}: package.json scripts.${name} ("${scripts[name]}")${steps.length > 1 ? `, resolved to ${describeSteps(name, steps)}` : ''}; ${kind}, read with the ${parser} parser: ${reason}`);
    for (const st of steps) if (st.problem !== undefined) notes.push(`${name}: ${st.script !== undefined ? `scripts.${st.script}: ` : ''}${st.problem}; the check runs it as the project does, and fails there until the script is fixed`);
  };

  // Type check: the project's own script, else its tsconfig.json.
  const typecheck = TYPECHECK_SCRIPTS.find((n) => scripts[n] !== undefined);
  if (typecheck !== undefined) {
    addScript(typecheck, 'the project\'s own type check');
  } else if (has('tsconfig.json')) {
    if (own('tsc')) {
      checks.push({ name: 'tsc', command: 'tsc --noEmit -p tsconfig.json', parser: 'tsc' });
      origins.tsc = { source: 'tsconfig.json (no typecheck script)', parser: 'tsc', reason: 'the workspace\'s own tsc' };
      notes.push('tsc: tsconfig.json found and no typecheck script; type check with the workspace\'s own tsc');
    } else {
      notes.push('tsc: tsconfig.json found but no tsc is installed (node_modules/.bin or PATH): not checked');
    }
  }

  // Lint: the project's `lint` script (which usually runs its `lint:*`), else each `lint:*`, else its ESLint config.
  const lintScripts = scripts.lint !== undefined ? ['lint'] : Object.keys(scripts).filter((n) => n.startsWith('lint:') && !WRITES.test(n.slice(5)));
  for (const name of lintScripts) {
    // Run directly only when npm would run nothing else around it (its `prelint`/`postlint` scripts).
    const json = scripts[`pre${name}`] === undefined && scripts[`post${name}`] === undefined ? eslintJsonCommand(scripts[name]!) : undefined;
    if (json !== undefined) {
      addScript(name, 'the project\'s own lint, run directly for its JSON report', {
        command: json,
        parser: 'eslint',
        reason: 'ESLint, its formatter replaced by `--format json` (and `--fix` left out: a check does not write)',
      });
    } else {
      addScript(name, 'the project\'s own lint');
    }
  }
  const eslintConfig = [...ESLINT_FLAT, ...ESLINT_LEGACY].find(has) ?? (pkg?.eslintConfig !== undefined ? 'package.json#eslintConfig' : undefined);
  if (lintScripts.length > 0) {
    if (eslintConfig !== undefined) notes.push(`eslint: ${eslintConfig} found, but the project lints with its own script${lintScripts.length > 1 ? 's' : ''} (${lintScripts.join(', ')}): that is what runs`);
  } else if (eslintConfig !== undefined) {
    if (own('eslint')) {
      checks.push({ name: 'eslint', command: 'eslint --format json .', parser: 'eslint' });
      origins.eslint = { source: `${eslintConfig} (no lint script)`, parser: 'eslint', reason: 'ESLint with `--format json`' };
      notes.push(`eslint: ${eslintConfig} found and no lint script; lint with the workspace's own eslint, JSON report`);
    } else {
      notes.push(`eslint: ${eslintConfig} found but no eslint is installed: not checked`);
    }
  }

  const testScript = TEST_SCRIPTS.find((n) => scripts[n] !== undefined);
  if (testScript !== undefined) {
    if (NPM_PLACEHOLDER.test(scripts[testScript]!)) {
      notes.push(`test: package.json's ${testScript} script is npm's "no test specified" placeholder: not a check`);
    } else {
      addScript(testScript, 'the project\'s own tests');
    }
  }
  // A tool the project's scripts already run (a `build: tsc` in its test chain) is not run a second time by inference.
  const fromScript = (n: string): boolean => origins[n]?.source.startsWith('package.json') === true;
  const scripted = new Set(Object.keys(origins).filter(fromScript).flatMap((n) => resolveScript(scripts, n).map((st) => st.parser)));
  for (const tool of ['tsc', 'eslint'] as const) {
    const i = checks.findIndex((c) => c.name === tool && !fromScript(tool));
    if (i >= 0 && scripted.has(tool)) {
      checks.splice(i, 1);
      delete origins[tool];
      notes.push(`${tool}: the project's scripts already run ${tool === 'tsc' ? 'tsc' : 'eslint'}: not run a second time`);
    }
  }
  if (checks.length === 0) notes.push('nothing found to check: no typecheck, lint or test script, tsconfig.json or ESLint config; set fixUntilGreen.checks');
  return { checks, notes, origins };
}

/**
 * Where each check comes from and which parser reads it: the discovery's record for discovered
 * checks; for configured ones, the setting (or flag) and the parser named or inferred.
 */
export function explainChecks(root: string, checks: readonly CheckSpec[], discovered: boolean, configuredFrom = 'fixUntilGreen.checks'): Record<string, CheckOrigin> {
  const found = discovered ? discoverChecks(root).origins : {};
  const out: Record<string, CheckOrigin> = {};
  for (const c of checks) {
    const known = found[c.name];
    if (known !== undefined) {
      out[c.name] = known;
      continue;
    }
    const cwd = path.resolve(root, c.cwd ?? '.');
    const parser = c.parser ?? parserForCommand(c.command, cwd);
    out[c.name] = {
      source: discovered ? 'discovered' : configuredFrom,
      parser,
      reason: c.parser !== undefined ? 'the parser the check names' : `inferred from the command${parser === 'generic' ? ': no parser names its tool, so the output is read by every parser that recognises it, else as one generic failure' : ''}`,
    };
  }
  return out;
}

/** The configured checks, or the discovered ones when none are configured. */
export function resolveChecks(root: string, configured: readonly CheckSpec[]): Discovery & { discovered: boolean } {
  if (configured.length > 0) return { checks: [...configured], notes: [], origins: {}, discovered: false };
  return { ...discoverChecks(root), discovered: true };
}

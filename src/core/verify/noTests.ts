// A test check that ran no test is not a pass: green needs evidence, and a runner whose own summary
// says it executed 0 tests (its file pattern matched nothing, `tsx --test` on Node 20 finding no
// `.ts` file, every test filtered out) proves nothing about the code. Such a check fails with one
// `no-tests` failure naming the runner and the command, unless the project opted in explicitly
// (`--passWithNoTests`, in the command, its scripts or its Jest/Vitest config): then it passes and
// the log says why.
import * as path from 'node:path';
import { readTextIfPresent } from '../fileText';
import type { Failure, ParserId } from '../types';
import { expandScript, scriptsIn } from './infer';

/** Each runner's own words for "0 tests ran": its summary line. */
const ZERO: Partial<Record<ParserId, RegExp>> = {
  'node-test': /^[ℹ#] tests 0\s*$/m,
  tap: /^(?:1\.\.0(?:\s.*)?|# No tests found.*)$/m,
  mocha: /^\s*0 passing\b.*$/m,
  jest: /^(?:No tests found, exiting with code \d+|Tests:\s+0 total)\s*$/m,
  vitest: /^(?:No test files found, exiting with code \d+|\s*Tests\s+no tests)\s*$/m,
  uvu: /^\s*Total:\s+0\s*$/m,
  ava: /^\s*✘ Couldn[’']t find any files to test\s*$/m,
};

/** Signs that a runner's summary shows tests after all (mocha's `0 passing` beside `2 failing`). */
const SOME: Partial<Record<ParserId, RegExp>> = {
  mocha: /^\s*\d+ failing\s*$/m,
  tap: /^(?:not )?ok \d+\b/m,
};

const RUNNER_NAMES: Partial<Record<ParserId, string>> = { 'node-test': 'node:test' };

/** The runner's summary line saying it ran no test, or undefined. */
export function noTestsLine(parser: ParserId, output: string): string | undefined {
  const zero = ZERO[parser]?.exec(output);
  if (!zero || SOME[parser]?.test(output) === true) return undefined;
  return zero[0].trim().replace(/\s+/g, ' ');
}

const OPT_IN = /--passWithNoTests\b|--pass-with-no-tests\b|\bpassWithNoTests["']?\s*:\s*true\b/;
const CONFIGS = ['package.json', ...['jest', 'vitest', 'vite'].flatMap((n) => ['js', 'ts', 'mjs', 'cjs', 'mts', 'cts', 'json'].map((e) => `${n}.config.${e}`))];

/** Whether the project says that no test is fine: `--passWithNoTests` in the command or a script it runs, or in its Jest/Vitest config. */
export function allowsNoTests(command: string, cwd: string): boolean {
  const scripts = scriptsIn(cwd) ?? {};
  if (OPT_IN.test(expandScript({ ...scripts, '\0command': command }, '\0command'))) return true;
  return CONFIGS.some((f) => OPT_IN.test(readTextIfPresent(path.join(cwd, f)) ?? ''));
}

/**
 * The failures of a full run of a check: those read, or, when the runner's summary says it ran no
 * test and nothing else placed a failure, one `no-tests` failure. `allowed` is undefined when the
 * run counts as is; else the line of the summary the project's opt-in let pass.
 */
export function withNoTests(spec: { name: string; command: string }, parser: ParserId, output: string, cwd: string, failures: Failure[]): { failures: Failure[]; allowed?: string } {
  if (failures.some((f) => f.id !== 'exit')) return { failures };
  const line = noTestsLine(parser, output);
  if (line === undefined) return { failures };
  if (allowsNoTests(spec.command, cwd)) return { failures, allowed: line };
  const runner = RUNNER_NAMES[parser] ?? parser;
  return {
    failures: [
      {
        check: spec.name,
        id: 'no-tests',
        message: `${spec.name}: ${runner} ran no tests (\`${spec.command}\`; its summary: "${line}"). A test check that runs no test proves nothing: make its pattern find the tests, or, if none is intended, pass --passWithNoTests (Jest, Vitest) or remove the check.`,
      },
    ],
  };
}

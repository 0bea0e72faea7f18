// Whether a staged step's selection of test files is the whole suite (./stager): then the command
// itself runs instead of a narrowed run, and that run is the full test run, which the gate takes as
// it is (and which the check's held pre-started process may serve: ./preStarted).
import * as path from 'node:path';
import { scriptsIn } from '../infer';
import { splitCommand } from '../runner';
import { isTestFile, sourceFiles } from './related';

/**
 * Whether `selected` holds every test file of the check's folder (as node --test and the usual
 * layouts name them). Not where the command is an npm script with `pre`/`post` scripts (the staged
 * run skips them, the command would not).
 */
export function wholeSuite(command: string, cwd: string, selected: ReadonlySet<string>): { tests: string[]; note: string } | undefined {
  if (selected.size === 0) return undefined;
  const tests = sourceFiles(cwd).filter(isTestFile);
  if (tests.length === 0 || tests.some((t) => !selected.has(t)) || hasScriptHooks(command, cwd)) return undefined;
  return { tests, note: `the failing and related test files are all ${tests.length} test file(s) there are: the command ran itself, the full test run` };
}

/** Whether the command runs a package.json script that npm runs with a `pre` or `post` script around it. */
function hasScriptHooks(command: string, cwd: string): boolean {
  const argv = splitCommand(command);
  if (!argv || !['npm', 'yarn', 'pnpm'].includes(path.basename(argv[0] ?? ''))) return false;
  const scripts = scriptsIn(cwd) ?? {};
  const names = argv.slice(1).map((a) => (a === 't' ? 'test' : a));
  return names.some((n) => scripts[`pre${n}`] !== undefined || scripts[`post${n}`] !== undefined);
}

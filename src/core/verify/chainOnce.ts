// Each distinct command once per check pass (issue 39): a test check whose command, or the script it
// runs, is a chain (`eslint src && node --test`, `pnpm lint && vitest run`) whose parts are also
// checks of their own (the lint, the type check) runs those parts once, as their own checks. The test
// check runs the rest of its chain alone (beside them: ./chainRun), which stands for the chain once each passed. A static checker
// answers the same twice on the same bytes, so the chain would have passed those parts, and the rest
// prints what it would have printed after them. Where one of them did not pass, the test check runs
// its whole chain as before (the chain's failures are then its own, as they always were). Only parts
// that write nothing are taken out: a build (an emitting tsc) stays in its place in the chain. npm's
// `pre` script counts as the chain's first steps (a `pretest` lint is the lint check's too, and a
// `pretest` build stays first); a script npm runs a `post` script after runs whole.
import * as path from 'node:path';
import type { CheckResult, CheckSpec, ParserId } from '../types';
import { biomeGithubCommand, eslintJsonCommand, oxlintGithubCommand, tscDirectCommand } from './scriptPlan';
import { packageScripts, stepsWithPre } from './staged/commands';
import { writesFiles } from './writers';

/**
 * Checkers that answer the same twice on the same bytes: one of their runs stands for another, and the
 * verifier does not re-run them to look for flakes. A formatter in check mode (`prettier -c`) is one,
 * and so is a lint that chains checkers ending in it (`eslint . && prettier -c src`, read with the
 * prettier parser): a test script that runs that lint first (`pnpm lint && vitest run`) runs it once.
 */
export const STATIC_PARSERS: ReadonlySet<ParserId> = new Set(['tsc', 'eslint', 'biome', 'oxlint', 'prettier']);
const TEST_PARSERS: ReadonlySet<ParserId> = new Set(['jest', 'vitest', 'mocha', 'node-test', 'tap', 'ava', 'uvu']);

/** A test check's chain with the parts that are checks of their own taken out. */
export interface ChainOnce {
  /** Each part taken out and the check that runs it, in the chain's order. */
  parts: { part: string; check: string }[];
  /** The rest of the chain, run as the check's command once those checks passed. */
  rest: string;
}

const norm = (s: string): string => s.trim().replace(/\s+/g, ' ');

/** The script a command runs (`npm run lint --silent`, `pnpm lint`, `yarn run lint`, `npm test`), or undefined. */
function scriptCalled(command: string): string | undefined {
  const t = norm(command)
    .split(' ')
    .filter((a) => a !== '--silent' && a !== '-s');
  if (!['npm', 'pnpm', 'yarn'].includes(t[0] ?? '')) return undefined;
  const rest = t[1] === 'run' || t[1] === 'run-script' ? t.slice(2) : t.slice(1);
  if (rest.length !== 1) return undefined;
  if (t[0] === 'npm' && t[1] !== 'run' && t[1] !== 'run-script') return rest[0] === 'test' || rest[0] === 't' ? 'test' : undefined;
  return rest[0];
}

/** What a check runs, as the command lines that stand for it (its command; the script it was planned from, and calls of that script). */
function linesOf(check: CheckSpec, scripts: Record<string, unknown>): Set<string> {
  const lines = new Set([norm(check.command)]);
  const plain = (s: string): boolean => typeof scripts[s] === 'string' && scripts[`pre${s}`] === undefined && scripts[`post${s}`] === undefined;
  const add = (s: string): void => {
    lines.add(norm(scripts[s] as string));
    lines.add(`npm run ${s}`);
    lines.add(`pnpm ${s}`);
    lines.add(`pnpm run ${s}`);
    lines.add(`yarn ${s}`);
    lines.add(`yarn run ${s}`);
  };
  const called = scriptCalled(check.command);
  if (called !== undefined && plain(called)) add(called);
  for (const s of Object.keys(scripts)) {
    if (!plain(s)) continue;
    const body = scripts[s] as string;
    const planned = [eslintJsonCommand(body), tscDirectCommand(body), biomeGithubCommand(body), oxlintGithubCommand(body)];
    if (planned.some((p) => p !== undefined && norm(p) === norm(check.command))) add(s);
  }
  return lines;
}

/**
 * The parts of `spec`'s chain that other checks of the pass run (static checkers in the same folder,
 * writing nothing), and the rest; undefined where no part is, with `reason` where the chain cannot
 * be taken apart although a part is another check's.
 */
export function chainOnce(spec: CheckSpec, checks: readonly CheckSpec[], root: string, parserOf: (c: CheckSpec) => ParserId): ChainOnce | undefined {
  if (!TEST_PARSERS.has(parserOf(spec))) return undefined;
  const cwd = path.resolve(root, spec.cwd ?? '.');
  // npm's `pre` script runs first, as a chain's first steps (`pretest: npm run build && npm run lint`):
  // its lint is the lint check's as much as a lint in the script itself is.
  const chain = stepsWithPre(spec.command, cwd);
  if ('reason' in chain) return undefined;
  const scripts = packageScripts(cwd) ?? {};
  const others = checks.filter((c) => c.name !== spec.name && path.resolve(root, c.cwd ?? '.') === cwd && STATIC_PARSERS.has(parserOf(c)));
  const standsFor = others.map((c) => ({ check: c.name, lines: linesOf(c, scripts) }));
  const parts: ChainOnce['parts'] = [];
  const rest: string[] = [];
  for (const step of chain.steps) {
    const line = norm(step);
    const called = scriptCalled(step);
    const viaScript = called !== undefined && typeof scripts[called] === 'string' && scripts[`pre${called}`] === undefined && scripts[`post${called}`] === undefined ? norm(scripts[called] as string) : undefined;
    const by = standsFor.find((o) => o.lines.has(line) || (viaScript !== undefined && o.lines.has(viaScript)));
    // A part that writes (an emitting build) stays: what it writes is read by the parts after it.
    if (by && writesFiles(viaScript ?? line, cwd) === undefined) parts.push({ part: step, check: by.check });
    else rest.push(step);
  }
  if (parts.length === 0 || rest.length === 0) return undefined;
  return { parts, rest: rest.join(' && ') };
}

/** The sentence `check --explain` and the trace say of it. */
export function chainOnceNote(spec: CheckSpec, once: ChainOnce): string {
  const parts = once.parts.map((p) => `\`${p.part}\` (the check ${p.check})`).join(', ');
  return `${spec.name}: its chain's ${parts} run${once.parts.length > 1 ? '' : 's'} once per pass, as ${once.parts.length > 1 ? 'those checks' : 'that check'}; ${spec.name} runs the rest of its chain alone (\`${once.rest}\`, beside ${once.parts.length > 1 ? 'them' : 'it'} where checks run side by side and it writes nothing), which stands for the chain once ${once.parts.length > 1 ? 'they pass' : 'it passes'}; where ${once.parts.length > 1 ? 'one does' : 'it does'} not, ${spec.name} runs its whole chain as written`;
}

/** Whether every check standing for a part passed (then the rest alone is the chain's run). */
export function partsPassed(results: readonly CheckResult[]): boolean {
  return results.every((r) => !r.cancelled && !r.timedOut && r.exitCode === 0 && r.failures.length === 0);
}

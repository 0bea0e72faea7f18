// The flake confirmation of a chained test check re-runs only the step that failed (issue 39). A
// failing test check is re-run to call its flakes; where its command is a chain (`pretest: bundt`
// then `uvu test`; `rimraf build && tsc` then `c8 mocha test/*.mjs`; `xo && node --test … && tsc`),
// re-running the whole chain repeats a build and a lint that cannot change a test's failure: they
// ran and passed in the run being confirmed (`&&` reached the runner), and their output (a build's
// files) is left in place exactly as that run left it. So the re-run runs the runner's step as
// written (through a shell where it needs one: a glob), then the steps after it: those run only where
// the runner passes again (`&&`), which is exactly when the whole re-run's verdict depends on them, so
// the verdict is the whole re-run's. This module is the one place that says which step of a check's
// chain produced its failures; where that cannot be told apart (the chain uses `||`, `;`, pipes; the
// output does not show that the runner ran and printed every failure; a step before it sets up state
// the tests may change, a service or a database, resets files from git, or clears files no build
// after it writes again), the whole chain re-runs, and the check's note says why. Only with staged
// checks on (`stagedChecks`, as the targeted confirmation): off, every re-run is the command as written.
import type { ParserId } from '../types';
import { inferParser, parserForCommand, resolveScript, scriptsIn } from './infer';
import { parseOutput, recognisedParsers, WHOLE_CHECK_IDS } from './parsers/index';
import { TEST_RUNNERS } from './parsers/locate';
import type { Attempt, Confirmed } from './staged/attempt';
import { confirm, looseKey, ranClean } from './staged/attempt';
import { stepsWithPre } from './staged/commands';
import { writesFiles } from './writers';

/** Which step of a check's chain produced its failures, and what its confirmation re-runs. */
export type FailingStep =
  /** `step` (as written) failed; `before` ran and passed first; `after` never ran. `command` is what the re-run runs. */
  | { kind: 'step'; step: string; before: string[]; pre: number; after: string[]; command: string }
  /** A chain whose failing step cannot be told apart: the whole chain re-runs. */
  | { kind: 'whole'; reason: string }
  /** No chain: the command is the runner's step. */
  | { kind: 'none' };

/** Removers: with a build after them, a clean build; alone, they clear what the tests may create. */
const REMOVES = /^(?:\S*\/)?(?:rimraf|del-cli|del|rm|shx\s+rm|gts\s+clean)(?:\s|$)/;

/**
 * Steps that set up state the tests read and may change (a service, a database, files reset from
 * git): the first run's tests ran against a fresh one, a re-run without the step would not.
 */
const SETUP = /^(?:\S*\/)?(?:docker(?:-compose)?|podman|prisma\s+(?:migrate|db)|knex\s+(?:migrate|seed)|sequelize(?:-cli)?\s+(?:db:|seed)|typeorm|supabase\s+(?:start|db)|git\s+(?:clean|checkout|reset|restore|stash))(?:\s|$)/;

/**
 * The step of `command`'s chain (npm's `pre` script's steps first) whose failures `first` shows, or
 * why it cannot be told apart. `check`/`root`/`cwd` are the first attempt's parse context.
 */
export function failingStep(command: string, parser: ParserId, first: Attempt, ctx: { check: string; root: string; cwd: string }): FailingStep {
  const chain = stepsWithPre(command, ctx.cwd, true);
  if ('reason' in chain) return isChain(command, ctx.cwd) ? { kind: 'whole', reason: chain.reason === 'the command is not a chain of plain steps' ? 'the chain uses more than `&&` (`||`, `;`, a pipe, a subshell)' : chain.reason } : { kind: 'none' };
  if (!TEST_RUNNERS.has(parser)) return { kind: 'whole', reason: `a ${parser} check's output does not say which step of its chain failed` };
  const runs = chain.steps.flatMap((s, i) => (parserForCommand(s, ctx.cwd) === parser ? [i] : []));
  if (runs.length !== 1) return { kind: 'whole', reason: runs.length === 0 ? `no step of the chain runs ${parser} itself` : `${runs.length} steps of the chain run ${parser}` };
  const at = runs[0]!;
  const whose = runnerFailed(parser, first, ctx);
  if (whose !== undefined) return { kind: 'whole', reason: whose };
  const before = chain.steps.slice(0, at);
  const stateful = statefulBefore(before, ctx.cwd);
  if (stateful !== undefined) return { kind: 'whole', reason: stateful };
  // npm's `post` script runs after the script's last step, as the steps after the runner do.
  const after = [...chain.steps.slice(at + 1), ...(chain.post ?? [])];
  const step = chain.steps[at]!;
  return { kind: 'step', step, before, pre: chain.pre, after, command: [step, ...after].join(' && ') };
}

/**
 * Why `first`'s failures are not shown to be the runner's own (undefined where they are): the runner
 * printed its summary (it ran, so every step before it passed) and its own parser reads every
 * failure, each a test's (a file and a title), in output that was not cut.
 */
function runnerFailed(parser: ParserId, first: Attempt, ctx: { check: string; root: string; cwd: string }): string | undefined {
  const { r, failures } = first;
  if (r.exitCode === 0 || r.exitCode === null || failures.length === 0) return 'the chain failed without a test failure to re-run';
  if (r.truncated || first.incomplete) return 'its output was cut: which step failed is not shown';
  if (!recognisedParsers(r.output).includes(parser)) return `its output does not show ${parser} ran: a step before it may have failed`;
  if (failures.some((f) => f.file === undefined || f.id === undefined || WHOLE_CHECK_IDS.has(f.id))) return `a failure is not one of ${parser}'s tests: which step failed is not shown`;
  const own = new Set(parseOutput(parser, r.output, { check: ctx.check, root: ctx.root, cwd: ctx.cwd, exitCode: r.exitCode }).map(looseKey));
  return failures.every((f) => own.has(looseKey(f))) ? undefined : `a failure is not read from ${parser}'s own output: which step failed is not shown`;
}

/**
 * Why the steps before the runner must run again with it (undefined where their effects, left in
 * place, stand for another run of them): one sets up a service, a database or files reset from git;
 * or one removes files and no build after it writes them again (`rimraf tmp && mocha`: the tests
 * may create what it cleared, and their re-run would find it). `rimraf build && tsc` is a clean build.
 */
function statefulBefore(before: readonly string[], cwd: string): string | undefined {
  const scripts = scriptsIn(cwd) ?? {};
  const commands = before.flatMap((step) => resolveScript({ ...scripts, '\0step': step }, '\0step').map((s) => s.command));
  const setup = commands.find((c) => SETUP.test(c) && inferParser(c) === 'generic');
  if (setup !== undefined) return `\`${setup}\`, run before the tests, sets up state they may change (a service, a database, files reset from git): it runs again with them`;
  const cleared = commands.findIndex((c, i) => REMOVES.test(c) && !commands.slice(i + 1).some((d) => !REMOVES.test(d) && writesFiles(d, cwd) !== undefined));
  return cleared < 0 ? undefined : `\`${commands[cleared]!}\`, run before the tests, removes files no build after it writes again: the tests may create them, so it runs again with them`;
}

/** What the check's note says its confirmation re-ran (`targeted`: the failing tests only, by the step's runner). */
export function confirmNote(s: FailingStep, targeted: boolean): string | undefined {
  if (s.kind === 'none' || (s.kind === 'whole' && targeted)) return undefined;
  if (s.kind === 'whole') return `confirmed by re-running the whole chain: ${s.reason}`;
  const pre = s.before.slice(0, s.pre).map((b) => `\`${b}\``);
  const own = s.before.slice(s.pre).map((b) => `\`${b}\``);
  const ran = [pre.length > 0 ? `its pre script's ${pre.join(', ')}` : '', own.length > 0 ? `its chain's ${own.join(', ')}` : ''].filter((x) => x !== '').join(' and ');
  const after = s.after.length > 0 ? ', then the chain\'s steps after it where it passed' : '';
  return `confirmed by re-running ${targeted ? `the failing tests with the runner of \`${s.step}\`` : `\`${s.step}\``} alone${after}: ${ran} ran once in this pass and passed, their output left in place`;
}

/** The check's note: its parts joined, or nothing (`{}`) where none is said. */
export function notes(...parts: (string | undefined)[]): { note?: string } {
  const said = parts.filter((p): p is string => p !== undefined && p !== '');
  return said.length > 0 ? { note: said.join('; ') } : {};
}

/**
 * A targeted confirmation (the runner narrowed to the failing tests) that found every failure flaky
 * stands for the chain only once the chain's steps after the runner, which the first run never
 * reached, pass too: run now, as the whole re-run would have run them. Where they fail, the check
 * passed in no run: every failure of the first run counts, as the whole re-run decides.
 */
export async function afterSteps(first: Attempt, targeted: Confirmed, step: FailingStep, run: (command: string) => Promise<Attempt>): Promise<{ confirmed: Confirmed; note?: string }> {
  if (step.kind !== 'step' || step.after.length === 0 || targeted.counted.length > 0 || first.failures.length === 0) return { confirmed: targeted };
  const command = step.after.join(' && ');
  const a = await run(command);
  if (a.r.cancelled) return { confirmed: { ...targeted, attempts: [...targeted.attempts, a] } };
  if (ranClean(a)) return { confirmed: { ...targeted, attempts: [...targeted.attempts, a] }, note: `the chain's steps after the runner (\`${command}\`) ran once the re-run passed, and passed` };
  const whole = confirm([first, a]);
  return { confirmed: { ...whole, attempts: [...targeted.attempts, a] }, note: `the chain's steps after the runner (\`${command}\`) failed once the re-run passed: the check passed in no run, so its first run's failures count` };
}

/** Whether a command runs more than one command (its npm scripts followed, `pre`/`post` scripts included). */
function isChain(command: string, cwd: string): boolean {
  return resolveScript({ ...(scriptsIn(cwd) ?? {}), '\0step': command }, '\0step').length > 1;
}

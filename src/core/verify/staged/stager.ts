// Staged checks (DESIGN §4, `stagedChecks`): what a non-final step runs of each check. A tsc check
// runs warm (./warmTsc); ESLint lints the changed files and carries the failures of the others; a
// test check runs the previously failing test files and those related to the changed files. A check
// that cannot be narrowed runs in full, and says why. Green is never decided here: when every
// staged check passes, the verifier runs every check in full.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckResult, CheckSpec, Failure, Logger, ParserId } from '../../types';
import { parseOutput, WHOLE_CHECK_IDS } from '../parsers/index';
import { splitCommand } from '../runner';
import { checkRecordDir } from '../containment';
import type { Attempt, Confirmed } from './attempt';
import { checkResult, confirmTargeted, looseKey, noRun } from './attempt';
import type { LintCommand, TestCommand } from './commands';
import { chainRunnerCommand, lintCommand, nameFilterArgv, outsideTargets, testCommand } from './commands';
import type { InRunRetry } from './inRunRetry';
import { retryDir } from './inRunRetry';
import { JestRetry } from './jestRetry';
import { MochaRetry } from './mochaRetry';
import { VitestRetry } from './vitestRetry';
import { isTestFile, relatedTestFiles } from './related';
import type { WarmTscPlan } from './warmTsc';
import { WarmTsc, warmTscPlan } from './warmTsc';
import { launchText } from './warmLaunch';
import type { WarmLintRun } from './warmEslint';
import type { WarmRunOptions } from './warmChild';
import { WarmLinters } from './warmEslint';
import { PreStartedRunners, preStartPlan } from './preStarted';
import { VitestTypecheck } from './vitestTypecheck';
import { MochaFiles } from './mochaFiles';
import { runPreScript } from './preScript';
import { wholeSuite } from './wholeSuite';

/** What the stager needs of the verifier: running a check (narrowed), and the check's setting. */
export interface StagedExec {
  root: string;
  storageDir?: string;
  logger: Logger;
  flakyReruns: number;
  cwd(spec: CheckSpec): string;
  env(cwd: string): Record<string, string>;
  timeoutMs(spec: CheckSpec): number;
  /** The command a full run of the check spawns (the rest of its chain, where its other parts are checks: ../chainOnce). */
  runsAs?(spec: CheckSpec): string;
  /** Runs the check with `argv` instead of its command, parsed by `parser`. */
  run(spec: CheckSpec, parser: ParserId, argv: string[], signal?: AbortSignal): Promise<Attempt>;
  /** The tsc checks of the project: a Vitest check's typecheck may be answered by their warm checkers (./vitestTypecheck). */
  tscChecks?(): readonly CheckSpec[];
}

/** A check this step runs in full, and why (for the trace). */
export interface RunFull {
  full: string;
}

const TEST_PARSERS: ReadonlySet<ParserId> = new Set(['jest', 'vitest', 'mocha', 'node-test', 'tap']);
/**
 * Failure ids that belong to no test: a check with one cannot be narrowed to test files. A coverage
 * gate's (`coverage`) is placed in a source file, but only the whole suite measures it. (A chain's
 * confirmation, ../confirmStep, takes the coverage gate as its runner step's: `c8 --100 mocha` is
 * that one step, re-run whole.)
 */
const UNTIED: ReadonlySet<string> = new Set([...WHOLE_CHECK_IDS, 'coverage']);

export class Stager {
  /** By check and command (./warmTsc: a changed launcher variable is another worker, another environment). */
  private readonly warm = new Map<string, WarmTsc | RunFull>();
  private readonly lint = new Map<string, LintCommand | RunFull>();
  private readonly tests = new Map<string, TestCommand | RunFull>();
  /** Per Jest, Vitest or mocha check, its in-run retries, or why its changed tests are re-run in a process of their own. */
  private readonly retries = new Map<string, InRunRetry | { reason: string }>();

  /** The ESLint checks' warm linters (./warmEslint): every run of such a check goes through them once primed. */
  private readonly linters: WarmLinters;
  /** The test checks' pre-started runners (./preStarted): started at prime, each taken by the check's next run. */
  private readonly preStarted: PreStartedRunners;
  /** Vitest's typecheck answered by the warm type checker of the same program (./vitestTypecheck). */
  private readonly typecheck: VitestTypecheck;
  private readonly mochaFiles: MochaFiles;

  constructor(private readonly x: StagedExec) {
    const o = { logger: x.logger, ...(x.storageDir !== undefined ? { recordDir: checkRecordDir(x.storageDir) } : {}) };
    this.linters = new WarmLinters(o);
    this.preStarted = new PreStartedRunners(o);
    this.mochaFiles = new MochaFiles(x);
    this.typecheck = new VitestTypecheck({
      logger: x.logger,
      sources: () =>
        (x.tscChecks?.() ?? []).map((c) => ({
          name: c.name,
          timeoutMs: x.timeoutMs(c),
          coldMs: () => this.commandMs.get(c.name),
          warm: () => {
            const w = this.warmFor(c);
            return w instanceof WarmTsc ? w : undefined;
          },
        })),
    });
  }

  /** Per tsc check, the time of its command's last full run: what a warm check must not exceed. */
  private readonly commandMs = new Map<string, number>();

  /**
   * Starts the warm type checkers and has them build their programs (while the model thinks); one
   * already built is left as it is. Each ESLint check's warm linter runs its command once, so the
   * next pass finds ESLint, its config and plugins loaded (and so does each ESLint part `lintParts`
   * names, of a check run part by part). A Vitest check gets a process with Vitest
   * loaded, waiting to run its next command (./preStarted).
   */
  async prime(checks: readonly CheckSpec[], parserOf: (c: CheckSpec) => ParserId, lintParts?: (c: CheckSpec) => { name: string; argv: string[] }[]): Promise<void> {
    const builds: Promise<unknown>[] = [];
    // The type checkers first: a Vitest check below is primed with its typecheck answered by one (./vitestTypecheck).
    for (const c of checks) {
      if (parserOf(c) !== 'tsc') continue;
      const w = this.warmFor(c);
      if (w instanceof WarmTsc && w.buildMs === undefined) builds.push(w.check(undefined, this.x.timeoutMs(c), true));
    }
    for (const c of checks) {
      const cwd = this.x.cwd(c);
      if (parserOf(c) === 'eslint') builds.push(this.linters.prime(c.name, splitCommand(c.command), { cwd, env: this.x.env(cwd), timeoutMs: this.x.timeoutMs(c) }));
      // The ESLint parts of a chain of checkers (`eslint src && prettier -c src`), run part by part (../checkerChain).
      for (const p of lintParts?.(c) ?? []) builds.push(this.linters.prime(p.name, p.argv, { cwd, env: this.x.env(cwd), timeoutMs: this.x.timeoutMs(c) }));
      if (PreStartedRunners.serves(parserOf(c))) {
        const runsAs = this.x.runsAs?.(c) ?? c.command;
        // An npm script (`npm test`): the runner's own command, as the staged runs call it.
        const resolved = testCommand(runsAs, cwd, parserOf(c));
        const argv = !('reason' in resolved) && 'fallback' in preStartPlan(parserOf(c), splitCommand(runsAs), cwd, this.x.env(cwd)) ? resolved.argv : splitCommand(runsAs);
        // Primed with the argv its run will have (./vitestTypecheck's flag included).
        const shimmed = argv ? await this.typecheckArgv(c, parserOf(c), argv) : undefined;
        this.preStarted.prime(c.name, parserOf(c), shimmed?.argv ?? argv, cwd, this.x.env(cwd));
      }
    }
    await Promise.all(builds);
  }

  /**
   * Step 0's type check, where the run goes on to steps: the warm checker builds the whole program
   * once, and its answer (tsc's own diagnostics for the whole program, as the command prints them) is
   * the check's full run; the program stays built for the steps, its signatures computed while the
   * model thinks. `{full}` where it cannot be warm: the command runs, as it would have.
   */
  async initial(spec: CheckSpec, parser: ParserId, signal?: AbortSignal): Promise<CheckResult | RunFull> {
    if (parser !== 'tsc') return { full: `a ${parser} check is not kept warm` };
    return this.warmCheck(spec, signal, true);
  }

  /** Ends every warm checker, linter and pre-started runner (the run is over, or was cancelled); waits until they are gone. */
  async release(): Promise<void> {
    const all = [...this.warm.values()].filter((w): w is WarmTsc => w instanceof WarmTsc);
    this.warm.clear();
    await Promise.all([...all.map((w) => w.stop()), this.linters.release(), this.preStarted.release(), this.typecheck.release()]);
  }

  /**
   * A Vitest check's run (`argv`) with its typecheck answered by the warm type checker of the same
   * program where it can be (./vitestTypecheck), and the note to give once the run is over;
   * undefined where the run stays as it is.
   */
  async typecheckArgv(spec: CheckSpec, parser: ParserId, argv: readonly string[]): Promise<{ argv: string[]; note(): string | undefined } | undefined> {
    if (parser !== 'vitest') return undefined;
    return this.typecheck.argv(spec.name, argv, this.x.cwd(spec));
  }

  /**
   * A check's run (`argv`: its command's or a narrowed one) answered by its warm linter (ESLint) or
   * its pre-started runner (Vitest); undefined or `{fallback}`: the command runs.
   */
  warmRun(spec: CheckSpec, parser: ParserId, argv: readonly string[] | undefined, o: WarmRunOptions): Promise<WarmLintRun | undefined> {
    return parser === 'eslint' ? this.linters.run(spec.name, argv, o) : this.preStarted.run(spec.name, parser, argv, o);
  }

  /**
   * One check of a non-final step: warm, targeted, or `{full}` with the reason it cannot be.
   * `before` is the check's result in the state the step started from; `changed` the
   * workspace-relative files the step changed.
   */
  async stage(spec: CheckSpec, parser: ParserId, before: CheckResult | undefined, changed: readonly string[], signal?: AbortSignal): Promise<CheckResult | RunFull> {
    if (!before || before.cancelled || before.timedOut) return { full: 'no comparable earlier run of the check' };
    if (parser === 'tsc' && before.mode === 'full' && !before.cancelled) this.commandMs.set(spec.name, before.runDurationsMs?.[0] ?? before.durationMs);
    if (parser === 'tsc') return this.warmCheck(spec, signal);
    if (parser === 'eslint') return this.lintChanged(spec, before, changed, signal);
    if (TEST_PARSERS.has(parser)) return this.testsTargeted(spec, parser, before, changed, signal);
    return { full: `a ${parser} check has no narrower run` };
  }

  /**
   * Flake confirmation of a test check by re-running only the test files of its newly failing tests
   * (those that did not fail in `before`); undefined when that cannot be done (the verifier then
   * re-runs the whole check). A test that passes now after failing before is not re-run: a re-run
   * could only call a failure of it flaky, never make it count, so it cannot change the verdict.
   */
  async confirm(spec: CheckSpec, parser: ParserId, first: Attempt, before: readonly Failure[] | undefined, signal?: AbortSignal, step?: string | null): Promise<Confirmed | undefined> {
    if (!TEST_PARSERS.has(parser) || before === undefined) return undefined;
    const cmd = this.confirmCommandFor(spec, parser, step);
    if ('full' in cmd) return undefined;
    if ([...first.failures, ...before].some((f) => f.file === undefined || UNTIED.has(f.id ?? ''))) return undefined;
    const keys = (fs: readonly Failure[]): Set<string> => new Set(fs.map((f) => `${f.file}\0${f.id}`));
    const then = keys(before);
    const changedTests = first.failures.filter((f) => !then.has(`${f.file}\0${f.id}`));
    if (this.outsideFolder(spec, changedTests) !== undefined || this.notInTests(spec, changedTests) !== undefined) return undefined;
    const named = [...new Set(this.cwdFiles(spec, changedTests.map((f) => f.file!)))];
    const files = named.filter((f) => existsSync(path.join(this.x.cwd(spec), f)));
    if (files.length === 0) return confirmTargeted(first, [], before);
    // A failure placed in a file that is not there cannot be re-run by its file: not re-run, it would
    // be called flaky; the whole check re-runs instead.
    if (files.length < named.length) return undefined;
    const argv = await this.mochaFiles.argv(spec, cmd, files, signal);
    let byName = nameFilterArgv(cmd, argv, changedTests.map((f) => f.id!));
    const reruns: Attempt[] = [];
    for (let i = 0; i < this.x.flakyReruns && !signal?.aborted; i++) {
      let a = await this.x.run(spec, parser, byName ?? argv, signal);
      // A run where a changed test was not selected (a filter that matched nothing, a title the
      // runner spells otherwise: neither failed again nor named passed) is run again with the files
      // alone, as without the filter, before anything is called flaky; from then on the files alone.
      if (byName && !a.r.cancelled && !allFailedAgain(a, changedTests) && !allRan(a, changedTests)) {
        this.x.logger.debug(`check ${spec.name}: the tests named did not all fail again in their name-filtered re-run; re-run by their files`);
        byName = undefined;
        a = await this.x.run(spec, parser, argv, signal);
      }
      if (a.r.cancelled) break;
      reruns.push(a);
    }
    return confirmTargeted(first, reruns, before);
  }

  private warmFor(spec: CheckSpec): WarmTsc | RunFull {
    let w = this.warm.get(warmKey(spec));
    if (!w) {
      const cwd = this.x.cwd(spec);
      const env = this.x.env(cwd);
      const plan: WarmTscPlan = warmTscPlan(spec.command, cwd, env);
      w = 'fallback' in plan ? { full: `warm type check not possible, the command runs: ${plan.fallback}` } : new WarmTsc({ cwd, plan, logger: this.x.logger, ...(this.x.storageDir !== undefined ? { recordDir: checkRecordDir(this.x.storageDir) } : {}) });
      this.warm.set(warmKey(spec), w);
    }
    return w;
  }

  /**
   * A warm type check, never slower than the command: where the worker is still settling and would
   * answer later than the command's last full run takes, the command runs this time; a worker whose
   * own check took longer than the command gives way to the command for good. Either way the reason
   * goes into the check's note. `first` (step 0) builds the program and has it settle afterwards.
   */
  private async warmCheck(spec: CheckSpec, signal?: AbortSignal, first = false): Promise<CheckResult | RunFull> {
    const w = this.warmFor(spec);
    if ('full' in w) return w;
    const cold = this.commandMs.get(spec.name) ?? w.buildMs;
    const expected = w.expectedMs();
    if (!first && cold !== undefined && expected > cold) {
      return { full: `the warm checker would answer in about ${expected} ms (still computing its signatures), the command took ${cold} ms: the command runs this step` };
    }
    // A worker with no program yet builds it now: that costs what the command costs, once.
    const builds = w.buildMs === undefined;
    const started = Date.now();
    const o = await w.check(signal, this.x.timeoutMs(spec), first);
    if (o.kind === 'fallback') {
      const full = { full: `warm type check not possible, the command runs: ${o.reason}` };
      this.warm.set(warmKey(spec), full);
      return full;
    }
    const durationMs = Date.now() - started;
    const base = { exitCode: null, signal: null, truncated: false, timedOut: false, pid: undefined, strays: [], durationMs };
    if (o.kind === 'cancelled') return checkResult(spec, 'tsc', single({ r: { ...base, output: '', cancelled: true }, failures: [] }), 'warm');
    const failures = parseOutput('tsc', o.output, { check: spec.name, root: this.x.root, cwd: this.x.cwd(spec), exitCode: o.exitCode });
    let note = first
      ? `the whole program (${w.files ?? '?'} files) checked by the warm checker, tsc's own diagnostics as the command prints them: the full type check; kept warm for the steps`
      : builds
        ? `the whole program (${w.files ?? '?'} files) built by the warm checker in ${o.durationMs} ms`
        : `the whole program (${w.files ?? '?'} files) re-checked warm in ${o.durationMs} ms`;
    const launched = launchText(w.launch);
    if (launched) note = `${note} (started as the command starts tsc: ${launched})`;
    if (!first && !builds && cold !== undefined && o.durationMs > cold) {
      // Its answer stands (it is tsc's), but a warm checker slower than the command is no gain.
      note = `${note}; slower than the command (${cold} ms): the command runs from the next step on`;
      this.warm.set(warmKey(spec), { full: `the command runs from now on: a warm check took ${o.durationMs} ms, longer than the command's ${cold} ms` });
      await w.stop();
    }
    return checkResult(spec, 'tsc', single({ r: { ...base, exitCode: o.exitCode, output: o.output, cancelled: false }, failures }), 'warm', { note });
  }


  private async lintChanged(spec: CheckSpec, before: CheckResult, changed: readonly string[], signal?: AbortSignal): Promise<CheckResult | RunFull> {
    let cmd = this.lint.get(spec.name);
    if (!cmd) {
      const c = lintCommand(spec.command, this.x.cwd(spec), this.x.env(this.x.cwd(spec)));
      cmd = 'reason' in c ? { full: `lint of the changed files not possible: ${c.reason}` } : c;
      this.lint.set(spec.name, cmd);
    }
    if ('full' in cmd) return cmd;
    if (before.failures.some((f) => f.file === undefined) || (before.exitCode !== 0 && before.failures.length === 0)) return { full: 'the last lint failed with no file to carry its failures by' };
    const ours = this.cwdFiles(spec, changed);
    const touched = new Set(ours);
    const files = ours.filter((f) => cmd.covers(f) && existsSync(path.join(this.x.cwd(spec), f)));
    const carried = before.failures.filter((f) => !this.cwdFiles(spec, [f.file!]).some((g) => touched.has(g)));
    const pre = files.length > 0 ? await runPreScript((...a) => this.x.run(...a), spec, cmd, signal) : undefined;
    if (pre && 'full' in pre) return pre;
    if (pre?.cancelled) return checkResult(spec, 'eslint', single(pre.cancelled), 'targeted');
    const first = files.length > 0 ? await this.x.run(spec, 'eslint', cmd.forFiles(files), signal) : noRun();
    const exitCode = first.r.timedOut ? null : first.r.exitCode !== 0 ? first.r.exitCode : carried.length > 0 ? 1 : 0;
    const note = `${pre?.note ?? ''}${files.length} changed file(s) linted, ${carried.length} failure(s) carried from the last lint`;
    return checkResult(spec, 'eslint', single(first), 'targeted', { carried, note, exitCode });
  }

  /**
   * The command a test check's failures are confirmed with: its own, narrowed; where it is a chain
   * (`lint && vitest run`), its runner's step alone (./commands chainRunnerCommand); under a
   * coverage wrapper (`c8 mocha`), the runner alone. Never its `pre` script: the first attempt just
   * ran it (built, linted) on the same bytes. `step`: the chain's step that failed, as ../confirmStep
   * tells it (null: it cannot be told apart, so the chain is not narrowed to a step of it).
   */
  private confirmCommandFor(spec: CheckSpec, parser: ParserId, step?: string | null): TestCommand | RunFull {
    const own = this.testCommandFor(spec, parser);
    if (!('full' in own)) return own;
    // Under a coverage wrapper (`nyc mocha`), the runner alone: a re-run measures no coverage.
    const bare = testCommand(spec.command, this.x.cwd(spec), parser, 'confirm');
    if (!('reason' in bare)) return bare;
    if (step === null) return own;
    const chain = step !== undefined ? testCommand(step, this.x.cwd(spec), parser, 'confirm') : chainRunnerCommand(spec.command, this.x.cwd(spec), parser);
    return 'reason' in chain ? own : chain;
  }

  private testCommandFor(spec: CheckSpec, parser: ParserId): TestCommand | RunFull {
    // By name and command: a chained check is narrowed as its chain, or as the rest of it (../chainOnce).
    let cmd = this.tests.get(runKey(spec));
    if (!cmd) {
      const c = testCommand(spec.command, this.x.cwd(spec), parser);
      cmd = 'reason' in c ? { full: `targeted tests not possible: ${c.reason}` } : c;
      this.tests.set(runKey(spec), cmd);
    }
    return cmd;
  }

  private async testsTargeted(spec: CheckSpec, parser: ParserId, before: CheckResult, changed: readonly string[], signal?: AbortSignal): Promise<CheckResult | RunFull> {
    const cmd = this.testCommandFor(spec, parser);
    if ('full' in cmd) return cmd;
    if (before.failures.some((f) => f.file === undefined || UNTIED.has(f.id ?? '')) || (before.exitCode !== 0 && before.failures.length === 0)) return { full: 'the last run failed in a way not tied to a test file' };
    // A targeted run never loses a failure it does not re-run: one placed outside the check's folder
    // (a dependent package's test failing in the changed package's source) cannot be named to it.
    const outside = this.outsideFolder(spec, before.failures) ?? this.notInTests(spec, before.failures);
    if (outside !== undefined) return { full: outside };
    const cwd = this.x.cwd(spec);
    const exists = (f: string): boolean => existsSync(path.join(cwd, f));
    const failing = [...new Set(this.cwdFiles(spec, before.failures.map((f) => f.file!)))].filter(exists);
    const edited = this.cwdFiles(spec, changed).filter(exists);
    let argv: string[] | undefined;
    let note: string;
    const related = relatedTestFiles(cwd, edited);
    const whole = wholeSuite(spec.command, cwd, new Set([...failing, ...related]));
    let mode: 'targeted' | 'full' = 'targeted';
    if (whole !== undefined) {
      // Narrowing would select every test file there is: the command's own run is no dearer, and it is the full test run.
      argv = cmd.argv;
      mode = 'full';
      note = whole.note;
    } else if (cmd.related) {
      const inputs = [...new Set([...failing, ...edited])];
      argv = inputs.length > 0 ? cmd.related(inputs) : undefined;
      note = `the ${failing.length} failing test file(s) and the tests ${cmd.runner} relates to ${edited.length} changed file(s)`;
    } else {
      const files = [...new Set([...failing, ...related])];
      // mocha: the files its own collection lists for the command (a folder target is not recursive).
      const runs = cmd.runner === 'mocha' && files.length > 0 ? await this.mochaFiles.runs(spec, cmd, files, signal) : undefined;
      const outside = runs ? files.filter((f) => !runs.has(f)) : cmd.inside ? files.filter((f) => !cmd.inside!(f)) : outsideTargets(files, cmd.targets);
      if (outside.length > 0) return { full: `${outside[0]} lies outside what the command runs${cmd.targets.length > 0 ? ` (${cmd.targets.join(' ')})` : ''}: a narrowed run could not name it, so the check runs in full` };
      argv = files.length > 0 ? await this.mochaFiles.argv(spec, cmd, files, signal) : undefined;
      note = `${files.length} test file(s): ${failing.length} failing, ${related.length} importing the ${edited.length} changed file(s)`;
    }
    // The pre script runs before the narrowed run (not before the command itself: it runs it).
    const pre = argv && mode === 'targeted' ? await runPreScript((...a) => this.x.run(...a), spec, cmd, signal) : undefined;
    if (pre && 'full' in pre) return pre;
    if (pre?.cancelled) return checkResult(spec, parser, single(pre.cancelled), mode);
    if (pre) note = `${pre.note}${note}`;
    // The whole suite runs as the command is, without in-run retries, where they would cost more
    // than they save: the held Vitest holds exactly the command (retry arguments leave it unused),
    // and Jest keys its transform cache on the project config, which our --testRunner changes (every
    // file transformed again, the cache of the project's own runs unused). Known failures stand; new
    // ones are confirmed apart, as where there are no in-run retries.
    const plain = argv === undefined || mode !== 'full' ? undefined : cmd.runner === 'jest' ? 'the run was the command itself: Jest keys its transform cache on the config, which our retry runner would change' : (await this.heldRun(spec, parser, argv)) ? "the run was the pre-started process's own command" : undefined;
    const asIs = plain !== undefined;
    const retry = argv && !asIs ? this.retryFor(spec, cmd) : undefined;
    const inRunRetry = retry && !('reason' in retry) ? retry : undefined;
    const known = before.failures.map((f) => ({ file: path.resolve(this.x.root, f.file!), id: f.id ?? '', message: f.message }));
    const first = argv ? await this.x.run(spec, parser, inRunRetry ? inRunRetry.argv(argv, known) : argv, signal) : noRun();
    if (!argv || first.r.cancelled || first.r.timedOut || first.r.spawnError !== undefined) return checkResult(spec, parser, single(first), mode, { note });
    const inRun = inRunRetry ? this.retriedInRun(spec, first, inRunRetry) : undefined;
    // Only new failures are confirmed, those the run retried itself counting as confirmed (they failed every time).
    const rerun = await this.confirm(spec, parser, first, [...before.failures, ...(inRun?.retried ?? [])], signal);
    const confirmed = rerun ? { ...rerun, flaky: [...(inRun?.confirmed.flaky ?? []), ...rerun.flaky] } : (inRun?.confirmed ?? single(first));
    if (inRun) note = `${note}; ${inRun.note}`;
    const apart = plain !== undefined ? ` (not in the same run: ${plain})` : retry && 'reason' in retry ? ` (not in the same run: ${retry.reason})` : inRun ? ' (those the run did not retry)' : '';
    if (confirmed.attempts.length > 1) note = `${note}; the tests whose result changed re-run${apart}`;
    return checkResult(spec, parser, confirmed, mode, { note });
  }

  /** Whether the check's pre-started process holds `argv` (with its typecheck flag, as the run would add it) ready to run; where not, the log says why. */
  private async heldRun(spec: CheckSpec, parser: ParserId, argv: readonly string[]): Promise<boolean> {
    if (!PreStartedRunners.serves(parser)) return false;
    const cwd = this.x.cwd(spec);
    const shimmed = await this.typecheckArgv(spec, parser, argv);
    const why = this.preStarted.notHolding(spec.name, parser, shimmed?.argv ?? argv, cwd, this.x.env(cwd));
    if (why !== undefined) this.x.logger.debug(`check ${spec.name}: the whole suite runs with in-run retries, not in the pre-started process: ${why}`);
    return why === undefined;
  }

  /** Jest, Vitest and mocha retry failing tests inside the targeted run (./inRunRetry); node:test and node-tap are re-run apart. */
  private retryFor(spec: CheckSpec, cmd: TestCommand): InRunRetry | { reason: string } | undefined {
    if (cmd.runner === 'node-test' || cmd.runner === 'tap') return undefined;
    let r = this.retries.get(runKey(spec));
    if (!r) {
      const dir = retryDir(this.x.storageDir ?? path.join(this.x.cwd(spec), 'node_modules', '.cache', 'fix-until-green'), cmd.runner, spec.name);
      const cwd = this.x.cwd(spec);
      r = cmd.runner === 'jest' ? JestRetry.plan(cwd, cmd.argv, dir, this.x.flakyReruns) : cmd.runner === 'vitest' ? VitestRetry.plan(cwd, cmd.argv, dir, this.x.flakyReruns) : MochaRetry.plan(dir, this.x.flakyReruns);
      if ('reason' in r) this.x.logger.debug(`check ${spec.name}: no in-run retries (${r.reason})`);
      this.retries.set(runKey(spec), r);
    }
    return r;
  }

  /**
   * The targeted run's own retries as its flake confirmation: a failure it retried failed each time
   * (it counts); a test that passed on a retry is flaky. Undefined when the run did not go through
   * our file (then the changed tests are re-run in a process of their own).
   */
  private retriedInRun(spec: CheckSpec, first: Attempt, retry: InRunRetry): { confirmed: Confirmed; retried: Failure[]; note: string } | undefined {
    const o = retry.outcome({ check: spec.name, root: this.x.root, cwd: this.x.cwd(spec), exitCode: first.r.exitCode });
    if (!o) {
      this.x.logger.info(`check ${spec.name}: no retries recorded in the targeted run; the changed tests are re-run apart`);
      return undefined;
    }
    const n = o.retried.length;
    const note = n === 0 ? 'no test retried in the run' : `${n} failing test(s) retried in the same run (up to ${retry.retries}×): ${o.flaky.length} passed on a retry (flaky)`;
    return { confirmed: { attempts: [first], counted: first.failures, flaky: o.flaky, shown: first }, retried: o.retried, note };
  }

  /** Why failures placed outside the check's folder keep it from being narrowed (undefined: none is). */
  private outsideFolder(spec: CheckSpec, failures: readonly Failure[]): string | undefined {
    const outside = failures.filter((f) => f.file !== undefined && this.cwdFiles(spec, [f.file]).length === 0);
    if (outside.length === 0) return undefined;
    return `${outside.length} failure(s) of the last run lie outside the check's folder (${outside[0]!.file}): a targeted run cannot name them, so the check runs in full rather than lose them`;
  }

  /**
   * Why failures placed in files that are no test files keep a check from being re-run by file: a
   * build's error (`pretest: tshy` failing with TS2322 in src/) or a source frame is no test the
   * runner can be given, and a run of that file finds no test and passes, which would call the
   * failure fixed or flaky. Undefined where every failure lies in a test file.
   */
  private notInTests(spec: CheckSpec, failures: readonly Failure[]): string | undefined {
    const other = failures.find((f) => f.file !== undefined && !this.cwdFiles(spec, [f.file]).every(isTestFile));
    return other ? `a failure of the last run lies in ${other.file}, no test file (a build's or a source's error): re-run by file it would find no test, so the check runs in full` : undefined;
  }

  /** Workspace-relative paths as paths relative to the check's directory (outside it: dropped). */
  private cwdFiles(spec: CheckSpec, files: readonly string[]): string[] {
    const cwd = this.x.cwd(spec);
    return files.map((f) => path.relative(cwd, path.resolve(this.x.root, f)).split(path.sep).join('/')).filter((f) => !f.startsWith('..') && !path.isAbsolute(f));
  }
}

/** Whether each of `tests` failed again in `a`. */
function allFailedAgain(a: Attempt, tests: readonly Failure[]): boolean {
  const again = new Set(a.failures.map(looseKey));
  return tests.every((t) => again.has(looseKey(t)));
}

/**
 * Whether the name filter selected every test: each failed again or is named passed in the output (a
 * pass the runner reports is a real re-run, and a flake is called on it as on a file's re-run).
 */
function allRan(a: Attempt, tests: readonly Failure[]): boolean {
  const again = new Set(a.failures.map(looseKey));
  const passed = a.passed?.tests ?? [];
  return tests.every((t) => again.has(looseKey(t)) || passed.some((p) => p.id === t.id && (p.file === undefined || p.file === t.file)));
}

/** A check's narrowed commands are kept by its name and the command narrowed. */
function runKey(spec: CheckSpec): string {
  return `${spec.name}\0${spec.command}`;
}

function single(a: Attempt): Confirmed {
  return { attempts: [a], counted: a.failures, flaky: [], shown: a };
}

/** A warm type checker's key: the check and its command (the launchers' variables are in it). */
function warmKey(spec: CheckSpec): string {
  return `${spec.name}\0${spec.command}`;
}

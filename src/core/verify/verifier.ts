// Verifies the workspace: runs every check, parses failures, confirms them, computes the state's identity.
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckResult, CheckSpec, Failure, Logger, ParserId, VerifyResult } from '../types';
import { silentLogger } from '../types';
import { failureIdentity, failureKey } from './identity';
import type { ChainOnce } from './chainOnce';
import { chainOnce, chainOnceNote, partsPassed, STATIC_PARSERS } from './chainOnce';
import { afterSteps, confirmNote, type FailingStep, failingStep, notes } from './confirmStep';
import type { PassRun } from './chainRun';
import { runChained } from './chainRun';
import { executableOf, findExecutable } from './executable';
import { chainParsers, commandTools, parserForCommand } from './infer';
import { biomeDefaultCommand, withDefaultReport } from './parsers/biomeDefault';
import { parseOutput, timedOutFailures } from './parsers/index';
import { TEST_RUNNERS } from './parsers/locate';
import { type PassedTests, passingTests } from './parsers/passed';
import { checkRecordDir } from './containment';
import { eslintParts } from './checkerChain/plan';
import { runInParts } from './checkerChain/run';
import { incompleteList } from './cut';
import { withNoTests } from './noTests';
import { checkEnv, runCommand, splitCommand } from './runner';
import type { Attempt } from './staged/attempt';
import { checkResult, confirm, looseKey, ranClean, withReason } from './staged/attempt';
import { codeFailures, notInstalled, notInstalledNote } from './notInstalled';
import { gateReuse } from './staged/gateReuse';
import { readValues } from './values';
import { Stager } from './staged/stager';
import { incrementalTscArgv } from './tscIncremental';
import type { WriterPlan } from './writers';
import { planWriters } from './writers';
import type { Prerequisite, PrerequisitePlan } from './taskGraph/prerequisites';
import { Prerequisites, notRunResult } from './taskGraph/prerequisites';

export interface VerifierOptions {
  root: string;
  checks: CheckSpec[];
  parallel: boolean;
  outputLimitKb: number;
  defaultTimeoutSeconds?: number;
  logger?: Logger;
  /**
   * Re-runs of a check whose failures differ from the previous state's, or that turned green
   * (default 1, as the `flakyReruns` setting). 0 turns flake detection off.
   */
  flakyReruns?: number;
  /**
   * The run's storage directory (outside the user's tree). tsc checks keep their incremental
   * build info under `<storageDir>/tsc/`; without it they run non-incrementally.
   */
  storageDir?: string;
  /** Extra environment for every check; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Grace between SIGTERM and SIGKILL when a check is stopped. */
  killGraceMs?: number;
  /**
   * Staged checks (the `stagedChecks` setting, default off here): a verification told what changed
   * runs each check warm or targeted, and every check in full only once those pass; flakes are
   * confirmed by re-running the tests whose result changed.
   */
  staged?: boolean;
  /**
   * What the checks run first because the project's task graph says so (./taskGraph): run at the
   * start of every pass, in order; the checks that need one that fails do not run.
   */
  prerequisites?: Pick<PrerequisitePlan, 'prerequisites' | 'packageDirs'>;
}

export interface VerifyOptions {
  /**
   * The state to compare with for flake detection. Default: this verifier's own last result.
   * `null` means no previous state (every check counts as changed).
   */
  previous?: VerifyResult | null;
  /**
   * The workspace-relative files changed since `previous` was verified (a step's edit). With staged
   * checks on, this lets the checks run warm or targeted; without it every check runs in full.
   */
  changed?: readonly string[];
  /**
   * Step 0 of a run that goes on to steps (staged checks on): a type check runs through the warm
   * checker, whose whole-program answer is its full run, and the program stays built for the steps.
   */
  warmStart?: boolean;
}

export const DEFAULT_CHECK_TIMEOUT_SECONDS = 300;
/** stdout kept apart for a machine-readable report (a big ESLint JSON with sources, say). */
const MACHINE_STDOUT_LIMIT_BYTES = 16 * 1024 * 1024;
/** Static analysis gives the same answer twice: re-running it to look for flakes only costs time. */
const DETERMINISTIC = STATIC_PARSERS;

/** Whether the command asks its tool for a JSON report, which is then read from stdout alone. */
export function wantsMachineOutput(command: string): boolean {
  return /(--format[= ]json\b|--format[= ]json-with-metadata\b|(^|\s)-f json\b|--json\b|--reporter[= ]json\b|(^|\s)-R json\b)/.test(command);
}

export class Verifier {
  private readonly logger: Logger;
  private previous: VerifyResult | undefined;
  private readonly stager: Stager | undefined;
  private readonly prerequisites: Prerequisites | undefined;

  constructor(private readonly opts: VerifierOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.prerequisites = opts.prerequisites !== undefined && opts.prerequisites.prerequisites.length > 0 ? new Prerequisites(opts.prerequisites) : undefined;
    this.stager = opts.staged
      ? new Stager({
          root: opts.root,
          ...(opts.storageDir !== undefined ? { storageDir: opts.storageDir } : {}),
          logger: this.logger,
          flakyReruns: Math.max(0, opts.flakyReruns ?? 1),
          cwd: (c) => path.resolve(opts.root, c.cwd ?? '.'),
          env: (cwd) => checkEnv(cwd, opts.env),
          timeoutMs: (c) => this.timeoutMs(c),
          runsAs: (c) => this.onceOf(c)?.rest ?? c.command,
          run: (c, parser, argv, signal) => this.attempt(c, parser, signal, argv),
          tscChecks: () => this.opts.checks.filter((c) => this.parserOf(c) === 'tsc'),
        })
      : undefined;
  }

  /**
   * Starts what staged checks keep warm and resolves once the type checkers have built their
   * programs. A run calls it (without waiting) once its first verification found something to fix,
   * so the build overlaps the model call; `release` ends it.
   */
  async warm(): Promise<void> {
    await this.stager?.prime(this.opts.checks, (c) => this.parserOf(c), (c) => eslintParts(c.name, c.command, path.resolve(this.opts.root, c.cwd ?? '.'), this.parserOf(c)));
  }

  /** Ends every process kept warm for the run; waits until they are gone. */
  async release(): Promise<void> {
    await this.stager?.release();
  }

  private parserOf(spec: CheckSpec): ParserId {
    return spec.parser ?? parserForCommand(spec.command, path.resolve(this.opts.root, spec.cwd ?? '.'));
  }

  get checks(): readonly CheckSpec[] {
    return this.opts.checks;
  }

  /** Problems that make a run pointless before it starts: no checks, missing executables. */
  preflight(): string[] {
    const problems: string[] = [];
    if (this.opts.checks.length === 0) problems.push('no checks configured or discovered: set fixUntilGreen.checks');
    const names = new Set<string>();
    for (const c of this.opts.checks) {
      if (names.has(c.name)) problems.push(`check "${c.name}" is defined twice: names must be unique`);
      names.add(c.name);
      const cwd = path.resolve(this.opts.root, c.cwd ?? '.');
      if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
        problems.push(`check "${c.name}": working directory ${c.cwd} does not exist`);
        continue;
      }
      const exe = executableOf(c.command);
      if (exe !== undefined && findExecutable(exe, cwd) === undefined) {
        problems.push(`check "${c.name}": executable "${exe}" not found (not in node_modules/.bin or on PATH)`);
      }
    }
    return problems;
  }

  async verify(outer?: AbortSignal, options: VerifyOptions = {}): Promise<VerifyResult> {
    const pass = passSignal(outer);
    try {
      return await this.verifyPass(pass.signal, options);
    } finally {
      pass.done();
    }
  }

  private async verifyPass(signal: AbortSignal | undefined, options: VerifyOptions): Promise<VerifyResult> {
    const started = Date.now();
    const previous = options.previous === undefined ? this.previous : (options.previous ?? undefined);
    // The tasks the checks depend on first (a `build`); a check whose build failed does not run.
    const pre = await this.prerequisites?.run((p) => this.runPrerequisite(p, signal), previous && options.changed !== undefined ? options.changed : undefined, signal, this.opts.parallel);
    const each = (work: (c: CheckSpec, i: number, of: PassRun) => Promise<CheckResult>): Promise<CheckResult[]> =>
      this.each((c, i, of) => {
        const why = pre?.blocked.get(c.name);
        return why !== undefined ? Promise.resolve(notRunResult(c.name, c.command, why)) : work(c, i, of);
      });
    const full = (c: CheckSpec, _i: number, of: PassRun): Promise<CheckResult> => this.runCheck(c, previous, signal, of);
    let checks: CheckResult[] | undefined;
    if (this.stager && options.changed !== undefined && previous && !previous.checks.some((c) => c.cancelled)) {
      const staged = await each((c, _i, of) => this.stageCheck(c, previous, options.changed!, signal, of));
      // Green is only ever decided by every check run in full: those that passed staged run again
      // whole, unless their staged run already was the full check on these bytes (./staged/gateReuse).
      const passed = staged.every((c) => c.failures.length === 0 && (c.exitCode === 0 || c.notInstalled !== undefined) && !c.cancelled);
      checks = passed ? await each((c, i, of) => this.gate(c, staged[i]!, previous, signal, of)) : staged;
    }
    if (this.stager && options.warmStart && !checks) checks = await each((c) => this.initialCheck(c, previous, signal));
    checks ??= await each(full);
    if (pre !== undefined) checks = [...pre.results, ...checks];
    // Each failure's values read here, once, for the readers without the values reader (the extension's shell).
    const failures: Failure[] = checks.flatMap((c) => c.failures).map(readValues);
    const flaky: Failure[] = checks.flatMap((c) => c.flaky).map(readValues);
    const result: VerifyResult = {
      // A check whose tool is not installed is reported (its note), not counted: no edit can fix it.
      green: failures.length === 0 && checks.every((c) => c.exitCode === 0 || (c.notInstalled !== undefined && c.failures.length === 0)),
      failures,
      flaky,
      failureHash: failureIdentity(failures, { root: this.opts.root }),
      checks,
      durationMs: Date.now() - started,
    };
    // A cancelled verification saw nothing reliable: it is no baseline for the next one.
    if (!checks.some((c) => c.cancelled)) this.previous = result;
    return result;
  }

  /**
   * Runs `work` for every check, in parallel when `parallel`; results in the checks' order. Checks
   * that write files as they run (a `pretest` build, emitting tsc, coverage) run first, one at a
   * time: another check reading their output meanwhile would see it half written or gone.
   */
  private async each(work: (c: CheckSpec, i: number, of: PassRun) => Promise<CheckResult>): Promise<CheckResult[]> {
    const out: CheckResult[] = new Array<CheckResult>(this.opts.checks.length);
    // Each check's work starts once: a check that waits for another (a chain's part, ./chainOnce)
    // starts it, or takes the run already under way; the loops below then take the same promise.
    const started = new Map<number, Promise<CheckResult>>();
    const run = (i: number): Promise<CheckResult> => {
      let p = started.get(i);
      if (!p) started.set(i, (p = work(this.opts.checks[i]!, i, of)));
      return p;
    };
    const of: PassRun = (name) => run(this.opts.checks.findIndex((c) => c.name === name));
    const writers = this.opts.parallel ? this.writers() : new Set<number>();
    for (const i of this.opts.checks.keys()) if (!this.opts.parallel || writers.has(i)) out[i] = await run(i);
    if (this.opts.parallel) await Promise.all(this.opts.checks.map(async (_c, i) => (writers.has(i) ? undefined : (out[i] = await run(i)))));
    return out;
  }

  private readonly onceByName = new Map<string, ChainOnce | undefined>();
  /** The parts of a test check's chain that other checks run (./chainOnce), cached: the checks do not change. */
  private onceOf(spec: CheckSpec): ChainOnce | undefined {
    if (!this.onceByName.has(spec.name)) this.onceByName.set(spec.name, chainOnce(spec, this.opts.checks, this.opts.root, (c) => this.parserOf(c)));
    return this.onceByName.get(spec.name);
  }

  /** What `check --explain` says of the chains whose parts run once per pass. */
  chainNotes(): string[] {
    return this.opts.checks.flatMap((c) => {
      const once = this.onceOf(c);
      return once ? [chainOnceNote(c, once)] : [];
    });
  }

  /** What ./chainRun needs to run `spec`'s chain in this pass. */
  private chainOf(spec: CheckSpec, of: PassRun | undefined, signal: AbortSignal | undefined): Parameters<typeof runChained>[1] {
    return { once: of ? this.onceOf(spec) : undefined, of, parallel: this.opts.parallel, root: this.opts.root, signal, coverageBeside: this.writing?.beside.has(spec.name) === true };
  }

  private writing: WriterPlan | undefined;

  /** The checks that write files as they run, when another check could read them meanwhile (./writers). */
  private writers(): Set<number> {
    if (this.writing) return this.writing.alone;
    this.writing = planWriters(this.opts.checks, this.opts.root);
    for (const n of this.writing.notes) this.logger.info(n);
    return this.writing.alone;
  }

  /** What `check --explain` and `--json` say of the checks that write as they run: alone, or beside the others, and why. */
  writerNotes(): string[] {
    return this.opts.parallel ? planWriters(this.opts.checks, this.opts.root).notes : [];
  }

  /** The full run of a check whose staged run passed: the one that can say green (taken as it is where it already was the full check). */
  private async gate(spec: CheckSpec, staged: CheckResult, previous: VerifyResult, signal: AbortSignal | undefined, of: PassRun): Promise<CheckResult> {
    const once = this.onceOf(spec);
    // A staged run of the rest of a chain stands for the chain only where its other parts passed in full too.
    const reused = once && !partsPassed(await Promise.all(once.parts.map((p) => of(p.check)))) ? undefined : gateReuse(staged);
    if (reused !== undefined) return { ...staged, stagedNote: `${staged.stagedNote ? `${staged.stagedNote}; ` : ''}${reused}` };
    const r = await this.runCheck(spec, previous, signal, of);
    // A test that flaked in the staged run (failed, then passed on a retry) stays reported as flaky.
    const seen = new Set([...r.flaky, ...r.failures].map(looseKey));
    const flaky = [...r.flaky, ...staged.flaky.filter((f) => !seen.has(looseKey(f)))];
    return { ...r, flaky, stagedNote: `the ${staged.mode} run passed in ${staged.durationMs} ms; run in full to decide green${r.stagedNote !== undefined ? `; ${r.stagedNote}` : ''}` };
  }

  /** A check of step 0 that keeps warm (a type check), else its full run. */
  private async initialCheck(spec: CheckSpec, previous: VerifyResult | undefined, signal?: AbortSignal): Promise<CheckResult> {
    const parser = this.parserOf(spec);
    if (parser !== 'tsc') return this.runCheck(spec, previous, signal);
    const r = await this.stager!.initial(spec, parser, signal);
    if (!('full' in r)) return r;
    this.logger.debug(`check ${spec.name}: runs its command (${r.full})`);
    return withReason(await this.runCheck(spec, previous, signal), r.full);
  }

  /** A check of a step with staged checks on: warm or targeted, else in full with the reason in its note. */
  private async stageCheck(spec: CheckSpec, previous: VerifyResult, changed: readonly string[], signal: AbortSignal | undefined, of: PassRun): Promise<CheckResult> {
    const parser = this.parserOf(spec);
    // A check that did not run last time (its build failed) has no earlier run to narrow from.
    const before = previous.checks.find((c) => c.name === spec.name && c.notRun === undefined);
    // A chained test script is narrowed as its runner alone once the checks that run its other parts
    // (the lint on the changed files, the warm type check) passed in this step; else as written.
    const { result: staged, note } = await runChained(spec, this.chainOf(spec, of, signal), (run, sig) => this.stager!.stage(run, parser, before, changed, sig));
    if (!('full' in staged)) return { ...staged, command: spec.command, ...(note !== undefined ? { stagedNote: staged.stagedNote !== undefined ? `${note}; ${staged.stagedNote}` : note } : {}) };
    this.logger.debug(`check ${spec.name}: runs in full (${staged.full})`);
    return withReason(await this.runCheck(spec, previous, signal, of), staged.full);
  }

  /**
   * One run of a task a check depends on (a build), read by its own parser so a failing build is
   * placed where it fails; never made incremental (a build must write its output whatever our build
   * info says) and never re-run for flakes.
   */
  private async runPrerequisite(p: Prerequisite, signal?: AbortSignal): Promise<CheckResult> {
    const spec: CheckSpec = { name: p.name, command: p.command, parser: p.parser, ...(p.cwd !== undefined ? { cwd: p.cwd } : {}) };
    this.logger.info(`${p.name}: runs first (${p.why}), before ${p.for.join(', ')}`);
    const plain = p.parser === 'tsc' ? splitCommand(p.command) : undefined;
    const a = await this.attempt(spec, p.parser, signal, plain);
    return checkResult(spec, p.parser, confirm([a]), 'full', { note: `run before ${p.for.join(', ')}: ${p.why}` });
  }

  private timeoutMs(spec: CheckSpec): number {
    return (spec.timeoutSeconds ?? this.opts.defaultTimeoutSeconds ?? DEFAULT_CHECK_TIMEOUT_SECONDS) * 1000;
  }

  private buildInfoFile(spec: CheckSpec): string | undefined {
    if (this.opts.storageDir === undefined) return undefined;
    const id = createHash('sha256').update(`${path.resolve(this.opts.root)}\0${spec.name}\0${spec.command}`).digest('hex').slice(0, 16);
    return path.join(this.opts.storageDir, 'tsc', `${id}.tsbuildinfo`);
  }

  /** One run of the check: its command, or `narrowed` (a staged run's argv) instead. */
  private async attempt(spec: CheckSpec, parser: ParserId, signal?: AbortSignal, narrowed?: string[]): Promise<Attempt> {
    const cwd = path.resolve(this.opts.root, spec.cwd ?? '.');
    const timeoutMs = this.timeoutMs(spec);
    let argv: string[] | undefined = narrowed;
    if (parser === 'tsc' && !narrowed) {
      const info = this.buildInfoFile(spec);
      argv = info !== undefined ? incrementalTscArgv(spec.command, info) : undefined;
      if (argv && info) mkdirSync(path.dirname(info), { recursive: true });
    }
    // A Vitest check's typecheck answered by the warm type checker of the same program (./staged/vitestTypecheck).
    const plain = argv ?? splitCommand(spec.command);
    const typecheck = plain && this.stager ? await this.stager.typecheckArgv(spec, parser, plain) : undefined;
    if (typecheck) argv = typecheck.argv;
    this.logger.debug(`check ${spec.name}: ${argv ? argv.join(' ') : spec.command}`);
    const run = {
      command: spec.command,
      ...(argv ? { argv } : {}),
      cwd,
      timeoutMs,
      outputLimitBytes: this.opts.outputLimitKb * 1024,
      ...(wantsMachineOutput(spec.command) ? { stdoutLimitBytes: Math.max(MACHINE_STDOUT_LIMIT_BYTES, this.opts.outputLimitKb * 1024) } : {}),
      // Without provider keys (checkEnv and runCommand both scrub them).
      env: checkEnv(cwd, this.opts.env),
      // Recorded in storage while it runs, so the next run or `revert` reaps it should we be killed.
      ...(this.opts.storageDir !== undefined ? { recordDir: checkRecordDir(this.opts.storageDir) } : {}),
      ...(this.opts.killGraceMs !== undefined ? { killGraceMs: this.opts.killGraceMs } : {}),
      ...(signal ? { signal } : {}),
    };
    // Once primed: ESLint answers in its warm process, Vitest and Jest run in a pre-started one (./staged/warmEslint, ./staged/preStarted).
    const warm = await this.stager?.warmRun(spec, parser, argv ?? splitCommand(spec.command), run);
    if (warm && 'fallback' in warm) this.logger.debug(`check ${spec.name}: the command runs cold: ${warm.fallback}`);
    else if (warm) this.logger.debug(`check ${spec.name}: ${warm.note}`);
    // A chain of static checkers (`eslint src && prettier -c src`) runs part by part, its ESLint warm (./checkerChain).
    const parts = warm && 'r' in warm ? undefined : argv ? undefined : await runInParts(spec.name, parser, run, { warm: async (name, part, o) => this.stager?.warmRun({ name, command: part.line }, 'eslint', part.argv, o), cold: runCommand, debug: (l) => this.logger.debug(l) });
    const r = warm && 'r' in warm ? warm.r : (parts?.r ?? (await runCommand(run)));
    let failures: Failure[];
    let passed: PassedTests | undefined;
    let missing: Attempt['notInstalled'];
    if (r.cancelled) {
      failures = [];
    } else if (r.timedOut) {
      const message = `${spec.name} did not finish within its ${timeoutMs / 1000} s timeout and was stopped`;
      // What failed before it was stopped and the tests still running, where the output tells.
      failures = timedOutFailures(parser, r.output, { check: spec.name, root: this.opts.root, cwd, exitCode: null }, message);
    } else if (r.spawnError !== undefined) {
      failures = [{ check: spec.name, id: 'spawn', message: `${spec.name} could not start: ${r.spawnError}` }];
    } else {
      const chain = chainParsers(spec.command, cwd);
      const ctx = { check: spec.name, root: this.opts.root, cwd, exitCode: r.exitCode, tools: commandTools(spec.command, cwd), ...(chain.length > 1 ? { chain } : {}), ...(r.stdout !== undefined && !r.stdoutTruncated ? { stdout: r.stdout } : {}) };
      failures = parseOutput(parser, r.output, ctx);
      if (parser === 'biome' && r.exitCode !== 0 && !r.truncated) failures = await this.biomePlaced(spec, cwd, failures, ctx, signal);
      // A full run whose runner says it ran no test is no pass (a narrowed run may rightly run none).
      if (!narrowed && TEST_RUNNERS.has(parser)) {
        const n = withNoTests(spec, parser, r.output, cwd, failures);
        failures = n.failures;
        if (n.allowed !== undefined) this.logger.info(`check ${spec.name}: its runner ran no tests ("${n.allowed}"); passed as the project allows (--passWithNoTests)`);
      }
      // A tool it launches is not installed: the environment's problem, reported, never the code's failure.
      const tools = notInstalled(r.output, r.exitCode, { cwd, root: this.opts.root });
      if (tools !== undefined) {
        failures = codeFailures(failures, tools);
        missing = { tools: tools.tools, note: notInstalledNote(tools, { ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}), command: spec.command, name: spec.name }) };
        this.logger.info(`check ${spec.name}: ${missing.note}: an environment problem, not a failure of the code${failures.length > 0 ? `; ${failures.length} failure(s) of its own still count` : ''}`);
      }
      // What passed, for the Testing view only: never read by the verdict or the identity, and an
      // output it cannot read costs the list, never the check.
      try {
        passed = TEST_RUNNERS.has(parser) ? passingTests(parser, r.output, ctx, r.truncated) : undefined;
      } catch (e) {
        this.logger.debug(`check ${spec.name}: its passing tests were not read: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    // The text the parser read: stdout alone when the tool reports there in JSON (kept apart, up to its own limit).
    const machine = r.stdout !== undefined && !r.stdoutTruncated;
    const incomplete = r.cancelled ? undefined : incompleteList(parser, { text: r.output, cut: machine ? false : r.truncated, exitCode: r.exitCode, timedOut: r.timedOut }, failures);
    if (incomplete) this.logger.info(`check ${spec.name}: its output was cut at ${this.opts.outputLimitKb} KB: ${failures.length} failure(s) read${incomplete.reported !== undefined ? ` of the ${incomplete.reported} its summary counts` : ''}; not compared as a count`);
    this.logger.debug(`check ${spec.name}: exit ${r.exitCode} in ${r.durationMs} ms, ${failures.length} failure(s)`);
    const warmNote = [warm && 'r' in warm ? warm.note : undefined, parts?.note, typecheck?.note()].filter((n) => n !== undefined && n !== '').join('; ');
    return { r, failures, ...(passed ? { passed } : {}), ...(incomplete ? { incomplete } : {}), ...(missing ? { notInstalled: missing } : {}), ...(warmNote !== '' ? { warm: warmNote } : {}) };
  }

  /**
   * A failing Biome check is placed at its files: where its GitHub reporter printed no error line for
   * a file (a format difference under Biome 1.x), the command runs again with Biome's default
   * reporter, which names every file (a second run of Biome costs well under a second), and its
   * errors join (./parsers/biomeDefault).
   */
  private async biomePlaced(spec: CheckSpec, cwd: string, failures: Failure[], ctx: Parameters<typeof parseOutput>[2], signal?: AbortSignal): Promise<Failure[]> {
    if (failures.some((f) => f.id === 'format')) return failures;
    const plain = biomeDefaultCommand(spec.command);
    if (plain === undefined) return failures;
    const r = await runCommand({ command: plain, cwd, timeoutMs: this.timeoutMs(spec), outputLimitBytes: this.opts.outputLimitKb * 1024, env: checkEnv(cwd, this.opts.env), ...(signal ? { signal } : {}) });
    this.logger.debug(`check ${spec.name}: Biome re-run with its default reporter to place its failures (${plain}: exit ${r.exitCode}${r.spawnError !== undefined ? `, ${r.spawnError}` : ''})`);
    if (r.cancelled || r.timedOut || r.spawnError !== undefined) return failures;
    return withDefaultReport(failures, r.output, ctx);
  }

  /**
   * One check, confirmed (DESIGN §4 Flakes). A check that failed, and whose failures differ from the
   * previous state's (or that has no previous state), is re-run `flakyReruns` times:
   * - a failure counts when the same (check, file, test or rule) fails in every run;
   * - the others are flaky: reported apart, kept out of the identity;
   * - a check that failed in every run but never the same way has all of its first run's failures
   *   counted: it never passed, so none of them can be called flaky.
   * Not re-run: a run that passed (exit 0, no failure: a re-run could only call a failure of its own
   * flaky, never make one count, so it cannot change the verdict), static checks (tsc, eslint),
   * timeouts (waiting the limit out twice costs more than a flaky timeout), cancelled checks.
   */
  private async runCheck(spec: CheckSpec, previous: VerifyResult | undefined, signal?: AbortSignal, of?: PassRun): Promise<CheckResult> {
    const parser = this.parserOf(spec);
    // `run`: what runs (the rest of a chain whose other parts ran as their own checks); `spec`: the check it is.
    let run = spec;
    const { result: first, note } = await runChained(spec, this.chainOf(spec, of, signal), (r, sig) => {
      run = r;
      return this.attempt(r, parser, sig);
    });
    const reruns = Math.max(0, this.opts.flakyReruns ?? 1);
    const passed = ranClean(first);
    if (reruns === 0 || passed || DETERMINISTIC.has(parser) || first.r.timedOut || first.r.cancelled || first.r.spawnError !== undefined || !this.changed(spec.name, first.failures, previous)) {
      return checkResult(spec, parser, confirm([first]), 'full', notes(note));
    }
    // Staged: a chain's failing step alone (./confirmStep), narrowed to the tests whose result changed (all failing ones, with no earlier run) where it can be.
    const before = previous?.checks.find((c) => c.name === spec.name);
    const step: FailingStep = this.stager ? failingStep(run.command, parser, first, { check: spec.name, root: this.opts.root, cwd: path.resolve(this.opts.root, spec.cwd ?? '.') }) : { kind: 'none' };
    const targeted = this.stager && !before?.cancelled ? await this.stager.confirm(spec, parser, first, before?.failures ?? [], signal, step.kind === 'step' ? step.step : step.kind === 'whole' ? null : undefined) : undefined;
    const t = targeted && (await afterSteps(first, targeted, step, (command) => this.attempt({ ...run, command }, parser, signal)));
    if (t) return checkResult(spec, parser, t.confirmed, 'full', notes(note, confirmNote(step, true), t.note));
    const attempts = [first];
    for (let i = 0; i < reruns && !signal?.aborted; i++) {
      const a = await this.attempt(step.kind === 'step' ? { ...run, command: step.command } : run, parser, signal);
      if (a.r.cancelled) break;
      attempts.push(a);
    }
    return checkResult(spec, parser, confirm(attempts), 'full', notes(note, confirmNote(step, false)));
  }

  private changed(check: string, failures: readonly Failure[], previous: VerifyResult | undefined): boolean {
    const before = previous?.checks.find((c) => c.name === check);
    if (!before || before.cancelled || before.notRun !== undefined) return true;
    const ctx = { root: this.opts.root };
    const a = failures.map((f) => failureKey(f, ctx)).sort();
    const b = before.failures.map((f) => failureKey(f, ctx)).sort();
    if (a.length === 0 && b.length === 0) return before.exitCode !== 0; // neither run named a failure: confirm one that did not pass before
    return a.length !== b.length || a.some((k, i) => k !== b[i]);
  }
}

/**
 * The pass's own cancel signal: the caller's signal gets one listener for the whole pass (not one
 * per check, which with 11 checks running side by side made Node print a
 * MaxListenersExceededWarning on the caller's signal), and it is gone when the pass ends. Every
 * check, warm tsc and re-run listens on the pass's signal instead, each removing its listener when
 * it ends, so its listeners are bounded by the checks running at once, not leaked: no limit applies.
 */
function passSignal(outer: AbortSignal | undefined): { signal: AbortSignal | undefined; done: () => void } {
  if (outer === undefined) return { signal: undefined, done: () => undefined };
  const pass = new AbortController();
  setMaxListeners(0, pass.signal);
  const onAbort = (): void => pass.abort(outer.reason);
  if (outer.aborted) pass.abort(outer.reason);
  else outer.addEventListener('abort', onAbort, { once: true });
  return { signal: pass.signal, done: () => outer.removeEventListener('abort', onAbort) };
}


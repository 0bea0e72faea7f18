// One controller owns one workspace folder's run and everything that changes the folder's files:
// the run (its AbortController, its state, its events), the reverts after it, a check-only pass and
// the recovery of an interrupted run. Commands, the status bar and the panel ask it; none of them
// builds an engine or writes a file. No `vscode` import: the engine comes in through `FolderEngine`
// (built in folderEngine.ts), the unit tests drive the controller directly.
import type { Checkpoint } from '../core/edit/checkpoint';
import type { RestoreReport } from '../core/edit/restore';
import type { StoredRun } from '../core/edit/storedRuns';
import { findInterruptedRuns } from '../core/edit/storedRuns';
import { liveRunLock } from '../core/edit/runLock';
import type { Workspace } from '../core/edit/workspace';
import type { ModelProvider } from '../core/model/provider';
import type { Settings } from '../core/settings';
import type { RunReport, TimedEvent } from '../core/trace/events';
import type { Failure, VerifyResult } from '../core/types';
import { keepVerifications, observedVerifier, verificationOf } from './common/testOutput';
import type { FrontEnd, Launch, PreparedChecks, PreparedRun, SettingsAnswer } from '../core/launch';
import type { VscodeDetail } from './common/refusals';
import type { Problem } from './common/fixActions';
import { refusalProblem } from './common/refusals';
import { CONTINUE_ONLY } from './common/stepWords';
import type { Logger } from '../core/types';
import type { ReviewState } from './common/reviewState';
import { buildReview } from './review';
import { decide, pendingFiles } from './common/reviewState';
import type { Restoring } from './restoring';
import type { Limits, RunState } from './common/runState';
import { canContinue, canRevert, continuing, idleState, reduceRunState, withParsers } from './common/runState';

/** The part of the engine's `Run` the controller uses. */
export interface RunLike {
  readonly runId: string;
  readonly runDir: string;
  readonly tracePath: string;
  start(): Promise<RunReport>;
  continue(extra: { extraSteps?: number; extraTokens?: number }): Promise<RunReport>;
  cancel(): void;
}

/** Where a run or a check pass gets its settings: read afresh from VS Code's configuration. */
export type SettingsSource = () => SettingsAnswer<VscodeDetail>;

/** What a run is created with: the controller's signal and event sink. */
export interface RunWiring {
  signal: AbortSignal;
  onEvent: (e: TimedEvent) => void;
}

/** What a caller other than the palette adds to a run: the chat's model, its name in the run lock. */
export interface RunExtras {
  /** Stands in for the model the settings name (e.g. the chat's selected model for `@fix`). */
  provider?: ModelProvider;
  /** Which front end started the run (`vscode-chat`, `vscode-tool`); default `vscode`. */
  frontEnd?: Extract<FrontEnd, 'vscode' | 'vscode-chat' | 'vscode-tool'>;
}

export interface Disposable {
  dispose(): void;
}

/**
 * The one place a folder's runs and check passes are prepared, through the core's launcher
 * (core/launch.ts) with VS Code's ports (SecretStorage's keys, `vscode.lm`, the editor's buffers):
 * what it prepares is built once and run as it is. The controller asks it; commands never do. Its
 * methods may load the engine first (the extension's shell loads it on the first run or check pass).
 */
export interface FolderEngine {
  /** The folder's run storage (runs, checkpoints, traces). */
  readonly storageDir: string;
  prepareRun(settings: SettingsSource, extras: RunExtras, ownWork: () => string | undefined): Promise<Launch<PreparedRun, VscodeDetail>>;
  prepareChecks(settings: SettingsSource): Promise<Launch<PreparedChecks, VscodeDetail>>;
  /** A workspace whose writes carry `label` (the editor's undo entry). */
  workspace(label: string): Workspace;
  /** Revert, Undo, Keep and the review's reading of a run's checkpoint: loaded with the engine, never at start-up. */
  restoring(): Promise<Restoring>;
}

export interface ControllerOptions {
  now?: () => number;
  engine?: FolderEngine;
  /** Where a review that cannot be built is reported (the run itself is unaffected). */
  logger?: Logger;
}

export class RunInProgressError extends Error {
  constructor(folderName: string) {
    super(`a run is already in progress in ${folderName}; stop it first`);
    this.name = 'RunInProgressError';
  }
}

/** A revert or a check-only pass is changing or reading the folder's files: one thing at a time. */
export class FolderBusyError extends Error {
  constructor(folderName: string, task: string) {
    super(`${task} is in progress in ${folderName}; try again when it is done`);
    this.name = 'FolderBusyError';
  }
}

type Listener = (state: RunState) => void;

export class RunController {
  private current: RunState;
  private liveRun: RunLike | undefined;
  private abort: AbortController | undefined;
  private busy = false;
  /** A revert or a check-only pass in progress (not a run: the meter and Stop ignore it). */
  private task: string | undefined;
  private readonly now: () => number;
  private readonly listeners = new Set<Listener>();
  private readonly eventListeners = new Set<(e: TimedEvent) => void>();
  /** The last check pass's result, not persisted: its checks' passing tests for the Testing view while its failures are the state's. */
  lastCheckPass: VerifyResult | undefined;
  /** The verifications of this window's last run (a few, keepVerifications), not persisted: their output and passing tests for the Testing view. */
  private runVerifications: VerifyResult[] = [];

  constructor(
    readonly folder: string,
    readonly folderName: string,
    limits: Limits,
    restored?: RunState,
    private readonly options: ControllerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    // A state persisted while running belongs to a window that is gone: the run did not finish.
    this.current = restored
      ? restored.status === 'running' && !restored.session
        ? { ...restored, status: 'stopped', stopReason: restored.stopReason ?? 'error', detail: restored.detail ?? 'the window closed while the run was in progress', phase: '' }
        : restored
      : idleState(folder, folderName, limits);
  }

  get state(): RunState {
    return this.current;
  }

  get running(): boolean {
    return this.busy;
  }

  get canContinue(): boolean {
    return !this.busy && this.liveRun !== undefined && canContinue(this.current);
  }

  onDidChange(listener: Listener): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Every raw loop event, for consumers that need more than the state (e.g. the log). */
  onEvent(listener: (e: TimedEvent) => void): Disposable {
    this.eventListeners.add(listener);
    return { dispose: () => this.eventListeners.delete(listener) };
  }

  private set(state: RunState): void {
    this.current = state;
    for (const l of [...this.listeners]) l(state);
  }

  /** Updates the idle limits shown before any run (settings changed). */
  setIdleLimits(limits: Limits): void {
    if (this.current.status === 'idle') this.set({ ...this.current, limits });
  }

  /** An agent's hook session (hookFollower.ts): shown unless a run or task of ours holds the folder. */
  showSession(state: RunState): boolean {
    if (this.busy || this.task) return false;
    this.set(state);
    return true;
  }

  private handle(e: TimedEvent): void {
    this.set(reduceRunState(this.current, e));
    for (const l of [...this.eventListeners]) l(e);
  }

  /**
   * Creates the run with this controller's signal and event sink and runs it to its stop. Only one
   * run per folder at a time: a second start while one is in progress throws RunInProgressError.
   */
  async start(create: (wiring: RunWiring) => RunLike | Promise<RunLike>): Promise<RunReport> {
    this.idleOrThrow();
    this.busy = true;
    const abort = new AbortController();
    this.abort = abort;
    try {
      const run = await create({ signal: abort.signal, onEvent: (e) => this.handle(e) });
      this.liveRun = run;
      this.current = { ...this.current, runDir: run.runDir, tracePath: run.tracePath, reverted: null };
      return await this.settle(run.start());
    } finally {
      await this.stopped();
    }
  }

  /** Resumes a run stopped by step-cap or token-ceiling with more budget (DESIGN §3). */
  async continue(extra: { extraSteps: number; extraTokens: number }): Promise<RunReport> {
    this.idleOrThrow();
    const run = this.liveRun;
    if (!run || !canContinue(this.current)) {
      throw new Error(`nothing to continue in ${this.folderName}: ${CONTINUE_ONLY}`);
    }
    this.busy = true;
    const abort = new AbortController();
    this.abort = abort;
    const onAbort = (): void => run.cancel();
    abort.signal.addEventListener('abort', onAbort, { once: true });
    const l = this.current.limits;
    this.set(continuing({ ...this.current, refused: null }, { ...l, maxSteps: l.maxSteps + extra.extraSteps, tokenCeiling: l.tokenCeiling + extra.extraTokens }, this.now()));
    try {
      return await this.settle(run.continue(extra));
    } finally {
      abort.signal.removeEventListener('abort', onAbort);
      await this.stopped();
    }
  }

  /** A run or continuation ended: the review lists what it left changed, then every surface hears of the stop. */
  private async stopped(): Promise<void> {
    this.current = { ...this.current, review: await this.reviewOf(this.current) };
    this.busy = false;
    this.abort = undefined;
    this.set({ ...this.current });
  }

  /** The review of the finished run's changed files, keeping the decisions already made; null when there is none. */
  private async reviewOf(st: RunState, previous: ReviewState | null = st.review ?? null): Promise<ReviewState | null> {
    if (!this.options.engine || !canRevert(st) || st.runDir === null) return null;
    try {
      const { loadCheckpoint } = await this.engine.restoring();
      const review = await buildReview(st.runDir, await loadCheckpoint(st.runDir), this.engine.workspace('Fix Until Green: review'), previous);
      return review.files.length > 0 ? review : null;
    } catch (e) {
      this.options.logger?.error(`the review of run ${st.runId ?? '?'} could not be built: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  }

  /** Reads the review again (after a revert, or when the files changed outside the run). */
  async refreshReview(): Promise<void> {
    if (this.busy) return;
    const review = await this.reviewOf(this.current);
    this.set({ ...this.current, review });
  }

  /** Keeps `paths` of the review (all pending files when omitted): nothing is written. */
  keepFiles(paths?: readonly string[]): void {
    const review = this.current.review;
    if (!review) throw new Error(`no review in ${this.folderName}: the last run left no changed files`);
    this.set({ ...this.current, review: decide(review, paths ?? pendingFiles(review), 'kept') });
  }

  /**
   * Puts `paths` of the review (all pending files when omitted) back to their original bytes. A file
   * changed since the run wrote it is left as the user has it and reported as a conflict, never
   * overwritten; it stays pending in the review.
   */
  undoFiles(paths?: readonly string[]): Promise<RestoreReport> {
    return this.exclusive('an undo', async () => {
      const st = this.finishedRun();
      const review = st.review;
      if (!review) throw new Error(`no review in ${this.folderName}: the last run left no changed files`);
      const which = paths ?? pendingFiles(review);
      const unknown = which.filter((p) => !review.files.some((f) => f.path === p));
      if (unknown.length > 0) throw new Error(`not a file the run changed: ${unknown.join(', ')}`);
      const { loadCheckpoint, restoreState } = await this.engine.restoring();
      const cp = await loadCheckpoint(st.runDir);
      const target = new Map<string, Uint8Array | null>();
      for (const p of which) target.set(p, (await cp.original(p)) ?? null);
      const label = which.length === 1 ? `Fix Until Green: undo ${which[0]}` : `Fix Until Green: undo ${which.length} files`;
      const report = await restoreState(target, { workspace: this.engine.workspace(label), checkpoint: cp, only: which });
      const done = [...report.actions.map((a) => a.path), ...report.unchanged];
      const decided = decide(review, done, 'undone');
      this.set({ ...this.current, review: await this.reviewOf({ ...this.current, review: decided }, decided) });
      return report;
    });
  }

  /** The engine reports every stop through run-end; a rejection is a fault the state must still show. */
  private async settle(p: Promise<RunReport>): Promise<RunReport> {
    try {
      return await p;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.set({ ...this.current, status: 'stopped', stopReason: 'error', outcome: this.current.outcome ?? 'punt', detail: msg, phase: '' });
      throw e;
    }
  }

  /** Asks the run in progress to stop; it ends with `cancelled`. False when nothing runs. */
  stop(): boolean {
    if (!this.busy || !this.abort) return false;
    this.abort.abort(new Error('cancelled'));
    this.set({ ...this.current, phase: 'stopping' });
    return true;
  }

  private idleOrThrow(): void {
    if (this.busy) throw new RunInProgressError(this.folderName);
    if (this.task) throw new FolderBusyError(this.folderName, this.task);
    // A run of another process (the CLI, another window) owns the folder's files while it lives.
    const holder = liveRunLock(this.folder);
    if (holder && holder.pid !== process.pid) throw new FolderBusyError(this.folderName, `a run of ${holder.frontEnd} (pid ${holder.pid}${holder.runId ? `, ${holder.runId}` : ""})`);
  }

  private get engine(): FolderEngine {
    if (!this.options.engine) throw new Error(`no workspace storage is available: open a folder or workspace first`);
    return this.options.engine;
  }

  /** Runs `work` with the folder's files to itself: no run, revert or check pass starts meanwhile. */
  private async exclusive<T>(task: string, work: () => Promise<T>): Promise<T> {
    this.idleOrThrow();
    this.task = task;
    try {
      return await work();
    } finally {
      this.task = undefined;
    }
  }

  /**
   * The launcher's preflight of a run in this folder (core/launch.ts), before anything is asked of
   * the user: the run prepared (its models and checks built), or what refuses it, for the caller to
   * word. This controller's own run or task counts as the folder being busy.
   */
  async prepare(settings: SettingsSource, extras: RunExtras = {}): Promise<Launch<PreparedRun, VscodeDetail>> {
    return this.engine.prepareRun(settings, extras, () => (this.busy ? 'a run' : this.task));
  }

  /** Runs what `prepare` prepared (nothing is built again) to its stop. */
  run(prepared: PreparedRun, instruction: string): Promise<RunReport> {
    const verifier = observedVerifier(prepared.checks.verifier, (v) => (this.runVerifications = keepVerifications(this.runVerifications, v)));
    return this.start((w) => {
      this.runVerifications = [];
      return prepared.build({ signal: w.signal, onEvent: w.onEvent, verifier, ...(instruction ? { instruction } : {}) }).run;
    });
  }

  /** The verification whose failures the state shows, with its output and passing tests (the trace keeps neither): a check pass's, or the last run's. */
  verificationOf(shown: readonly Failure[]): VerifyResult | undefined {
    if (this.lastCheckPass?.failures === shown) return this.lastCheckPass;
    return verificationOf(shown, this.runVerifications);
  }

  private finishedRun(): RunState & { runDir: string } {
    const st = this.current;
    if (!canRevert(st) || st.runDir === null) throw new Error(`no finished run with changed files to restore in ${this.folderName}`);
    return { ...st, runDir: st.runDir };
  }

  /** Puts every file the last run touched back to its original bytes; files changed since are left alone. */
  revertRun(): Promise<RestoreReport> {
    return this.exclusive('a revert', async () => {
      const st = this.finishedRun();
      const { loadCheckpoint, revertRun } = await this.engine.restoring();
      const report = await revertRun({ workspace: this.engine.workspace('Fix Until Green: revert run'), checkpoint: await loadCheckpoint(st.runDir) });
      this.markReverted('run');
      const review = this.current.review;
      if (review) this.set({ ...this.current, review: decide(review, [...report.actions.map((a) => a.path), ...report.unchanged], 'undone') });
      return report;
    });
  }

  /** Brings the touched files to the state of the best step. */
  revertToBest(): Promise<{ report: RestoreReport; step: number }> {
    return this.exclusive('a revert', async () => {
      const st = this.finishedRun();
      const step = st.bestStep ?? 0;
      const { bestContents, loadCheckpoint, restoreState } = await this.engine.restoring();
      const target = await bestContents(st.runDir, st.steps, step);
      const report = await restoreState(target, { workspace: this.engine.workspace(`Fix Until Green: revert to step ${step}`), checkpoint: await loadCheckpoint(st.runDir) });
      this.markReverted('best');
      // The files now hold another state: the review starts over from it.
      this.set({ ...this.current, review: await this.reviewOf(this.current, null) });
      return { report, step };
    });
  }

  /** Runs the checks once, no model; their failures become the remaining failures the Problems panel shows. */
  verify(settings: Settings, signal?: AbortSignal): Promise<VerifyResult> {
    return this.exclusive('a check pass', async () => {
      const launch = await this.engine.prepareChecks(() => ({ ok: true, settings }));
      // The check pass holds the folder already (this.task): what refuses it now is the checks or another process's run.
      if (!launch.ok) throw new Error(refusalProblem(launch.refusal, { folderName: this.folderName, what: 'the checks did not run' }).message);
      const result = await launch.prepared.checks.verifier.verify(signal);
      // A cancelled pass says nothing about the files: Problems and the Testing view keep what the last check found.
      if (signal?.aborted || result.checks.some((x) => x.cancelled)) return result;
      // The check pass is the newest fact: it leads the panel over the last run's stop.
      const checked = { at: this.now(), green: result.green, failureCount: result.failures.length };
      this.lastCheckPass = result;
      this.set({ ...this.current, remainingFailures: result.failures, checkParsers: withParsers(this.current.checkParsers, result.checks), checked });
      return result;
    });
  }

  /** Runs of this folder that stopped mid-way (a reload, a crash) with files changed. */
  async interruptedRuns(): Promise<StoredRun[]> {
    return findInterruptedRuns(this.engine.storageDir);
  }

  /** Puts back the original bytes of the files an interrupted run changed. */
  revertInterrupted(run: StoredRun): Promise<RestoreReport> {
    return this.exclusive('a revert', async () => {
      const { revertRun } = await this.engine.restoring();
      const report = await revertRun({ workspace: this.engine.workspace('Fix Until Green: revert interrupted run'), checkpoint: await this.checkpointOf(run) });
      this.markReverted('run');
      return report;
    });
  }

  /** Keeps what an interrupted run wrote: its checkpoint is closed, so it is not offered again. */
  keepInterrupted(run: StoredRun): Promise<void> {
    return this.exclusive('closing an interrupted run', async () => (await this.checkpointOf(run)).markFinished());
  }

  private async checkpointOf(run: StoredRun): Promise<Checkpoint> {
    const cp = await (await this.engine.restoring()).checkpointAt(run.dir);
    if (!cp) throw new Error(`the checkpoint of run ${run.runId} is gone (${run.dir})`);
    return cp;
  }

  /** A start refused (its sentence and fixes, as the notification shows them), or null once one is prepared: the panel says why. */
  refuse(problem: Problem | null): void {
    if ((this.current.refused ?? null) === problem) return;
    this.set({ ...this.current, refused: problem });
  }

  markReverted(kind: 'run' | 'best'): void {
    this.set({ ...this.current, reverted: kind, ...(kind === 'run' ? { remainingFailures: [] } : {}) });
  }

  /** Replaces the remaining failures after a revert or a check-only verification. */
  setRemainingFailures(failures: RunState['remainingFailures']): void {
    this.set({ ...this.current, remainingFailures: failures });
  }
}

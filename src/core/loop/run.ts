// One run of the loop: preflight, step 0, steps, decisions, final report (DESIGN §2).
// This file orchestrates: each step is a model turn, an edit turn and a result turn that return
// values (./modelTurn, ./editTurn, ./resultTurn), reconciled with the checks and decided by the
// policy's pure criteria in their fixed order. What the next prompt says is computed from the
// step's values (./notes). The loop emits events and knows nothing of any UI.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Checkpoint } from '../edit/checkpoint';
import type { RunLock } from '../edit/runLock';
import { FileTracker } from '../edit/tracker';
import type { InputAllowance } from '../model/budget';
import { warmTokenizer } from '../tokens';
import { BUDGET_FLOOR } from '../policy/budget';
import { escalates, handoverNote } from '../policy/escalation';
import type { VerifierRecord } from '../policy/integrity';
import { recordVerifier } from '../policy/integrity';
import { gateDecision, stepDecision } from '../policy/policy';
import type { Decision } from '../policy/reasons';
import { PostMortems } from '../policy/selfReport';
import type { RunEvent, RunReport, StepRecord } from '../trace/events';
import type { StepFacts } from './settle';
import { runReport, stepLeaves, stepRecord, stepState } from './settle';
import type { Logger, VerifyResult } from '../types';
import { silentLogger } from '../types';
import { raceAbort } from './abort';
import { RunAllowance } from './allowance';
import { RunClock } from './clock';
import { holdFolder } from './folderLock';
import { ModelLadder } from './ladder';
import { editTurn } from './editTurn';
import { EventSink } from './eventSink';
import { RunHistory } from './history';
import type { ModelCallDeps } from './modelCall';
import { callModel } from './modelCall';
import { editNotes, nextFeedback, reconcileSelfReport } from './notes';
import type { ContinueGrant, RunOptions } from './options';
import { continuationGrant, extend, hookOverride } from './continuation';
import type { Prompt } from './prompter';
import { Prompter } from './prompter';
import type { ResultTurnDeps } from './resultTurn';
import { checkWritten } from './resultTurn';
import { Restorer } from './restorer';
import type { Review } from './review';
import { createReview } from './review';
import type { Observed } from './state';
import { decisionFor, runStartEvent, StopSignal, verifyEvent } from './state';

export type { ContinuationHook, ContinuationState, ContinueGrant, LadderRung, RunOptions, VerifierPort } from './options';

const POSTMORTEMS_KEPT = 3;

export class Run {
  readonly runId: string;
  readonly runDir: string;
  readonly tracePath: string;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly events: EventSink;
  private readonly abort = new AbortController();
  private readonly review: Review;
  private readonly clock: RunClock;
  private readonly history: RunHistory;
  private readonly prompter: Prompter;
  private readonly restorer: Restorer;
  /** What the run last wrote to (or read from) each file it touched, to detect user edits. */
  private readonly tracker: FileTracker;
  private readonly postMortems = new PostMortems(POSTMORTEMS_KEPT);
  private readonly steps: StepRecord[] = [];
  private checkpoint: Checkpoint | undefined;
  /** What defined the checks at step 0: edits to it are refused (verifier integrity). */
  private verifierRecord: VerifierRecord | undefined;
  private readonly allowance: RunAllowance;
  /** The last step's notes for the next prompt. */
  private lastNotes: string[] | undefined;
  /** Where a continued run resumes, when the stop restored another state than the last step's. */
  private resumeNote: string | undefined;
  private report: RunReport | undefined;
  private userCancelled = false;
  /** A file changed outside the run stopped it: the disk may not hold the state the run last saw. */
  private conflicted = false;
  /**
   * A step's edit may be on disk but not yet settled into the history (a stop landed during its
   * apply, checks or flake re-run): the stop must restore, even to what the history calls current.
   */
  private unsettled = false;
  /** This folder's run lock, held from preflight to the stop (and again while a continuation works). */
  private lock: RunLock | undefined;
  /** The run's model, then `model.escalation`'s. */
  private readonly ladder: ModelLadder;

  constructor(private readonly opts: RunOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.now = opts.now ?? Date.now;
    this.runId = opts.runId ?? `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
    this.runDir = path.join(opts.storageDir, 'runs', this.runId);
    this.tracePath = path.join(this.runDir, 'trace.jsonl');
    this.tracker = new FileTracker(opts.workspace);
    this.events = new EventSink(this.tracePath, this.now, opts.onEvent);
    this.ladder = new ModelLadder([{ provider: opts.provider, price: opts.price ?? null }, ...(opts.escalation ?? [])]);
    this.allowance = new RunAllowance(opts.settings, this.ladder.rungs.map((r) => r.price));
    this.clock = new RunClock(this.now, opts.settings.timeLimitSeconds * 1000);
    this.history = new RunHistory(opts.settings.confidenceBudget);
    const record = (): VerifierRecord | undefined => this.verifierRecord;
    this.review = createReview({ settings: opts.settings, root: opts.workspace.root, record, history: this.history, emit: (e) => this.emit(e), ...(opts.critics ? { extra: opts.critics } : {}) });
    this.prompter = new Prompter({
      ...opts,
      tracker: this.tracker,
      logger: this.logger,
      signal: this.abort.signal,
    });
    this.restorer = new Restorer(opts.workspace, this.tracker, () => this.checkpoint);
    opts.signal?.addEventListener('abort', () => this.cancel(), { once: true });
    if (opts.signal?.aborted) this.userCancelled = true;
  }

  /** Stops the run: the in-flight call or check is aborted. */
  cancel(): void {
    this.userCancelled = true;
    this.abort.abort(new Error('cancelled'));
  }

  get lastReport(): RunReport | undefined {
    return this.report;
  }

  /** What a step's model call needs of the run (./modelCall). */
  private get callDeps(): ModelCallDeps {
    return {
      provider: this.ladder.provider,
      allowance: this.allowance,
      signal: this.abort.signal,
      now: this.now,
      emit: (e) => this.emit(e),
      interrupted: () => this.interrupted(),
      observeUsage: (measured, input) => this.prompter.observeUsage(measured, input),
      postMortem: (step, text) => this.postMortems.add(step, text),
    };
  }

  private emit(e: RunEvent): void {
    this.events.emit(e);
  }

  private interrupted(): Decision | undefined {
    return this.clock.interruption(this.userCancelled, this.abort.signal.aborted, this.allowance.stepsDone);
  }

  /** Runs the checks; the time limit or a cancel ends the wait at once, whatever the check does. */
  private async verifyNow(step: number, reason: 'initial' | 'step', changed?: readonly string[]): Promise<VerifyResult> {
    const previous = this.history.started ? this.history.current.verify : null;
    // Staged: step 0's type check builds the warm program the steps check against (no second build).
    const staged = this.opts.settings.stagedChecks ? (changed ? { changed } : reason === 'initial' ? { warmStart: true } : {}) : {};
    const v = await raceAbort(this.opts.verifier.verify(this.abort.signal, { previous, ...staged }), this.abort.signal);
    const stop = this.interrupted();
    if (stop) throw new StopSignal(stop);
    this.emit(verifyEvent(step, v, reason));
    return v;
  }

  async start(): Promise<RunReport> {
    this.clock.start();
    this.emit(runStartEvent(this.runId, this.opts, this.allowance.limits()));
    const problems = [...(this.opts.preflightProblems ?? []), ...(await this.opts.verifier.preflight())];
    if (problems.length === 0) problems.push(...(await this.ladder.preflight(this.abort.signal)));
    if (problems.length > 0) return this.finish({ reason: 'preflight-failed', detail: problems.join('; '), evidence: { problems } });
    const busy = await this.takeLock();
    if (busy) return this.finish(busy);

    this.clock.arm(() => this.abort.abort(new Error('time-limit')));
    return this.guarded(async () => {
      if (this.userCancelled) throw new StopSignal(this.interrupted()!);
      const v0 = await this.verifyNow(0, 'initial');
      this.history.begin({ step: 0, verify: v0, files: new Map() });
      this.verifierRecord = recordVerifier(this.opts.workspace.root, this.opts.settings.checks);
      if (v0.green) return this.finish({ reason: 'green', detail: 'every check passes before any step: nothing to fix', evidence: { step: 0, failureHash: v0.failureHash } });
      if (this.opts.settings.stagedChecks) this.warmChecks();
      this.checkpoint = await Checkpoint.create(path.join(this.runDir, 'checkpoint'), this.runId, this.opts.workspace.root);
      // Built here, never while a check runs: its load blocks this thread, which must see a check end to kill its strays.
      warmTokenizer();
      return this.loop();
    });
  }

  /**
   * Resumes a run stopped by `step-cap` or `token-ceiling` from its current state, with more
   * budget. The stall history, the post-mortems and the best state are kept.
   */
  async continue(extra: ContinueGrant): Promise<RunReport> {
    const last = this.report;
    const grant = continuationGrant(last, extra);
    const busy = await this.takeLock();
    if (busy) throw new Error(busy.detail);
    this.clock.resume();
    this.emit(extend(this.allowance, grant, { type: 'decision', step: this.allowance.stepsDone, reason: last!.stopReason, detail: '' }, 'continued by the user'));
    this.report = undefined;
    if (this.checkpoint) await this.checkpoint.reopen();
    if (this.opts.settings.stagedChecks) this.warmChecks();
    this.clock.arm(() => this.abort.abort(new Error('time-limit')));
    return this.guarded(() => this.loop());
  }

  /** Staged checks: what is kept warm starts building now, while the model thinks. */
  private warmChecks(): void {
    this.opts.verifier.warm?.()?.catch((e: unknown) => this.logger.warn(`warm checks could not start: ${(e as Error).message}`));
  }

  private async takeLock(): Promise<Decision | undefined> {
    const held = await holdFolder({ root: this.opts.workspace.root, runId: this.runId, frontEnd: this.opts.frontEnd ?? 'engine', storageDir: this.opts.storageDir, logger: this.logger });
    if ('refused' in held) return held.refused;
    this.lock = held.lock;
    return undefined;
  }

  private async guarded(work: () => Promise<RunReport>): Promise<RunReport> {
    try {
      return await work();
    } catch (e) {
      return this.finish(decisionFor(e, () => this.interrupted(), (msg) => this.logger.error(`run ${this.runId}: ${msg}`)));
    }
  }

  private conflictStop(d: Decision): StopSignal {
    this.conflicted = true;
    return new StopSignal(d);
  }

  private async loop(): Promise<RunReport> {
    for (;;) {
      if (this.events.fault) return this.finish({ reason: 'error', detail: this.events.fault });
      const step = this.allowance.stepsDone + 1;
      const prompt = await this.prompter.build(step, this.history.current.verify, this.postMortems.texts, nextFeedback(this.lastNotes, this.resumeNote));
      // The gates that need no token count go first: counting may itself call the provider.
      const early = gateDecision({ ...this.allowance.gate(this.userCancelled, this.clock.elapsed(), this.clock.limitMs, 0), nextCallMinTokens: 0, nextCallMinCost: null });
      const measured = early ? undefined : await this.prompter.measure(prompt);
      const gate = early ?? gateDecision(this.allowance.gate(this.userCancelled, this.clock.elapsed(), this.clock.limitMs, measured!.allowance));
      if (gate) {
        const overridden = await hookOverride(this.opts.continuation, gate, this.allowance, this.clock.elapsed());
        if (overridden) {
          this.emit(overridden);
          continue;
        }
        return this.finish(gate);
      }
      const decision = await this.step(step, prompt, measured!);
      if (decision) return this.finish(decision);
    }
  }

  /** Model turn → edit turn → result turn; then the step is settled and decided. */
  private async step(step: number, prompt: Prompt, measured: InputAllowance): Promise<Decision | undefined> {
    const started = this.now();
    this.allowance.stepsDone = step;
    const previous = this.history.current;
    const call = await callModel(this.callDeps, step, prompt, measured);
    this.unsettled = true;
    const apply = { workspace: this.opts.workspace, policy: { root: this.opts.workspace.root, forbiddenDirs: [this.opts.storageDir] }, tracker: this.tracker, ...(this.checkpoint ? { checkpoint: this.checkpoint } : {}) };
    const edit = await editTurn({ editFormat: this.opts.settings.editFormat, apply, review: this.review('proposal', step, previous) }, step, call);
    if (edit.conflict) throw this.conflictStop(edit.conflict);
    this.emit({ type: 'edit', step, applied: edit.applied, files: edit.result?.files ?? [], errors: edit.error ? edit.error.split('\n') : [] });
    const changed = edit.result?.changes.map((c) => c.path);
    const { result, snapshotDir } = await checkWritten({ runDir: this.runDir, edited: this.prompter.editedFiles, ...this.resultDeps(step, previous, changed) }, step, previous, edit);
    if (result?.conflict) throw this.conflictStop(result.conflict);
    return this.settle({ step, previous, call, edit, result, snapshotDir, durationMs: this.now() - started });
  }

  /** What a step's result turn needs of the run: its checks, its history, its critics and its restorer. */
  private resultDeps(step: number, previous: Observed, changed: readonly string[] | undefined): ResultTurnDeps {
    return {
      verify: () => this.verifyNow(step, 'step', changed),
      observed: (o) => this.history.observed.push(o),
      review: this.review('result', step, previous),
      restore: (target) => this.restorer.restore(target),
      emit: (e) => this.emit(e),
      best: () => this.history.best,
    };
  }

  /** The state a step leaves is what the stall count, the budget and the next prompt see. */
  private settle(f: StepFacts): Decision | undefined {
    const { final, rolledBack, criticStop, error } = stepLeaves(f);
    const { verify } = final;
    const budget = this.history.settle({ step: f.step, verify, files: final.files }, rolledBack !== null);
    this.unsettled = false;
    if (budget) this.emit({ type: 'budget', floor: BUDGET_FLOOR, ...budget });
    const self = f.call.self;
    const reconciled = reconcileSelfReport(self, verify.green, verify.failures.length);
    this.lastNotes = [...editNotes({ written: f.edit.applied, rolledBack: rolledBack !== null, criticStopped: criticStop !== undefined, error }), ...reconciled.notes];
    this.resumeNote = undefined;
    const { status = null, confidence = null, postMortem = null, problems } = self;
    this.emit({ type: 'self-report', step: f.step, status, confidence, postMortem, problems, agreed: reconciled.agreed, note: reconciled.note, postMortems: this.postMortems.entries });
    const record = stepRecord(f, budget);
    this.steps.push(record);
    this.emit({ type: 'step-end', step: f.step, record, tokensUsed: this.allowance.tokensUsed, elapsedMs: this.clock.elapsed(), costUsed: this.allowance.money(null).costUsed });
    const stop = stepDecision(stepState(f, { cancelled: this.userCancelled, seen: this.history.stallSeen, settings: this.opts.settings, budget }));
    if (stop && escalates(stop, this.opts.settings.escalateOn, this.ladder.left)) {
      this.escalate(f.step, stop);
      return undefined;
    }
    return stop;
  }

  /**
   * The next model of the ladder takes over the same run after `step`: same workspace, checkpoints,
   * best state, post-mortems and failure history; its own stall count and confidence budget; the
   * run's steps, tokens, money and time go on counting toward the same limits.
   */
  private escalate(step: number, stop: Decision): void {
    const e = this.ladder.climb(step, stop);
    this.emit({ type: 'escalated', ...e });
    this.logger.info(`run ${this.runId}: ${e.from} stopped with ${stop.reason} after step ${step}; escalating to ${e.to} (${e.rung} of ${e.rungs})`);
    this.prompter.useProvider(this.ladder.provider);
    this.allowance.price = this.ladder.price;
    this.history.handOver(step);
    this.lastNotes = [...(this.lastNotes ?? []), handoverNote(e.from, stop)];
  }

  private async finish(stop: Decision): Promise<RunReport> {
    this.clock.pause();
    // Nothing kept warm outlives the run's stop (a continuation starts it again).
    await this.opts.verifier.release?.().catch((e: unknown) => this.logger.error(`could not stop the warm checks: ${(e as Error).message}`));
    const { decision, judged, resumeNote, held } = await this.restorer.atStop(this.history, this.opts.settings.onStop, stop, this.history.outcome(stop.reason === 'green'), this.conflicted || this.unsettled);
    if (decision !== stop) this.logger.error(decision.detail);
    // Only a continuation reads this: it resumes from what the workspace now holds.
    this.resumeNote = resumeNote;
    const { reason, detail, evidence, alsoFired } = decision;
    this.emit({ type: 'decision', step: this.allowance.stepsDone, reason, detail, ...(evidence ? { evidence } : {}), ...(alsoFired ? { alsoFired } : {}) });
    const report = runReport({
      runId: this.runId,
      decision,
      judged,
      steps: this.steps,
      tokensUsed: this.allowance.tokensUsed,
      elapsedMs: this.clock.elapsed(),
      ...this.history.reported,
      postMortems: this.postMortems.entries,
      tracePath: this.tracePath,
      limits: this.allowance.limits(),
      costUsed: this.allowance.money(null).costUsed,
      escalations: this.ladder.escalations,
      held,
    });
    await this.checkpoint?.markFinished().catch((e: unknown) => this.logger.error(`could not mark the run finished in its storage: ${(e as Error).message}`));
    this.lock?.release();
    this.lock = undefined;
    this.report = report;
    this.emit({ type: 'run-end', step: this.allowance.stepsDone, report });
    return report;
  }
}

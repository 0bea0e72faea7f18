// One run of the loop: preflight, step 0, steps, decisions, final report (DESIGN §2).
// The loop returns values and emits events; it knows nothing of any UI. What to stop for, and in
// which order, lives in ../policy; this file only gathers the state those pure functions read.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ApplyResult } from '../edit/apply';
import { applyEdits, writeComputed } from '../edit/apply';
import { Checkpoint } from '../edit/checkpoint';
import { parseReply } from '../edit/parse';
import { restoreState } from '../edit/restore';
import { FileTracker } from '../edit/tracker';
import type { Workspace } from '../edit/workspace';
import type { InputAllowance } from '../model/budget';
import { InputGauge } from '../model/budget';
import type { StepContext } from '../model/context';
import { buildStepContext } from '../model/context';
import type { ModelProvider } from '../model/provider';
import { ProviderFatalError, ProviderReplyError } from '../model/provider';
import { countTokens, MESSAGE_OVERHEAD_TOKENS, warmTokenizer } from '../model/tokens';
import { BUDGET_FLOOR, ConfidenceBudget, novelty } from '../policy/budget';
import type { Critic, CriticPhase, CriticsResult, CriticState, CriticVerdict, ProposedFile } from '../policy/critics';
import { builtinCritics, CriticFault, runCritics } from '../policy/critics';
import type { StateSummary } from '../policy/outcome';
import { competingHypotheses, decideOutcome, fixedAndRemaining, isBetter, restoreTarget } from '../policy/outcome';
import type { GateState } from '../policy/policy';
import { gateDecision, stepDecision } from '../policy/policy';
import type { Decision } from '../policy/reasons';
import { CONTINUABLE } from '../policy/reasons';
import type { SelfReport } from '../policy/selfReport';
import { parseSelfReport, PostMortems } from '../policy/selfReport';
import type { Settings } from '../settings';
import type { CheckSummary, RunEvent, RunReport, StepRecord, TimedEvent } from '../trace/events';
import { TraceWriter } from '../trace/trace';
import type { Logger, RetryNotice, VerifyResult } from '../types';
import { silentLogger } from '../types';
import { raceAbort } from './abort';

export interface VerifierPort {
  preflight(): string[] | Promise<string[]>;
  /**
   * `previous` is the state the workspace is in before this verification, for flake re-runs: after
   * a rollback it is the restored state, not the last one verified.
   */
  verify(signal?: AbortSignal, options?: { previous?: VerifyResult | null }): Promise<VerifyResult>;
}

/** More budget for a run stopped (or about to stop) by `step-cap` or `token-ceiling`. */
export interface ContinueGrant {
  extraSteps?: number;
  extraTokens?: number;
}

export interface ContinuationState {
  stepsDone: number;
  maxSteps: number;
  tokensUsed: number;
  tokenCeiling: number;
  elapsedMs: number;
}

/**
 * Asked when `step-cap` or `token-ceiling` fires; a grant that adds what ran out overrides the stop
 * (recorded in the trace as a `decision` with `overridden: true`) and the run goes on.
 */
export type ContinuationHook = (stop: Decision, state: ContinuationState) => ContinueGrant | undefined | Promise<ContinueGrant | undefined>;

export interface RunOptions {
  workspace: Workspace;
  verifier: VerifierPort;
  provider: ModelProvider;
  settings: Settings;
  /** Directory for this workspace's runs; the run writes under `<storageDir>/runs/<runId>/`. */
  storageDir: string;
  instruction?: string;
  signal?: AbortSignal;
  onEvent?: (e: TimedEvent) => void;
  logger?: Logger;
  runId?: string;
  now?: () => number;
  /** Extra preflight problems found by the front end (settings, model reachability). */
  preflightProblems?: string[];
  /** Critics run after the built-in ones the settings switch on. */
  critics?: Critic[];
  continuation?: ContinuationHook;
  /** The file open in the editor (VS Code), workspace-relative: shown to the model when the budget allows. */
  activeFile?: string;
}

/** The largest output a single call may ask for; the ceiling may clamp it lower. */
export const MAX_OUTPUT_TOKENS = 8192;
/** A call with room for fewer output tokens than this is not worth making. */
export const MIN_OUTPUT_TOKENS = 256;
const POSTMORTEMS_KEPT = 3;

type FileState = Map<string, Uint8Array | null>;

/** A step's prompt, with the context builder's upper bound on the user part's tokens. */
type Prompt = Pick<StepContext, 'system' | 'user' | 'userTokens'>;

interface Observed {
  step: number;
  verify: VerifyResult;
  /** Content of every file the run has touched, in this state. */
  files: FileState;
}

function summarizeChecks(v: VerifyResult): CheckSummary[] {
  return v.checks.map((c) => ({ name: c.name, exitCode: c.exitCode, durationMs: c.durationMs, failureCount: c.failures.length, timedOut: c.timedOut }));
}

function summary(o: Observed): StateSummary {
  return { step: o.step, green: o.verify.green, failures: o.verify.failures };
}

function textOf(b: Uint8Array | null | undefined): string | null {
  if (!b) return null;
  const t = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
  return t.includes('\0') ? null : t;
}

function proposedFiles(r: ApplyResult): ProposedFile[] {
  const after = new Map(r.changes.map((c) => [c.path, c.content]));
  return r.files.map((f) => ({ path: f.path, kind: f.kind, before: textOf(r.before.get(f.path)), after: f.kind === 'delete' ? null : textOf(after.get(f.path)) }));
}

/** What the model is told, in the next prompt, about a reply that carried nothing usable. */
function replyFeedback(e: ProviderReplyError): string {
  const advice =
    e.problem === 'truncated'
      ? 'Keep the reply short: the three header lines, then only the edits, no explanations and no unchanged code.'
      : e.problem === 'not-text'
        ? 'Answer in plain text: the three header lines, then the edits.'
        : 'Answer with the three header lines, then the edits.';
  return `Your previous reply could not be used: ${e.message}. ${advice}`;
}

class StopSignal extends Error {
  constructor(readonly decision: Decision) {
    super(decision.detail);
  }
}

export class Run {
  readonly runId: string;
  readonly runDir: string;
  readonly tracePath: string;
  private readonly opts: RunOptions;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly trace: TraceWriter;
  private readonly abort = new AbortController();
  private readonly critics: Critic[];
  private readonly budget: ConfidenceBudget;
  private startedAt = 0;
  /** Time between a stop and a `continue()`, which the time limit does not count. */
  private pausedMs = 0;
  private stoppedAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private checkpoint: Checkpoint | undefined;

  private maxSteps: number;
  private tokenCeiling: number;
  private tokensUsed = 0;
  private stepsDone = 0;
  private readonly steps: StepRecord[] = [];
  private readonly seen = new Map<string, number[]>();
  private readonly postMortems = new PostMortems(POSTMORTEMS_KEPT);
  private readonly editedFiles = new Set<string>();
  private initial: Observed | undefined;
  private current: Observed | undefined;
  private best: Observed | undefined;
  /** What the run last wrote to (or read from) each file it touched, to detect user edits. */
  private readonly tracker: FileTracker;
  private feedback: string | undefined;
  private report: RunReport | undefined;
  private userCancelled = false;
  /** Every state a step's checks observed, kept or rolled back. */
  private readonly observedStates: Observed[] = [];
  private readonly inputGauge = new InputGauge();

  constructor(opts: RunOptions) {
    this.opts = opts;
    this.logger = opts.logger ?? silentLogger;
    this.now = opts.now ?? Date.now;
    this.runId = opts.runId ?? `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
    this.runDir = path.join(opts.storageDir, 'runs', this.runId);
    this.tracePath = path.join(this.runDir, 'trace.jsonl');
    this.tracker = new FileTracker(opts.workspace);
    this.trace = new TraceWriter(this.tracePath);
    this.maxSteps = opts.settings.maxSteps;
    this.tokenCeiling = opts.settings.tokenCeiling;
    this.critics = [...builtinCritics(opts.settings), ...(opts.critics ?? [])];
    this.budget = new ConfidenceBudget(opts.settings.confidenceBudget);
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

  private emit(e: RunEvent): void {
    const timed = this.trace.write(e, new Date(this.now()));
    this.opts.onEvent?.(timed);
  }

  private elapsed(): number {
    return this.now() - this.startedAt - this.pausedMs;
  }

  private timeLimitMs(): number {
    return this.opts.settings.timeLimitSeconds * 1000;
  }

  private armTimer(): void {
    const left = this.timeLimitMs() - this.elapsed();
    this.timer = setTimeout(() => this.abort.abort(new Error('time-limit')), Math.max(0, left));
  }

  private interrupted(): Decision | undefined {
    if (this.userCancelled) return { reason: 'cancelled', detail: `stopped by the user after ${this.stepsDone} step(s)`, evidence: { stepsDone: this.stepsDone } };
    if (this.abort.signal.aborted || this.elapsed() >= this.timeLimitMs()) {
      return {
        reason: 'time-limit',
        detail: `${Math.round(this.elapsed() / 1000)} s elapsed of the ${this.opts.settings.timeLimitSeconds} s limit; the in-flight work was aborted`,
        evidence: { elapsedMs: this.elapsed(), timeLimitMs: this.timeLimitMs() },
      };
    }
    return undefined;
  }

  /** Runs the checks; the time limit or a cancel ends the wait at once, whatever the check does. */
  private async verifyNow(): Promise<VerifyResult> {
    const previous = this.current ? this.current.verify : null;
    const v = await raceAbort(this.opts.verifier.verify(this.abort.signal, { previous }), this.abort.signal);
    const stop = this.interrupted();
    if (stop) throw new StopSignal(stop);
    return v;
  }

  async start(): Promise<RunReport> {
    this.startedAt = this.now();
    const s = this.opts.settings;
    this.emit({
      type: 'run-start',
      step: 0,
      runId: this.runId,
      root: this.opts.workspace.root,
      model: this.opts.provider.label,
      instruction: this.opts.instruction ?? null,
      checks: s.checks.map((c) => ({ name: c.name, command: c.command })),
      limits: this.limits(),
      settings: { ...s, model: { provider: s.model.provider, id: s.model.id, baseUrl: s.model.baseUrl } },
    });

    const problems = [...(this.opts.preflightProblems ?? []), ...(await this.opts.verifier.preflight())];
    if (problems.length === 0 && this.opts.provider.preflight) problems.push(...(await this.opts.provider.preflight(this.abort.signal)));
    if (problems.length > 0) return this.finish({ reason: 'preflight-failed', detail: problems.join('; '), evidence: { problems } });

    this.armTimer();
    try {
      if (this.userCancelled) throw new StopSignal(this.interrupted()!);
      // The tokenizer's tables are built while step 0's checks run in their own processes.
      const warm = setTimeout(warmTokenizer, 0);
      let v0: VerifyResult;
      try {
        v0 = await this.verifyNow();
      } finally {
        clearTimeout(warm);
      }
      this.emitVerify(0, v0, 'initial');
      this.initial = { step: 0, verify: v0, files: new Map() };
      this.current = this.initial;
      this.best = this.initial;
      this.observe(0, v0.failureHash);
      if (v0.green) return this.finish({ reason: 'green', detail: 'every check passes before any step: nothing to fix', evidence: { step: 0, failureHash: v0.failureHash } });
      this.checkpoint = await Checkpoint.create(path.join(this.runDir, 'checkpoint'), this.runId, this.opts.workspace.root);
      return await this.loop();
    } catch (e) {
      return this.finish(this.decisionFor(e));
    }
  }

  /**
   * Resumes a run stopped by `step-cap` or `token-ceiling` from its current state, with more
   * budget. The stall history, the post-mortems and the best state are kept.
   */
  async continue(extra: ContinueGrant): Promise<RunReport> {
    const last = this.report;
    if (!last || !CONTINUABLE.includes(last.stopReason)) {
      throw new Error(`only a run stopped by step-cap or token-ceiling can continue${last ? `; this one stopped with ${last.stopReason}` : ''}`);
    }
    const grant = { extraSteps: Math.max(0, Math.floor(extra.extraSteps ?? 0)), extraTokens: Math.max(0, Math.floor(extra.extraTokens ?? 0)) };
    if (last.stopReason === 'step-cap' && grant.extraSteps === 0) throw new Error('a run stopped by step-cap needs extraSteps > 0 to continue');
    if (last.stopReason === 'token-ceiling' && grant.extraTokens === 0) throw new Error('a run stopped by token-ceiling needs extraTokens > 0 to continue');
    if (this.stoppedAt !== undefined) this.pausedMs += this.now() - this.stoppedAt;
    this.stoppedAt = undefined;
    this.maxSteps += grant.extraSteps;
    this.tokenCeiling += grant.extraTokens;
    this.emit({
      type: 'decision',
      step: this.stepsDone,
      reason: last.stopReason,
      detail: `continued by the user: +${grant.extraSteps} step(s), +${grant.extraTokens} token(s); now ${this.maxSteps} steps and ${this.tokenCeiling} tokens`,
      overridden: true,
      grant,
    });
    this.report = undefined;
    if (this.checkpoint) await this.checkpoint.reopen();
    this.armTimer();
    try {
      return await this.loop();
    } catch (e) {
      return this.finish(this.decisionFor(e));
    }
  }

  private decisionFor(e: unknown): Decision {
    if (e instanceof StopSignal) return e.decision;
    const stop = this.interrupted();
    if (stop) return stop;
    const msg = e instanceof Error ? e.message : String(e);
    this.logger.error(`run ${this.runId}: ${msg}`);
    return { reason: 'error', detail: msg };
  }

  private limits(): RunReport['limits'] {
    return { maxSteps: this.maxSteps, tokenCeiling: this.tokenCeiling, timeLimitSeconds: this.opts.settings.timeLimitSeconds };
  }

  private observe(step: number, hash: string): void {
    const at = this.seen.get(hash) ?? [];
    at.push(step);
    this.seen.set(hash, at);
  }

  private emitVerify(step: number, v: VerifyResult, reason: 'initial' | 'step' | 'rollback'): void {
    this.emit({
      type: 'verify',
      step,
      green: v.green,
      failureHash: v.failureHash,
      failureCount: v.failures.length,
      failures: v.failures,
      flaky: v.flaky,
      checks: summarizeChecks(v),
      durationMs: v.durationMs,
      reason,
    });
  }

  private async readText(rel: string): Promise<string | undefined> {
    const b = await this.opts.workspace.read(rel);
    this.tracker.noteRead(rel, b);
    if (!b) return undefined;
    const t = Buffer.from(b).toString('utf8');
    return t.includes('\0') ? undefined : t;
  }

  private async buildPrompt(step: number): Promise<Prompt> {
    return buildStepContext({
      step,
      settings: this.opts.settings,
      failures: this.current!.verify.failures,
      flaky: this.current!.verify.flaky,
      root: this.opts.workspace.root,
      editedFiles: this.editedFiles,
      ...(this.opts.activeFile ? { activeFile: this.opts.activeFile } : {}),
      ...(this.opts.instruction ? { instruction: this.opts.instruction } : {}),
      postMortems: this.postMortems.texts,
      ...(this.feedback ? { feedback: this.feedback } : {}),
      readText: (rel) => this.readText(rel),
      logger: this.logger,
    });
  }

  /**
   * The most the next call's input may come to: the provider's own count when it has one, else the
   * tokenizer's estimate, either with a margin learned from the usage providers report.
   */
  private async measurePrompt(prompt: Prompt): Promise<InputAllowance> {
    const req = { system: prompt.system, messages: [{ role: 'user' as const, content: prompt.user }] };
    if (this.opts.provider.countInputTokens) {
      try {
        return this.inputGauge.allowance(await this.opts.provider.countInputTokens(req, this.abort.signal), 'provider');
      } catch (e) {
        if (this.abort.signal.aborted) throw e;
        // Counting is an optimization: without it the tokenizer estimate and its margin still hold the ceiling.
        this.logger.warn(`${this.opts.provider.label}: counting the prompt's tokens failed (${(e as Error).message}); using the tokenizer's estimate`);
      }
    }
    // The context builder's count of the user prompt bounds it from its parts; the system prompt is the same every step.
    return this.inputGauge.allowance(countTokens(prompt.system) + prompt.userTokens + 2 * MESSAGE_OVERHEAD_TOKENS, 'tokenizer');
  }

  private async loop(): Promise<RunReport> {
    for (;;) {
      const step = this.stepsDone + 1;
      const prompt = await this.buildPrompt(step);
      const gateState = (promptTokens: number): GateState => ({
        cancelled: this.userCancelled,
        elapsedMs: this.elapsed(),
        timeLimitMs: this.timeLimitMs(),
        stepsDone: this.stepsDone,
        maxSteps: this.maxSteps,
        tokensUsed: this.tokensUsed,
        tokenCeiling: this.tokenCeiling,
        nextCallMinTokens: promptTokens + MIN_OUTPUT_TOKENS,
        nextPromptTokens: promptTokens,
      });
      // The gates that need no token count go first: counting may itself call the provider.
      const early = gateDecision({ ...gateState(0), nextCallMinTokens: 0 });
      if (early) {
        if (await this.overridden(early)) continue;
        return this.finish(early);
      }
      const measured = await this.measurePrompt(prompt);
      const gate = gateDecision(gateState(measured.allowance));
      if (gate) {
        if (await this.overridden(gate)) continue;
        return this.finish(gate);
      }
      const decision = await this.step(step, prompt, measured);
      if (decision) return this.finish(decision);
    }
  }

  /** Asks the continuation hook about a continuable stop; a useful grant extends the run. */
  private async overridden(stop: Decision): Promise<boolean> {
    const hook = this.opts.continuation;
    if (!hook || !CONTINUABLE.includes(stop.reason)) return false;
    const g = await hook(stop, { stepsDone: this.stepsDone, maxSteps: this.maxSteps, tokensUsed: this.tokensUsed, tokenCeiling: this.tokenCeiling, elapsedMs: this.elapsed() });
    const grant = { extraSteps: Math.max(0, Math.floor(g?.extraSteps ?? 0)), extraTokens: Math.max(0, Math.floor(g?.extraTokens ?? 0)) };
    // A grant that does not add what ran out would only fire the same stop again.
    const useful = stop.reason === 'step-cap' ? grant.extraSteps > 0 : grant.extraTokens > 0;
    if (!useful) return false;
    this.maxSteps += grant.extraSteps;
    this.tokenCeiling += grant.extraTokens;
    this.emit({
      type: 'decision',
      step: this.stepsDone,
      reason: stop.reason,
      detail: `${stop.detail}; overridden by the continuation hook: +${grant.extraSteps} step(s), +${grant.extraTokens} token(s)`,
      ...(stop.evidence ? { evidence: stop.evidence } : {}),
      overridden: true,
      grant,
    });
    return true;
  }

  private criticState(step: number, previous: Observed): CriticState {
    return { step, settings: this.opts.settings, initial: summary(this.initial!), best: summary(this.best!), previous: summary(previous) };
  }

  private async review(phase: CriticPhase, step: number, subject: Parameters<typeof runCritics>[2], previous: Observed): Promise<CriticsResult> {
    let r: CriticsResult;
    try {
      r = await runCritics(this.critics, phase, subject, this.criticState(step, previous));
    } catch (e) {
      if (e instanceof CriticFault) throw new StopSignal({ reason: 'error', detail: e.message, evidence: { critic: e.critic } });
      throw e;
    }
    for (const v of r.verdicts) this.emit({ type: 'critic', step, phase, verdict: v });
    return r;
  }

  private async step(step: number, prompt: Prompt, measured: InputAllowance): Promise<Decision | undefined> {
    const started = this.now();
    const remaining = this.tokenCeiling - this.tokensUsed;
    const promptTokens = measured.allowance;
    const maxOutputTokens = Math.min(MAX_OUTPUT_TOKENS, remaining - promptTokens);
    this.stepsDone = step;
    const previous = this.current!;

    let text: string;
    let usage = { input: 0, output: 0 };
    let usageReported = false;
    let replyError: ProviderReplyError | undefined;
    const callStarted = this.now();
    let retries = 0;
    const onRetry = (n: RetryNotice): void => {
      retries++;
      this.emit({ type: 'model-retry', step, attempt: n.attempt, delayMs: n.delayMs, reason: n.reason, ...(n.retryAfterMs !== undefined ? { retryAfterMs: n.retryAfterMs } : {}) });
    };
    try {
      const c = await raceAbort(
        this.opts.provider.complete({
          system: prompt.system,
          messages: [{ role: 'user', content: prompt.user }],
          maxOutputTokens,
          signal: this.abort.signal,
          onRetry,
        }),
        this.abort.signal,
      );
      // A provider may hand back anything; a missing text is an empty reply, which the header parser names.
      text = typeof c.text === 'string' ? c.text : '';
      usage = c.usage;
      usageReported = c.usageReported;
    } catch (e) {
      const stop = this.interrupted();
      const callError = e instanceof Error ? e.message : String(e);
      if (e instanceof ProviderReplyError && !stop) {
        // An answer with nothing usable in it: a failed step that re-observes the unchanged state, not a crash.
        replyError = e;
        text = '';
        usage = e.usage;
        usageReported = e.usageReported;
      } else {
        this.emitModelCall(step, prompt, promptTokens, maxOutputTokens, null, false, this.now() - callStarted, null, undefined, callError, retries + 1);
        if (stop) throw new StopSignal(stop);
        if (e instanceof ProviderFatalError) throw new StopSignal({ reason: 'error', detail: `model ${this.opts.provider.label}: ${callError}` });
        throw e;
      }
    }
    this.tokensUsed += usage.input + usage.output;
    if (usageReported) this.inputGauge.observe(measured, usage.input);
    const self = parseSelfReport(text);
    this.emitModelCall(
      step, prompt, promptTokens, maxOutputTokens, usage, usageReported, this.now() - callStarted,
      replyError ? (replyError.partialText ?? null) : text, replyError ? undefined : self, replyError ? `${replyError.problem}: ${replyError.message}` : null, retries + 1,
    );
    if (self.postMortem && !replyError) this.postMortems.add(step, self.postMortem);

    const verdicts: CriticVerdict[] = [];
    let criticStop: CriticVerdict | undefined;
    let rolledBack: 'previous' | 'best' | null = null;
    let feedback: string | null = null;
    let result: ApplyResult | undefined;

    const parsed = replyError ? { edits: [], errors: [replyFeedback(replyError)] } : parseReply(text, this.opts.settings.editFormat);
    if (parsed.errors.length > 0) {
      feedback = parsed.errors.join('\n');
    } else {
      const editOpts = {
        workspace: this.opts.workspace,
        policy: { root: this.opts.workspace.root, forbiddenDirs: [this.opts.storageDir] },
        tracker: this.tracker,
        ...(this.checkpoint ? { checkpoint: this.checkpoint } : {}),
      };
      // Computed first and shown to the critics; written only if none of them objects.
      const proposed = await applyEdits(parsed.edits, { ...editOpts, dryRun: true });
      this.stopOnConflicts(proposed, step);
      if (proposed.errors.length > 0) {
        feedback = proposed.errors.join('\n');
        result = proposed;
      } else {
        const review = await this.review('proposal', step, { step, reply: text, files: proposedFiles(proposed) }, previous);
        verdicts.push(...review.verdicts);
        if (review.stop) {
          criticStop = review.stop;
          feedback = `critic ${review.stop.critic} stopped the run: ${review.stop.reason}`;
          result = proposed;
        } else if (review.verdict === 'retry') {
          feedback = `Your edit was not applied: ${review.retries.map((r) => `${r.critic}: ${r.reason}`).join('\n')}`;
          rolledBack = 'previous';
          result = proposed;
        } else {
          result = await writeComputed(proposed, editOpts);
          this.stopOnConflicts(result, step);
          if (!result.applied) feedback = result.errors.join('\n');
        }
      }
    }
    const applied = result?.applied === true;
    this.emit({ type: 'edit', step, applied, files: result?.files ?? [], errors: feedback ? feedback.split('\n') : [] });

    let final: Observed;
    let snapshotDir: string | null = null;
    if (applied && result) {
      const files = new Map(previous.files);
      for (const c of result.changes) {
        files.set(c.path, c.content);
        this.editedFiles.add(c.path);
      }
      snapshotDir = this.saveSnapshot(step, result);
      const verify = await this.verifyNow();
      this.emitVerify(step, verify, 'step');
      const stepped: Observed = { step, verify, files };
      this.observedStates.push(stepped);
      final = stepped;
      const review = await this.review(
        'result',
        step,
        { step, green: verify.green, failures: verify.failures, failureHash: verify.failureHash, files: proposedFiles(result) },
        previous,
      );
      verdicts.push(...review.verdicts);
      if (review.stop) {
        criticStop = review.stop;
      } else if (review.verdict === 'retry') {
        const target = review.rollbackTo === 'best' ? this.best! : previous;
        await this.restore(target);
        rolledBack = review.rollbackTo;
        final = { step: target.step, verify: target.verify, files: target.files };
        feedback = `Your edit at step ${step} was rolled back to the state of step ${target.step}: ${review.retries.map((r) => `${r.critic}: ${r.reason}`).join('\n')}`;
        this.emit({ type: 'edit', step, applied: false, files: result.files, errors: [feedback], rolledBack: true, restoredToStep: target.step });
      }
      this.feedback = rolledBack ? feedback ?? undefined : undefined;
    } else {
      // Nothing changed on disk: the unchanged state is observed again and counts toward stalled.
      final = previous;
      this.feedback = rolledBack || criticStop ? (feedback ?? undefined) : `Your edits were not applied, so nothing changed:\n${feedback ?? 'no edits found in the reply'}`;
    }
    const verify = final.verify;

    // What the step leaves is the state the stall count, the budget and the next prompt see.
    const seenBefore = this.seen.has(verify.failureHash);
    const bestBefore = this.best!;
    const obs: Observed = { step, verify, files: final.files };
    this.current = obs;
    if (!rolledBack && isBetter(summary(obs), summary(this.best!))) this.best = obs;
    this.observe(step, verify.failureHash);

    let budgetBalance: number | null = null;
    if (this.budget.enabled) {
      const entry = this.budget.step(step, novelty(seenBefore, verify.failures.length, bestBefore.verify.failures.length));
      budgetBalance = entry.balance;
      this.emit({ type: 'budget', floor: BUDGET_FLOOR, ...entry });
    }

    let note: string | null = null;
    let agreed: boolean | null = null;
    if (self.status === 'done') {
      agreed = verify.green;
      if (!verify.green) {
        note = `STATUS: done was rejected: the checks still report ${verify.failures.length} failure(s).`;
        this.feedback = this.feedback ? `${this.feedback}\n${note}` : note;
      } else note = 'STATUS: done confirmed by the checks';
    } else if (self.status === 'blocked') {
      agreed = !verify.green;
      note = verify.green ? 'STATUS: blocked ignored: the checks pass' : 'STATUS: blocked with failures remaining';
    }
    if (self.problems.length > 0) {
      const bad = `The header of your reply could not be read fully (${self.problems.join('; ')}). Start every reply with STATUS, CONFIDENCE and POSTMORTEM lines.`;
      this.feedback = this.feedback ? `${this.feedback}\n${bad}` : bad;
    }
    this.emit({
      type: 'self-report',
      step,
      status: self.status ?? null,
      confidence: self.confidence ?? null,
      postMortem: self.postMortem ?? null,
      problems: self.problems,
      agreed,
      note,
      postMortems: this.postMortems.entries,
    });

    const record: StepRecord = {
      index: step,
      failureHash: verify.failureHash,
      failureCount: verify.failures.length,
      applied: applied && !rolledBack,
      tokens: usage.input + usage.output,
      postMortem: self.postMortem ?? null,
      status: self.status ?? null,
      confidence: self.confidence ?? null,
      files: result?.files ?? [],
      checks: summarizeChecks(verify),
      critics: verdicts,
      feedback,
      durationMs: this.now() - started,
      snapshotDir,
      rolledBack,
      budgetBalance,
      selfReportProblems: self.problems,
    };
    this.steps.push(record);
    this.emit({ type: 'step-end', step, record, tokensUsed: this.tokensUsed, elapsedMs: this.elapsed() });

    return stepDecision({
      cancelled: this.userCancelled,
      step,
      green: verify.green,
      failureHash: verify.failureHash,
      failureCount: verify.failures.length,
      seen: this.seen,
      stallThreshold: this.opts.settings.stallThreshold,
      criticStop: criticStop ? { critic: criticStop.critic, reason: criticStop.reason } : null,
      budgetBalance,
      budgetFloor: BUDGET_FLOOR,
      confidence: self.confidence ?? null,
      escalateBelowConfidence: this.opts.settings.escalateBelowConfidence,
      status: self.status ?? null,
    });
  }

  private emitModelCall(
    step: number,
    prompt: { system: string; user: string },
    promptTokens: number,
    maxOutputTokens: number,
    usage: { input: number; output: number } | null,
    usageReported: boolean,
    durationMs: number,
    reply: string | null,
    self: SelfReport | undefined,
    error: string | null,
    attempts: number,
  ): void {
    this.emit({
      type: 'model-call',
      step,
      model: this.opts.provider.label,
      promptTokens,
      maxOutputTokens,
      usage,
      usageReported,
      durationMs,
      tokensUsed: this.tokensUsed,
      reply,
      status: self?.status ?? null,
      confidence: self?.confidence ?? null,
      postMortem: self?.postMortem ?? null,
      problems: self?.problems ?? [],
      error,
      attempts,
      prompt: { system: prompt.system, user: prompt.user },
    });
  }

  /** A file changed outside the run since it last read or wrote it is never overwritten: the run stops. */
  private stopOnConflicts(r: ApplyResult, step: number): void {
    if (r.conflicts.length === 0) return;
    throw new StopSignal({ reason: 'error', detail: `${r.errors.slice(0, r.conflicts.length).join('; ')}; the run stopped at step ${step}` });
  }

  private saveSnapshot(step: number, r: ApplyResult): string {
    const dir = path.join(this.runDir, 'steps', String(step));
    for (const c of r.changes) {
      const before = r.before.get(c.path);
      for (const [side, bytes] of [['before', before ?? null], ['after', c.content]] as const) {
        const file = path.join(dir, side, ...c.path.split('/'));
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, bytes ?? new Uint8Array());
      }
    }
    return dir;
  }

  /** Brings every touched file to `target`'s content (original bytes where target has none). */
  private async restore(target: Observed): Promise<number> {
    if (!this.checkpoint) return 0;
    const r = await restoreState(target.files, { workspace: this.opts.workspace, checkpoint: this.checkpoint, tracker: this.tracker });
    for (const c of r.conflicts) this.logger.warn(c.reason);
    return r.actions.length;
  }

  private async finish(decision: Decision): Promise<RunReport> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.stoppedAt = this.now();
    this.emit({
      type: 'decision',
      step: this.stepsDone,
      reason: decision.reason,
      detail: decision.detail,
      ...(decision.evidence ? { evidence: decision.evidence } : {}),
      ...(decision.alsoFired ? { alsoFired: decision.alsoFired } : {}),
    });
    const green = decision.reason === 'green';
    const judged = this.initial
      ? decideOutcome({ green, initial: summary(this.initial), best: summary(this.best!), observed: this.observedStates.map(summary) })
      : { outcome: 'punt' as const, why: 'the run stopped before step 0 was verified; nothing was changed' };
    let final = this.current;
    try {
      if (this.checkpoint && this.initial && this.current) {
        const where = restoreTarget(judged.outcome, this.opts.settings.onStop);
        const target = where === 'initial' ? this.initial : where === 'best' ? this.best! : this.current;
        if (target !== this.current) {
          const changed = await this.restore(target);
          final = target;
          // Only a continuation reads this: it resumes from what the workspace now holds.
          if (changed > 0) this.feedback = `The run paused and the workspace was restored to the state of step ${target.step} (${where === 'initial' ? 'the original files' : 'the best state'}); continue from there.`;
        }
      }
    } catch (e) {
      this.logger.error(`could not restore the workspace after the run: ${(e as Error).message}`);
    }
    if (final) this.current = final;
    const initialFailures = this.initial?.verify.failures ?? [];
    const { fixed, remaining } = fixedAndRemaining(initialFailures, final?.verify.failures ?? initialFailures);
    const report: RunReport = {
      runId: this.runId,
      stopReason: decision.reason,
      outcome: judged.outcome,
      detail: decision.detail,
      steps: [...this.steps],
      tokensUsed: this.tokensUsed,
      elapsedMs: this.elapsed(),
      initialFailureCount: initialFailures.length,
      remainingFailures: remaining,
      fixedFailures: fixed,
      bestStep: this.best?.step ?? 0,
      hypotheses: judged.outcome === 'uncertain' ? competingHypotheses(this.postMortems.entries) : [],
      outcomeWhy: judged.why,
      ...(decision.alsoFired ? { alsoFired: decision.alsoFired } : {}),
      tracePath: this.tracePath,
      limits: this.limits(),
    };
    if (this.checkpoint) await this.checkpoint.markFinished();
    this.report = report;
    this.emit({ type: 'run-end', step: this.stepsDone, report });
    return report;
  }
}

export async function runLoop(opts: RunOptions): Promise<RunReport> {
  return new Run(opts).start();
}

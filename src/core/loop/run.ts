// One run of the loop: preflight, step 0, steps, decisions, final report (DESIGN §2).
// The loop returns values and emits events; it knows nothing of any UI.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ApplyResult } from '../edit/apply';
import { applyEdits } from '../edit/apply';
import { Checkpoint } from '../edit/checkpoint';
import { parseReply } from '../edit/parse';
import type { FileChange, Workspace } from '../edit/workspace';
import type { InputAllowance } from '../model/budget';
import { InputGauge } from '../model/budget';
import { buildStepContext } from '../model/context';
import type { ModelProvider } from '../model/provider';
import { ProviderFatalError, ProviderReplyError } from '../model/provider';
import { countRequestTokens } from '../model/tokens';
import type { GateState } from '../policy/policy';
import { gateDecision, stepDecision } from '../policy/policy';
import type { Decision, Outcome } from '../policy/reasons';
import type { SelfReport } from '../policy/selfReport';
import { parseSelfReport } from '../policy/selfReport';
import type { Settings } from '../settings';
import type { CheckSummary, RunEvent, RunReport, StepRecord, TimedEvent } from '../trace/events';
import { TraceWriter } from '../trace/trace';
import type { Failure, Logger, VerifyResult } from '../types';
import { silentLogger } from '../types';

export interface VerifierPort {
  preflight(): string[] | Promise<string[]>;
  verify(signal?: AbortSignal): Promise<VerifyResult>;
}

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
  /** The file open in the editor (VS Code), workspace-relative: shown to the model when the budget allows. */
  activeFile?: string;
}

/** The largest output a single call may ask for; the ceiling may clamp it lower. */
export const MAX_OUTPUT_TOKENS = 8192;
/** A call with room for fewer output tokens than this is not worth making. */
export const MIN_OUTPUT_TOKENS = 256;
const POSTMORTEMS_KEPT = 3;

type FileState = Map<string, Uint8Array | null>;

interface Observed {
  step: number;
  verify: VerifyResult;
  /** Content of every file the run has touched, in this state. */
  files: FileState;
}

function summarizeChecks(v: VerifyResult): CheckSummary[] {
  return v.checks.map((c) => ({ name: c.name, exitCode: c.exitCode, durationMs: c.durationMs, failureCount: c.failures.length, timedOut: c.timedOut }));
}

function sameBytes(a: Uint8Array | null | undefined, b: Uint8Array | null | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return (a ?? null) === (b ?? null);
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

function failureKey(f: Failure): string {
  return `${f.check}\u0000${f.file ?? ''}\u0000${f.id ?? ''}\u0000${f.id ? '' : f.message}`;
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
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private checkpoint: Checkpoint | undefined;

  private maxSteps: number;
  private tokenCeiling: number;
  private tokensUsed = 0;
  private stepsDone = 0;
  private readonly steps: StepRecord[] = [];
  private readonly seen = new Map<string, number[]>();
  private readonly postMortems: string[] = [];
  private readonly editedFiles = new Set<string>();
  private initial: Observed | undefined;
  private current: Observed | undefined;
  private best: Observed | undefined;
  /** What the run last wrote to (or read from) each file it touched, to detect user edits. */
  private readonly lastKnown: FileState = new Map();
  private feedback: string | undefined;
  private report: RunReport | undefined;
  private userCancelled = false;
  private readonly observedStates: Observed[] = [];
  private readonly inputGauge = new InputGauge();

  constructor(opts: RunOptions) {
    this.opts = opts;
    this.logger = opts.logger ?? silentLogger;
    this.now = opts.now ?? Date.now;
    this.runId = opts.runId ?? `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
    this.runDir = path.join(opts.storageDir, 'runs', this.runId);
    this.tracePath = path.join(this.runDir, 'trace.jsonl');
    this.trace = new TraceWriter(this.tracePath);
    this.maxSteps = opts.settings.maxSteps;
    this.tokenCeiling = opts.settings.tokenCeiling;
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
    return this.now() - this.startedAt;
  }

  private timeLimitMs(): number {
    return this.opts.settings.timeLimitSeconds * 1000;
  }

  private armTimer(): void {
    const left = this.timeLimitMs() - this.elapsed();
    this.timer = setTimeout(() => this.abort.abort(new Error('time-limit')), Math.max(0, left));
  }

  private interrupted(): Decision | undefined {
    if (this.userCancelled) return { reason: 'cancelled', detail: `stopped by the user after ${this.stepsDone} step(s)` };
    if (this.abort.signal.aborted || this.elapsed() >= this.timeLimitMs()) {
      return { reason: 'time-limit', detail: `${Math.round(this.elapsed() / 1000)} s elapsed of the ${this.opts.settings.timeLimitSeconds} s limit; the in-flight work was aborted` };
    }
    return undefined;
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
    if (problems.length > 0) return this.finish({ reason: 'preflight-failed', detail: problems.join('; ') });

    this.armTimer();
    try {
      const v0 = await this.opts.verifier.verify(this.abort.signal);
      const stop = this.interrupted();
      if (stop) return this.finish(stop);
      this.emitVerify(0, v0, 'initial');
      this.initial = { step: 0, verify: v0, files: new Map() };
      this.current = this.initial;
      this.best = this.initial;
      this.observe(0, v0.failureHash);
      if (v0.green) return this.finish({ reason: 'green', detail: 'every check passes before any step: nothing to fix' });
      this.checkpoint = await Checkpoint.create(path.join(this.runDir, 'checkpoint'), this.runId, this.opts.workspace.root);
      return await this.loop();
    } catch (e) {
      return this.finish(this.decisionFor(e));
    }
  }

  /**
   * Resumes a run stopped by `step-cap` or `token-ceiling` from its current state, with more
   * budget. The stall history is kept.
   */
  async continue(extra: { extraSteps?: number; extraTokens?: number }): Promise<RunReport> {
    const last = this.report;
    if (!last || (last.stopReason !== 'step-cap' && last.stopReason !== 'token-ceiling')) {
      throw new Error(`only a run stopped by step-cap or token-ceiling can continue${last ? `; this one stopped with ${last.stopReason}` : ''}`);
    }
    this.maxSteps += Math.max(0, extra.extraSteps ?? 0);
    this.tokenCeiling += Math.max(0, extra.extraTokens ?? 0);
    this.report = undefined;
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
    if (!b) return undefined;
    const t = Buffer.from(b).toString('utf8');
    return t.includes('\0') ? undefined : t;
  }

  private async buildPrompt(step: number): Promise<{ system: string; user: string }> {
    return buildStepContext({
      step,
      settings: this.opts.settings,
      failures: this.current!.verify.failures,
      editedFiles: this.editedFiles,
      ...(this.opts.activeFile ? { activeFile: this.opts.activeFile } : {}),
      ...(this.opts.instruction ? { instruction: this.opts.instruction } : {}),
      postMortems: this.postMortems,
      ...(this.feedback ? { feedback: this.feedback } : {}),
      readText: (rel) => this.readText(rel),
      logger: this.logger,
    });
  }

  /**
   * The most the next call's input may come to: the provider's own count when it has one, else the
   * tokenizer's estimate, either with a margin learned from the usage providers report.
   */
  private async measurePrompt(prompt: { system: string; user: string }): Promise<InputAllowance> {
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
    return this.inputGauge.allowance(countRequestTokens(req), 'tokenizer');
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
      if (early) return this.finish(early);
      const measured = await this.measurePrompt(prompt);
      const gate = gateDecision(gateState(measured.allowance));
      if (gate) return this.finish(gate);
      const decision = await this.step(step, prompt, measured);
      if (decision) return this.finish(decision);
    }
  }

  private async step(step: number, prompt: { system: string; user: string }, measured: InputAllowance): Promise<Decision | undefined> {
    const started = this.now();
    const remaining = this.tokenCeiling - this.tokensUsed;
    const promptTokens = measured.allowance;
    const maxOutputTokens = Math.min(MAX_OUTPUT_TOKENS, remaining - promptTokens);
    this.stepsDone = step;

    let text: string | null = null;
    let usage = { input: 0, output: 0 };
    let usageReported = false;
    let callError: string | null = null;
    let replyError: ProviderReplyError | undefined;
    const callStarted = this.now();
    try {
      const c = await this.opts.provider.complete({
        system: prompt.system,
        messages: [{ role: 'user', content: prompt.user }],
        maxOutputTokens,
        signal: this.abort.signal,
      });
      text = c.text;
      usage = c.usage;
      usageReported = c.usageReported;
    } catch (e) {
      const stop = this.interrupted();
      callError = e instanceof Error ? e.message : String(e);
      if (e instanceof ProviderReplyError && !stop) {
        // An answer with nothing usable in it: a failed step that re-observes the unchanged state, not a crash.
        replyError = e;
        usage = e.usage;
        usageReported = e.usageReported;
      } else {
        this.emitModelCall(step, prompt, promptTokens, maxOutputTokens, null, false, this.now() - callStarted, null, undefined, callError);
        if (stop) throw new StopSignal(stop);
        if (e instanceof ProviderFatalError) throw new StopSignal({ reason: 'error', detail: `model ${this.opts.provider.label}: ${callError}` });
        throw e;
      }
    }
    this.tokensUsed += usage.input + usage.output;
    if (usageReported) this.inputGauge.observe(measured, usage.input);
    const self = parseSelfReport(text ?? '');
    this.emitModelCall(
      step, prompt, promptTokens, maxOutputTokens, usage, usageReported, this.now() - callStarted,
      text ?? replyError?.partialText ?? null, replyError ? undefined : self, replyError ? `${replyError.problem}: ${replyError.message}` : null,
    );
    if (self.postMortem) {
      this.postMortems.push(self.postMortem);
      while (this.postMortems.length > POSTMORTEMS_KEPT) this.postMortems.shift();
    }

    const parsed = replyError ? { edits: [], errors: [replyFeedback(replyError)] } : parseReply(text ?? '', this.opts.settings.editFormat);
    let result: ApplyResult | undefined;
    let feedback: string | null = null;
    if (parsed.errors.length > 0) {
      feedback = parsed.errors.join('\n');
    } else {
      await this.guardUserEdits(parsed.edits.map((e) => e.newPath ?? e.oldPath).filter((p): p is string => p !== null));
      result = await applyEdits(parsed.edits, {
        workspace: this.opts.workspace,
        policy: { root: this.opts.workspace.root, forbiddenDirs: [this.opts.storageDir] },
        ...(this.checkpoint ? { checkpoint: this.checkpoint } : {}),
      });
      if (!result.applied) feedback = result.errors.join('\n');
    }
    const applied = result?.applied === true;
    this.emit({ type: 'edit', step, applied, files: result?.files ?? [], errors: feedback ? feedback.split('\n') : [] });

    let verify: VerifyResult;
    let files: FileState;
    let snapshotDir: string | null = null;
    if (applied && result) {
      files = new Map(this.current!.files);
      for (const c of result.changes) {
        files.set(c.path, c.content);
        this.lastKnown.set(c.path, c.content);
        this.editedFiles.add(c.path);
      }
      snapshotDir = this.saveSnapshot(step, result);
      verify = await this.opts.verifier.verify(this.abort.signal);
      const stop = this.interrupted();
      if (stop) throw new StopSignal(stop);
      this.emitVerify(step, verify, 'step');
      this.feedback = undefined;
    } else {
      // Nothing changed on disk: the unchanged state is observed again and counts toward stalled.
      verify = this.current!.verify;
      files = this.current!.files;
      this.feedback = `Your edits were not applied, so nothing changed:\n${feedback ?? 'no edits found in the reply'}`;
    }
    if (self.status === 'done' && !verify.green) {
      const note = `STATUS: done was rejected: the checks still report ${verify.failures.length} failure(s).`;
      this.feedback = this.feedback ? `${this.feedback}\n${note}` : note;
    }

    const obs: Observed = { step, verify, files };
    this.current = obs;
    this.observedStates.push(obs);
    if (verify.failures.length < this.best!.verify.failures.length || (verify.green && !this.best!.verify.green)) this.best = obs;
    this.observe(step, verify.failureHash);

    const record: StepRecord = {
      index: step,
      failureHash: verify.failureHash,
      failureCount: verify.failures.length,
      applied,
      tokens: usage.input + usage.output,
      postMortem: self.postMortem ?? null,
      status: self.status ?? null,
      confidence: self.confidence ?? null,
      files: result?.files ?? [],
      checks: summarizeChecks(verify),
      critics: [],
      feedback,
      durationMs: this.now() - started,
      snapshotDir,
    };
    this.steps.push(record);
    this.emit({ type: 'step-end', step, record, tokensUsed: this.tokensUsed, elapsedMs: this.elapsed() });

    return stepDecision({
      cancelled: this.userCancelled,
      step,
      green: verify.green,
      failureHash: verify.failureHash,
      seen: this.seen,
      stallThreshold: this.opts.settings.stallThreshold,
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
      prompt,
    });
  }

  /** A file the user changed since the run last wrote it is never overwritten. */
  private async guardUserEdits(paths: string[]): Promise<void> {
    for (const raw of paths) {
      const rel = raw.replace(/^(?:a|b)\//, '');
      if (!this.lastKnown.has(rel)) continue;
      const disk = (await this.opts.workspace.read(rel)) ?? null;
      if (!sameBytes(disk, this.lastKnown.get(rel))) {
        throw new StopSignal({ reason: 'error', detail: `${rel} was changed outside the run since step ${this.stepsDone - 1}; the run stopped rather than overwrite it` });
      }
    }
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
  private async restore(target: Observed): Promise<void> {
    if (!this.checkpoint) return;
    const changes: FileChange[] = [];
    for (const rel of this.checkpoint.touched) {
      const want = target.files.has(rel) ? target.files.get(rel)! : ((await this.checkpoint.original(rel)) ?? null);
      const disk = (await this.opts.workspace.read(rel)) ?? null;
      const known = this.lastKnown.has(rel) ? this.lastKnown.get(rel)! : disk;
      if (!sameBytes(disk, known)) {
        this.logger.warn(`${rel} changed outside the run; left as the user has it`);
        continue;
      }
      if (!sameBytes(disk, want)) changes.push({ path: rel, content: want });
    }
    if (changes.length > 0) await this.opts.workspace.apply(changes);
    for (const c of changes) this.lastKnown.set(c.path, c.content);
  }

  private outcome(green: boolean): Outcome {
    if (green) return 'fixed';
    const initial = this.initial?.verify.failures.length ?? 0;
    const best = this.best?.verify.failures.length ?? initial;
    if (best < initial) return 'partial';
    // Some step fixed an initial failure but broke another: competing hypotheses, no net gain.
    const initialKeys = (this.initial?.verify.failures ?? []).map(failureKey);
    const anyFixed = this.observedStates.some((o) => {
      const keys = new Set(o.verify.failures.map(failureKey));
      return initialKeys.some((k) => !keys.has(k));
    });
    return anyFixed ? 'uncertain' : 'punt';
  }

  private async finish(decision: Decision): Promise<RunReport> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.emit({ type: 'decision', step: this.stepsDone, reason: decision.reason, detail: decision.detail });
    const green = decision.reason === 'green';
    const outcome: Outcome = this.initial ? this.outcome(green) : 'punt';
    let final = this.current;
    try {
      if (!green && this.checkpoint && this.initial) {
        const mode = outcome === 'punt' ? 'revert' : this.opts.settings.onStop;
        const target = mode === 'revert' ? this.initial : mode === 'keep-best' ? this.best! : this.current!;
        if (target !== this.current) {
          await this.restore(target);
          final = target;
        }
      }
    } catch (e) {
      this.logger.error(`could not restore the workspace after the run: ${(e as Error).message}`);
    }
    if (final) this.current = final;
    const initialFailures = this.initial?.verify.failures ?? [];
    const remaining = final?.verify.failures ?? initialFailures;
    const remainingKeys = new Set(remaining.map(failureKey));
    const report: RunReport = {
      runId: this.runId,
      stopReason: decision.reason,
      outcome,
      detail: decision.detail,
      steps: [...this.steps],
      tokensUsed: this.tokensUsed,
      elapsedMs: this.elapsed(),
      initialFailureCount: initialFailures.length,
      remainingFailures: remaining,
      fixedFailures: initialFailures.filter((f) => !remainingKeys.has(failureKey(f))),
      bestStep: this.best?.step ?? 0,
      hypotheses: outcome === 'uncertain' ? [...this.postMortems] : [],
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

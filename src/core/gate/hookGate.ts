// The gate at an agent host's hooks (issue 30): at the agent's stop, the project's own checks and
// the stop policy decide whether it may stop; before its edit tool writes, the critics' rules decide
// whether the write may happen, and the file's bytes are checkpointed first. One engine for every
// host: hookHosts.ts words the answer. Each call is one process; the session's memory is its record
// (hookSession.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { readWorkspaceText } from '../edit/readText';
import { FsWorkspace } from '../edit/workspace';
import type { CheckEngine } from '../engine';
import type { ProposedFile } from '../policy/critics';
import { addedSuppressions, protectedPathPatterns } from '../policy/critics';
import { changedVerifierFiles, recordVerifier, VERIFIER_CONFIG_GLOBS, verifierProtection } from '../policy/integrity';
import { gateDecision, stepDecision } from '../policy/policy';
import type { Decision } from '../policy/reasons';
import type { Settings } from '../settings';
import type { VerifyResult } from '../types';
import { formatFailureReport } from '../verify/report';
import type { HookAnswer, HookCall, HookHost } from './hookHosts';
import { HOST_BLOCK_CAP } from './hookHosts';
import { HookSession, withSessionLock, hookRunId } from './hookSession';
import type { StopAttempt } from './hookSession';
import { SeenCounter, verdictOf } from './seen';
import { transcriptUsage } from './transcript';
import type { TranscriptUsage } from './transcript';

/** What a hook call needs from the front end: the prepared checks and where the session lives. */
export interface HookContext {
  /** The host named by `--host` (its config file); the call may answer as another (VS Code through Claude's file). */
  host: HookHost;
  call: HookCall;
  /** The project folder (absolute). */
  root: string;
  settings: Settings;
  storageDir: string;
  checks: CheckEngine;
  /** How long this call may spend running checks (the host's hook timeout, less a margin). */
  budgetMs: number;
  signal?: AbortSignal;
  now?: () => Date;
}

export interface HookResult {
  answer: HookAnswer;
  /** The session's run id, when the call was recorded. */
  runId: string | null;
  tracePath: string | null;
  /** The stop reason, when a stop was let through or cut short. */
  decision?: Decision;
}

/** Session ids stand in for a host that sends none (Copilot CLI camelCase, a bare test): one per folder and host. */
function sessionIdOf(ctx: HookContext): string {
  return ctx.call.sessionId ?? `no-session-id-${ctx.host}`;
}

function nowOf(ctx: HookContext): Date {
  return (ctx.now ?? (() => new Date()))();
}

async function openSession(ctx: HookContext): Promise<HookSession> {
  return HookSession.open({
    storageDir: ctx.storageDir,
    host: ctx.host,
    sessionId: sessionIdOf(ctx),
    root: ctx.root,
    now: nowOf(ctx),
    verifier: () => recordVerifier(ctx.root, ctx.checks.checks),
    start: () => ({
      model: ctx.call.raw.model && typeof ctx.call.raw.model === 'string' ? `${ctx.host}:${ctx.call.raw.model}` : ctx.host,
      instruction: null,
      checks: ctx.checks.checks.map((c) => ({ name: c.name, command: c.command })),
      limits: limitsOf(ctx),
      settings: { maxSteps: ctx.settings.maxSteps, stallThreshold: ctx.settings.stallThreshold, tokenCeiling: ctx.settings.tokenCeiling, timeLimitSeconds: ctx.settings.timeLimitSeconds, protectedPaths: ctx.settings.protectedPaths, forbidSuppressions: ctx.settings.forbidSuppressions },
    }),
  });
}

function locked<T>(ctx: HookContext, work: () => Promise<T>): Promise<T> {
  return withSessionLock(ctx.storageDir, hookRunId(ctx.host, sessionIdOf(ctx)), work);
}

/** `maxSteps`, kept below the host's own block cap so our reason, not the host's blunt cap, ends the loop. */
export function effectiveMaxSteps(settings: Pick<Settings, 'maxSteps'>, host: HookHost): { maxSteps: number; capped: boolean } {
  const cap = HOST_BLOCK_CAP[host];
  if (cap !== null && settings.maxSteps > cap - 1) return { maxSteps: cap - 1, capped: true };
  return { maxSteps: settings.maxSteps, capped: false };
}

function limitsOf(ctx: HookContext): { maxSteps: number; tokenCeiling: number; timeLimitSeconds: number; costCeiling?: number } {
  return { maxSteps: effectiveMaxSteps(ctx.settings, ctx.host).maxSteps, tokenCeiling: ctx.settings.tokenCeiling, timeLimitSeconds: ctx.settings.timeLimitSeconds, ...(ctx.settings.costCeiling > 0 ? { costCeiling: ctx.settings.costCeiling } : {}) };
}

/** Workspace-relative path of a tool's file, or undefined when it lies outside the folder. */
export function relInside(root: string, cwd: string | null, p: string): string | undefined {
  const abs = path.resolve(cwd ?? root, p);
  const rel = path.relative(root, abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

export async function handleHookCall(ctx: HookContext): Promise<HookResult> {
  switch (ctx.call.event) {
    case 'stop':
      return stopGate(ctx);
    case 'pre-tool':
      return guardEdit(ctx);
    case 'post-tool':
      return recordEdit(ctx);
    case 'other':
      return { answer: { kind: 'allow' }, runId: null, tracePath: null };
  }
}

// ---------------------------------------------------------------------------------------------
// Before an edit tool writes

function afterText(before: string | null, w: HookCall['writes'][number]): string | null {
  if (w.deletes) return null;
  if (w.content !== undefined) return w.content;
  if (w.edits) {
    let text = before ?? '';
    for (const e of w.edits) text = e.all ? text.split(e.oldText).join(e.newText) : text.replace(e.oldText, () => e.newText);
    return text;
  }
  // A patch: only its added lines are known; judged as if added to what is there.
  if (w.addedLines) return [before ?? '', ...w.addedLines].join('\n');
  return before;
}

/** Why the write is refused (protected path, the verifier, a suppression), or undefined when it may go ahead. */
export function guardReason(files: readonly ProposedFile[], settings: Settings, record: ReturnType<HookSession['verifierRecord']>): string | undefined {
  const patterns = protectedPathPatterns(settings.protectedPaths);
  const isProtected = patterns.length > 0 ? picomatch(patterns, { dot: true }) : (): boolean => false;
  const hits = files.filter((f) => isProtected(f.path));
  if (hits.length > 0) {
    return `Fix Until Green: ${hits.map((f) => f.path).join(', ')} ${hits.length === 1 ? 'is' : 'are'} protected (fixUntilGreen.protectedPaths ${JSON.stringify(settings.protectedPaths)}): the tests decide whether the code is right, so fix the code under test instead of the test.`;
  }
  if (!settings.allowVerifierEdits) {
    const isConfig = picomatch([...VERIFIER_CONFIG_GLOBS], { dot: true });
    const verifier = files.map((f) => verifierProtection(f, record, isConfig)).filter((x): x is string => x !== undefined);
    if (verifier.length > 0) {
      return `Fix Until Green: this edit changes what decides whether the code passes (${verifier.join('; ')}). Fix the code, not the checks (fixUntilGreen.allowVerifierEdits is off).`;
    }
  }
  if (settings.forbidSuppressions) {
    const added = addedSuppressions(files);
    if (added.length > 0) {
      return `Fix Until Green: this edit adds suppression(s) instead of fixing the cause: ${added.map((a) => `${a.pattern} in ${a.file}: \`${a.line}\``).join('; ')}. Fix the cause (fixUntilGreen.forbidSuppressions is on).`;
    }
  }
  return undefined;
}

async function guardEdit(ctx: HookContext): Promise<HookResult> {
  const rels = [...new Set(ctx.call.writes.map((w) => relInside(ctx.root, ctx.call.cwd, w.path)).filter((r): r is string => r !== undefined))];
  if (rels.length === 0) return { answer: { kind: 'allow' }, runId: null, tracePath: null };
  return locked(ctx, async () => {
    const session = await openSession(ctx);
    const files: ProposedFile[] = [];
    for (const w of ctx.call.writes) {
      const rel = relInside(ctx.root, ctx.call.cwd, w.path);
      if (rel === undefined) continue;
      const before = readWorkspaceText(ctx.root, rel) ?? null;
      const after = afterText(before, w);
      files.push({ path: rel, kind: w.deletes ? 'delete' : before === null ? 'create' : 'modify', before, after });
    }
    const now = nowOf(ctx);
    const refused = guardReason(files, ctx.settings, session.verifierRecord());
    const step = session.nextStep();
    if (refused) {
      session.write({ type: 'hook', step, host: ctx.call.host, event: 'pre-tool', hostEvent: ctx.call.eventName, answer: 'deny', reason: refused, files: rels, sessionId: ctx.call.sessionId }, now);
      session.save();
      return { answer: { kind: 'deny', reason: refused }, runId: session.runId, tracePath: session.tracePath };
    }
    // Nothing of the user's lost: the bytes before the agent's first write, saved outside the tree.
    const cp = await session.checkpoint();
    await cp.saveBeforeWriteBy(new FsWorkspace(ctx.root), rels);
    for (const r of rels) {
      if (!session.state.touched.includes(r)) session.state.touched.push(r);
      if (!session.state.changedSinceStop.includes(r)) session.state.changedSinceStop.push(r);
    }
    session.write({ type: 'hook', step, host: ctx.call.host, event: 'pre-tool', hostEvent: ctx.call.eventName, answer: 'allow', reason: `checkpointed before the ${ctx.call.toolName ?? 'edit'} tool writes`, files: rels, sessionId: ctx.call.sessionId }, now);
    session.save();
    return { answer: { kind: 'allow' }, runId: session.runId, tracePath: session.tracePath };
  });
}

async function recordEdit(ctx: HookContext): Promise<HookResult> {
  const rels = [...new Set(ctx.call.writes.map((w) => relInside(ctx.root, ctx.call.cwd, w.path)).filter((r): r is string => r !== undefined))];
  if (rels.length === 0) return { answer: { kind: 'allow' }, runId: null, tracePath: null };
  return locked(ctx, async () => {
    const session = await openSession(ctx);
    const cp = await session.checkpoint();
    // What the agent's tool left is the session's last write: a revert restores over it, and leaves alone a later change by the user.
    const recorded = await cp.recordWrittenBy(new FsWorkspace(ctx.root), rels);
    if (recorded.length > 0) {
      session.write({ type: 'hook', step: session.nextStep(), host: ctx.call.host, event: 'post-tool', hostEvent: ctx.call.eventName, answer: 'allow', reason: `recorded what the ${ctx.call.toolName ?? 'edit'} tool wrote`, files: recorded, sessionId: ctx.call.sessionId }, nowOf(ctx));
      session.save();
    }
    return { answer: { kind: 'allow' }, runId: session.runId, tracePath: session.tracePath };
  });
}

// ---------------------------------------------------------------------------------------------
// At the agent's stop

/** The agent's last message claims the work is done or the checks pass. */
export function claimsSuccess(message: string | null): boolean {
  if (!message) return false;
  return /\b(all (the )?(tests?|checks?|specs?)\b[^.\n]{0,20}\b(pass|passing|green|succeed)|tests? (now )?pass(es)?\b|(is|are) (now )?(green|passing)|everything (passes|works|is green)|build(s)? (now )?(succeeds|passes)|(task|work|fix) (is )?(done|complete)|^done\b|\bfixed\b)/im.test(message);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function previousFile(session: HookSession): string {
  return path.join(session.dir, 'last-verify.json');
}

function readPrevious(session: HookSession): VerifyResult | null {
  const f = previousFile(session);
  if (!existsSync(f)) return null;
  try {
    return JSON.parse(readFileSync(f, 'utf8')) as VerifyResult;
  } catch {
    // A torn write of a killed hook: no baseline, the checks run in full.
    return null;
  }
}

function holds(session: HookSession, ctx: HookContext): string {
  const t = session.state.touched;
  const revert = `fix-until-green revert --session ${session.runId} --cwd ${JSON.stringify(ctx.root)}`;
  return t.length === 0
    ? 'The workspace holds what the agent left (its edit tools wrote no file through the hooks).'
    : `The workspace holds the agent's edits (${plural(t.length, 'file')} its edit tools wrote: ${t.slice(0, 6).join(', ')}${t.length > 6 ? ', …' : ''}); \`${revert}\` restores their original bytes.`;
}

function usageNote(u: TranscriptUsage | null, host: HookHost): string {
  if (!u) return `tokens: not known (${host} writes no usage the hook can read)`;
  return `tokens: ${u.tokensUsed} used in the session's transcript`;
}

async function stopGate(ctx: HookContext): Promise<HookResult> {
  const first = await locked(ctx, async () => {
    const s = await openSession(ctx);
    return { previous: readPrevious(s), changed: [...s.state.changedSinceStop] };
  });
  const budget = AbortSignal.timeout(Math.max(1000, ctx.budgetMs));
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, budget]) : budget;
  // Staged where the agent's edit tools said what changed since the last stop; green only from every check in full.
  const v = await ctx.checks.verifier.verify(signal, { previous: first.previous, ...(first.previous && first.changed.length > 0 ? { changed: first.changed } : {}) });
  const cutShort = signal.aborted || v.checks.some((c) => c.cancelled);

  return locked(ctx, async () => {
    const session = await openSession(ctx);
    const st = session.state;
    const now = nowOf(ctx);
    const step = session.nextStep();
    const root = ctx.root;
    const record = (answer: 'block' | 'allow', reason: string): void =>
      session.write({ type: 'hook', step, host: ctx.call.host, event: 'stop', hostEvent: ctx.call.eventName, answer, reason, sessionId: ctx.call.sessionId }, now);

    if (cutShort) {
      const why = ctx.signal?.aborted ? 'the hook was stopped' : `the checks did not finish within this hook call's ${Math.round(ctx.budgetMs / 1000)} s (the host's hook timeout, less a margin)`;
      const decision: Decision = { reason: 'time-limit', detail: `${why}; the agent may stop unchecked`, evidence: { budgetMs: ctx.budgetMs } };
      const message = `Fix Until Green could not decide: ${why}. The agent was let stop without a verdict. Raise the timeout (\`fix-until-green hooks install --host ${ctx.host} --timeout S\`) or make the checks faster. ${holds(session, ctx)}`;
      record('allow', message);
      session.write({ type: 'decision', step, reason: decision.reason, detail: decision.detail, ...(decision.evidence ? { evidence: decision.evidence } : {}) }, now);
      session.save();
      return { answer: { kind: 'allow', message }, runId: session.runId, tracePath: session.tracePath, decision };
    }

    writeFileSync(previousFile(session), JSON.stringify(v));
    st.changedSinceStop = [];
    session.write({ type: 'verify', step, green: v.green, failureHash: v.failureHash, failureCount: v.failures.length, failures: v.failures, flaky: v.flaky, checks: v.checks.map((c) => ({ name: c.name, exitCode: c.exitCode, durationMs: c.durationMs, failureCount: c.failures.length, timedOut: c.timedOut, ...(c.mode ? { mode: c.mode } : {}), parser: c.parser })), durationMs: v.durationMs, reason: 'step' }, now);

    const rec = session.verifierRecord();
    const verifierChanged = rec ? changedVerifierFiles(root, rec) : [];
    const integrityOk = verifierChanged.length === 0;
    const seen = new Map<string, number[]>();
    const attemptsWithThis: StopAttempt[] = [...st.attempts, { failureHash: v.failureHash, failureCount: v.failures.length, green: v.green, answer: 'block', at: now.toISOString() }];
    attemptsWithThis.forEach((a, i) => seen.set(a.failureHash, [...(seen.get(a.failureHash) ?? []), i + 1]));
    const integrityStop = !integrityOk && st.integrityBlocks + 1 >= ctx.settings.stallThreshold;
    const stepD = stepDecision({
      cancelled: false,
      step: attemptsWithThis.length,
      green: v.green && integrityOk,
      failureHash: v.failureHash,
      failureCount: v.failures.length,
      seen,
      stallThreshold: ctx.settings.stallThreshold,
      criticStop: integrityStop ? { critic: 'verifier-integrity', reason: `what defines the checks changed during the session: ${verifierChanged.join(', ')}` } : null,
      budgetBalance: null,
      budgetFloor: 0,
      confidence: null,
      escalateBelowConfidence: 0,
      status: null,
    });
    const usage = ctx.call.transcriptPath ? transcriptUsage(ctx.call.transcriptPath, ctx.settings.model.pricing) : null;
    const { maxSteps, capped } = effectiveMaxSteps(ctx.settings, ctx.host);
    const gateD = stepD
      ? undefined
      : gateDecision({
          cancelled: false,
          elapsedMs: now.getTime() - Date.parse(st.createdAt),
          timeLimitMs: ctx.settings.timeLimitSeconds * 1000,
          stepsDone: st.blocks,
          maxSteps,
          tokensUsed: usage?.tokensUsed ?? 0,
          tokenCeiling: ctx.settings.tokenCeiling,
          nextCallMinTokens: usage ? usage.lastInputTokens + 1 : 0,
          nextPromptTokens: usage?.lastInputTokens ?? 0,
          costUsed: usage?.costUsed ?? 0,
          costCeiling: ctx.settings.costCeiling,
          nextCallMinCost: usage?.nextCallMinCost ?? null,
        });
    const decision = stepD ?? gateD;
    const failures = plural(v.failures.length, 'failure');
    const checkNames = v.checks.map((c) => c.name).join(', ');

    if (decision) {
      st.attempts.push({ failureHash: v.failureHash, failureCount: v.failures.length, green: v.green, answer: 'allow', at: now.toISOString() });
      const capNote = decision.reason === 'step-cap' && capped ? ` (maxSteps ${ctx.settings.maxSteps} kept below ${ctx.host}'s own cap of ${HOST_BLOCK_CAP[ctx.host]} blocks)` : '';
      const message =
        decision.reason === 'green'
          ? `Fix Until Green: every check passes (${checkNames}) · identity ${v.failureHash.slice(0, 12)} · ${plural(st.blocks, 'stop')} sent back in this session. Trace: ${session.tracePath}`
          : `Fix Until Green let the agent stop: ${decision.reason} — ${decision.detail}${capNote}. The checks are not green: ${failures} remain${v.failures.length > 0 ? ` (${v.failures.slice(0, 3).map((f) => `${f.file ?? f.check}${f.id ? ` ${f.id}` : ''}`).join('; ')}${v.failures.length > 3 ? '; …' : ''})` : ''}. ${holds(session, ctx)} Trace: ${session.tracePath}`;
      record('allow', message);
      session.write({ type: 'decision', step, reason: decision.reason, detail: decision.detail, ...(decision.evidence ? { evidence: decision.evidence } : {}), ...(decision.alsoFired ? { alsoFired: decision.alsoFired } : {}) }, now);
      session.save();
      return { answer: { kind: 'allow', message }, runId: session.runId, tracePath: session.tracePath, decision };
    }

    // Not green, within every budget: back to work, with the failures the checks report.
    st.attempts.push({ failureHash: v.failureHash, failureCount: v.failures.length, green: v.green, answer: 'block', at: now.toISOString() });
    st.blocks += 1;
    if (!integrityOk) st.integrityBlocks += 1;
    const counter = new SeenCounter();
    for (const a of st.attempts.slice(0, -1)) counter.observe('s', a.failureHash, a.failureCount);
    const sighting = counter.observe('s', v.failureHash, v.failures.length);
    const lines = [
      `Fix Until Green: you may not stop yet: the project's own checks (${checkNames}) do not pass${v.green ? '' : ` — ${failures}`}. This is stop ${st.blocks} sent back of at most ${maxSteps} in this session; the same failures seen ${ctx.settings.stallThreshold} times end it.`,
    ];
    if (claimsSuccess(ctx.call.lastMessage)) lines.push(`Your last message says "${(ctx.call.lastMessage ?? '').trim().slice(0, 160)}", but the checks disagree.`);
    if (!integrityOk) lines.push(`What defines the checks changed since the session began: ${verifierChanged.join(', ')}. Put it back as it was and fix the code instead; a check made weaker does not count.`);
    if (!v.green) lines.push(`Verdict: ${verdictOf(sighting, false, v.failures.length)}.`);
    if (!v.green) lines.push('', formatFailureReport(v.failures, { flaky: v.flaky, root, readText: (rel) => readWorkspaceText(root, rel), maxTokens: Math.min(6000, ctx.settings.contextTokenBudget) }), '');
    lines.push('Fix the code under test (not the tests, not the checks\' configuration, no suppressions), then finish again.');
    const reason = lines.join('\n');
    record('block', reason);
    session.save();
    return { answer: { kind: 'block', reason, message: `Fix Until Green sent the agent back: ${failures}, identity ${v.failureHash.slice(0, 12)} seen ${plural(sighting.seen, 'time')} (${usageNote(usage, ctx.host)}).` }, runId: session.runId, tracePath: session.tracePath };
  });
}

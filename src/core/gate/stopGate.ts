// The stop gate (issue 30): when an agent host's agent is about to stop, the folder's own checks run
// and the stop policy decides, with its reasons in their fixed order, as after a step of our own
// loop: `stepDecision` (green, stalled, a verifier changed too often) and then `gateDecision` before
// sending the agent back for another step (time-limit, step-cap, token and cost ceilings). Not green
// and within every budget: the stop is blocked with the same compact failure report our loop sends
// a model.
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../atomicWrite';
import * as path from 'node:path';
import { readWorkspaceText } from '../edit/readText';
import { changedVerifierFiles } from '../policy/integrity';
import { gateDecision, stepDecision } from '../policy/policy';
import type { Decision } from '../policy/reasons';
import type { VerifyResult } from '../types';
import { comparableFailureCount, cutNotes } from '../verify/cut';
import { formatFailureReport } from '../verify/report';
import type { HookContext, HookResult } from './hookContext';
import { effectiveMaxSteps, holds, locked, nowOf, openSession } from './hookContext';
import type { HookHost } from './hookHosts';
import { HOST_BLOCK_CAP } from './hookHosts';
import type { HookSession } from './hookSession';
import type { Sighting } from './seen';
import { SeenCounter, verdictOf } from './seen';
import type { TranscriptUsage } from './transcript';
import { transcriptUsage } from './transcript';

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

function usageNote(u: TranscriptUsage | null, host: HookHost): string {
  if (!u) return `tokens: not known (${host} writes no usage the hook can read)`;
  return `tokens: ${u.tokensUsed} used in the session's transcript`;
}

/** The checks, within this call's time budget; staged over the files the edit tools wrote since the last stop. */
async function runChecks(ctx: HookContext): Promise<{ v: VerifyResult; cutShort: boolean }> {
  const first = await locked(ctx, async () => {
    const s = await openSession(ctx);
    return { previous: readPrevious(s), changed: [...s.state.changedSinceStop] };
  });
  const budget = AbortSignal.timeout(Math.max(1000, ctx.budgetMs));
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, budget]) : budget;
  // Green is only ever decided by every check in full: the verifier runs those a staged pass leaves out.
  const v = await ctx.checks.verifier.verify(signal, { previous: first.previous, ...(first.previous && first.changed.length > 0 ? { changed: first.changed } : {}) });
  return { v, cutShort: signal.aborted || v.checks.some((c) => c.cancelled) };
}

interface Judgement {
  decision: Decision | undefined;
  verifierChanged: string[];
  usage: TranscriptUsage | null;
  maxSteps: number;
  capped: boolean;
}

/** The stop policy over this stop: the step's criteria first, then the budgets of one more step. */
function judge(ctx: HookContext, session: HookSession, v: VerifyResult, now: Date): Judgement {
  const st = session.state;
  const rec = session.verifierRecord();
  const verifierChanged = rec ? changedVerifierFiles(ctx.root, rec) : [];
  const seen = new Map<string, number[]>();
  [...st.attempts.map((a) => a.failureHash), v.failureHash].forEach((h, i) => seen.set(h, [...(seen.get(h) ?? []), i + 1]));
  const integrityStop = verifierChanged.length > 0 && st.integrityBlocks + 1 >= ctx.settings.stallThreshold;
  const stepD = stepDecision({
    cancelled: false,
    step: st.attempts.length + 1,
    green: v.green && verifierChanged.length === 0,
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
  const decision =
    stepD ??
    gateDecision({
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
  return { decision, verifierChanged, usage, maxSteps, capped };
}

function allowMessage(ctx: HookContext, session: HookSession, v: VerifyResult, j: Judgement, d: Decision): string {
  const checks = v.checks.map((c) => c.name).join(', ');
  if (d.reason === 'green') return `Fix Until Green: every check passes (${checks}) · identity ${v.failureHash.slice(0, 12)} · ${plural(session.state.blocks, 'stop')} sent back in this session. Trace: ${session.tracePath}`;
  const capNote = d.reason === 'step-cap' && j.capped ? ` (maxSteps ${ctx.settings.maxSteps} kept below ${ctx.host}'s own cap of ${HOST_BLOCK_CAP[ctx.host]} blocks)` : '';
  const named = v.failures.slice(0, 3).map((f) => `${f.file ?? f.check}${f.id ? ` ${f.id}` : ''}`);
  const remain = `${plural(v.failures.length, 'failure')} remain${named.length > 0 ? ` (${named.join('; ')}${v.failures.length > 3 ? '; …' : ''})` : ''}`;
  return `Fix Until Green let the agent stop: ${d.reason} — ${d.detail}${capNote}. The checks are not green: ${remain}. ${holds(session, ctx)} Trace: ${session.tracePath}`;
}

function blockReason(ctx: HookContext, v: VerifyResult, j: Judgement, blocks: number, sighting: Sighting): string {
  const root = ctx.root;
  const lines = [
    `Fix Until Green: you may not stop yet: the project's own checks (${v.checks.map((c) => c.name).join(', ')}) do not pass${v.green ? '' : ` — ${plural(v.failures.length, 'failure')}`}. This is stop ${blocks} sent back of at most ${j.maxSteps} in this session; the same failures seen ${ctx.settings.stallThreshold} times end it.`,
  ];
  if (claimsSuccess(ctx.call.lastMessage)) lines.push(`Your last message says "${(ctx.call.lastMessage ?? '').trim().slice(0, 160)}", but the checks disagree.`);
  if (j.verifierChanged.length > 0) lines.push(`What defines the checks changed since the session began: ${j.verifierChanged.join(', ')}. Put it back as it was and fix the code instead; a check made weaker does not count.`);
  if (!v.green) {
    lines.push(`Verdict: ${verdictOf(sighting, false, comparableFailureCount(v))}.`);
    lines.push('', formatFailureReport(v.failures, { flaky: v.flaky, cut: cutNotes(v.checks), root, readText: (rel) => readWorkspaceText(root, rel), maxTokens: Math.min(6000, ctx.settings.contextTokenBudget) }), '');
  }
  lines.push("Fix the code under test (not the tests, not the checks' configuration, no suppressions), then finish again.");
  return lines.join('\n');
}

/** The checks could not finish inside the hook's time: the agent is let go, and the user told why. */
function cutShortResult(ctx: HookContext, session: HookSession, step: number, now: Date): HookResult {
  const why = ctx.signal?.aborted ? 'the hook was stopped' : `the checks did not finish within this hook call's ${Math.round(ctx.budgetMs / 1000)} s (the host's hook timeout, less a margin)`;
  const decision: Decision = { reason: 'time-limit', detail: `${why}; the agent may stop unchecked`, evidence: { budgetMs: ctx.budgetMs } };
  const message = `Fix Until Green could not decide: ${why}. The agent was let stop without a verdict. Raise the timeout (\`fix-until-green hooks install --host ${ctx.host} --timeout S\`) or make the checks faster. ${holds(session, ctx)}`;
  session.write({ type: 'hook', step, host: ctx.call.host, event: 'stop', hostEvent: ctx.call.eventName, answer: 'allow', reason: message, sessionId: ctx.call.sessionId }, now);
  session.write({ type: 'decision', step, reason: decision.reason, detail: decision.detail, ...(decision.evidence ? { evidence: decision.evidence } : {}) }, now);
  session.save();
  return { answer: { kind: 'allow', message }, runId: session.runId, tracePath: session.tracePath, decision };
}

function recordVerify(session: HookSession, step: number, v: VerifyResult, now: Date): void {
  writeFileAtomic(previousFile(session), JSON.stringify(v), { durable: false });
  session.state.changedSinceStop = [];
  const checks = v.checks.map((c) => ({ name: c.name, exitCode: c.exitCode, durationMs: c.durationMs, failureCount: c.failures.length, timedOut: c.timedOut, ...(c.mode ? { mode: c.mode } : {}), parser: c.parser }));
  session.write({ type: 'verify', step, green: v.green, failureHash: v.failureHash, failureCount: v.failures.length, failures: v.failures, flaky: v.flaky, checks, durationMs: v.durationMs, reason: 'step' }, now);
}

export async function stopGate(ctx: HookContext): Promise<HookResult> {
  const { v, cutShort } = await runChecks(ctx);
  return locked(ctx, async () => {
    const session = await openSession(ctx);
    const st = session.state;
    const now = nowOf(ctx);
    const step = session.nextStep();
    if (cutShort) return cutShortResult(ctx, session, step, now);
    recordVerify(session, step, v, now);
    const j = judge(ctx, session, v, now);
    // The count the session compares the next stop with: the tools' own where a list was cut short.
    const counted = comparableFailureCount(v);
    const attempt = { failureHash: v.failureHash, failureCount: counted ?? v.failures.length, green: v.green, at: now.toISOString() };
    const record = (answer: 'block' | 'allow', reason: string): void =>
      session.write({ type: 'hook', step, host: ctx.call.host, event: 'stop', hostEvent: ctx.call.eventName, answer, reason, sessionId: ctx.call.sessionId }, now);
    if (j.decision) {
      const d = j.decision;
      st.attempts.push({ ...attempt, answer: 'allow' });
      const message = allowMessage(ctx, session, v, j, d);
      record('allow', message);
      session.write({ type: 'decision', step, reason: d.reason, detail: d.detail, ...(d.evidence ? { evidence: d.evidence } : {}), ...(d.alsoFired ? { alsoFired: d.alsoFired } : {}) }, now);
      session.save();
      return { answer: { kind: 'allow', message }, runId: session.runId, tracePath: session.tracePath, decision: d };
    }
    // Not green, within every budget: back to work, with the failures the checks report.
    const counter = new SeenCounter();
    for (const a of st.attempts) counter.observe('s', a.failureHash, a.failureCount);
    const sighting = counter.observe('s', v.failureHash, counted);
    st.attempts.push({ ...attempt, answer: 'block' });
    st.blocks += 1;
    if (j.verifierChanged.length > 0) st.integrityBlocks += 1;
    const reason = blockReason(ctx, v, j, st.blocks, sighting);
    record('block', reason);
    session.save();
    const message = `Fix Until Green sent the agent back: ${plural(v.failures.length, 'failure')}, identity ${v.failureHash.slice(0, 12)} seen ${plural(sighting.seen, 'time')} (${usageNote(j.usage, ctx.host)}).`;
    return { answer: { kind: 'block', reason, message }, runId: session.runId, tracePath: session.tracePath };
  });
}

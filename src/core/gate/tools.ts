// The gate as tools for other agents (issue 17): the Language Model Tools in VS Code and the MCP
// server in the CLI expose the same two tools with the same names, inputs and results, built here.
// The front ends only find the folder, run the checks or the loop their own way (VS Code's buffers
// and controllers, the CLI's files and lock), and hand the results to these functions.
import type { RunReport } from '../trace/events';
import type { VerifyResult } from '../types';
import { comparableFailureCount, cutNotes } from '../verify/cut';
import { formatFailureReport } from '../verify/report';
import type { Progress, SeenCounter } from './seen';
import { progressOf, verdictOf } from './seen';

/** What `fixUntilGreen_runChecks` answers (also the MCP tool's structured content). */
export interface ChecksToolResult {
  folder: string;
  green: boolean;
  failureHash: string;
  failureCount: number;
  /** How many check passes of this session (and folder) had this identity, this one included. */
  seen: number;
  attempt: number;
  attemptsAgo: number | null;
  progress: Progress;
  verdict: string;
  checks: { name: string; exitCode: number | null; failures: number; timedOut: boolean }[];
  flakyCount: number;
  /** The compact failure report (empty when green). */
  report: string;
}

export interface ReportSource {
  /** The folder the checks ran in (absolute). */
  root: string;
  /** Reads a workspace file for the source lines around a failure; undefined when unreadable. */
  readText: (rel: string) => string | undefined;
  /** The report's size limit in tokens (default 6000: a tool result should not flood the caller's context). */
  maxTokens?: number;
}

const REPORT_TOKENS = 6000;

/** Counts this pass as an attempt of `scope` and words what its identity means. */
export function checksToolResult(v: VerifyResult, seen: SeenCounter, scope: string, src: ReportSource): ChecksToolResult {
  const counted = comparableFailureCount(v);
  const s = seen.observe(scope, v.failureHash, counted);
  return {
    folder: src.root,
    green: v.green,
    failureHash: v.failureHash,
    failureCount: v.failures.length,
    seen: s.seen,
    attempt: s.attempt,
    attemptsAgo: s.attemptsAgo,
    progress: progressOf(s, v.green, counted),
    verdict: verdictOf(s, v.green, counted),
    checks: v.checks.map((c) => ({ name: c.name, exitCode: c.exitCode, failures: c.failures.length, timedOut: c.timedOut })),
    flakyCount: v.flaky.length,
    report: v.green ? '' : formatFailureReport(v.failures, { flaky: v.flaky, cut: cutNotes(v.checks), root: src.root, readText: src.readText, maxTokens: src.maxTokens ?? REPORT_TOKENS }),
  };
}

function checkLine(c: ChecksToolResult['checks'][number]): string {
  const state = c.timedOut ? 'timed out' : `${c.failures} failure${c.failures === 1 ? '' : 's'}`;
  return `${c.name}: ${state} (exit ${c.exitCode ?? '-'})`;
}

/** The text the calling model reads. */
export function formatChecksToolResult(r: ChecksToolResult): string {
  return [
    `Fix Until Green checks in ${r.folder}: ${r.green ? 'GREEN' : `NOT GREEN, ${r.failureCount} failure${r.failureCount === 1 ? '' : 's'}`}`,
    `Failure identity: ${r.failureHash.slice(0, 12)} (seen ${r.seen} time${r.seen === 1 ? '' : 's'} in this session; check pass ${r.attempt})`,
    `Verdict: ${r.verdict}`,
    `Checks: ${r.checks.map(checkLine).join('; ')}${r.flakyCount > 0 ? ` (${r.flakyCount} flaky failure(s) ignored)` : ''}`,
    ...(r.report ? ['', r.report] : []),
  ].join('\n');
}

/** What `fixUntilGreen_fix` answers (also the MCP tool's structured content). */
export interface FixToolResult {
  folder: string;
  runId: string;
  stopReason: RunReport['stopReason'];
  outcome: RunReport['outcome'];
  green: boolean;
  detail: string;
  steps: { index: number; failureCount: number; applied: boolean; postMortem: string | null }[];
  tokensUsed: number;
  elapsedMs: number;
  initialFailureCount: number;
  remainingFailureCount: number;
  /** The compact report of what is left (empty when green). */
  remainingFailures: string;
  tracePath: string;
}

export function fixToolResult(r: RunReport, src: ReportSource): FixToolResult {
  return {
    folder: src.root,
    runId: r.runId,
    stopReason: r.stopReason,
    outcome: r.outcome,
    green: r.stopReason === 'green',
    detail: r.detail,
    steps: r.steps.map((s) => ({ index: s.index, failureCount: s.failureCount, applied: s.applied, postMortem: s.postMortem })),
    tokensUsed: r.tokensUsed,
    elapsedMs: r.elapsedMs,
    initialFailureCount: r.initialFailureCount,
    remainingFailureCount: r.remainingFailures.length,
    remainingFailures: r.remainingFailures.length === 0 ? '' : formatFailureReport(r.remainingFailures, { root: src.root, readText: src.readText, maxTokens: src.maxTokens ?? REPORT_TOKENS }),
    tracePath: r.tracePath,
  };
}

/** What the calling model should do after each stop: the run decided, the caller acts on it. */
function nextMove(r: FixToolResult): string {
  if (r.green) return 'Every check passes: the task is done. Review the changed files before you build on them.';
  switch (r.stopReason) {
    case 'step-cap':
    case 'token-ceiling':
      return 'The run ran out of budget while it could still make progress: call this tool again to continue, or fix the remaining failures yourself.';
    case 'stalled':
      return 'The run saw the same failures repeatedly: repeating it will not help. Change approach (read the failing code and tests) or ask the user.';
    case 'preflight-failed':
    case 'error':
      return 'The run could not work: fix the cause in the detail (settings, model, checks) before calling again.';
    case 'cancelled':
      return 'The run was cancelled: do not start it again unless the user asks.';
    default:
      return 'The run stopped without going green: read the remaining failures and decide with the user how to go on.';
  }
}

export function formatFixToolResult(r: FixToolResult): string {
  const steps = r.steps.map((s) => `  step ${s.index}: ${s.applied ? 'applied' : 'not applied'}, ${s.failureCount} failure(s) after${s.postMortem ? `; post-mortem: ${s.postMortem}` : ''}`);
  return [
    `Fix Until Green run ${r.runId} in ${r.folder}: stopped with ${r.stopReason} (outcome: ${r.outcome})`,
    `Detail: ${r.detail}`,
    `Failures: ${r.initialFailureCount} at the start, ${r.remainingFailureCount} left after ${r.steps.length} step(s); ${r.tokensUsed} tokens, ${(r.elapsedMs / 1000).toFixed(1)} s`,
    ...(steps.length > 0 ? ['Steps:', ...steps] : []),
    `Trace: ${r.tracePath}`,
    `Next: ${nextMove(r)}`,
    ...(r.remainingFailures ? ['', 'Remaining failures:', r.remainingFailures] : []),
  ].join('\n');
}

// An agent host's session gated by our hooks (issue 30: Claude Code, VS Code's agent mode, Codex…),
// folded from its trace (front end `hook:<host>`) into the RunState the panel and the status bar
// already draw. Not a run of ours: no model steps, no Stop or Continue; each stop-hook call is a row
// (blocked with the failures, or allowed with the stop policy's reason). Pure, no `vscode` import:
// the follower (hookFollower.ts, in the engine bundle) and the unit tests use it; the webview and
// the meter read only the state's fields.
import type { TimedEvent } from '../core/trace/events';
import { AGENT_HOST_LABELS } from '../core/gate/hookInstall';
import type { HookHost } from '../core/gate/hookHosts';
import type { RunState } from './common/runState';
import { idleState, MAX_KEPT_FAILURES, withParsers } from './common/runState';
import type { HookSessionView, SessionStop } from './common/sessionTypes';
import { stopBadge } from './common/stepWords';

/** A state is an agent host's session, not a run of ours. */
export function isSession(s: RunState | undefined | null): s is RunState & { session: HookSessionView } {
  return !!s?.session;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function hostLabel(host: string): string {
  return AGENT_HOST_LABELS[host as HookHost] ?? host;
}

/** The host of a trace's `run-start`, when it is a hook session's (`frontEnd: 'hook:claude'`). */
export function hookHostOf(e: TimedEvent): string | undefined {
  return e.type === 'run-start' && e.frontEnd?.startsWith('hook:') ? e.frontEnd.slice('hook:'.length) : undefined;
}

/** The sentence that leads the panel and the meter's tooltip. */
export function sessionSentence(s: RunState & { session: HookSessionView }): string {
  const { hostLabel: who, stops, blocks } = s.session;
  const last = stops.at(-1);
  const back = blocks > 0 ? ` (after being sent back ${blocks === 1 ? 'once' : blocks === 2 ? 'twice' : `${blocks} times`})` : '';
  if (s.status === 'running') {
    if (!last) return `${who} is at work; its stops are gated by your checks.`;
    // What the agent did (tried to stop) and why it was answered no, before the count of stops.
    if (last.failureCount === 0) return `${who} tried to stop after changing what defines your checks, so it was sent back to work to put them back.`;
    return `${who} tried to stop while your checks fail (${plural(last.failureCount, 'failure')}), so it was sent back to work.`;
  }
  if (s.stopReason === 'green') return `${who} stopped with every check passing${back}.`;
  if (s.stopReason) return `Fix Until Green let ${who} stop: ${stopBadge(s.stopReason)} — ${plural(s.remainingFailures.length, 'failure')} remain${s.remainingFailures.length === 1 ? 's' : ''}${back}.`;
  return `${who}'s session has made no hook call for a while: it looks over, stopped without a gated stop.`;
}

function withSentence(s: RunState & { session: HookSessionView }): Session {
  return { ...s, session: { ...s.session, sentence: sessionSentence(s) } };
}

/** The verdict line of a block's reason (stopGate.ts `blockReason`). */
function verdictIn(reason: string): string | null {
  const m = /^Verdict: (.*?)\.?$/m.exec(reason);
  return m ? m[1]! : null;
}

function setCount(list: RunState['failuresPerStep'], step: number, count: number): RunState['failuresPerStep'] {
  return [...list.filter((p) => p.step !== step), { step, count }].sort((a, b) => a.step - b.step);
}

type Session = RunState & { session: HookSessionView };

function started(s: RunState, e: Extract<TimedEvent, { type: 'run-start' }>, host: string, at: number): RunState {
  return withSentence({
    ...idleState(s.folder, s.folderName, e.limits),
    status: 'running',
    runId: e.runId,
    runDir: s.runDir,
    tracePath: s.tracePath,
    model: hostLabel(host),
    phase: 'waiting for the agent to stop',
    startedAt: at,
    session: { host, hostLabel: hostLabel(host), sessionId: null, stops: [], denied: [], touched: [], blocks: 0, lastEventAt: at, sentence: '' },
  });
}

/** A stop's answer, with the check pass it followed (the verify event of the same step). */
function stopAnswered(next: Session, e: Extract<TimedEvent, { type: 'hook' }>): RunState {
  const session = next.session;
  const v = session.pendingVerify;
  const matched = v && v.step === e.step ? v : undefined;
  session.pendingVerify = null;
  const stop: SessionStop = {
    index: session.stops.length + 1,
    step: e.step,
    at: e.ts,
    hostEvent: e.hostEvent,
    answer: e.answer === 'block' ? 'block' : 'allow',
    reason: e.reason,
    verdict: e.answer === 'block' ? verdictIn(e.reason) : null,
    green: matched?.green ?? false,
    failureCount: matched?.failureCount ?? 0,
    failureHash: matched?.failureHash ?? '',
    checks: matched?.checks ?? [],
    failures: matched?.failures ?? [],
    decision: null,
  };
  session.stops = [...session.stops, stop];
  if (stop.answer === 'block') session.blocks += 1;
  return withSentence({
    ...next,
    status: 'running',
    step: session.blocks,
    phase: stop.answer === 'block' ? `stop ${stop.index} sent back: ${plural(stop.failureCount, 'failure')}` : `stop ${stop.index} let through`,
  });
}

/** A guard's answer before an edit tool writes (denied: a row) or after (the files it wrote). */
function toolAnswered(next: Session, e: Extract<TimedEvent, { type: 'hook' }>): RunState {
  const session = next.session;
  const files = e.files ?? [];
  if (e.answer === 'deny') session.denied = [...session.denied, { step: e.step, at: e.ts, reason: e.reason, files }];
  else session.touched = [...session.touched, ...files.filter((f) => !session.touched.includes(f))];
  return withSentence(next);
}

/**
 * Folds one event of a hook session's trace. The state before the first event gives the folder and
 * where the session is stored (`runDir`, `tracePath`); the first event is the session's `run-start`.
 */
export function reduceSession(s: RunState, e: TimedEvent): RunState {
  const at = Date.parse(e.ts);
  const host = hookHostOf(e);
  if (host !== undefined && e.type === 'run-start') return started(s, e, host, at);
  if (!isSession(s)) return s;
  const session = { ...s.session, lastEventAt: Math.max(s.session.lastEventAt, at) };
  const next = { ...s, session, elapsedMs: Math.max(0, session.lastEventAt - s.startedAt) };
  switch (e.type) {
    case 'verify': {
      session.pendingVerify = { step: e.step, green: e.green, failureCount: e.failureCount, failureHash: e.failureHash, checks: e.checks, failures: e.failures.slice(0, 5) };
      const n = s.session.stops.length + 1;
      return withSentence({
        ...next,
        // The agent stopped again after a stop it was let through: the session goes on.
        status: 'running',
        stopReason: null,
        outcome: null,
        detail: null,
        reverted: null,
        remainingFailures: e.failures.slice(0, MAX_KEPT_FAILURES),
        checkParsers: withParsers(s.checkParsers, e.checks),
        failuresPerStep: setCount(s.failuresPerStep, n, e.failureCount),
        phase: `stop ${n}: ${e.green ? 'checks pass' : plural(e.failureCount, 'failure')}`,
      });
    }
    case 'hook':
      if (e.sessionId) session.sessionId = e.sessionId;
      return e.event === 'stop' ? stopAnswered(next, e) : toolAnswered(next, e);
    case 'decision': {
      const last = session.stops.at(-1);
      if (last && last.step === e.step) session.stops = [...session.stops.slice(0, -1), { ...last, decision: { reason: e.reason, detail: e.detail } }];
      return withSentence({ ...next, status: 'stopped', stopReason: e.reason, outcome: e.reason === 'green' ? 'fixed' : null, detail: e.detail, phase: '' });
    }
    default:
      // A hook session records no model calls or steps of ours.
      return next;
  }
}

/** A whole trace folded; `base` names the folder and where the session lives. */
export function foldSession(base: RunState, events: readonly TimedEvent[]): RunState {
  return events.reduce(reduceSession, base);
}

/**
 * A session still marked running whose last hook call is older than its time limit looks over: the
 * agent quit or was killed between two stops (a host tells the hooks nothing then).
 */
export function settleQuiet(s: RunState, now: number): RunState {
  if (!isSession(s) || s.status !== 'running') return s;
  if (now - s.session.lastEventAt < s.limits.timeLimitSeconds * 1000) return s;
  return withSentence({ ...s, status: 'stopped', stopReason: null, phase: '', detail: `no hook call since ${new Date(s.session.lastEventAt).toISOString()}` });
}

/**
 * Whether a session's state should replace what the folder's panel shows: never over a run of ours
 * in progress; over the same session, always; otherwise when it is the newer of the two.
 */
export function sessionLeads(current: RunState, session: RunState): boolean {
  if (!isSession(session)) return false;
  if (current.status === 'running' && !isSession(current)) return false;
  if (current.runId === session.runId || current.status === 'idle') return true;
  const shown = isSession(current) ? current.session.lastEventAt : Math.max(current.startedAt + current.elapsedMs, current.checked?.at ?? 0);
  return session.session.lastEventAt >= shown;
}

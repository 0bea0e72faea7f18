// The panel's view of an agent host's session gated by our hooks (issue 30; the state is folded by
// src/vscode/sessionState.ts): whose session it is, where it stands, each stop-hook call as a row
// (sent back with the failures, or let stop with the reason), and only the actions that apply: no
// Stop or Continue (the agent is not ours to stop or resume), Revert session when its edit tools
// wrote files (their bytes were checkpointed first), Export trace. Drawn with the panel's helpers.
import type { ComponentChildren, VNode } from 'preact';
import type { PanelAction } from '../src/vscode/common/protocol';
import type { RunState } from '../src/vscode/common/runState';
import { canRevert, elapsedAt } from '../src/vscode/common/runState';
import type { HookSessionView, SessionDenial, SessionStop } from '../src/vscode/common/sessionTypes';
import type { CheckSummary } from '../src/core/trace/events';
import { failureHeadline } from '../src/core/verify/values';
import { formatDuration } from '../src/vscode/common/meterView';
import { sessionDecisionLine, stopBadge } from '../src/vscode/common/stepWords';

export interface PanelKit {
  h: (tag: string, attrs?: Record<string, unknown>, ...children: ComponentChildren[]) => VNode;
  icon: (name: string) => VNode;
  button: (action: PanelAction, label: string, codicon: string, enabled: boolean, title: string) => VNode;
  bar: (testid: string, label: string, used: number, limit: number, text: string) => VNode;
  checkChips: (checks: CheckSummary[]) => VNode;
  now: () => number;
}

type Session = RunState & { session: HookSessionView };

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function clock(iso: string): string {
  const d = new Date(iso);
  const two = (n: number): string => String(n).padStart(2, '0');
  return Number.isNaN(d.getTime()) ? '' : `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function tone(st: Session): 'ok' | 'warn' | 'bad' {
  if (st.status === 'running') return st.session.stops.at(-1)?.answer === 'block' ? 'warn' : 'ok';
  return st.stopReason === 'green' ? 'ok' : 'warn';
}

function header(st: Session, k: PanelKit): VNode {
  const { h, icon } = k;
  const s = st.session;
  const badge =
    st.status === 'running'
      ? h('span', { class: 'badge running', 'data-testid': 'run-status' }, icon('sync~spin'), ' agent at work')
      : h('span', { class: `badge ${st.stopReason === 'green' ? 'ok' : 'warn'}`, 'data-testid': 'stop-badge', title: st.detail ?? '' }, st.stopReason ? stopBadge(st.stopReason) : 'session over');
  return h(
    'header',
    {},
    // Not a run of ours: say whose work this is before anything else.
    h('p', { class: 'session-host', 'data-testid': 'session-host' }, icon('hubot'), ' ', h('strong', {}, `${s.hostLabel}'s session`), ', gated by Fix Until Green'),
    h('p', { class: `sentence ${tone(st)}`, 'data-testid': 'session-sentence', tabindex: -1 }, icon(st.status === 'running' ? 'debug-restart' : st.stopReason === 'green' ? 'pass' : 'warning'), ' ', s.sentence),
    // After Revert session the files are as before the agent's edits: the sentence is history.
    h('div', { class: 'badges' }, badge, st.reverted ? h('span', { class: 'badge reverted', 'data-testid': 'reverted' }, 'reverted') : null),
    h(
      'div',
      { class: 'meta' },
      h('strong', { 'data-testid': 'folder' }, st.folderName),
      s.sessionId ? h('span', { class: 'run-id', 'data-testid': 'session-id', title: `session ${s.sessionId} · run ${st.runId ?? ''}` }, ` · session ${s.sessionId.length > 14 ? `${s.sessionId.slice(0, 13)}…` : s.sessionId}`) : null,
    ),
    // The reason id for scripts (a data-testid), not drawn; Technical detail shows it (issue 40).
    st.status === 'stopped' && st.stopReason ? h('div', { class: 'ids', hidden: true }, h('code', { 'data-testid': 'stop-reason' }, st.stopReason)) : null,
    st.detail || (st.status === 'stopped' && st.stopReason)
      ? h('details', { class: 'detail-box' }, h('summary', {}, 'Technical detail'), st.status === 'stopped' && st.stopReason ? h('div', { class: 'ids' }, `stop reason ${st.stopReason}`) : null, st.detail ? h('div', { class: 'detail', 'data-testid': 'detail' }, st.detail) : null)
      : null,
  );
}

function actions(st: Session, k: PanelKit): VNode {
  const n = st.session.touched.length;
  return k.h(
    'div',
    { class: 'actions', role: 'toolbar', 'aria-label': 'Session actions' },
    n > 0
      ? k.button('revertRun', 'Revert session', 'discard', canRevert(st) && st.reverted !== 'run', st.status === 'running' ? 'The agent is at work: revert once it has stopped' : `Restore the ${plural(n, 'file')} the agent's edit tools wrote to their bytes before the session`)
      : null,
    k.button('exportTrace', 'Export trace', 'export', st.tracePath !== null, "Save the session's JSONL trace"),
  );
}

function budgets(st: Session, k: PanelKit): VNode {
  const el = elapsedAt(st, k.now());
  const b = st.session.blocks;
  return k.h(
    'section',
    { class: 'budgets', 'aria-label': 'Budget' },
    // A hook session's "steps" are the stops sent back; its tokens are the host's to count.
    k.bar('budget-steps', 'Stops', b, st.limits.maxSteps, `${b} / ${st.limits.maxSteps} sent back`),
    k.bar('budget-time', 'Time', el, st.limits.timeLimitSeconds * 1000, `${formatDuration(el)} / ${formatDuration(st.limits.timeLimitSeconds * 1000)}`),
  );
}

function stopRow(stop: SessionStop, k: PanelKit): VNode {
  const { h, icon } = k;
  const blocked = stop.answer === 'block';
  const chip = blocked
    ? h('span', { class: 'chip bad', 'data-testid': 'session-answer' }, icon('debug-restart'), ' sent back to work')
    : h('span', { class: `chip ${stop.decision?.reason === 'green' ? 'ok' : 'warn'}`, 'data-testid': 'session-answer' }, icon(stop.decision?.reason === 'green' ? 'pass' : 'debug-pause'), ` let stop${stop.decision ? `: ${stopBadge(stop.decision.reason)}` : ''}`);
  const failures = blocked && stop.failures.length > 0
    ? h('ul', { class: 'session-failures' }, stop.failures.slice(0, 3).map((f, i) => h('li', { key: i, title: f.message }, h('span', { class: 'where' }, `${f.file ?? '(no file)'}${f.line ? `:${f.line}` : ''}`), ' ', h('span', { 'data-testid': 'failure-headline' }, failureHeadline(f)))), stop.failureCount > 3 ? h('li', { key: 'more', class: 'more' }, `and ${stop.failureCount - 3} more`) : null)
    : null;
  // What the agent was sent back with, or the user told: the gate's own words, folded away.
  const told = h('details', { class: 'told' }, h('summary', {}, blocked ? 'What the agent was told' : 'What you were told'), h('pre', { class: 'feedback', 'data-testid': 'session-reason' }, stop.reason));
  return h(
    'li',
    { key: `stop-${stop.step}`, class: `step session-stop ${blocked ? 'blocked' : 'allowed'}${stop.green ? ' green' : ''}`, 'data-testid': 'session-stop', 'data-answer': stop.answer, 'data-stop': stop.index, 'aria-label': `Stop ${stop.index}: ${blocked ? 'sent back' : 'let stop'}, ${plural(stop.failureCount, 'failure')}` },
    h(
      'div',
      { class: 'line' },
      h('span', { class: 'idx' }, `#${stop.index}`),
      chip,
      k.checkChips(stop.checks),
      h('span', { class: 'count', title: stop.failureHash ? `failure identity ${stop.failureHash.slice(0, 12)}` : '' }, `${stop.failureCount} fail`),
      h('span', { class: 'tokens', title: `the host's ${stop.hostEvent} hook` }, `${stop.hostEvent} hook · ${clock(stop.at)}`),
    ),
    blocked && stop.verdict ? h('div', { class: 'postmortem open', 'data-testid': 'session-verdict' }, icon('lightbulb'), ` ${stop.verdict}`) : null,
    !blocked && stop.decision ? h('div', { class: 'postmortem open', 'data-testid': 'session-decision' }, icon(stop.decision.reason === 'green' ? 'pass' : 'info'), ` ${sessionDecisionLine(stop.decision)}`) : null,
    failures,
    told,
  );
}

function denialRow(d: SessionDenial, k: PanelKit): VNode {
  const { h, icon } = k;
  return h(
    'li',
    { key: `deny-${d.step}`, class: 'step session-denied unapplied', 'data-testid': 'session-denied' },
    h('div', { class: 'line' }, h('span', { class: 'chip warn' }, icon('shield'), ' edit refused'), h('span', { class: 'files' }, d.files.join(' ')), h('span', { class: 'tokens' }, clock(d.at))),
    h('div', { class: 'postmortem open' }, d.reason),
  );
}

function timeline(st: Session, k: PanelKit): VNode {
  const { h } = k;
  const s = st.session;
  const rows = [...s.stops.map((x) => ({ step: x.step, row: stopRow(x, k) })), ...s.denied.map((d) => ({ step: d.step, row: denialRow(d, k) }))].sort((a, b) => a.step - b.step);
  return h(
    'section',
    { class: 'timeline' },
    h('h2', {}, "The agent's stops"),
    rows.length === 0 ? h('p', { class: 'empty' }, 'Waiting for the agent to stop…') : h('ol', {}, rows.map((r) => r.row)),
    s.touched.length > 0 ? h('p', { class: 'touched', 'data-testid': 'session-touched' }, `Files its edit tools wrote: ${s.touched.join(', ')}`) : null,
  );
}

/** The panel's sections for a session, in the same slots as a run's (an absent section holds its slot as null). */
export function sessionSections(st: Session, k: PanelKit): (VNode | null)[] {
  return [header(st, k), actions(st, k), null, budgets(st, k), null, timeline(st, k)];
}

// The status panel's webview script (bundled by esbuild to dist/panel.js, browser/iife). It draws
// the run state the host posts, keeps it with setState for reloads, and sends typed messages back.
// Drawing goes through Preact's keyed diff (step rows keyed by step number): an update patches the
// DOM in place, so keyboard focus, scroll and a <details> the user opened survive the updates a
// running run posts up to ten times a second.
import type { ComponentChildren, VNode } from 'preact';
import { h as createElement, render as renderInto } from 'preact';
import type { FromWebview, PanelAction, PersistedPanelState, ToWebview } from '../src/vscode/common/protocol';
import { isPersistedPanelState, isToWebview } from '../src/vscode/common/protocol';
import type { RunState, StepView } from '../src/vscode/common/runState';
import { canContinue, canRevert, canRevertToBest, elapsedAt } from '../src/vscode/common/runState';
import { DESTRUCTIVE_SELECTORS, focusOrder } from '../src/vscode/common/panelFocus';
import type { BudgetKind } from '../src/vscode/common/meterView';
import { barLevel, formatDuration, formatTokens, shortRunId } from '../src/vscode/common/meterView';
import { failureHeadline } from '../src/core/verify/values';
import { explainEscalation, explainStop, notAppliedWhy } from '../src/vscode/common/explain';
import { formatMoney, formatSpend } from '../src/core/money';
import { modelName } from '../src/core/modelName';
import type { FixAction } from '../src/vscode/common/fixActions';
import { actionLabel } from '../src/vscode/common/fixActions';
import { runAgainLabel } from '../src/vscode/common/confirmWords';
import { checkWords, continueLabel, continueTitle, stopBadge } from '../src/vscode/common/stepWords';
import type { ParserId } from '../src/core/types';
import type { ReviewFile } from '../src/vscode/common/reviewState';
import { pendingFiles } from '../src/vscode/common/reviewState';
import type { HookSessionView } from '../src/vscode/common/sessionTypes';
import { sessionSections } from './sessionView';
import { plural } from '../src/vscode/common/chatWords';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const app = document.getElementById('app')!;
let state: RunState | null = null;
/** Host clock minus ours, so elapsed time is right even if the clocks differ. */
let clockSkew = 0;
let busy: PanelAction | null = null;
const expanded = new Set<number>();
let ticker: number | undefined;

type Child = ComponentChildren;
type Props = Record<string, unknown>;

/** One element: `undefined`/`false` attributes are left out, as the markup has always had them. */
function h(tag: string, attrs: Props = {}, ...children: Child[]): VNode {
  const props: Props = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== false) props[k] = v;
  return createElement(tag, props, ...children);
}

/** SVG elements: Preact creates them in the SVG namespace inside <svg>. */
const s = h;

function icon(name: string): VNode {
  return h('span', { class: `codicon codicon-${name}`, 'aria-hidden': 'true' });
}

function send(message: FromWebview): void {
  vscode.postMessage(message);
}

function now(): number {
  return Date.now() + clockSkew;
}

function reasonClass(r: string | null): string {
  if (r === 'green') return 'ok';
  if (r === 'error' || r === 'preflight-failed') return 'bad';
  return 'warn';
}

function reasonIcon(r: string | null): string {
  if (r === 'green') return 'pass';
  if (r === 'error' || r === 'preflight-failed') return 'error';
  return 'warning';
}

function checkedSentence(c: NonNullable<RunState['checked']>): string {
  const at = new Date(c.at);
  const when = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  return c.green ? `Checks run at ${when}: every check passes.` : `Checks run at ${when}: ${c.failureCount} failure${c.failureCount === 1 ? '' : 's'} (listed below and in Problems).`;
}

function header(st: RunState): VNode {
  const badges: Child[] = [];
  const why = st.status === 'stopped' && st.stopReason ? explainStop({ ...st, stopReason: st.stopReason }) : null;
  // A check pass after the stop is newer than the stop: it leads, and the stop becomes the last run's.
  const checked = st.status !== 'running' ? (st.checked ?? null) : null;
  if (st.status === 'running') {
    badges.push(h('span', { class: 'badge running', 'data-testid': 'run-status' }, icon('sync~spin'), ' running'));
  } else if (st.status === 'stopped' && st.stopReason) {
    // The badge says what the sentence says, in two words; the reason id and the outcome are in the technical detail.
    badges.push(h('span', { class: `badge ${reasonClass(st.stopReason)}`, 'data-testid': 'stop-badge', title: why?.technical ?? 'stop reason' }, stopBadge(st.stopReason)));
    if (st.reverted) badges.push(h('span', { class: 'badge reverted', 'data-testid': 'reverted' }, st.reverted === 'run' ? 'reverted' : 'reverted to best'));
  } else if (!st.refused) {
    badges.push(h('span', { class: 'badge idle' }, 'no run yet'));
  }
  return h(
    'header',
    {},
    refusal(st),
    checked
      ? h('p', { class: `sentence ${checked.green ? 'ok' : 'warn'}`, 'data-testid': 'checks-sentence', tabindex: -1 }, icon(checked.green ? 'pass' : 'warning'), ' ', checkedSentence(checked))
      : why
        ? h('p', { class: `sentence ${reasonClass(st.stopReason)}`, 'data-testid': 'stop-sentence', tabindex: -1 }, icon(reasonIcon(st.stopReason)), ' ', why.sentence)
        : null,
    // What the workspace holds after a non-green stop, right under the sentence (a revert since says otherwise).
    why?.held && !st.reverted && !checked ? h('p', { class: 'held', 'data-testid': 'held' }, icon('files'), ' ', why.held) : null,
    h('div', { class: 'badges' }, checked && why ? h('span', { class: 'last-run' }, 'Last run:') : null, ...badges),
    h(
      'div',
      { class: 'meta' },
      h('strong', { 'data-testid': 'folder' }, st.folderName),
      // Named as a person names it (issue 40); the label, the public name, in the tooltip.
      st.model ? h('span', { class: 'model', 'data-testid': 'model', title: st.model }, ` · ${modelName(st.model, st.modelNames)}`) : null,
      st.runId ? h('span', { class: 'run-id', 'data-testid': 'run-id', title: `run ${st.runId}` }, ` · ${shortRunId(st.runId)}`) : null,
    ),
    st.status === 'running' && st.phase ? h('div', { class: 'phase', 'data-testid': 'phase', tabindex: -1 }, st.phase) : null,
    // The stop's public ids are for scripts and harnesses (DESIGN's data-testids), not for people:
    // kept in the document, not drawn (one vocabulary on screen, issue 40); Technical detail shows them.
    st.status === 'stopped' && st.stopReason
      ? h('div', { class: 'ids', hidden: true }, h('code', { 'data-testid': 'stop-reason' }, st.stopReason), st.outcome ? h('code', { 'data-testid': 'outcome' }, st.outcome) : null)
      : null,
    // The engine's own words (reason id, outcome, hashes, thresholds) for whoever wants them, folded away.
    st.detail || (st.status === 'stopped' && st.stopReason)
      ? h(
          'details',
          { class: 'detail-box' },
          h('summary', {}, 'Technical detail'),
          st.stopReason && st.status === 'stopped' ? h('div', { class: 'ids' }, `stop reason ${st.stopReason}${st.outcome ? ` · outcome ${st.outcome}` : ''}`) : null,
          st.detail ? h('div', { class: 'detail', 'data-testid': 'detail' }, st.detail) : null,
        )
      : null,
    st.instruction ? h('div', { class: 'instruction' }, icon('comment'), ' ', st.instruction) : null,
  );
}

function button(action: PanelAction, label: string, codicon: string, enabled: boolean, title: string): VNode {
  const onClick = (): void => send({ type: 'action', action, folder: state?.folder ?? null });
  // Only a toolbar too narrow for its widest button shows the icons (a container query hides the label; the tooltip and the accessible name stay).
  return h('button', { key: action, type: 'button', 'data-action': action, title, 'aria-label': label, disabled: !enabled || busy !== null, onClick }, icon(busy === action ? 'loading~spin' : codicon), h('span', { class: 'label' }, ` ${label}`));
}

/**
 * Why the last start was refused (issue 40: the panel said only "no run yet"): the notification's
 * sentence, its fixes and Run as buttons. The newest fact, so it leads; the next start clears it.
 */
function refusal(st: RunState): VNode | null {
  const r = st.refused;
  if (!r || st.status === 'running') return null;
  const fixes = r.actions.map((a, index) =>
    h('button', { key: `fix-${index}`, type: 'button', 'data-testid': 'refusal-fix', title: actionLabel(a), disabled: busy !== null, onClick: () => send({ type: 'fix', index, folder: st.folder }) }, icon(FIX_ICON[a.kind]), h('span', { class: 'label' }, ` ${actionLabel(a)}`)),
  );
  return h(
    'section',
    { class: 'refusal', 'data-testid': 'refusal' },
    h('p', { class: 'sentence bad', 'data-testid': 'refusal-sentence', tabindex: -1 }, icon('error'), ' ', `Did not start: ${r.message}`),
    h('div', { class: 'actions', role: 'toolbar', 'aria-label': 'Fix and run' }, ...fixes, button('run', runAgainLabel(st), 'play', true, 'Start a run in this folder: an optional instruction first')),
  );
}

/** The codicon of each kind of fix, as the buttons of the panel draw them. */
const FIX_ICON: Record<FixAction['kind'], string> = { setApiKey: 'key', setBaseUrl: 'link', chooseModel: 'settings-gear', openSetting: 'settings', confirmEndpoint: 'shield' };

function revertToBestTitle(st: RunState): string {
  if (st.bestStep === null) return 'Restore the state of the best step';
  if (!canRevertToBest(st) && canRevert(st)) return `The files already hold the best step's state (${stepName(st.bestStep)})`;
  return st.bestStep === 0 ? 'Put the files back as they were before the run: no step did better' : `Restore the state of the best step (step ${st.bestStep})`;
}

function actions(st: RunState): VNode {
  const revertable = canRevert(st);
  return h(
    'div',
    { class: 'actions', role: 'toolbar', 'aria-label': 'Run actions' },
    // Stop only while there is a run to stop: a finished run keeps no disabled Stop (issue 40).
    st.status === 'running' ? button('stop', 'Stop', 'debug-stop', true, 'Stop the run; the in-flight call or check is aborted') : null,
    // Says what it adds before it is pressed: "+8 steps, +200k tokens", the ceilings in the tooltip.
    canContinue(st) ? button('continue', st.continueAdds ? continueLabel(st.stopReason, st.continueAdds) : 'Continue', 'debug-continue', true, st.continueAdds ? continueTitle(st.limits, st.continueAdds) : 'Resume this run with another step and token budget') : null,
    button('revertRun', 'Revert run', 'discard', revertable && st.reverted !== 'run', 'Restore every file the run touched to its original bytes'),
    button('revertToBest', 'Revert to best', 'history', canRevertToBest(st), revertToBestTitle(st)),
    button('exportTrace', 'Export trace', 'export', st.tracePath !== null && st.status !== 'running', "Save the run's JSONL trace"),
  );
}

function reviewButton(st: RunState, action: 'diff' | 'keep' | 'undo', path: string | null, label: string, codicon: string, title: string): VNode {
  const onClick = (e: MouseEvent): void => {
    e.stopPropagation();
    send({ type: 'review', action, path, folder: st.folder });
  };
  const testid = `review-${action}${path === null ? '-all' : ''}`;
  // The label is a span a row too narrow for it hides (panel.css); the name stays for screen readers, the title for the pointer.
  return h('button', { type: 'button', class: `review-${action}`, 'data-testid': testid, title, 'aria-label': label || title, disabled: busy !== null, onClick }, icon(codicon), label ? h('span', { class: 'label' }, ` ${label}`) : '');
}

/** A path that may wrap after each slash (and only inside a name longer than the row). */
function pathBreaks(p: string): (string | VNode)[] {
  return p.split('/').flatMap((part, i, all) => (i < all.length - 1 ? [`${part}/`, h('wbr', {})] : [part]));
}

const KIND_LABEL: Record<ReviewFile['kind'], string> = { added: 'added', modified: 'changed', deleted: 'deleted' };

function reviewRow(st: RunState, f: ReviewFile): VNode {
  const pending = f.decision === 'pending';
  return h(
    'li',
    { key: f.path, class: `review-file ${f.decision}`, 'data-testid': 'review-file', 'data-path': f.path, 'data-decision': f.decision },
    h('button', { type: 'button', class: 'review-name link', title: `Open the diff of ${f.path} (original ↔ now)`, onClick: () => send({ type: 'review', action: 'diff', path: f.path, folder: st.folder }) }, icon(f.kind === 'added' ? 'diff-added' : f.kind === 'deleted' ? 'diff-removed' : 'diff-modified'), ' ', ...pathBreaks(f.path)),
    h('span', { class: 'review-kind' }, KIND_LABEL[f.kind]),
    pending
      ? h('span', { class: 'review-buttons' }, reviewButton(st, 'keep', f.path, 'Keep', 'check', `Keep the run's change to ${f.path}`), reviewButton(st, 'undo', f.path, 'Undo', 'discard', `Put ${f.path} back as it was before the run (a file you changed since is left alone)`))
      : h('span', { class: `review-decision ${f.decision}`, 'data-testid': 'review-decision' }, icon(f.decision === 'kept' ? 'check' : 'discard'), f.decision === 'kept' ? ' kept' : ' undone'),
  );
}

/** The run-wide review (like Copilot agent mode's): each changed file with its diff, Keep and Undo, and both for all. */
function review(st: RunState): VNode | null {
  const r = st.status === 'stopped' ? st.review : null;
  if (!r || r.files.length === 0) return null;
  const pending = pendingFiles(r).length;
  return h(
    'section',
    { class: 'review', 'data-testid': 'review', 'aria-label': 'Review the changes' },
    h(
      'div',
      { class: 'review-head' },
      h('h2', {}, pending > 0 ? `Review changes (${pending} of ${r.files.length} file${r.files.length === 1 ? '' : 's'} to decide)` : `Changes reviewed (${r.files.length} file${r.files.length === 1 ? '' : 's'})`),
      pending > 0
        ? h(
            'span',
            { class: 'review-buttons' },
            reviewButton(st, 'diff', null, 'Open all', 'diff-multiple', 'Open every changed file in one diff view'),
            reviewButton(st, 'keep', null, 'Keep all', 'check-all', "Keep every change the run made"),
            reviewButton(st, 'undo', null, 'Undo all', 'discard', 'Put every changed file back as it was before the run (files you changed since are left alone)'),
          )
        : null,
    ),
    h('ul', {}, r.files.map((f) => reviewRow(st, f))),
  );
}

/** Widths go through the CSSOM (Preact sets a style object property by property): the CSP forbids inline style attributes. */
function fill(frac: number): VNode {
  return h('div', { class: 'fill', style: { width: `${(frac * 100).toFixed(1)}%` } });
}

function bar(testid: string, label: string, used: number, limit: number, text: string): VNode {
  const frac = limit > 0 ? Math.min(1, used / limit) : 0;
  const kind = testid.replace(/^budget-/, '') as BudgetKind;
  const level = state ? barLevel(state, kind, frac) : 'low';
  return h(
    'div',
    { class: 'budget', 'data-testid': testid },
    h('span', { class: 'label' }, label),
    h(
      'div',
      { class: `track ${level}`, role: 'progressbar', 'aria-label': label, 'aria-valuemin': 0, 'aria-valuemax': limit, 'aria-valuenow': Math.round(used), 'aria-valuetext': text },
      fill(frac),
    ),
    h('span', { class: 'value' }, text),
  );
}

function budgets(st: RunState): VNode {
  const el = elapsedAt(st, now());
  return h(
    'section',
    { class: 'budgets', 'aria-label': 'Budget' },
    bar('budget-steps', 'Steps', st.step, st.limits.maxSteps, `${st.step} / ${st.limits.maxSteps}`),
    bar('budget-tokens', 'Tokens', st.tokensUsed, st.limits.tokenCeiling, `${formatTokens(st.tokensUsed)} / ${formatTokens(st.limits.tokenCeiling)}`),
    bar('budget-time', 'Time', el, st.limits.timeLimitSeconds * 1000, `${formatDuration(el)} / ${formatDuration(st.limits.timeLimitSeconds * 1000)}`),
    costBar(st),
  );
}

/** Money, only when a model of the run has a price (`model.pricing`); against `costCeiling` when set. */
function costBar(st: RunState): VNode | null {
  if (st.costUsed === null || st.costUsed === undefined) return null;
  const ceiling = st.limits.costCeiling ?? 0;
  return bar('budget-cost', 'Cost', st.costUsed, ceiling, ceiling > 0 ? formatSpend(st.costUsed, ceiling) : `${formatMoney(st.costUsed)} (no ceiling)`);
}

/** The model that made a step; the first step of an escalated model says so. */
function modelChip(st: RunState, step: StepView): VNode | null {
  if (!step.model) return null;
  const handover = (st.escalations ?? []).find((e) => e.step + 1 === step.index && e.to === step.model);
  const name = modelName(step.model, st.modelNames);
  return h(
    'span',
    { class: `chip model${handover ? ' escalated' : ''}`, 'data-testid': 'step-model', title: handover ? explainEscalation(handover, st.modelNames) : `made by ${name} (${step.model})` },
    icon(handover ? 'arrow-up' : 'hubot'),
    ` ${name}`,
  );
}

/** The height in chart units of a bar for 0 failures (and the least any bar has). */
const ZERO_BAR = 6;

function legend(st: RunState): VNode {
  const pts = st.failuresPerStep;
  const item = (cls: string, text: string): VNode => h('li', { key: cls }, h('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }), text);
  return h(
    'ul',
    { class: 'legend', 'data-testid': 'chart-legend' },
    item('bar', 'failures after each step (0: before the run)'),
    bestBar(st) !== null && pts.some((p) => p.step === st.bestStep && p.count > 0) ? item('best', 'best step') : null,
    pts.some((p) => p.count === 0) ? item('green', 'no failures') : null,
  );
}

/** The bar drawn as the best step: none when no step did better than the files before the run (its best is "step 0"). */
function bestBar(st: RunState): number | null {
  return st.bestStep !== null && st.bestStep > 0 ? st.bestStep : null;
}

/** "step 2", or "before the run" for the engine's step 0. */
function stepName(step: number): string {
  return step === 0 ? 'before the run' : `step ${step}`;
}

function chart(st: RunState): VNode | null {
  const pts = st.failuresPerStep;
  if (pts.length === 0) return null;
  const W = 320;
  const H = 96;
  const pad = { l: 26, r: 6, t: 8, b: 18 };
  const max = Math.max(1, ...pts.map((p) => p.count));
  const slot = (W - pad.l - pad.r) / pts.length;
  const bw = Math.max(4, Math.min(28, slot * 0.6));
  const y = (v: number): number => pad.t + (H - pad.t - pad.b) * (1 - v / max);
  const bars = pts.map((p, i) => {
    const cx = pad.l + slot * i + slot / 2;
    // A step with no failures gets a short green bar of its own: a 0 must be seen, not a sliver.
    const top = p.count === 0 ? y(0) - ZERO_BAR : Math.min(y(p.count), y(0) - ZERO_BAR);
    return [
      s(
        'rect',
        { key: `bar-${p.step}`, x: cx - bw / 2, y: top, width: bw, height: Math.max(2, y(0) - top), class: p.count === 0 ? 'bar green' : p.step === bestBar(st) ? 'bar best' : 'bar' },
        s('title', {}, `${stepName(p.step)}: ${p.count} failure${p.count === 1 ? '' : 's'}`),
      ),
      s('text', { key: `tick-${p.step}`, x: cx, y: H - 4, 'text-anchor': 'middle', class: 'tick' }, String(p.step)),
    ];
  });
  const svg = s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `Failures per step: ${pts.map((p) => `${stepName(p.step)}: ${p.count}`).join(', ')}`, class: 'chart', 'data-testid': 'failure-chart' },
    s('line', { x1: pad.l, y1: y(0), x2: W - pad.r, y2: y(0), class: 'axis' }),
    s('text', { x: pad.l - 4, y: y(max) + 4, 'text-anchor': 'end', class: 'tick' }, String(max)),
    s('text', { x: pad.l - 4, y: y(0), 'text-anchor': 'end', class: 'tick' }, '0'),
    bars.flat(),
  );
  return h('section', { class: 'chart-box', 'aria-label': 'Failures per step' }, h('h2', {}, 'Failures per step'), svg, legend(st));
}

function checkChips(step: Pick<StepView, 'checks'>, parsers: Readonly<Record<string, ParserId>>): VNode {
  return h(
    'span',
    { class: 'checks' },
    step.checks.map((c) => {
      const ok = c.exitCode === 0 && c.failureCount === 0;
      // Plain words ("type check", "tests: 1 failing · only the failing tests re-run"); the engine's in the tooltip.
      const how = c.mode !== undefined ? `\n${c.mode} run${c.carried ? `, ${plural(c.carried, 'failure')} carried from an earlier run` : ''}${c.note ? `: ${c.note}` : ''}` : '';
      // A list cut short says so: its count is only the part kept (and is compared with nothing).
      const cut = c.incomplete ? `\noutput cut at the output limit: ${c.reportedFailures !== undefined ? `${plural(c.reportedFailures, 'failure')} by its own summary, ${c.failureCount} listed` : `only the ${plural(c.failureCount, 'failure')} of the part kept are listed`}` : c.outputCut ? '\noutput cut at the output limit (every failure listed)' : '';
      return h('span', { key: c.name, class: `chip ${ok ? 'ok' : 'bad'}`, 'data-mode': c.mode ?? 'full', ...(c.incomplete ? { 'data-cut': 'true' } : {}), title: `${c.name}: exit ${c.exitCode ?? 'none'}${c.timedOut ? ' (timed out)' : ''}, ${plural(c.failureCount, 'failure')}, ${formatDuration(c.durationMs)}${how}${cut}` }, icon(ok ? 'pass' : 'error'), ` ${checkWords(c, parsers[c.name])}${c.incomplete ? ' (output cut)' : ''}`);
    }),
  );
}

/** The whole of why an edit was not applied: the edit event's errors, else the step's feedback. */
function notAppliedText(step: StepView): string {
  return step.editErrors && step.editErrors.length > 0 ? step.editErrors.join('\n') : (step.feedback ?? '');
}

function stepRow(st: RunState, step: StepView): VNode {
  const open = expanded.has(step.index);
  const cost = step.cost ?? null;
  const files = step.files.length && (step.applied || step.rolledBack)
    ? h('span', { class: 'files' }, step.files.map((f) => h('span', { key: f.path, class: 'file', title: `${f.kind} ${f.path}` }, `${f.path} `, h('span', { class: 'add' }, `+${f.added}`), ' ', h('span', { class: 'del' }, `−${f.removed}`))))
    : step.applied
      ? h('span', { class: 'files none' }, 'no file changes')
      : // Why, in one line (the file, the hunk, the reason); the full text unfolds with the row.
        h('span', { class: 'files none', 'data-testid': 'not-applied', title: notAppliedText(step) || 'edit not applied' }, 'edit not applied: ', h('span', { class: 'why' }, notAppliedWhy(step.editErrors ?? [], step.feedback)));
  // Guards that let the step through say nothing (every step passes them); a refusal or a stop is shown by name.
  const objected = step.critics.filter((c) => c.verdict !== 'continue');
  const critics = objected.length
    ? h(
        'div',
        { class: 'critics' },
        objected.map((c, i) => h('span', { key: i, class: `chip ${c.verdict === 'retry' ? 'warn' : 'bad'}`, 'data-testid': 'critic-verdict', title: `${c.critic}: ${c.verdict} — ${c.reason}` }, `${c.verdict === 'retry' ? 'refused' : 'stopped'} by ${c.critic}`)),
      )
    : null;
  // The whole of why an edit was not applied unfolds with the row, as the feedback does.
  const more = step.feedback ?? (step.applied ? null : notAppliedText(step) || null);
  const activate = (): void => {
    if (more) {
      if (open) expanded.delete(step.index);
      else expanded.add(step.index);
    }
    send({ type: 'openDiff', step: step.index, folder: st.folder });
    draw();
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      activate();
    }
  };
  return h(
    'li',
    {
      // The key keeps each row's element (and its focus) while rows are added around it.
      key: step.index,
      class: `step ${step.applied ? 'applied' : 'unapplied'}${step.index === st.bestStep ? ' best' : ''}`,
      'data-testid': 'step-row',
      'data-step': step.index,
      tabindex: 0,
      role: 'button',
      'aria-label': `Step ${step.index}: ${plural(step.failureCount, 'failure')} after it, ${step.tokens} tokens${cost !== null ? `, ${formatMoney(cost)}` : ''}${step.model ? ` by ${modelName(step.model, st.modelNames)}` : ''}. Opens the step's diff.`,
      title: step.snapshotDir ? "Open this step's diff" : 'This step changed no files',
      onClick: activate,
      onKeyDown,
    },
    h(
      'div',
      { class: 'line' },
      h('span', { class: 'idx' }, `#${step.index}`),
      step.index === st.bestStep ? h('span', { class: 'chip best', title: 'best step' }, icon('star-full'), ' best') : null,
      step.rolledBack
        ? h('span', { class: 'chip warn', 'data-testid': 'rolled-back', title: step.feedback ?? 'a critic rolled this edit back' }, icon('discard'), ` rolled back${step.restoredToStep !== null && step.restoredToStep !== undefined ? ` to #${step.restoredToStep}` : ''}`)
        : null,
      modelChip(st, step),
      files,
      checkChips(step, st.checkParsers ?? {}),
      // The failure identity is for whoever compares steps; it looks like a commit hash, so it stays in the tooltip.
      h('span', { class: 'count', title: `failures after this step${step.failureCount > 0 ? ` (failure identity ${step.failureHash.slice(0, 12)})` : ''}` }, `${step.failureCount} fail`),
      // What the step's call cost, beside its tokens ("1.2k tok · $0.003"); the model chip on the same row names who spent it.
      h(
        'span',
        { class: 'tokens', title: `tokens this step used${cost !== null ? `; its model call cost ${formatMoney(cost)}${step.model ? ` at the price of ${modelName(step.model, st.modelNames)} in fixUntilGreen.model.pricing` : ''}` : ''}` },
        `${formatTokens(step.tokens)} tok`,
        cost !== null ? h('span', { class: 'cost', 'data-testid': 'step-cost' }, ` · ${formatMoney(cost)}`) : null,
      ),
    ),
    step.postMortem ? h('div', { class: `postmortem${open ? ' open' : ''}` }, icon('lightbulb'), ' ', step.postMortem) : null,
    critics,
    more && open ? h('pre', { class: 'feedback', 'data-testid': 'step-feedback' }, more) : null,
  );
}

function timeline(st: RunState): VNode {
  if (st.steps.length === 0) {
    return h('section', { class: 'timeline' }, h('h2', {}, 'Steps'), h('p', { class: 'empty' }, st.status === 'running' ? 'Waiting for the first step…' : 'No model steps.'));
  }
  return h('section', { class: 'timeline' }, h('h2', {}, 'Steps'), h('ol', {}, st.steps.map((x) => stepRow(st, x))));
}

function remaining(st: RunState): VNode | null {
  if (st.remainingFailures.length === 0) return null;
  // The headline shows the values (20 !== 180) and the assertion line, not "Expected values to be strictly equal:".
  const items = st.remainingFailures.slice(0, 50).map((f, i) => h('li', { key: i, title: f.message }, h('span', { class: 'where' }, `${f.file ?? '(no file)'}${f.line ? `:${f.line}` : ''}`), ` ${f.check}: `, h('span', { 'data-testid': 'failure-headline' }, failureHeadline(f))));
  // `open` is set only when it changes (running → stopped opens it); what the user toggled in
  // between stays as they left it.
  return h(
    'section',
    { class: 'remaining' },
    h('details', { open: st.status !== 'running', 'data-testid': 'remaining-failures' }, h('summary', {}, `Remaining failures (${st.remainingFailures.length})`), h('ul', {}, items)),
  );
}

/** What a folder with no run yet offers: what the loop does, and its first two steps as buttons (Show Panel's keyboard lands on Run). */
function start(intro: string | null, buttons = true): Child[] {
  return [
    intro !== null ? h('p', { class: 'empty', 'data-testid': 'no-run' }, intro, h('strong', {}, 'Fix Until Green'), ' edits this folder until its own checks pass (whichever of a type check, a linter and tests it has), and says why it stopped.') : null,
    // A refused start's own buttons (its fixes and Run) stand in for these.
    buttons
      ? h(
          'div',
          { class: 'actions start', role: 'toolbar', 'aria-label': 'Start' },
          button('run', 'Run Fix Until Green', 'play', true, 'Start a run in this folder: an optional instruction first'),
          button('chooseModel', 'Choose Model…', 'settings-gear', true, 'Pick the provider and model the loop uses'),
        )
      : null,
  ];
}

function view(st: RunState | null): Child[] {
  if (!st) return start('No run yet. ');
  // No run in this folder yet (Run Checks' result, if any, above): no meters at zero, no disabled buttons.
  if (st.status === 'idle' && !st.session) return [header(st), ...start(st.checked ? null : '', !st.refused), st.checked ? remaining(st) : null];
  // An agent's session our hooks gate (issue 30): its own header, actions and rows.
  if (st.session) {
    const session = st as RunState & { session: HookSessionView };
    const kit = { h, icon, button, bar, now, checkChips: (checks: StepView['checks']) => checkChips({ checks }, st.checkParsers ?? {}) };
    return [...sessionSections(session, kit), remaining(st)];
  }
  // Each section has a fixed slot (an absent chart or failure list holds its slot as null), so an
  // update patches each section's own elements.
  return [header(st), actions(st), review(st), budgets(st), chart(st), timeline(st), remaining(st)];
}

/** Patches the panel to the current state; the clock ticks once a second while a run is in progress. */
function draw(): void {
  renderInto(view(state), app);
  if (focusPending) holdFocus();
  if (state?.status === 'running' && ticker === undefined) {
    ticker = window.setInterval(draw, 1000);
  } else if (state?.status !== 'running' && ticker !== undefined) {
    window.clearInterval(ticker);
    ticker = undefined;
  }
}

function persist(): void {
  const saved: PersistedPanelState = { version: 1, state };
  vscode.setState(saved);
}

// Show Panel gives the webview the keyboard; the document then holds it on what the user most
// likely wants next (panelFocus.ts: the review's first pending file, Continue, the stop sentence),
// never on an action that discards work, so Tab walks the panel's own controls (not the browser's
// frame chain back to the workbench) and a stray Enter reverts nothing. A panel brought back from
// hidden is a new document whose state arrives after the focus: the first draw that finds the
// document focused and no control holding it places the focus then.
let focusPending = false;
function isDestructive(el: Element): boolean {
  return DESTRUCTIVE_SELECTORS.some((sel) => el.matches(sel));
}
function focusTarget(): HTMLElement | null {
  for (const sel of focusOrder(state)) {
    const el = document.querySelector<HTMLElement>(sel);
    if (el && !(el as HTMLButtonElement).disabled) return el;
  }
  // Anything else that takes the keyboard and discards nothing (a step row, Export trace).
  return [...document.querySelectorAll<HTMLElement>('button:not(:disabled), [tabindex="0"]')].find((el) => !isDestructive(el)) ?? null;
}
function holdFocus(): void {
  focusPending = false;
  if (!document.hasFocus() || (document.activeElement !== null && document.activeElement !== document.body)) return;
  const target = focusTarget();
  if (target) target.focus({ preventScroll: true });
  else focusPending = true;
}
window.addEventListener('focus', holdFocus);
// A Tab in the panel's document while no control holds the focus (the webview took the keyboard
// before its document was drawn, or the focus event came before this script) starts at the same place.
window.addEventListener('keydown', (e: KeyboardEvent) => {
  if (e.key !== 'Tab' || (document.activeElement !== null && document.activeElement !== document.body)) return;
  const target = focusTarget();
  if (!target) return;
  e.preventDefault();
  target.focus({ preventScroll: true });
});
if (document.hasFocus()) focusPending = true;

window.addEventListener('message', (ev: MessageEvent<unknown>) => {
  const m = ev.data;
  if (!isToWebview(m)) return;
  const msg: ToWebview = m;
  if (msg.type === 'state') {
    clockSkew = msg.now - Date.now();
    // A host with no run to show (e.g. a new window) leaves the restored last run on screen.
    if (msg.state !== null || state === null) {
      if (state?.runId !== msg.state?.runId) expanded.clear();
      state = msg.state;
      persist();
    }
  } else {
    busy = msg.action;
  }
  draw();
});

const saved = vscode.getState();
if (isPersistedPanelState(saved)) state = saved.state;
draw();
send({ type: 'ready' });

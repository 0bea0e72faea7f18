// What the status-bar budget meter, the panel's header and its tab show, as pure functions of the
// run state (unit-tested without VS Code; `budgetMeter.ts` puts the meter on the status bar item).
import type { StopReason } from '../../core/policy/reasons';
import type { RunState } from './runState';
import { elapsedAt } from './runState';
import { formatMoney, formatSpend } from '../../core/money';
import { modelName } from '../../core/modelName';
import { explainStop, stopMessage } from './explain';
import { stopBadge } from './stepWords';

export interface MeterView {
  text: string;
  /** Markdown for the tooltip. */
  tooltip: string;
  /** Past WARN_FRACTION of the step or token budget while running: warning background. */
  warning: boolean;
  /** What a screen reader says. */
  ariaLabel: string;
}

/** Past this share of either budget the meter turns to the warning colour. */
export const WARN_FRACTION = 0.8;

/** 950 → "950", 12400 → "12.4k", 200000 → "200k", 1250000 → "1.25M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.max(0, Math.round(n)));
  if (n < 1_000_000) {
    const k = n / 1000;
    return `${k >= 100 ? Math.round(k) : trim(k.toFixed(1))}k`;
  }
  return `${trim((n / 1_000_000).toFixed(2))}M`;
}

function trim(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** 65_000 → "1m 05s", 3_700_000 → "1h 01m", 9_000 → "9s". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/**
 * Before any run: the product mark's ring, still empty (the extension's icon is that ring with a
 * check). The item keeps its place, its name and its family of circle icons across every state; a
 * green check is for a green run only.
 */
export const IDLE_ICON = '$(circle-large-outline)';

/**
 * The codicon for a finished run. Never Problems' own `$(error)` / `$(warning)`: beside its
 * "⊗ 0 ⚠ 0" they would read as more problem counts.
 */
export function reasonIcon(reason: StopReason | null): string {
  if (reason === 'green') return '$(check-all)';
  if (reason === 'error' || reason === 'preflight-failed') return '$(circle-slash)';
  if (reason === null) return IDLE_ICON;
  return '$(debug-pause)';
}

/** The item's name, as ESLint and GitLens lead theirs. */
export const METER_LABEL = 'Fix Until Green';

export function budgetFractions(s: RunState): { steps: number; tokens: number; cost: number } {
  const ceiling = s.limits.costCeiling ?? 0;
  return {
    steps: s.limits.maxSteps > 0 ? s.step / s.limits.maxSteps : 0,
    tokens: s.limits.tokenCeiling > 0 ? s.tokensUsed / s.limits.tokenCeiling : 0,
    cost: ceiling > 0 && s.costUsed ? s.costUsed / ceiling : 0,
  };
}

/** Money spent, with the ceiling when there is one: "$0.009 of $0.50", "$1.25 spent"; undefined while no model has a price. */
export function moneyText(s: RunState): string | undefined {
  if (s.costUsed === null || s.costUsed === undefined) return undefined;
  const ceiling = s.limits.costCeiling ?? 0;
  return ceiling > 0 ? formatSpend(s.costUsed, ceiling) : `${formatMoney(s.costUsed)} spent`;
}

/** What the tooltip says about money: its row, and why some calls (or all) are not in it. */
function moneyLines(s: RunState): { row: string[]; notes: string[] } {
  const ceiling = s.limits.costCeiling ?? 0;
  const row = s.costUsed !== null && s.costUsed !== undefined ? [`| Cost | ${formatMoney(s.costUsed)} | ${ceiling > 0 ? formatMoney(ceiling) : 'none'} |`] : [];
  const unpriced = s.unpriced ?? [];
  const lm = unpriced.filter((m) => m.startsWith('vscode-lm'));
  const other = unpriced.filter((m) => !m.startsWith('vscode-lm'));
  // Named as a person names them (a chat model by VS Code's name, another by the id its price is keyed by).
  const named = (list: string[]): string => list.map((m) => `\`${modelName(m, s.modelNames)}\``).join(', ');
  const notes: string[] = [];
  if (lm.length > 0) notes.push(`${named(lm)}: VS Code's chat models have no per-token price, so their calls cost no money here${row.length > 0 ? ' and are not in the cost' : ''}.`);
  if (other.length > 0) notes.push(`${named(other)}: no price in \`fixUntilGreen.model.pricing\`, so ${row.length > 0 ? 'their calls are not in the cost' : 'no money is shown'}.`);
  return { row, notes };
}

export function meterView(s: RunState | undefined, now: number = Date.now()): MeterView {
  // A refused start says so, as the panel does (issue 40), not "no run yet".
  if (s?.status === 'idle' && s.refused && !s.session) {
    return {
      text: `${reasonIcon('preflight-failed')} ${METER_LABEL}: ${stopBadge('preflight-failed')}`,
      tooltip: `**Fix Until Green**: did not start\n\n${escapeMarkdown(s.refused.message)}\n\nClick to open the panel.`,
      warning: false,
      ariaLabel: `Fix Until Green did not start: ${s.refused.message}`,
    };
  }
  if (!s || s.status === 'idle') {
    return {
      text: `${IDLE_ICON} ${METER_LABEL}: no run yet`,
      tooltip: '**Fix Until Green**: no run yet in this workspace.\n\nClick to open the panel; run **Fix Until Green** from the command palette to start.',
      warning: false,
      ariaLabel: 'Fix Until Green: no run yet',
    };
  }
  const folder = s.folderName ? ` · ${escapeMarkdown(s.folderName)}` : '';
  const hs = s.session;
  if (hs) {
    // An agent's session our hooks gate (sessionState.ts): its stops sent back, then the stop's reason.
    const live = s.status === 'running';
    return {
      text: live ? `$(sync~spin) ${METER_LABEL}: ${hs.hostLabel} · ${hs.blocks}/${s.limits.maxSteps} stops sent back` : `${reasonIcon(s.stopReason)} ${METER_LABEL}: ${s.stopReason ? stopBadge(s.stopReason) : 'ended'} · ${hs.hostLabel}`,
      tooltip: `**Fix Until Green** gates ${escapeMarkdown(hs.hostLabel)}'s session${folder}\n\n${escapeMarkdown(hs.sentence)}\n\nClick to open the panel.`,
      warning: false,
      ariaLabel: `Fix Until Green: ${hs.sentence}`,
    };
  }
  // Named, with units: "Fix Until Green: 2/5 steps · 3.1k/200k tokens".
  const money = moneyText(s);
  const budget = `${s.step}/${s.limits.maxSteps} steps · ${formatTokens(s.tokensUsed)}/${formatTokens(s.limits.tokenCeiling)} tokens${money ? ` · ${money}` : ''}`;
  const cost = moneyLines(s);
  const f = budgetFractions(s);
  const elapsed = elapsedAt(s, now);
  const rows = [
    '| | used | limit |',
    '|---|---:|---:|',
    `| Steps | ${s.step} | ${s.limits.maxSteps} |`,
    `| Tokens | ${s.tokensUsed.toLocaleString('en-US')} | ${s.limits.tokenCeiling.toLocaleString('en-US')} |`,
    `| Time | ${formatDuration(elapsed)} | ${formatDuration(s.limits.timeLimitSeconds * 1000)} |`,
    ...cost.row,
    ...(cost.notes.length > 0 ? ['', ...cost.notes] : []),
  ];
  if (s.status === 'running') {
    const warning = f.steps > WARN_FRACTION || f.tokens > WARN_FRACTION || f.cost > WARN_FRACTION;
    return {
      text: `$(sync~spin) ${METER_LABEL}: ${budget}`,
      tooltip: [`**Fix Until Green**: running${folder}`, '', escapeMarkdown(s.phase), '', ...rows, '', 'Click to open the panel.'].join('\n'),
      warning,
      ariaLabel: `Fix Until Green running: step ${s.step} of ${s.limits.maxSteps}, ${s.tokensUsed} of ${s.limits.tokenCeiling} tokens${money ? `, ${money}` : ''}${warning ? ', budget nearly spent' : ''}`,
    };
  }
  const reason = s.stopReason ?? 'error';
  // The badge's words ("no progress", "steps used up"), as on every surface a person reads (issue 40);
  // the reason id and the outcome stay in the trace, the JSON and the panel's data-testids.
  const words = stopBadge(reason);
  const reverted = s.reverted === 'run' ? ' · reverted' : s.reverted === 'best' ? ' · reverted to best' : '';
  return {
    text: `${reasonIcon(reason)} ${METER_LABEL}: ${words} · ${budget}${reverted}`,
    tooltip: [
      `**Fix Until Green**: ${reason === 'green' ? 'green' : `stopped, ${words}`}${folder}${reverted}`,
      '',
      escapeMarkdown(explainStop({ ...s, stopReason: reason }).sentence),
      '',
      ...rows,
      '',
      'Click to open the panel.',
    ].join('\n'),
    warning: false,
    ariaLabel: `Fix Until Green stopped: ${words}, ${s.step} of ${s.limits.maxSteps} steps, ${s.tokensUsed} of ${s.limits.tokenCeiling} tokens${money ? `, ${money}` : ''}${reverted}`,
  };
}

/** Model and check output reach the tooltip; it must not become markup or links. */
export function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}

/** The run id as a person reads it: when it started, on the local clock ("run of 12:07:52"); the whole id goes in the tooltip. */
export function shortRunId(id: string): string {
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)-(\d{3})Z/.exec(id);
  const at = m ? new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) : undefined;
  if (!at || Number.isNaN(at.getTime())) return `run ${id.length > 14 ? `${id.slice(0, 13)}…` : id}`;
  const two = (n: number): string => String(n).padStart(2, '0');
  return `run of ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

/** The panel tab's icon file (in media/) for a state: a neutral ring before any run, the green check only after green. */
export function panelIcon(state: RunState | null): string {
  if (state?.status === 'idle' && state.refused) return 'status-error.svg';
  if (!state || state.status === 'idle') return 'status-idle.svg';
  if (state.status === 'running') return 'status-running.svg';
  if (state.stopReason === 'green') return 'status-green.svg';
  if (state.stopReason === 'error' || state.stopReason === 'preflight-failed') return 'status-error.svg';
  return 'status-stopped.svg';
}

/**
 * The progress notification's message, from the same state as the panel and the meter: the step
 * figure is the state's step (the panel's Steps bar), the phase without its own step prefix.
 */
export function progressMessage(s: RunState): string {
  if (s.status === 'running') return `step ${s.step}/${s.limits.maxSteps}: ${s.phase.replace(/^step \d+: /, '')}`;
  return s.stopReason ? stopMessage(explainStop({ ...s, stopReason: s.stopReason })) : 'stopped';
}

export type BarLevel = 'low' | 'mid' | 'high';
export type BudgetKind = 'steps' | 'tokens' | 'time' | 'cost';

const RAN_OUT: Partial<Record<StopReason, BudgetKind>> = { 'step-cap': 'steps', 'token-ceiling': 'tokens', 'time-limit': 'time', 'cost-ceiling': 'cost' };

/**
 * A budget bar's colour says what it means (issue 40): while a run is in progress, how near the
 * limit it is; once stopped, only the budget that ran out warns. A green run that used 5 of 5 steps
 * is a success, not a warning.
 */
export function barLevel(s: Pick<RunState, 'status' | 'stopReason'>, kind: BudgetKind, frac: number): BarLevel {
  if (s.status !== 'running') return s.stopReason && RAN_OUT[s.stopReason] === kind ? 'high' : 'low';
  return frac > 0.8 ? 'high' : frac > 0.5 ? 'mid' : 'low';
}

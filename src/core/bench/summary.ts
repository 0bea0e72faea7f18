// The report's numbers per variant, and its words for the terminal and Markdown: which variant greens
// most tasks, at what money per green, how often it overfits, and where it wastes tokens.
import type { PairRecord } from './metrics';
import type { BenchPlan } from './plan';

export interface VariantSummary {
  variant: string;
  source: string;
  pairs: number;
  /** Green by the full checks with held-out tests restored, and not overfit. */
  green: number;
  greenRate: number;
  overfit: number;
  exact: number;
  different: number;
  medianStepsToGreen: number | null;
  stepsToGreen: number[];
  tokensIn: number;
  tokensOut: number;
  money: number | null;
  moneyPerGreen: number | null;
  tokensAfterFirstRepeat: number;
  protectedDenied: number;
  verifierDenied: number;
  protectedMade: number;
  outsideReference: number;
  wallMs: number;
  stopReasons: Record<string, number>;
}

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function summarize(plan: BenchPlan, records: readonly PairRecord[]): VariantSummary[] {
  return plan.variants.map((v) => {
    const rs = records.filter((r) => r.variant === v.name && r.plan === plan.id);
    const green = rs.filter((r) => r.greenFull && !r.overfit).length;
    const priced = rs.some((r) => r.money !== null);
    const money = priced ? rs.reduce((s, r) => s + (r.money ?? 0), 0) : null;
    const stepsToGreen = rs.filter((r) => r.greenFull && r.stepsToGreen !== null).map((r) => r.stepsToGreen!);
    const stopReasons: Record<string, number> = {};
    for (const r of rs) stopReasons[r.stopReason] = (stopReasons[r.stopReason] ?? 0) + 1;
    return {
      variant: v.name,
      source: v.source,
      pairs: rs.length,
      green,
      greenRate: rs.length ? green / rs.length : 0,
      overfit: rs.filter((r) => r.overfit).length,
      exact: rs.filter((r) => r.finalBytes === 'exact').length,
      different: rs.filter((r) => r.finalBytes === 'different').length,
      medianStepsToGreen: median(stepsToGreen),
      stepsToGreen,
      tokensIn: rs.reduce((s, r) => s + r.tokensIn, 0),
      tokensOut: rs.reduce((s, r) => s + r.tokensOut, 0),
      money,
      moneyPerGreen: money !== null && green > 0 ? money / green : null,
      tokensAfterFirstRepeat: rs.reduce((s, r) => s + r.tokensAfterFirstRepeat, 0),
      protectedDenied: rs.reduce((s, r) => s + r.protectedDenied, 0),
      verifierDenied: rs.reduce((s, r) => s + r.verifierDenied, 0),
      protectedMade: rs.reduce((s, r) => s + r.protectedMade.length, 0),
      outsideReference: rs.reduce((s, r) => s + r.outsideReference.length, 0),
      wallMs: rs.reduce((s, r) => s + r.wallMs, 0),
      stopReasons,
    };
  });
}

const money = (n: number | null): string => (n === null ? '-' : `$${n.toFixed(n < 1 ? 4 : 2)}`);
const k = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

export function tableRows(s: readonly VariantSummary[]): string[][] {
  const head = ['variant', 'green', 'overfit', 'exact/other', 'steps→green', 'tokens in/out', 'money', 'per green', 'after 1st repeat', 'denied', 'stops'];
  return [
    head,
    ...s.map((v) => [
      v.variant,
      `${v.green}/${v.pairs} (${Math.round(v.greenRate * 100)}%)`,
      String(v.overfit),
      `${v.exact}/${v.different}`,
      v.medianStepsToGreen === null ? '-' : `median ${v.medianStepsToGreen}`,
      `${k(v.tokensIn)}/${k(v.tokensOut)}`,
      money(v.money),
      money(v.moneyPerGreen),
      k(v.tokensAfterFirstRepeat),
      String(v.protectedDenied + v.verifierDenied),
      Object.entries(v.stopReasons).map(([r, n]) => `${r} ${n}`).join(', '),
    ]),
  ];
}

export function formatTable(rows: readonly string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd());
}

function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|');
}

export function markdownSummary(plan: BenchPlan, s: readonly VariantSummary[], records: readonly PairRecord[], notes: readonly string[] = []): string {
  const rows = tableRows(s);
  const lines = [`# fix-until-green bench: plan ${plan.id}`, '', `${plan.tasks.length} task(s) from history × ${plan.variants.length} variant(s); limits: ${Object.entries(plan.limits).map(([a, b]) => `${a} ${b}`).join(', ') || 'the settings\''}.`, ''];
  lines.push(`| ${rows[0]!.map(mdCell).join(' | ')} |`, `|${rows[0]!.map(() => '---').join('|')}|`);
  for (const r of rows.slice(1)) lines.push(`| ${r.map(mdCell).join(' | ')} |`);
  const best = [...s].filter((v) => v.variant !== 'oracle').sort((a, b) => b.green - a.green || (a.moneyPerGreen ?? Infinity) - (b.moneyPerGreen ?? Infinity))[0];
  if (best) lines.push('', `Most tasks green: **${best.variant}** (${best.green}/${best.pairs}${best.moneyPerGreen !== null ? `, ${money(best.moneyPerGreen)} per green` : ''}).`);
  const held = plan.tasks.filter((t) => t.holdout);
  lines.push('', `Held-out tests: ${held.length ? held.map((t) => `${t.id}: ${t.holdout!.heldOut.join(', ')} (${t.holdout!.how})`).join('; ') : 'none (no task had more than one failing test)'}.`);
  lines.push('', '| task | variant | stop | green (full) | overfit | steps | tokens | money | final bytes |', '|---|---|---|---|---|---|---|---|---|');
  for (const r of records) lines.push(`| ${r.task} | ${r.variant} | ${r.stopReason} | ${r.greenFull ? 'yes' : 'no'} | ${r.overfit ? 'yes' : ''} | ${r.steps} | ${r.tokensIn + r.tokensOut} | ${money(r.money)} | ${r.finalBytes ?? ''} |`);
  for (const n of notes) lines.push('', n);
  return `${lines.join('\n')}\n`;
}

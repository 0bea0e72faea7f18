// The self-contained HTML report: no script, no external resource (a strict CSP in the page itself),
// plots drawn as inline SVG: green rate against money per variant, the steps-to-green distribution,
// the stop reasons, the tokens spent after the first repeated failure. Each pair's row links to its trace.
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { PairRecord } from './metrics';
import type { BenchPlan } from './plan';
import type { VariantSummary } from './summary';
import { formatTable, tableRows } from './summary';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const COLORS = ['#2f7d4f', '#3b6fb6', '#b5651d', '#8e44ad', '#c0392b', '#16a085', '#7f8c8d'];

function frame(title: string, w: number, h: number, body: string, testId: string): string {
  return `<figure data-testid="${testId}"><figcaption>${esc(title)}</figcaption><svg width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(title)}">${body}</svg></figure>`;
}

/** Where the plan's tasks came from, in words: "from the repository's history", "(1 from the history, 2 from scenario folders)". */
function taskOrigins(plan: BenchPlan): string {
  const kinds = new Map<string, number>();
  for (const t of plan.tasks) {
    const k = t.origin === undefined ? 'the history' : t.origin.startsWith('eval ') ? 'scenario folders' : 'a tasks file';
    kinds.set(k, (kinds.get(k) ?? 0) + 1);
  }
  if (kinds.size <= 1) return `from ${kinds.size === 0 || kinds.has('the history') ? "the repository's history" : [...kinds.keys()][0]}`;
  return `(${[...kinds].map(([k, n]) => `${n} from ${k}`).join(', ')})`;
}

/** A label no longer than `n` characters (the full text stays in the mark's tooltip). */
const clip = (t: string, n: number): string => (t.length > n ? `${t.slice(0, n - 1)}…` : t);

/** Tokens as 1.2k / 3.4M, money with the digits that matter. */
function amount(n: number, money: boolean): string {
  if (money) return n >= 1 ? n.toFixed(2) : n.toPrecision(2);
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(Math.round(n));
}

/** Green rate (y) against money (x) per variant; with no prices, against tokens. */
function scatter(s: readonly VariantSummary[]): string {
  const W = 420;
  const H = 260;
  const L = 56;
  const R = 24;
  const T = 14;
  const B = 44;
  const priced = s.some((v) => v.money !== null);
  const x = (v: VariantSummary): number => (priced ? (v.money ?? 0) : v.tokensIn + v.tokensOut);
  const maxX = Math.max(1e-9, ...s.map(x));
  const px = (n: number): number => L + (n / maxX) * (W - L - R);
  const py = (rate: number): number => H - B - rate * (H - B - T);
  let body = '';
  // Grid and ticks: 0, 50 and 100 % up; 0 and the largest value across.
  for (const r of [0, 0.5, 1]) body += `<line x1="${L}" y1="${py(r)}" x2="${W - R}" y2="${py(r)}" stroke="${r === 0 ? '#8c959f' : '#eaeef2'}"/><text x="${L - 6}" y="${py(r) + 4}" font-size="11" text-anchor="end">${r * 100}%</text>`;
  body += `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#8c959f"/>`;
  body += `<text x="${L}" y="${H - B + 15}" font-size="11" text-anchor="middle">0</text><text x="${W - R}" y="${H - B + 15}" font-size="11" text-anchor="middle">${amount(maxX, priced)}</text>`;
  body += `<text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle" font-size="11">${priced ? 'money' : 'tokens (no prices set)'} →</text><text x="14" y="${(T + H - B) / 2}" font-size="11" transform="rotate(-90 14 ${(T + H - B) / 2})" text-anchor="middle">green rate →</text>`;
  s.forEach((v, i) => {
    const cx = px(x(v));
    const cy = py(v.greenRate);
    // A label that would leave the plot on the right goes to the point's left.
    const left = cx > W - R - 90;
    body += `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="6" fill="${COLORS[i % COLORS.length]}"><title>${esc(`${v.variant}: ${v.green}/${v.pairs} green, ${priced ? (v.money ?? 0).toFixed(4) : `${x(v)} tokens`}`)}</title></circle><text x="${(left ? cx - 10 : cx + 10).toFixed(1)}" y="${(cy + (cy < T + 10 ? 14 : -8)).toFixed(1)}" font-size="11" text-anchor="${left ? 'end' : 'start'}">${esc(clip(v.variant, 22))}</text>`;
  });
  return frame(`Green rate against ${priced ? 'money' : 'tokens'}, per variant`, W, H, body, 'plot-green-money');
}

/** Horizontal bars, one group per variant: the label column, the bar, its value (room kept for it). */
function bars(title: string, testId: string, s: readonly VariantSummary[], series: (v: VariantSummary) => [string, number][]): string {
  const rows = s.flatMap((v) => series(v).map(([label, n]) => ({ v: v.variant, label, n })));
  const max = Math.max(1, ...rows.map((r) => r.n));
  const W = 420;
  const LABEL = 170;
  const VALUE = 56;
  const H = 16 + Math.max(1, rows.length) * 20;
  let body = rows.length === 0 ? `<text x="0" y="22" font-size="11">nothing to show yet</text>` : '';
  rows.forEach((r, i) => {
    const y = 8 + i * 20;
    const w = Math.max(r.n > 0 ? 2 : 0, (r.n / max) * (W - LABEL - VALUE));
    const text = `${r.v} · ${r.label}`;
    body += `<text x="0" y="${y + 11}" font-size="11"><title>${esc(text)}</title>${esc(clip(text, 28))}</text><rect x="${LABEL}" y="${y}" width="${w.toFixed(1)}" height="14" rx="2" fill="${COLORS[s.findIndex((v) => v.variant === r.v) % COLORS.length]}"/><text x="${(LABEL + 5 + w).toFixed(1)}" y="${y + 11}" font-size="11">${amount(r.n, false)}</text>`;
  });
  return frame(title, W, H, body, testId);
}

/**
 * The page's one stylesheet. The page runs under `default-src 'none'` with this block allowed by its
 * hash (no 'unsafe-inline'), and a host that frames it (VS Code's webview) allows it by its own nonce.
 * The page sets its own light background: in a dark editor theme, dark text on the webview's default
 * background would be unreadable.
 */
export const REPORT_CSS = [
  ':root{color-scheme:light}',
  'body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:24px 32px;color:#1f2328;background:#fff;max-width:1200px}',
  'h1{font-size:22px;margin:0 0 8px}h2{font-size:17px;margin:28px 0 8px}',
  'code{font:12px ui-monospace,Menlo,Consolas,monospace}',
  'table{border-collapse:collapse;font-variant-numeric:tabular-nums}td,th{border:1px solid #d0d7de;padding:4px 10px;text-align:left}th{background:#f6f8fa}',
  'tr.green td.stop{color:#1a7f37;font-weight:600}tr.red td.stop{color:#cf222e;font-weight:600}',
  'pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;overflow:auto;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}',
  '.plots{display:flex;flex-wrap:wrap;align-items:flex-start;gap:16px;margin:12px 0}',
  'figure{margin:0;padding:12px;border:1px solid #d0d7de;border-radius:6px;background:#fff}figcaption{font-weight:600;margin-bottom:6px}',
  'svg text{fill:#1f2328;font-family:system-ui,sans-serif}',
  'a{color:#0969da}',
].join('\n');

export interface ReportHtmlOptions {
  /** The page's Content-Security-Policy; by default `default-src 'none'` with the stylesheet allowed by its hash. */
  csp?: string;
  /** A nonce for the stylesheet (a host's CSP allows it by this). */
  styleNonce?: string;
  /** A trace's link; by default its file:// URL. */
  traceHref?: (tracePath: string) => string;
}

/** The CSP source that allows REPORT_CSS by its hash. */
export function reportStyleHash(): string {
  return `'sha256-${createHash('sha256').update(REPORT_CSS).digest('base64')}'`;
}

export function htmlReport(plan: BenchPlan, s: readonly VariantSummary[], records: readonly PairRecord[], notes: readonly string[] = [], opts: ReportHtmlOptions = {}): string {
  const href = opts.traceHref ?? ((p: string): string => pathToFileURL(p).href);
  const csp = opts.csp ?? `default-src 'none'; style-src ${reportStyleHash()}; img-src data:`;
  const maxSteps = Math.max(0, ...records.map((r) => r.stepsToGreen ?? 0));
  const stepHist = (v: VariantSummary): [string, number][] => Array.from({ length: maxSteps + 1 }, (_, n): [string, number] => [`${n} step(s)`, v.stepsToGreen.filter((x) => x === n).length]).filter(([, c]) => c > 0);
  const table = formatTable(tableRows(s));
  const rowHtml = records
    .map((r) => `<tr data-testid="pair-row" data-variant="${esc(r.variant)}" class="${r.greenFull ? 'green' : 'red'}"><td>${esc(r.task)}</td><td>${esc(r.variant)}</td><td class="stop">${esc(r.stopReason)}</td><td>${r.greenFull ? 'yes' : 'no'}</td><td>${r.overfit ? 'overfit' : ''}</td><td>${r.steps}</td><td>${r.tokensIn + r.tokensOut}</td><td>${r.money === null ? '-' : r.money.toFixed(4)}</td><td>${esc(r.finalBytes ?? '')}</td><td>${r.protectedDenied + r.verifierDenied}</td><td>${r.tracePath ? `<a href="${esc(href(r.tracePath))}">trace</a>` : ''}</td></tr>`)
    .join('\n');
  const held = plan.tasks.filter((t) => t.holdout).map((t) => `<li>${esc(t.id)}: ${esc(t.holdout!.how)}; held out ${esc(t.holdout!.heldOut.join(', '))}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fix-until-green bench ${esc(plan.id)}</title>
<style${opts.styleNonce ? ` nonce="${esc(opts.styleNonce)}"` : ''}>${REPORT_CSS}</style>
</head><body>
<h1>fix-until-green bench</h1>
<p>Plan <code>${esc(plan.id)}</code>: ${plan.tasks.length} task(s) ${esc(taskOrigins(plan))} × ${plan.variants.length} variant(s), limits ${esc(Object.entries(plan.limits).map(([a, b]) => `${a} ${b}`).join(', ') || 'from the settings')}. The oracle replays each task's own fix: every task must go green with it.</p>
<pre data-testid="summary-table">${esc(table.join('\n'))}</pre>
<div class="plots">
${scatter(s)}
${bars('Steps to green (full checks)', 'plot-steps', s, stepHist)}
${bars('Stop reasons', 'plot-stops', s, (v) => Object.entries(v.stopReasons))}
${bars('Tokens after the first repeated failure', 'plot-repeat', s, (v) => [['tokens', v.tokensAfterFirstRepeat]])}
</div>
<h2>Held-out tests</h2><ul>${held || '<li>none: no task had more than one failing test</li>'}</ul>
<h2>Pairs</h2>
<table><thead><tr><th>task</th><th>variant</th><th>stop</th><th>green (full)</th><th>overfit</th><th>steps</th><th>tokens</th><th>money</th><th>final bytes</th><th>denied edits</th><th>trace</th></tr></thead><tbody>
${rowHtml}
</tbody></table>
${notes.map((n) => `<p>${esc(n)}</p>`).join('\n')}
</body></html>
`;
}

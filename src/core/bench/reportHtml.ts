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

/** Green rate (y) against money (x) per variant; with no prices, against tokens. */
function scatter(s: readonly VariantSummary[]): string {
  const W = 420;
  const H = 260;
  const L = 50;
  const B = 40;
  const priced = s.some((v) => v.money !== null);
  const x = (v: VariantSummary): number => (priced ? (v.money ?? 0) : v.tokensIn + v.tokensOut);
  const maxX = Math.max(1e-9, ...s.map(x));
  let body = `<line x1="${L}" y1="${H - B}" x2="${W - 10}" y2="${H - B}" stroke="#888"/><line x1="${L}" y1="10" x2="${L}" y2="${H - B}" stroke="#888"/>`;
  body += `<text x="${W / 2}" y="${H - 8}" text-anchor="middle" font-size="11">${priced ? 'money' : 'tokens (no prices set)'} →</text><text x="12" y="${H / 2}" font-size="11" transform="rotate(-90 12 ${H / 2})" text-anchor="middle">green rate →</text>`;
  s.forEach((v, i) => {
    const cx = L + (x(v) / maxX) * (W - L - 30);
    const cy = H - B - v.greenRate * (H - B - 20);
    body += `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="6" fill="${COLORS[i % COLORS.length]}"><title>${esc(`${v.variant}: ${v.green}/${v.pairs} green, ${priced ? `$${(v.money ?? 0).toFixed(4)}` : `${x(v)} tokens`}`)}</title></circle><text x="${(cx + 9).toFixed(1)}" y="${(cy + 4).toFixed(1)}" font-size="11">${esc(v.variant)}</text>`;
  });
  return frame(`Green rate against ${priced ? 'money' : 'tokens'}, per variant`, W, H, body, 'plot-green-money');
}

/** Horizontal bars, one group per variant. */
function bars(title: string, testId: string, s: readonly VariantSummary[], series: (v: VariantSummary) => [string, number][]): string {
  const rows = s.flatMap((v) => series(v).map(([label, n]) => ({ v: v.variant, label, n })));
  const max = Math.max(1, ...rows.map((r) => r.n));
  const W = 420;
  const H = 20 + rows.length * 18;
  let body = '';
  rows.forEach((r, i) => {
    const y = 10 + i * 18;
    const w = (r.n / max) * (W - 200);
    body += `<text x="0" y="${y + 11}" font-size="11">${esc(`${r.v} · ${r.label}`)}</text><rect x="170" y="${y}" width="${w.toFixed(1)}" height="13" fill="${COLORS[s.findIndex((v) => v.variant === r.v) % COLORS.length]}"/><text x="${(174 + w).toFixed(1)}" y="${y + 11}" font-size="11">${r.n}</text>`;
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
  '.plots{display:flex;flex-wrap:wrap;gap:16px;margin:8px 0}',
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
<p>Plan <code>${esc(plan.id)}</code>: ${plan.tasks.length} task(s) from the repository's history × ${plan.variants.length} variant(s), limits ${esc(Object.entries(plan.limits).map(([a, b]) => `${a} ${b}`).join(', ') || 'from the settings')}. The oracle replays each task's own fix: every task must go green with it.</p>
<pre data-testid="summary-table">${esc(table.join('\n'))}</pre>
<div class="plots">
${scatter(s)}
${bars('Steps to green (full checks)', 'plot-steps', s, stepHist)}
${bars('Stop reasons', 'plot-stops', s, (v) => Object.entries(v.stopReasons))}
${bars('Tokens after the first repeated failure', 'plot-repeat', s, (v) => [['tokens', v.tokensAfterFirstRepeat]])}
</div>
<h2>Held-out tests</h2><ul>${held || '<li>none: no task had more than one failing test file</li>'}</ul>
<h2>Pairs</h2>
<table><thead><tr><th>task</th><th>variant</th><th>stop</th><th>green (full)</th><th>overfit</th><th>steps</th><th>tokens</th><th>money</th><th>final bytes</th><th>denied edits</th><th>trace</th></tr></thead><tbody>
${rowHtml}
</tbody></table>
${notes.map((n) => `<p>${esc(n)}</p>`).join('\n')}
</body></html>
`;
}

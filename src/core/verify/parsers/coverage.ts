// A coverage gate's failure placed where the coverage is missing (issue 37): c8, nyc and Jest print
// istanbul's text table (`File | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s`) and
// then the gate's verdict (`ERROR: Coverage for lines (83.33%) does not meet global threshold (100%)`,
// `Jest: "global" coverage threshold for lines (80%) not met: 70%`). Each file whose metric is below
// a threshold that failed becomes one failure at its first uncovered line, its uncovered lines in the
// message: what the model must cover, where. Percentages are the same for the same bytes; nothing
// in it varies run to run.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Failure } from '../../types';
import type { ParseContext } from './common';
import { splitLines, workspacePath } from './common';

const METRICS = ['statements', 'branches', 'functions', 'lines'] as const;
type Metric = (typeof METRICS)[number];

/** The thresholds that failed: c8/nyc `ERROR: Coverage for lines (50%) does not meet global|per-file threshold (100%)`, Jest 29 `… coverage threshold for lines (80%) not met`. */
const ISTANBUL = /^ERROR: Coverage for (\w+) \([\d.]+%\) does not meet (?:global|per-file) threshold \(([\d.]+)%\)/gm;
const JEST = /^Jest: "[^"]+" coverage threshold for (\w+) \(([\d.]+)%\) not met/gm;
/** Jest 30: `Jest: Coverage for lines (80%) does not meet "global" threshold (100%)`. */
const JEST30 = /^Jest: Coverage for (\w+) \([\d.]+%\) does not meet "[^"]+" threshold \(([\d.]+)%\)/gm;

interface Row {
  file: string;
  pct: Record<Metric, number>;
  uncovered: string;
}

/** The failures of a coverage gate's output, one per file below a failed threshold; empty where the output has no such table. */
export function coverageFailures(output: string, ctx: ParseContext): Failure[] {
  const failed = new Map<Metric, number>();
  for (const re of [ISTANBUL, JEST, JEST30]) {
    for (const m of output.matchAll(re)) {
      const metric = METRICS.find((k) => k === m[1]);
      if (metric !== undefined) failed.set(metric, Math.min(failed.get(metric) ?? Infinity, Number(m[2])));
    }
  }
  if (failed.size === 0) return [];
  const out: Failure[] = [];
  for (const row of tableRows(output)) {
    const below = [...failed].filter(([k, t]) => row.pct[k] < t);
    if (below.length === 0) continue;
    const file = placeFile(row.file, ctx);
    const first = /^\d+/.exec(row.uncovered);
    const what = below.map(([k, t]) => `${k} ${row.pct[k]}% (threshold ${t}%)`).join(', ');
    out.push({
      check: ctx.check,
      ...(file !== undefined ? { file, ...(first ? { line: Number(first[0]) } : {}) } : {}),
      id: 'coverage',
      message: `${file === undefined ? `${row.file}: ` : ''}coverage below the threshold: ${what}${row.uncovered !== '' ? `; lines not covered: ${row.uncovered}` : ''}`,
    });
  }
  return out;
}

/**
 * The workspace file a table row names. istanbul names files from a folder of its choosing (the
 * covered files' common folder, or one above the project: `fug-x/index.js`), so the name is tried
 * as it is, then without its leading folders, the first that is a file under the check's folder
 * winning; a name that is no file there is said, not placed.
 */
function placeFile(name: string, ctx: ParseContext): string | undefined {
  const parts = name.split('/');
  for (let i = 0; i < parts.length; i++) {
    const rel = workspacePath(parts.slice(i).join('/'), ctx);
    if (rel !== undefined && existsSync(path.join(ctx.root, rel))) return rel;
  }
  return undefined;
}

/** The file rows of istanbul's text table, their paths joined with the folder rows above them. */
function tableRows(output: string): Row[] {
  const lines = splitLines(output);
  const head = lines.findIndex((l) => /^\s*File\s*\|\s*% Stmts\s*\|\s*% Branch\s*\|\s*% Funcs\s*\|\s*% Lines\s*\|/.test(l));
  if (head < 0) return [];
  const cells: { indent: number; name: string; pct: number[]; uncovered: string }[] = [];
  for (const l of lines.slice(head + 1)) {
    if (/^-+\|/.test(l)) continue;
    const c = l.split('|');
    if (c.length < 5) break;
    const name = c[0]!.replace(/\s+$/, '');
    const pct = c.slice(1, 5).map((x) => Number(x.trim()));
    if (pct.some((p) => Number.isNaN(p))) break;
    cells.push({ indent: name.length - name.trimStart().length, name: name.trim(), pct, uncovered: (c[5] ?? '').trim() });
  }
  const rows: Row[] = [];
  const dirs: { indent: number; name: string }[] = [];
  for (const [i, c] of cells.entries()) {
    if (c.name === 'All files') continue;
    while (dirs.length > 0 && dirs[dirs.length - 1]!.indent >= c.indent) dirs.pop();
    // A folder's row is followed by its files' rows, indented further.
    const next = cells[i + 1];
    if (next !== undefined && next.indent > c.indent) {
      dirs.push({ indent: c.indent, name: c.name });
      continue;
    }
    const file = [...dirs.map((d) => d.name), c.name].filter((p) => p !== '.' && p !== '').join('/');
    rows.push({ file, pct: { statements: c.pct[0]!, branches: c.pct[1]!, functions: c.pct[2]!, lines: c.pct[3]! }, uncovered: c.uncovered });
  }
  return rows;
}

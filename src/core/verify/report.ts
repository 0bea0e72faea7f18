// The compact failure report fed to the model: grouped by file, each failure once, never the raw log.
import type { Failure } from '../types';
import { countTokens } from '../tokens';
import { normalizeId, normalizeMessage } from './identity';
import { isSecretBearingFile } from '../secrets';

export interface ReportOptions {
  /** Reads a workspace file's text, for the source lines around a failure. */
  readText?: (rel: string) => string | undefined;
  /** Lines of source shown above and below a failing line (default 1). */
  contextLines?: number;
  /** The report's size limit in tokens; detail is dropped before failures are. */
  maxTokens?: number;
  /** Failures seen once and not reproduced: listed apart so the model does not chase them. */
  flaky?: readonly Failure[];
  /** Workspace root, so repeats that differ only in noise fold together. */
  root?: string;
  /**
   * One sentence per check whose output was cut with its failures not all listed (./cut.ts
   * `cutNotes`): said first, so the model knows the list is a part and what the true count is.
   */
  cut?: readonly string[];
}

const MESSAGE_LINES = 20;
/** Places of a folded failure shown with source; the rest are listed by position only. */
const SNIPPETS_PER_ENTRY = 3;
/** Places of a folded failure listed at all. */
const PLACES_LISTED = 20;
/** Failures of one shape shown in full; the rest of the shape is one compact line. */
const REPRESENTATIVES = 3;
/** Titles of the folded rest listed one by one when they do not share one pattern. */
const IDS_LISTED = 12;

interface Entry {
  f: Failure;
  /** Every failure folded into this entry, in the order given. */
  all: Failure[];
  /** Each distinct place it happened: line, and column when known. */
  places: { line: number; column?: number }[];
  lines: number[];
  count: number;
}

/** Failures whose identities differ only in literals: a few shown in full, the rest folded into a line. */
interface Shape {
  entries: Entry[];
}

function fold(list: readonly Failure[], root: string): Entry[] {
  const entries = new Map<string, Entry>();
  for (const f of list) {
    // The same error at several places (or printed twice) is one entry with a count.
    const key = JSON.stringify([f.check, f.id ?? '', normalizeMessage(f.message, { root })]);
    const e = entries.get(key);
    const place = f.line !== undefined ? { line: f.line, ...(f.column !== undefined ? { column: f.column } : {}) } : undefined;
    if (e) {
      e.count++;
      e.all.push(f);
      if (place && !e.places.some((p) => p.line === place.line && p.column === place.column)) e.places.push(place);
      if (f.line !== undefined && !e.lines.includes(f.line)) e.lines.push(f.line);
    } else {
      entries.set(key, { f, all: [f], places: place ? [place] : [], lines: f.line !== undefined ? [f.line] : [], count: 1 });
    }
  }
  return [...entries.values()].sort((a, b) => (a.lines[0] ?? 0) - (b.lines[0] ?? 0));
}

// Quoted values (', ", `), and numbers with their sign, fraction, exponent or ordinal suffix.
const QUOTED = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
const NUMBER = /(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?:st|nd|rd|th)?(?![\w])/gi;

/** A message or title with its literals (numbers, quoted values, ordinals) replaced: what one shape shares. */
export function literalShape(text: string): string {
  return text.replace(QUOTED, '"…"').replace(NUMBER, '#');
}

/**
 * The workspace functions a failure's stack passes through outside its own file: two failures of
 * one message template that fail in different code are different causes.
 */
function framesElsewhere(f: Failure): string {
  const out: string[] = [];
  for (const m of f.message.matchAll(/^\s*at\s+(?:(.*?)\s+\()?([^\s()]+?):\d+:\d+\)?\s*$/gm)) {
    if (m[2] !== f.file) out.push(`${m[1] ?? ''}@${m[2]}`);
  }
  return out.join(',');
}

/**
 * Groups the entries of one file by shape: same check, same stack outside the file, the same message
 * once literals are taken out, and either the same title once literals are taken out (`adds case 1`,
 * `adds case 2`; a TS code or ESLint rule has none) or the same line (one assertion reached by many
 * tests). Titles that differ in words never fold: those are other tests, maybe other causes.
 */
function shapes(entries: readonly Entry[], root: string): Shape[] {
  const parent = entries.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const seen = new Map<string, number>();
  entries.forEach((e, i) => {
    const msg = literalShape(normalizeMessage(e.f.message, { root }));
    const base = [e.f.check, framesElsewhere(e.f), msg];
    const id = normalizeId(e.f.id ?? '', { root });
    // At one line, tests of any title fold (one assertion), but a TS code or a rule (one word) stays its own.
    const code = /\s/.test(id) ? '' : id;
    const keys = [JSON.stringify([...base, 'id', literalShape(id)]), ...e.lines.map((l) => JSON.stringify([...base, 'line', code, l]))];
    for (const k of keys) {
      const j = seen.get(k);
      if (j === undefined) seen.set(k, i);
      else parent[find(i)] = find(j);
    }
  });
  const groups = new Map<number, Entry[]>();
  entries.forEach((e, i) => {
    const r = find(i);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r)!.push(e);
  });
  return [...groups.values()].map((es) => ({ entries: es }));
}

/**
 * Sorted whole numbers written short: runs of step 1 as `a–b`, longer runs of another step as
 * `a, a+d, …, b`, the rest one by one. `parseCompactNumbers` reads it back.
 */
export function compactNumbers(nums: readonly number[]): string {
  const xs = [...new Set(nums)].sort((a, b) => a - b);
  const parts: string[] = [];
  let i = 0;
  while (i < xs.length) {
    const d = xs[i + 1] !== undefined ? xs[i + 1]! - xs[i]! : 0;
    let j = i + 1;
    while (j + 1 < xs.length && xs[j + 1]! - xs[j]! === d) j++;
    const run = j - i + 1;
    if (d === 1 && run >= 3) {
      parts.push(`${xs[i]}–${xs[j]}`);
      i = j + 1;
    } else if (d > 1 && run >= 4) {
      parts.push(`${xs[i]}, ${xs[i]! + d}, …, ${xs[j]}`);
      i = j + 1;
    } else {
      parts.push(String(xs[i]));
      i++;
    }
  }
  return parts.join(', ');
}

/** The numbers a `compactNumbers` text stands for. */
export function parseCompactNumbers(text: string): number[] {
  const out: number[] = [];
  const tokens = text.split(/,\s*/);
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!.trim();
    const range = /^(\d+)–(\d+)$/.exec(t);
    if (range) {
      for (let n = Number(range[1]); n <= Number(range[2]); n++) out.push(n);
    } else if (t === '…' && out.length >= 2 && k + 1 < tokens.length) {
      const d = out[out.length - 1]! - out[out.length - 2]!;
      const end = Number(tokens[++k]);
      for (let n = out[out.length - 1]! + d; d > 0 && n <= end; n += d) out.push(n);
    } else if (/^\d+$/.test(t)) {
      out.push(Number(t));
    }
  }
  return out;
}

/** The folded rest's titles: one pattern with its values when they share one, else the first few. */
function idsLine(ids: readonly string[]): string | undefined {
  const distinct = [...new Set(ids.filter((i) => i !== ''))];
  if (distinct.length === 0) return undefined;
  const shape = literalShape(distinct[0]!);
  // One number varying in one pattern: `adds case # for # = 4–200`.
  const values = distinct.map((id) => (literalShape(id) === shape ? id.match(NUMBER) : null));
  const template = distinct[0]!.match(NUMBER);
  if (shape.split('#').length === 2 && template && values.every((v) => v && v.length === 1 && /^\d+$/.test(v[0]!))) {
    return `ids: ${shape} for # = ${compactNumbers(values.map((v) => Number(v![0])))}`;
  }
  const shown = distinct.slice(0, IDS_LISTED);
  return `ids: ${shown.join('; ')}${distinct.length > shown.length ? `; and ${distinct.length - shown.length} more` : ''}`;
}

/** The compact line for the failures of a shape beyond its representatives. */
function renderRest(file: string, rest: readonly Entry[], level: number): string {
  const count = rest.reduce((n, e) => n + e.count, 0);
  const lines = [...new Set(rest.flatMap((e) => e.lines))];
  const noLine = rest.filter((e) => e.lines.length === 0).reduce((n, e) => n + e.count, 0);
  const min = Math.min(...lines);
  const max = Math.max(...lines);
  const span = lines.length === 0 ? '' : level === 0 ? `: lines ${min}–${max} of ${file}` : `: ${lines.length === 1 ? 'line' : 'lines'} ${compactNumbers(lines)} of ${file}`;
  const allIds = [...new Set(rest.flatMap((e) => e.all.map((f) => f.id ?? '')))];
  // One id for all (a TS code, an ESLint rule) goes in the heading, as for a single failure.
  const one = allIds.length === 1 && allIds[0] !== '' ? ` ${allIds[0]}` : '';
  const head = `- [${rest[0]!.f.check}${one}] … and ${count} more failure(s) of this shape${span}${noLine > 0 ? ` (${noLine} with no line)` : ''}`;
  if (level === 0 || one) return head;
  const ids = idsLine(allIds);
  return ids ? `${head}\n    ${ids}` : head;
}

/**
 * The failures the report shows in full (each shape's representatives, at their first few places):
 * the ones whose source the model needs. Folded failures of a shape add nothing the first ones lack.
 */
export function representativeFailures(failures: readonly Failure[], root = ''): Failure[] {
  const byFile = new Map<string, Failure[]>();
  for (const f of failures) {
    const k = f.file ?? '';
    if (!byFile.has(k)) byFile.set(k, []);
    byFile.get(k)!.push(f);
  }
  const out: Failure[] = [];
  for (const list of byFile.values()) {
    for (const g of shapes(fold(list, root), root)) {
      const reps = g.entries.length > REPRESENTATIVES + 1 ? g.entries.slice(0, REPRESENTATIVES) : g.entries;
      for (const e of reps) {
        const lines = new Set(e.lines.slice(0, SNIPPETS_PER_ENTRY));
        out.push(...e.all.filter((f) => f.line === undefined ? f === e.f : lines.delete(f.line)));
      }
    }
  }
  return out;
}

/** Every place as `file:line:col` (what editors and the model jump to), the first few when there are many. */
function where(file: string, e: Entry): string {
  if (e.places.length === 0) return file;
  const shown = e.places.slice(0, PLACES_LISTED).map((p) => `${file}:${p.line}${p.column !== undefined ? `:${p.column}` : ''}`);
  const more = e.places.length - shown.length;
  return shown.join(', ') + (more > 0 ? ` and ${more} more place(s)` : '');
}

function snippet(src: readonly string[], line: number, ctx: number): string[] {
  const from = Math.max(1, line - ctx);
  const to = Math.min(src.length, line + ctx);
  const out = ['    ```'];
  for (let n = from; n <= to; n++) out.push(`    ${n === line ? '>' : ' '}${String(n).padStart(5)} | ${src[n - 1]}`);
  out.push('    ```');
  return out;
}

/** One entry at a detail level: 2 = message and source, 1 = message only, 0 = its first line. */
function renderEntry(file: string, e: Entry, src: readonly string[] | undefined, level: number, ctxLines: number): string {
  const f = e.f;
  const head = `- [${f.check}${f.id ? ` ${f.id}` : ''}] ${where(file, e)}${e.count > 1 ? ` (×${e.count})` : ''}`;
  // A stack frame that only repeats where the failure is (already in the heading) is dropped.
  const here = f.file !== undefined && f.line !== undefined ? `${f.file}:${f.line}:` : undefined;
  const msg = f.message
    .trim()
    .split('\n')
    .filter((l) => !(here && /^\s*at\s/.test(l) && l.includes(here)));
  const shown = level === 0 ? msg.slice(0, 1) : msg.slice(0, MESSAGE_LINES);
  const lines = [head, ...shown.map((l) => `    ${l}`)];
  if (level > 0 && msg.length > shown.length) lines.push(`    [${msg.length - shown.length} more line(s)]`);
  if (level === 2 && src) {
    for (const l of e.lines.slice(0, SNIPPETS_PER_ENTRY)) if (l >= 1 && l <= src.length) lines.push(...snippet(src, l, ctxLines));
  }
  return lines.join('\n');
}

/**
 * The report: a count, then one section per file (files with failures first, then failures with no
 * file), each distinct failure once with its message and the source around it, and failures of one
 * shape (values apart, the same failure) as a few representatives and one line for the rest, which
 * names their lines, count and titles. The identity is not folded: it stays over every failure. Over the token
 * budget, source snippets go first, then message detail, then whole entries, with what was left out
 * said at the end.
 */
export function formatFailureReport(failures: readonly Failure[], opts: ReportOptions = {}): string {
  const flaky = opts.flaky ?? [];
  if (failures.length === 0) {
    return flaky.length === 0 ? 'All checks pass.' : `All checks pass (flaky, not counted: ${flaky.map((f) => `[${f.check}] ${f.id ?? f.message.split('\n')[0]}`).join('; ')}).`;
  }
  const ctxLines = opts.contextLines ?? 1;
  const root = opts.root ?? '';
  const byFile = new Map<string, Failure[]>();
  for (const f of failures) {
    const k = f.file ?? '';
    if (!byFile.has(k)) byFile.set(k, []);
    byFile.get(k)!.push(f);
  }
  const files = [...byFile.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  const sections = files.map((file) => {
    // A secret-bearing file (.env*, keys, .npmrc...): its failures are listed, its lines never quoted.
    const text = file !== '' && !isSecretBearingFile(file) ? opts.readText?.(file) : undefined;
    return { file, src: text?.split(/\r?\n/), shapes: shapes(fold(byFile.get(file)!, root), root) };
  });
  const distinct = sections.reduce((n, s) => n + s.shapes.reduce((k, g) => k + g.entries.length, 0), 0);
  const shapeCount = sections.reduce((n, s) => n + s.shapes.length, 0);
  const counts = distinct < failures.length || shapeCount < distinct ? ` (${distinct} distinct${shapeCount < distinct ? `, ${shapeCount} shape(s)` : ''})` : '';
  const cutNote = (opts.cut ?? []).length > 0 ? `${(opts.cut ?? []).join('\n')}\n` : '';
  const header = `${cutNote}${failures.length} failure(s)${counts}${cutNote ? ' listed' : ''} in ${files.filter((f) => f !== '').length} file(s):`;
  const flakyNote = flaky.length > 0 ? `\n\nFlaky (failed once, passed on re-run; not counted, do not chase): ${flaky.map((f) => `[${f.check}] ${f.file ? `${f.file} ` : ''}${f.id ?? f.message.split('\n')[0]}`).join('; ')}` : '';
  // `limit` counts shapes: a shape is shown with its representatives and its folded line, or not at all.
  const render = (level: number, limit = Infinity): { text: string; left: number } => {
    const parts: string[] = [];
    let shown = 0;
    let shownEntries = 0;
    for (const s of sections) {
      if (shown >= limit) break;
      const title = s.file === '' ? '## (no file)' : `## ${s.file}`;
      const entries: string[] = [];
      const file = s.file || '(no file)';
      for (const g of s.shapes) {
        if (shown >= limit) break;
        // Folding one or two past the representatives would save nothing.
        const reps = g.entries.length > REPRESENTATIVES + 1 ? g.entries.slice(0, REPRESENTATIVES) : g.entries;
        for (const e of reps) entries.push(renderEntry(file, e, s.src, level, ctxLines));
        if (reps.length < g.entries.length) entries.push(renderRest(file, g.entries.slice(reps.length), level));
        shown++;
        shownEntries += g.entries.length;
      }
      parts.push([title, ...entries].join('\n'));
    }
    const left = distinct - shownEntries;
    const tail = left > 0 ? `\n\n[${left} more distinct failure(s) left out to fit the budget]` : '';
    return { text: `${header}\n\n${parts.join('\n\n')}${tail}${flakyNote}`, left };
  };
  const budget = opts.maxTokens;
  if (budget === undefined) return render(2).text;
  for (const level of [2, 1, 0]) {
    const r = render(level);
    if (countTokens(r.text) <= budget) return r.text;
  }
  // Even one line per failure is too much: as many entries as fit, found by bisection.
  let lo = 0;
  let hi = shapeCount;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(render(0, mid).text) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return render(0, lo).text;
}

// The compact failure report fed to the model: grouped by file, each failure once, never the raw log.
import type { Failure } from '../types';
import { countTokens } from '../tokens';
import { normalizeMessage } from './identity';

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
}

const MESSAGE_LINES = 20;
/** Places of a folded failure shown with source; the rest are listed by position only. */
const SNIPPETS_PER_ENTRY = 3;
/** Places of a folded failure listed at all. */
const PLACES_LISTED = 20;

interface Entry {
  f: Failure;
  /** Each distinct place it happened: line, and column when known. */
  places: { line: number; column?: number }[];
  lines: number[];
  count: number;
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
      if (place && !e.places.some((p) => p.line === place.line && p.column === place.column)) e.places.push(place);
      if (f.line !== undefined && !e.lines.includes(f.line)) e.lines.push(f.line);
    } else {
      entries.set(key, { f, places: place ? [place] : [], lines: f.line !== undefined ? [f.line] : [], count: 1 });
    }
  }
  return [...entries.values()].sort((a, b) => (a.lines[0] ?? 0) - (b.lines[0] ?? 0));
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
 * file), each distinct failure once with its message and the source around it. Over the token
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
    const text = file !== '' ? opts.readText?.(file) : undefined;
    return { file, src: text?.split(/\r?\n/), entries: fold(byFile.get(file)!, root) };
  });
  const distinct = sections.reduce((n, s) => n + s.entries.length, 0);
  const header = `${failures.length} failure(s)${distinct < failures.length ? ` (${distinct} distinct)` : ''} in ${files.filter((f) => f !== '').length} file(s):`;
  const flakyNote = flaky.length > 0 ? `\n\nFlaky (failed once, passed on re-run; not counted, do not chase): ${flaky.map((f) => `[${f.check}] ${f.file ? `${f.file} ` : ''}${f.id ?? f.message.split('\n')[0]}`).join('; ')}` : '';
  const render = (level: number, limit = Infinity): { text: string; left: number } => {
    const parts: string[] = [];
    let shown = 0;
    for (const s of sections) {
      if (shown >= limit) break;
      const title = s.file === '' ? '## (no file)' : `## ${s.file}`;
      const entries: string[] = [];
      for (const e of s.entries) {
        if (shown >= limit) break;
        entries.push(renderEntry(s.file || '(no file)', e, s.src, level, ctxLines));
        shown++;
      }
      parts.push([title, ...entries].join('\n'));
    }
    const left = distinct - shown;
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
  let hi = distinct;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(render(0, mid).text) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return render(0, lo).text;
}

// The compact failure report fed to the model: grouped by file, each failure once, never the raw log.
import type { Failure } from '../types';
import { countTokens } from '../model/tokens';

export interface ReportOptions {
  /** Reads a workspace file's text, for the source lines around a failure. */
  readText?: (rel: string) => string | undefined;
  contextLines?: number;
  maxTokens?: number;
}

function location(f: Failure): string {
  if (f.line === undefined) return f.file ?? '';
  return `${f.file}:${f.line}${f.column !== undefined ? `:${f.column}` : ''}`;
}

export function formatFailureReport(failures: readonly Failure[], opts: ReportOptions = {}): string {
  if (failures.length === 0) return 'All checks pass.';
  const ctxLines = opts.contextLines ?? 2;
  const byFile = new Map<string, Failure[]>();
  for (const f of failures) {
    const k = f.file ?? '';
    if (!byFile.has(k)) byFile.set(k, []);
    byFile.get(k)!.push(f);
  }
  const sections: string[] = [];
  for (const [file, list] of [...byFile].sort(([a], [b]) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)))) {
    const folded = new Map<string, { f: Failure; count: number }>();
    for (const f of list) {
      const key = `${f.check}|${f.id ?? ''}|${f.line ?? ''}|${f.message}`;
      const e = folded.get(key);
      if (e) e.count++;
      else folded.set(key, { f, count: 1 });
    }
    const lines: string[] = [file === '' ? '## (no file)' : `## ${file}`];
    const text = file !== '' ? opts.readText?.(file) : undefined;
    const src = text?.split(/\r?\n/);
    for (const { f, count } of folded.values()) {
      const head = `- [${f.check}${f.id ? ` ${f.id}` : ''}] ${location(f)}${count > 1 ? ` (×${count})` : ''}`;
      lines.push(head, ...f.message.trim().split('\n').slice(0, 20).map((l) => `    ${l}`));
      if (src && f.line !== undefined && f.line >= 1) {
        const from = Math.max(1, f.line - ctxLines);
        const to = Math.min(src.length, f.line + ctxLines);
        lines.push('    ```');
        for (let n = from; n <= to; n++) lines.push(`    ${n === f.line ? '>' : ' '}${String(n).padStart(5)} | ${src[n - 1]}`);
        lines.push('    ```');
      }
    }
    sections.push(lines.join('\n'));
  }
  let report = `${failures.length} failure(s):\n\n${sections.join('\n\n')}`;
  if (opts.maxTokens !== undefined && countTokens(report) > opts.maxTokens) {
    // Keep whole sections from the top while they fit; say how many were left out.
    let kept = '';
    let n = 0;
    for (const s of sections) {
      const next = kept === '' ? s : `${kept}\n\n${s}`;
      if (countTokens(next) > opts.maxTokens) break;
      kept = next;
      n++;
    }
    report = `${failures.length} failure(s):\n\n${kept}\n\n[${sections.length - n} more file(s) with failures left out to fit the budget]`;
  }
  return report;
}

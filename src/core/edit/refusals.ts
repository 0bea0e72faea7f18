// Why an edit was refused, worded for the model to act on: Aider's "did you mean" (the file's
// closest lines, numbered, to be copied), and the checks that added text would only repeat the file.
import type { Hunk } from './parse';
import type { locate } from './match';
import { similarRegion } from './match';
import type { Line } from './text';

export function quote(lines: string[], max = 3): string {
  const shown = lines.slice(0, max).map((l) => `    ${l}`);
  if (lines.length > max) shown.push('    …');
  return shown.join('\n');
}

export function hunkHead(h: Hunk): string {
  return quote([h.header.trim(), ...h.lines.map((l) => l.op + l.text)], 4);
}

/** Most file lines a refusal quotes: enough to copy from, little enough for the feedback's share of the prompt. */
const QUOTED_LINES = 12;

/** File lines [start, end) as the model should copy them: numbered, at most QUOTED_LINES. */
function quoteFile(file: readonly string[], start: number, end: number): string {
  const to = Math.min(end, start + QUOTED_LINES, file.length);
  const width = String(to).length;
  const out = file.slice(start, to).map((t, k) => `    ${String(start + k + 1).padStart(width)} | ${t}`);
  if (to < end) out.push(`    … (${end - to} more)`);
  return out.join('\n');
}

export function describeFailure(rel: string, label: string, head: string, r: Exclude<ReturnType<typeof locate>, { ok: true }>, file: readonly string[], old: readonly string[]): string {
  if (r.kind === 'ambiguous') {
    const at = r.starts.map((s) => s + 1);
    return `${rel}: ${label} matches ${at.length} places equally well (lines ${at.slice(0, 5).join(', ')}${at.length > 5 ? ', …' : ''}), so it was not applied rather than guessed. Include more unchanged lines around the change so it matches exactly one place. It starts:\n${head}`;
  }
  if (r.kind === 'elision') {
    return `${rel}: ${label} abbreviates the current text with \`${r.line.trim()}\` (its old line ${r.index + 1}); quote every current line exactly, without "..." elisions. It starts:\n${head}`;
  }
  if (r.closest) {
    const c = r.closest;
    // The region and a line either side, as Aider's "did you mean": the model copies from it.
    const from = Math.max(0, c.start - 1);
    const to = Math.min(file.length, Math.max(c.end, c.start + old.length) + 1);
    return (
      `${rel}: ${label} did not match the file's current content. It starts:\n${head}\n` +
      `Closest region: lines ${c.start + 1}-${c.end} (${c.matched} line(s) match); rejected because ${c.why}. ` +
      `Did you mean these lines of ${rel}? Quote them exactly:\n${quoteFile(file, from, to)}`
    );
  }
  const similar = similarRegion(file, old);
  return similar
    ? `${rel}: ${label} did not match the file's current content, and no region matches enough of it. It starts:\n${head}\n` +
        `The most similar lines of ${rel} (${similar.start + 1}-${similar.end}); quote the lines to change exactly as the file has them:\n${quoteFile(file, similar.start, similar.end)}`
    : `${rel}: ${label} did not match the file's current content, and no part of ${rel} resembles it: check that this is the file you mean. It starts:\n${head}`;
}

/**
 * Why text to be added where nothing in the file anchors it (an empty SEARCH, a hunk with no
 * context) would repeat the file instead: it holds half or more of the file's lines (a model
 * rewriting the whole file thinks it creates it). Undefined when it does not.
 */
export function repeatsFile(file: readonly Line[], added: readonly string[]): string | undefined {
  const telling = file.map((l) => l.text.trim()).filter((t) => t.length >= 4);
  if (telling.length === 0) return undefined;
  const have = new Set(added.map((t) => t.trim()));
  const shared = telling.filter((t) => have.has(t));
  if (shared.length === 0 || shared.length * 2 < telling.length) return undefined;
  return `repeats ${shared.length} of the file's ${telling.length} lines (the first: \`${shared[0]}\`): adding them again would duplicate them`;
}

/**
 * Why lines added with no context would duplicate the file: its non-blank lines already stand in it,
 * in order and together (up to whitespace). Undefined when they do not.
 */
export function alreadyIn(file: readonly Line[], added: readonly string[]): string | undefined {
  const norm = (t: string): string => t.replace(/\s+/g, '');
  const want = added.map(norm).filter((t) => t !== '');
  const have = file.map((l) => norm(l.text)).filter((t) => t !== '');
  // A lone brace or `});` is everywhere; only lines that say something make a duplicate.
  if (!want.some((t) => t.length >= 4)) return undefined;
  for (let i = 0; i + want.length <= have.length; i++) {
    if (want.every((t, k) => have[i + k] === t)) return `holds lines the file already has, in this order (the first: \`${added.find((t) => t.trim() !== '')!.trim()}\`): adding them again would duplicate them`;
  }
  return undefined;
}


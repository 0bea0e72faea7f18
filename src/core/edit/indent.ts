// Indentation of the lines an edit adds, when its old side matched the file only up to whitespace:
// models re-indent what they quote (a method quoted without its class's indentation, two spaces for
// the file's four, spaces in a tab-indented file, Aider-style hunks whose context lost its depth).
// The added lines follow the file: what is certain (one hunk indentation per file indentation, one
// shift, one width ratio) first; failing that, each added line keeps its depth relative to the
// nearest quoted line, in the file's own indentation unit.
import type { Placement } from './match';
import type { HunkLine } from './parse';

/** Gives an added line (its text, its index among the hunk's lines) the file's indentation. */
export type Reindent = (text: string, at: number) => string;

function leadingWs(s: string): string {
  return /^\s*/.exec(s)![0];
}

/** Old-side lines paired with a file line, with their hunk indentation and the file's: what the file says about depth. */
interface Anchor {
  /** Index among the hunk's lines. */
  at: number;
  hunk: string;
  file: string;
}

function anchorsOf(file: readonly string[], lines: readonly HunkLine[], p: Placement): Anchor[] {
  const out: Anchor[] = [];
  let k = 0;
  lines.forEach((l, at) => {
    if (l.op === '+') return;
    const m = p.map[k++]!;
    if (m < 0 || l.text.trim() === '') return;
    out.push({ at, hunk: leadingWs(l.text), file: leadingWs(file[m]!) });
  });
  return out;
}

export function reindenter(file: readonly string[], lines: readonly HunkLine[], p: Placement): Reindent {
  const same: Reindent = (s) => s;
  if (p.level === 'exact') return same;
  const anchors = anchorsOf(file, lines, p);
  if (anchors.length === 0) return same;
  const added = lines.filter((l) => l.op === '+').map((l) => l.text);
  const whole = indentMap(anchors, added) ?? indentShift(anchors) ?? indentScale(anchors);
  if (whole) return (s) => whole(s);
  return relativeIndent(file, lines, anchors);
}

/**
 * The model wrote each indentation level its own way (two spaces for the file's four, a tab for its
 * eight): when every hunk indentation stands for one file indentation, and every added line's
 * indentation is among them, added lines get the file's. Undefined when that does not hold.
 */
function indentMap(anchors: readonly Anchor[], added: readonly string[]): ((s: string) => string) | undefined {
  const map = new Map<string, string>();
  for (const a of anchors) {
    const seen = map.get(a.hunk);
    if (seen === undefined) map.set(a.hunk, a.file);
    else if (seen !== a.file) return undefined;
  }
  if (!added.every((s) => s.trim() === '' || map.has(leadingWs(s)))) return undefined;
  return (s) => (s.trim() === '' ? s : map.get(leadingWs(s))! + s.slice(leadingWs(s).length));
}

/** The file is consistently indented deeper (or shallower) than the hunk: added lines get the same shift. */
function indentShift(anchors: readonly Anchor[]): ((s: string) => string) | undefined {
  let shift: { add: string } | { remove: string } | undefined;
  for (const { file: fi, hunk: hi } of anchors) {
    let s: { add: string } | { remove: string };
    if (fi === hi) s = { add: '' };
    else if (fi.endsWith(hi)) s = { add: fi.slice(0, fi.length - hi.length) };
    else if (hi.endsWith(fi)) s = { remove: hi.slice(0, hi.length - fi.length) };
    else return undefined;
    if (shift === undefined) shift = s;
    else if (JSON.stringify(shift) !== JSON.stringify(s)) return undefined;
  }
  const sh = shift;
  if (sh === undefined) return undefined;
  if ('add' in sh) return sh.add === '' ? (s) => s : (s) => (s.trim() === '' ? s : sh.add + s);
  return (s) => (s.startsWith(sh.remove) ? s.slice(sh.remove.length) : s);
}

/**
 * The model re-indented with another width (2 spaces per level where the file has 4): when every
 * matched line's indentation is the same multiple of the hunk's, added lines are scaled alike.
 */
function indentScale(anchors: readonly Anchor[]): ((s: string) => string) | undefined {
  let ratio: number | undefined;
  for (const { file: fi, hunk: hi } of anchors) {
    if (/[^ ]/.test(fi) || /[^ ]/.test(hi)) return undefined;
    if (hi.length === 0) {
      if (fi.length !== 0) return undefined;
      continue;
    }
    const r = fi.length / hi.length;
    if (ratio === undefined) ratio = r;
    else if (ratio !== r) return undefined;
  }
  const k = ratio;
  if (k === undefined || k === 1) return undefined;
  return (s) => {
    const hi = leadingWs(s);
    const width = hi.length * k;
    if (/[^ ]/.test(hi) || !Number.isInteger(width) || s.trim() === '') return s;
    return ' '.repeat(width) + s.slice(hi.length);
  };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The width of one indentation level among these indentations (spaces; a tab is one level): the gcd of their depth steps. */
function spaceUnit(indents: readonly string[], fallback: number): number {
  let g = 0;
  const widths = indents.filter((i) => !i.includes('\t')).map((i) => i.length);
  for (let i = 0; i < widths.length; i++) for (let j = i + 1; j < widths.length; j++) g = gcd(g, Math.abs(widths[i]! - widths[j]!));
  return g > 0 ? g : fallback;
}

/** Depth in levels: a tab is one, `unit` spaces are one. */
function levels(indent: string, unit: number): number {
  let n = 0;
  let spaces = 0;
  for (const c of indent) {
    if (c === '\t') n++;
    else spaces++;
  }
  return n + spaces / unit;
}

/**
 * Each added line sits as many levels deeper (or shallower) than the nearest quoted line before it
 * (after it, for lines at the hunk's top) as it does in the hunk, and gets that quoted line's file
 * indentation plus those levels in the file's unit (a tab in a tab-indented file).
 */
function relativeIndent(file: readonly string[], lines: readonly HunkLine[], anchors: readonly Anchor[]): Reindent {
  const hunkUnit = spaceUnit(
    lines.filter((l) => l.text.trim() !== '').map((l) => leadingWs(l.text)),
    4,
  );
  const fileIndents = file.filter((l) => l.trim() !== '').map(leadingWs);
  const tabs = fileIndents.filter((i) => i.startsWith('\t')).length > fileIndents.filter((i) => i.startsWith(' ')).length;
  const fileUnit = tabs ? '\t' : ' '.repeat(spaceUnit(fileIndents, 4));
  return (s, at) => {
    if (s.trim() === '') return s;
    const a = [...anchors].reverse().find((x) => x.at < at) ?? anchors.find((x) => x.at > at)!;
    const delta = Math.round(levels(leadingWs(s), hunkUnit) - levels(a.hunk, hunkUnit));
    let indent = a.file;
    if (delta >= 0) indent += fileUnit.repeat(delta);
    else {
      for (let d = delta; d < 0; d++) {
        if (indent.endsWith(fileUnit)) indent = indent.slice(0, indent.length - fileUnit.length);
        else indent = indent.replace(/(?:\t| {1,4})$/, '');
      }
    }
    return indent + s.slice(leadingWs(s).length);
  };
}

// Blank lines where an edit meets the file it lands in. Models add or drop a blank line at a block's
// edges without meaning to (a REPLACE ending with an empty line before `>>>>>>> REPLACE`, a SEARCH
// quoting the blank line after a function its REPLACE leaves out, a fenced file ending with an empty
// line). The rule: an edit keeps the file's blank-line structure at each seam. It may not add blank
// lines to a seam the file already separates with one (nor at the file's start or end), and it may
// not glue two non-blank lines the file kept apart. Blank lines inside the edit are content.
import type { Placement } from './match';
import type { Hunk, HunkLine } from './parse';

const blank = (t: string): boolean => t.trim() === '';

/** Blank file lines running from `from` in direction `step` (-1: upwards). */
function blankRun(file: readonly string[], from: number, step: 1 | -1): number {
  let n = 0;
  for (let i = from; i >= 0 && i < file.length && blank(file[i]!); i += step) n++;
  return n;
}

/**
 * The blank lines at one edge (top or bottom) of the hunk's old side and of its new side: how many
 * each holds, and the indices among the hunk's lines of the new side's blank `+` lines and the old
 * side's blank `-` lines there, nearest the seam first.
 */
function edge(lines: readonly HunkLine[], top: boolean): { old: number; now: number; plus: number[]; minus: number[] } {
  const order = lines.map((_, i) => i);
  if (!top) order.reverse();
  const side = (skip: HunkLine['op'], op: HunkLine['op']): { n: number; own: number[] } => {
    const own: number[] = [];
    let n = 0;
    for (const i of order) {
      const l = lines[i]!;
      if (l.op === skip) continue;
      if (!blank(l.text)) break;
      n++;
      if (l.op === op) own.push(i);
    }
    return { n, own };
  };
  const o = side('+', '-');
  const w = side('-', '+');
  return { old: o.n, now: w.n, plus: w.own, minus: o.own };
}

/**
 * The hunk with its edges' blank lines set by the seam rule, for a hunk placed at `p` in `file`.
 * A hunk without old or new content (an insertion, a deletion) is left as it is: its edges are its point.
 */
export function keepSeams(h: Hunk, p: Placement, file: readonly string[]): Hunk {
  const hasOld = h.lines.some((l) => l.op !== '+' && !blank(l.text));
  const hasNew = h.lines.some((l) => l.op !== '-' && !blank(l.text));
  if (!hasOld || !hasNew) return h;
  const drop = new Set<number>();
  // A blank line kept becomes context at the very edge (it is the old side's outermost line there).
  const keep = new Map<number, 'top' | 'bottom'>();
  for (const top of [true, false]) {
    const e = edge(h.lines, top);
    if (e.old === e.now) continue;
    // The file's blank lines just outside the region, and whether a line (not the file's edge) lies beyond them.
    const outside = top ? blankRun(file, p.start - 1, -1) : blankRun(file, p.end, 1);
    const atFileEdge = top ? p.start - outside <= 0 : p.end + outside >= file.length;
    if (e.now > e.old && (outside > 0 || atFileEdge)) {
      // More blank lines than the file has here, where the file already separates (or ends): the extra ones go.
      for (const i of e.plus.slice(0, e.now - e.old)) drop.add(i);
    } else if (e.now < e.old && e.now + outside === 0 && !atFileEdge) {
      // The edit would glue its text to the file's next (or previous) line: one blank line stays.
      const i = e.minus[0];
      if (i !== undefined) keep.set(i, top ? 'top' : 'bottom');
    }
  }
  if (drop.size === 0 && keep.size === 0) return h;
  const head: HunkLine[] = [];
  const body: HunkLine[] = [];
  const tail: HunkLine[] = [];
  h.lines.forEach((l, i) => {
    if (drop.has(i)) return;
    const side = keep.get(i);
    if (side === undefined) body.push(l);
    else (side === 'top' ? head : tail).push({ op: ' ', text: l.text });
  });
  return { ...h, lines: [...head, ...body, ...tail] };
}

/**
 * A whole file's blank edges: no more blank lines at its top or bottom than the file had there
 * (none for a new file); blank lines inside are content.
 */
export function wholeFileEdges(content: readonly string[], had: readonly string[] | null): string[] {
  const lead = (ls: readonly string[]): number => {
    let n = 0;
    while (n < ls.length && blank(ls[n]!)) n++;
    return n;
  };
  const trail = (ls: readonly string[]): number => {
    let n = 0;
    while (n < ls.length && blank(ls[ls.length - 1 - n]!)) n++;
    return n;
  };
  if (content.every(blank)) return [...content];
  const top = Math.max(0, lead(content) - (had ? lead(had) : 0));
  const bottom = Math.max(0, trail(content) - (had ? trail(had) : 0));
  return content.slice(top, content.length - bottom);
}

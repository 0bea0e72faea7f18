// Finds where a hunk's old side sits in a file, tolerating what models get wrong: stale line
// numbers (the whole file is searched), whitespace and line-ending differences, and a bounded fuzz:
// a few file lines the hunk left out, context lines differing only in a comment, blank or comment
// lines the file lacks. A context line whose code differs from the file is a mismatch: the model is
// editing text it misremembers. It never picks between two equally good places.

export interface OldLine {
  text: string;
  /** A removed line must be found; a context line may be missing or altered within the fuzz bound. */
  removed: boolean;
}

export type MatchLevel = 'exact' | 'whitespace' | 'fuzzy';

export interface Placement {
  /** First and one-past-last file line the hunk covers. */
  start: number;
  end: number;
  /** For each old-side line, the file line it matched, or -1 (a context line not in the file). */
  map: number[];
  level: MatchLevel;
  /** Lines of the hunk that differ from the file (fuzzy only). */
  cost: number;
}

export interface Closest {
  start: number;
  end: number;
  matched: number;
  /** Why this region was not accepted, for the model. */
  why: string;
}

export type MatchResult =
  | { ok: true; placement: Placement }
  | { ok: false; kind: 'ambiguous'; starts: number[]; level: MatchLevel }
  | { ok: false; kind: 'elision'; line: string; index: number }
  | { ok: false; kind: 'not-found'; closest: Closest | undefined; fuzz: number };

export interface MatchOptions {
  /** 0-based line where the hunk claims to start (already shifted by earlier hunks); breaks exact ties only. */
  hint?: number | undefined;
  /** At most this many old-side lines may differ in a fuzzy match (further capped at a third of the hunk). */
  fuzz?: number;
  /** Which lines are elisions in this file (default `isElision`: every file is code). */
  isElision?: (line: string) => boolean;
}

export const DEFAULT_FUZZ = 2;

const normWs = (s: string): string => s.replace(/\s+/g, '');

/**
 * A line's code: whitespace and a trailing comment dropped, so a comment the model added, changed
 * or left out is not a difference in content. A `//` only counts after whitespace (not `http://`).
 */
export function codeOf(s: string): string {
  return normWs(s.replace(/(?:^|\s)(?:\/\/|#(?:\s|$)).*$/, '').replace(/\s*\/\*.*\*\/\s*$/, ''));
}
const normEnd = (s: string): string => s.replace(/\s+$/, '');

/**
 * `...`, `// ...`, `/* ... *\/`, `# ... existing code ...`: a model abbreviating text it should
 * quote. Code such as `...rest,` (a spread) is not an elision.
 */
export function isElision(line: string): boolean {
  const s = line.trim();
  const comment = /^(?:\/\/+|#+|\/\*+|\*+|<!--|--)/.exec(s);
  const t = s
    .slice(comment ? comment[0].length : 0)
    .replace(/\s*(?:\*+\/|-->)$/, '')
    .trim();
  if (/^(?:\.\.\.|…)$/.test(t)) return true;
  if (!/\.\.\.|…/.test(t) || t.length > 80) return false;
  if (!/\b(?:existing|rest|unchanged|remaining|omitted|same|previous|other|more|etc|code|lines?|as before)\b/i.test(t)) return false;
  if (comment) return true;
  // Uncommented prose such as "... rest of the file ...": dots set apart by spaces.
  return /^(?:\.\.\.|…)\s/.test(t) || /\s(?:\.\.\.|…)$/.test(t);
}

/** Prose files: a line starting with a code comment marker there is text (a sample, a heading, a bullet). */
const PROSE = /\.(?:md|markdown|mdown|txt|text|rst|adoc|asciidoc)$/i;

/**
 * Whether `line` of the file `rel` stands for text it leaves out. In a prose file (Markdown, plain
 * text) `// ... other functions ...` or `# ... rest` is content, a code sample or a heading, not an
 * elision; only the file's own comments (`<!-- ... -->`) and bare "... rest of the file ..." words are.
 */
export function isElisionIn(rel: string, line: string, elides: (l: string) => boolean = isElision): boolean {
  if (PROSE.test(rel) && /^\s*(?:\/\/|#|\/\*|\*|--(?!>)|\{\/\*|;)/.test(line)) return false;
  return elides(line);
}

function contiguous(file: string[], block: string[], norm: (s: string) => string): number[] {
  const f = file.map(norm);
  const b = block.map(norm);
  const out: number[] = [];
  outer: for (let p = 0; p + b.length <= f.length; p++) {
    for (let k = 0; k < b.length; k++) if (f[p + k] !== b[k]) continue outer;
    out.push(p);
  }
  return out;
}

interface Alignment {
  start: number;
  end: number;
  map: number[];
  cost: number;
  matched: number;
  /** A removed line left unmatched or substituted (only in relaxed mode, for the closest report). */
  removedMissed: number;
  /** For each old-side line, the file line it was paired with though different, or -1. */
  sub: number[];
}

const INF = 1e9;

/**
 * Semi-global alignment of the hunk's old side against file[lo, hi): leading and trailing file lines
 * are free; inside, each altered, missing or extra line costs 1. In strict mode a removed line can
 * only match exactly (after whitespace normalization), a context line can be altered only in a
 * comment (same `codeOf`) and be missing only when it holds no code.
 */
function align(f: string[], b: string[], removed: boolean[], lo: number, hi: number, strict: boolean, fc: string[], bc: string[]): Alignment | undefined {
  const n = b.length;
  const w = hi - lo;
  // D[o][i]: best cost aligning b[0..o) with a suffix of window[0..i) (free start).
  const D: Float64Array[] = [];
  const T: Uint8Array[] = []; // 1 = match/substitute, 2 = block line missing, 3 = extra file line
  for (let o = 0; o <= n; o++) {
    D.push(new Float64Array(w + 1).fill(o === 0 ? 0 : INF));
    T.push(new Uint8Array(w + 1));
  }
  for (let o = 1; o <= n; o++) {
    const bl = b[o - 1]!;
    const rm = removed[o - 1]!;
    const delCost = strict && (rm || bc[o - 1] !== '') ? INF : 1;
    for (let i = 0; i <= w; i++) {
      let best = INF;
      let how = 0;
      if (i > 0) {
        const subCost = strict && (rm || fc[lo + i - 1] !== bc[o - 1]) ? INF : 1;
        const diag = D[o - 1]![i - 1]! + (f[lo + i - 1] === bl ? 0 : subCost);
        if (diag < best) {
          best = diag;
          how = 1;
        }
      }
      const del = D[o - 1]![i]! + delCost;
      if (del < best) {
        best = del;
        how = 2;
      }
      if (i > 0) {
        const ins = D[o]![i - 1]! + 1;
        if (ins < best) {
          best = ins;
          how = 3;
        }
      }
      D[o]![i] = best;
      T[o]![i] = how;
    }
  }
  let bestI = -1;
  let bestCost = INF;
  for (let i = 0; i <= w; i++) {
    if (D[n]![i]! < bestCost) {
      bestCost = D[n]![i]!;
      bestI = i;
    }
  }
  if (bestI < 0 || bestCost >= INF) return undefined;
  const map = new Array<number>(n).fill(-1);
  const sub = new Array<number>(n).fill(-1);
  let o = n;
  let i = bestI;
  let matched = 0;
  let removedMissed = 0;
  while (o > 0) {
    const how = T[o]![i]!;
    if (how === 1) {
      const fl = lo + i - 1;
      if (f[fl] === b[o - 1]) {
        map[o - 1] = fl;
        matched++;
      } else {
        sub[o - 1] = fl;
        if (removed[o - 1]) removedMissed++;
      }
      o--;
      i--;
    } else if (how === 2) {
      if (removed[o - 1]) removedMissed++;
      o--;
    } else i--;
  }
  const hits = map.filter((x) => x >= 0);
  // Substituted context lines are not mapped (the file's line is kept as is) but do sit inside the region.
  const start = hits.length > 0 ? Math.min(...hits) : lo + i;
  const end = hits.length > 0 ? Math.max(...hits) + 1 : lo + i;
  return { start, end, map, cost: bestCost, matched, removedMissed, sub };
}

function fuzzyCandidates(f: string[], b: string[], limit: number): number[] {
  const where = new Map<string, number[]>();
  f.forEach((l, i) => {
    if (l === '') return;
    const at = where.get(l);
    if (at) at.push(i);
    else where.set(l, [i]);
  });
  const votes = new Map<number, number>();
  // Braces and other short lines are everywhere; they anchor only when the hunk has nothing better.
  const telling = b.some((l) => l.length >= 4);
  b.forEach((l, k) => {
    if (l === '' || (telling && l.length < 4)) return;
    for (const i of where.get(l) ?? []) votes.set(i - k, (votes.get(i - k) ?? 0) + 1);
  });
  return [...votes.entries()]
    .sort((x, y) => y[1] - x[1] || x[0] - y[0])
    .slice(0, limit)
    .map(([p]) => p);
}

function firstDifference(file: string[], block: OldLine[], start: number): string {
  for (let k = 0; k < block.length; k++) {
    const fl = file[start + k];
    if (fl === undefined) return `the file ends at line ${start + k} but the hunk expects \`${block[k]!.text.trim()}\``;
    if (normWs(fl) !== normWs(block[k]!.text)) {
      return `line ${start + k + 1} is \`${fl.trim()}\` where the hunk expects \`${block[k]!.text.trim()}\``;
    }
  }
  return 'it matches only in part';
}

export function locate(file: string[], block: OldLine[], opts: MatchOptions = {}): MatchResult {
  const whole = locateWhole(file, block, opts);
  if (whole !== undefined) return whole;
  const elided = block.findIndex((l) => (opts.isElision ?? isElision)(l.text));
  if (elided >= 0) return { ok: false, kind: 'elision', line: block[elided]!.text, index: elided };
  const fuzz = Math.min(opts.fuzz ?? DEFAULT_FUZZ, Math.floor(block.length / 3));
  const { accepted, closest } = fuzzyAlignments(file, block, fuzz);
  return judgeFuzzy(file, block, accepted, closest, fuzz, opts.hint);
}

/** The block found whole, line for line (exactly, then ignoring trailing, then all whitespace), or undefined. */
function locateWhole(file: string[], block: OldLine[], opts: MatchOptions): MatchResult | undefined {
  const texts = block.map((l) => l.text);
  const levels: [MatchLevel, (s: string) => string][] = [
    ['exact', (s) => s],
    ['whitespace', normEnd],
    ['whitespace', normWs],
  ];
  for (const [level, norm] of levels) {
    const at = contiguous(file, texts, norm);
    if (at.length === 1) return { ok: true, placement: { start: at[0]!, end: at[0]! + texts.length, map: texts.map((_, k) => at[0]! + k), level, cost: 0 } };
    if (at.length > 1) {
      // The hunk's own line number settles it only when it points exactly at one of them.
      if (opts.hint !== undefined && at.includes(opts.hint)) {
        const p = opts.hint;
        return { ok: true, placement: { start: p, end: p + texts.length, map: texts.map((_, k) => p + k), level, cost: 0 } };
      }
      return { ok: false, kind: 'ambiguous', starts: at, level };
    }
  }
  return undefined;
}

/** The distinct strict alignments within `fuzz` differences, and the closest region to name when none is. */
function fuzzyAlignments(file: string[], block: OldLine[], fuzz: number): { accepted: Alignment[]; closest: Alignment | undefined } {
  const texts = block.map((l) => l.text);
  const f = file.map(normWs);
  const b = texts.map(normWs);
  const fc = file.map(codeOf);
  const bc = texts.map(codeOf);
  const removed = block.map((l) => l.removed);
  const nonBlank = b.filter((l) => l !== '').length;
  const accepted: Alignment[] = [];
  let closest: Alignment | undefined;
  let closestStrict: Alignment | undefined;
  const seen = new Set<string>();
  // A region that shares only braces and blank lines with the hunk is no lead worth naming.
  const telling = (a: Alignment | undefined): number => (a ? a.map.filter((x, k) => x >= 0 && b[k]!.length >= 4).length : 0);
  for (const p of fuzzyCandidates(f, b, 64)) {
    const lo = Math.max(0, p - Math.max(fuzz, 2));
    const hi = Math.min(f.length, p + b.length + Math.max(fuzz, 2));
    const strict = align(f, b, removed, lo, hi, true, fc, bc);
    if (strict && strict.cost <= fuzz) {
      // Alignments differing only in which blank or repeated context line they pair are one place.
      const key = `${strict.start}:${strict.end}:${strict.map.filter((_, k) => removed[k]).join(',')}`;
      const matchedNonBlank = strict.map.filter((x, k) => x >= 0 && b[k] !== '').length;
      if (!seen.has(key) && matchedNonBlank * 2 >= nonBlank && matchedNonBlank > 0) {
        seen.add(key);
        accepted.push(strict);
      }
    }
    // The closest region is reported from the strict pairing when there is one (only too many
    // differences), so the reason names real differences rather than a looser pairing's.
    if (strict && telling(strict) > 0 && (!closestStrict || strict.matched > closestStrict.matched)) closestStrict = strict;
    const loose = align(f, b, removed, lo, hi, false, fc, bc);
    if (loose && telling(loose) > 0 && (!closest || loose.matched > closest.matched)) closest = loose;
  }
  return { accepted, closest: closestStrict ?? closest };
}

/** The one best tolerant placement, or why there is none (stale, ambiguous, not found near enough). */
function judgeFuzzy(file: string[], block: OldLine[], found: Alignment[], closest: Alignment | undefined, fuzz: number, hint: number | undefined): MatchResult {
  // A tolerant match never deletes or duplicates a line the hunk does not account for: a file line
  // inside the region that no old-side line quotes (blank lines aside) means the hunk is stale there
  // (the REPLACE may add that very line again, or the edit lands around code it never saw).
  const unquoted = found.filter((a) => unquotedLine(file, a) >= 0);
  if (unquoted.length > 0 && unquoted.length === found.length) {
    const a = unquoted.sort((x, y) => x.cost - y.cost)[0]!;
    const at = unquotedLine(file, a);
    return {
      ok: false,
      kind: 'not-found',
      closest: {
        start: a.start,
        end: a.end,
        matched: a.matched,
        why: `line ${at + 1} there, \`${file[at]!.trim()}\`, is not quoted by the edit: applying it around a line it does not quote could delete or duplicate that line (quote every line of the region, in order)`,
      },
      fuzz,
    };
  }
  const accepted = found.filter((a) => unquotedLine(file, a) < 0);
  if (accepted.length > 0) {
    const bestCost = Math.min(...accepted.map((a) => a.cost));
    const best = accepted.filter((a) => a.cost === bestCost);
    if (best.length > 1) {
      if (hint !== undefined) {
        const exact = best.filter((a) => a.start === hint);
        if (exact.length === 1) return { ok: true, placement: { ...pick(exact[0]!), level: 'fuzzy' } };
      }
      return { ok: false, kind: 'ambiguous', starts: best.map((a) => a.start).sort((x, y) => x - y), level: 'fuzzy' };
    }
    return { ok: true, placement: { ...pick(best[0]!), level: 'fuzzy' } };
  }
  return { ok: false, kind: 'not-found', closest: closest && closest.matched > 0 ? describeClosest(file, block, closest, fuzz) : undefined, fuzz };
}

/** The first non-blank file line inside the alignment's region that no old-side line is paired with, or -1. */
function unquotedLine(file: readonly string[], a: Alignment): number {
  const paired = new Set<number>([...a.map, ...a.sub].filter((x) => x >= 0));
  for (let i = a.start; i < a.end; i++) if (!paired.has(i) && file[i]!.trim() !== '') return i;
  return -1;
}

/** Old-side line k is paired with a file line of other code, or missing though it holds code. */
function differsInCode(file: string[], l: OldLine, a: Alignment, k: number): boolean {
  if (a.map[k] !== -1) return false;
  const fl = a.sub[k]!;
  return fl >= 0 ? codeOf(file[fl]!) !== codeOf(l.text) : codeOf(l.text) !== '';
}

function pick(a: Alignment): Omit<Placement, 'level'> {
  return { start: a.start, end: a.end, map: a.map, cost: a.cost };
}

function describeClosest(file: string[], block: OldLine[], a: Alignment, fuzz: number): Closest {
  let why: string;
  const firstMissedRemoved = block.findIndex((l, k) => l.removed && a.map[k] === -1);
  if (firstMissedRemoved >= 0) {
    // Show the file line sitting where the removed line was expected.
    const before = a.map.slice(0, firstMissedRemoved).filter((x) => x >= 0);
    const at = before.length > 0 ? before[before.length - 1]! + 1 : a.start;
    const there = file[at];
    why =
      there !== undefined
        ? `the hunk removes \`${block[firstMissedRemoved]!.text.trim()}\` but line ${at + 1} there is \`${there.trim()}\` (removed lines must match the file, up to whitespace)`
        : `the hunk removes \`${block[firstMissedRemoved]!.text.trim()}\`, which is not in the file there`;
  } else if (a.cost > fuzz) {
    why = `${a.cost} of its ${block.length} old lines differ from the file there (at most ${fuzz} may): ${firstDifference(file, block, a.start)}`;
  } else if (block.some((l, k) => differsInCode(file, l, a, k))) {
    const k = block.findIndex((l, k2) => differsInCode(file, l, a, k2));
    const fl = a.sub[k]!;
    const line = block[k]!.text.trim();
    why =
      fl >= 0
        ? `line ${fl + 1} there is \`${file[fl]!.trim()}\` where the hunk's context line is \`${line}\` (context lines must match the file, up to whitespace and comments)`
        : `the hunk's context line \`${line}\` is not in the file there (context lines must match the file, up to whitespace and comments)`;
  } else {
    why = `too few of its lines match (${a.matched} of ${block.length})`;
  }
  return { start: a.start, end: Math.max(a.end, a.start + 1), matched: a.matched, why };
}

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i + 1 < s.length; i++) {
    const g = s.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

/** Dice similarity of two lines' character pairs, whitespace ignored: 1 for equal, 0 for nothing shared. */
function lineSimilarity(a: Map<string, number>, b: Map<string, number>, na: number, nb: number): number {
  if (na + nb === 0) return 1;
  let shared = 0;
  for (const [g, c] of a) shared += Math.min(c, b.get(g) ?? 0);
  return (2 * shared) / (na + nb);
}

/**
 * The file region most like `block` line by line, for a block nothing matched well enough to be a
 * closest region (a misremembered function): where the model should copy from. Undefined when no
 * region shares at least half its characters' pairs with the block.
 */
export function similarRegion(file: readonly string[], block: readonly string[]): { start: number; end: number } | undefined {
  // The first dozen telling lines and a window of at most 40 keep this cheap on a large file.
  const b = block.map(normWs).filter((l) => l.length >= 4).slice(0, 12);
  if (b.length === 0 || file.length === 0) return undefined;
  const bg = b.map(bigrams);
  const bn = b.map((l) => Math.max(0, l.length - 1));
  const f = file.map(normWs);
  const fg = f.map(bigrams);
  const fn = f.map((l) => Math.max(0, l.length - 1));
  // Each block line's best partner near its offset: a window as long as the block, scored by the mean.
  const len = Math.min(file.length, block.length, 40);
  let best: { start: number; score: number } | undefined;
  for (let s = 0; s + len <= file.length; s++) {
    let sum = 0;
    for (let k = 0; k < b.length; k++) {
      let top = 0;
      for (let i = s; i < s + len; i++) {
        if (f[i] === '') continue;
        const v = lineSimilarity(bg[k]!, fg[i]!, bn[k]!, fn[i]!);
        if (v > top) top = v;
      }
      sum += top;
    }
    const score = sum / b.length;
    if (!best || score > best.score) best = { start: s, score };
  }
  if (!best || best.score < 0.5) return undefined;
  return { start: best.start, end: best.start + len };
}

// Which parts of a source file matter to a failure: the block (test or function) around a line, the
// import lines, the functions a failing test calls. Line-based and approximate on purpose: it picks
// what to show the model, and anything it misses stays reachable through the report's locations.

/** A block longer than this is shown as its first line and the lines around the failure instead. */
const MAX_BLOCK_LINES = 60;
/** Lines around a failure inside a block too long to show whole. */
const INSIDE_LONG_BLOCK = 5;

// A test case (`it(`, `test(`, `specify(`, `it.only(`, `test.each(...)(`), the unit whose block matters.
const TEST_CALL = /^\s*(?:it|test|specify)(?:\.\w+)*\s*\(/;
// A function, arrow function, method or class: where the code a failure runs through is defined.
const DEFINITION = [
  /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\b/,
  /^\s*(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[\w$]+\s*=>)/,
  /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\b/,
  /^\s*(?:public\s+|private\s+|protected\s+|static\s+|async\s+|get\s+|set\s+)*(?!(?:if|for|while|switch|catch|return|function)\b)[\w$]+\s*\([^)]*\)\s*(?::[^{]+)?\{\s*$/,
];

/**
 * Bracket depth at the start of each line (1-based index; [0] unused), ignoring brackets inside
 * strings, template literals and comments.
 */
export function depths(src: readonly string[]): number[] {
  const out = [0];
  let depth = 0;
  let mode: 'code' | 'block' | 'template' = 'code';
  for (const line of src) {
    out.push(depth);
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (mode === 'block') {
        if (c === '*' && line[i + 1] === '/') {
          mode = 'code';
          i++;
        }
        continue;
      }
      if (mode === 'template') {
        if (c === '\\') i++;
        else if (c === '`') mode = 'code';
        continue;
      }
      if (c === '/' && line[i + 1] === '/') break;
      if (c === '/' && line[i + 1] === '*') {
        mode = 'block';
        i++;
      } else if (c === '`') mode = 'template';
      else if (c === '"' || c === "'") {
        // A string ends on its line.
        for (i++; i < line.length && line[i] !== c; i++) if (line[i] === '\\') i++;
      } else if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    }
  }
  out.push(depth);
  return out;
}

/** The last line of the block opening on line `start`: where the depth comes back to the start's. */
export function blockEnd(d: readonly number[], start: number, total: number): number {
  const base = d[start]!;
  let opened = false;
  for (let l = start + 1; l <= total + 1; l++) {
    if (d[l]! > base) opened = true;
    // Back at the starting depth: the block closed on the line before (or was one line).
    if (d[l]! <= base && (opened || l > start)) return l - 1;
  }
  return total;
}

/**
 * The block around `line`: the innermost test case holding it (in a test file), else the innermost
 * function, method or class; undefined when the line lies in none.
 */
export function enclosingBlock(src: readonly string[], line: number, d: readonly number[] = depths(src)): [number, number] | undefined {
  let found: [number, number] | undefined;
  for (const kinds of [[TEST_CALL], DEFINITION]) {
    for (let s = line; s >= 1 && !found; s--) {
      const text = src[s - 1]!;
      if (!kinds.some((k) => k.test(text))) continue;
      const e = blockEnd(d, s, src.length);
      if (e >= line) found = [s, e];
    }
    if (found) return found;
  }
  return undefined;
}

/** The import lines at the top of a file (ES imports and `require` bindings), as one range. */
export function importHeader(src: readonly string[]): [number, number] | undefined {
  let last = 0;
  for (let l = 1; l <= Math.min(src.length, 60); l++) {
    const t = src[l - 1]!;
    if (/^\s*import\b/.test(t) || /^\s*(?:const|let|var)\s+.*=\s*require\s*\(/.test(t)) last = l;
    // Continuation lines of a multi-line import are between the first and the last.
  }
  return last > 0 ? [1, last] : undefined;
}

/** Merged, sorted line ranges. */
export function mergeRanges(ranges: readonly [number, number][]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/**
 * The line ranges that matter to failures at `lines`: each line's block (test case or function),
 * or, when it lies in none, `radius` lines on each side; a long block gives its first line and the
 * lines around the failure. With any block, the file's import lines too, so the model sees where
 * the called code lives.
 */
export function relevantRanges(text: string, lines: readonly number[], radius: number): [number, number][] {
  const src = text.split('\n');
  const d = depths(src);
  const ranges: [number, number][] = [];
  let blocks = 0;
  for (const l of new Set(lines)) {
    if (l < 1 || l > src.length) continue;
    const b = enclosingBlock(src, l, d);
    if (b && b[1] - b[0] + 1 <= MAX_BLOCK_LINES) {
      ranges.push(b);
      blocks++;
    } else if (b) {
      ranges.push([b[0], b[0]], [Math.max(b[0], l - INSIDE_LONG_BLOCK), Math.min(b[1], l + INSIDE_LONG_BLOCK)]);
      blocks++;
    } else {
      ranges.push([Math.max(1, l - radius), Math.min(src.length, l + radius)]);
    }
  }
  const header = blocks > 0 ? importHeader(src) : undefined;
  if (header) ranges.push(header);
  return mergeRanges(ranges);
}

const NOT_CALLS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'typeof', 'await', 'new', 'describe', 'it', 'test', 'expect', 'assert', 'require', 'import', 'async', 'setTimeout', 'Promise']);

/** Names called in a piece of code (`name(`), language keywords and test API left out. */
export function calledNames(code: string): Set<string> {
  const out = new Set<string>();
  for (const m of code.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)\s*\(/g)) if (!NOT_CALLS.has(m[1]!)) out.add(m[1]!);
  return out;
}

/** Local names bound by a file's relative imports, each with the import specifier it came from. */
export function importedNames(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const bind = (list: string, spec: string): void => {
    for (const part of list.split(',')) {
      // `a as b` (ESM), `a: b` (destructured require): the local name is the last one.
      const local = part.trim().split(/\s+as\s+|\s*:\s*/).pop()?.trim();
      if (local && /^[A-Za-z_$][\w$]*$/.test(local)) out.set(local, spec);
    }
  };
  for (const m of text.matchAll(/import\s+(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\})?\s*from\s*(['"])(\.{1,2}\/[^'"\n]+)\3/g)) {
    if (m[1]) out.set(m[1], m[4]!);
    if (m[2]) bind(m[2], m[4]!);
  }
  for (const m of text.matchAll(/(?:const|let|var)\s+(?:\{([^}]*)\}|([\w$]+))\s*=\s*require\s*\(\s*(['"])(\.{1,2}\/[^'"\n]+)\3\s*\)/g)) {
    if (m[1]) bind(m[1], m[4]!);
    if (m[2]) out.set(m[2], m[4]!);
  }
  return out;
}

/** The line (1-based) where `name` is defined in a file: a function, a bound arrow or function, a class, a method. */
export function definitionLine(text: string, name: string): number | undefined {
  const n = name.replace(/\$/g, '\\$');
  const res = [
    new RegExp(`^\\s*(?:export\\s+)?(?:default\\s+)?(?:async\\s+)?function\\s*\\*?\\s*${n}\\b`),
    new RegExp(`^\\s*(?:export\\s+)?(?:const|let|var)\\s+${n}\\s*(?::[^=]+)?=`),
    new RegExp(`^\\s*(?:export\\s+)?(?:default\\s+)?(?:abstract\\s+)?class\\s+${n}\\b`),
    new RegExp(`^\\s*(?:exports\\.|module\\.exports\\.)${n}\\s*=`),
  ];
  const src = text.split('\n');
  for (const re of res) {
    const i = src.findIndex((l) => re.test(l));
    if (i >= 0) return i + 1;
  }
  return undefined;
}

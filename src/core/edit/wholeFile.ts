// Whole-file replies: a path line (bare, in backticks or bold, or a fence's info string), then a
// fenced copy of the whole file. Weaker and local models write them most. Taken only from a reply
// that holds no other edit; refused where writing the block would delete code the model left out.
import { fenceInfoPath, proseLeadPath, strictPathLine } from './pathLines';
import type { ReplyLines } from './replyLines';
import { FENCE } from './replyLines';
import { isElision, isElisionIn } from './match';
import type { TextFile } from './text';

export interface WholeFileEdit {
  kind: 'whole-file';
  /** The file, as the path line names it (both sides: a whole file never renames). */
  oldPath: string;
  newPath: string;
  /** The file's new lines, as fenced. */
  content: string[];
  /** 1-based line of the reply where the path is named. */
  replyLine: number;
  /**
   * `prose`: the path is named only inside a sentence before the fence ("The fix, in `src/a.ts`:"),
   * weaker evidence that the block is the whole file, so it must hold most of it.
   */
  namedBy?: 'prose';
}

/** Fences whose body is never a file's text. */
const NOT_FILES = new Set(['diff', 'patch', 'udiff', 'gitdiff', 'git-diff', 'console', 'shell-session', 'terminal', 'output']);

interface Block {
  open: number;
  close: number;
  path: string;
  pathLine: number;
  prose: boolean;
}

/** The path naming the fence opened at `open`: its info string, or the path line before it (blank lines between). */
function blockPath(r: ReplyLines, open: number): { path: string; line: number; prose: boolean } | null {
  const info = fenceInfoPath(FENCE.exec(r.lines[open]!)![2]!);
  if (info !== null) return { path: info, line: open, prose: false };
  for (let j = open - 1; j >= 0 && j >= open - 3; j--) {
    const l = r.lines[j]!;
    if (l.trim() === '') continue;
    if (r.fence[j] || r.used[j]) return null;
    const p = strictPathLine(l);
    if (p !== null) return { path: p, line: j, prose: false };
    const q = proseLeadPath(l);
    return q === null ? null : { path: q, line: j, prose: true };
  }
  return null;
}

/** The fence opened at `outer` holds nothing but a path line and the fence opened at `inner`: a wrapper. */
function wraps(r: ReplyLines, outer: number, inner: Block): boolean {
  for (let j = outer + 1; j < r.closer[outer]!; j++) {
    if (j >= inner.open && j <= inner.close) continue;
    if (r.lines[j]!.trim() !== '' && j !== inner.pathLine) return false;
  }
  return true;
}

/**
 * The whole-file blocks of a reply with no other edit. A block inside another block is the outer
 * file's text (a README's examples), unless the outer fence only wraps it with its path line.
 */
export function parseWholeFiles(r: ReplyLines): { edits: WholeFileEdit[]; errors: string[] } {
  const blocks: Block[] = [];
  const errors: string[] = [];
  r.lines.forEach((_, i) => {
    if (!r.opens[i]) return;
    const lang = (/^\s*([\w+#.-]*)/.exec(FENCE.exec(r.lines[i]!)![2]!)?.[1] ?? '').toLowerCase();
    if (NOT_FILES.has(lang)) return;
    const named = blockPath(r, i);
    if (named === null) return;
    if (r.closer[i]! < 0) {
      errors.push(
        `the whole-file block for ${named.path} at reply line ${named.line + 1} runs to the end of the reply in a fence that is never closed: the reply looks cut off, so nothing was applied. Send the complete file (or search/replace blocks for the lines that change)`,
      );
      return;
    }
    blocks.push({ open: i, close: r.closer[i]!, path: named.path, pathLine: named.line, prose: named.prose });
  });
  const inside = (b: Block, o: Block): boolean => b !== o && b.open > o.open && b.close < o.close;
  const kept = blocks.filter((b) => {
    // An outer block that only wraps one inner block gives way to it.
    if (blocks.some((i) => inside(i, b) && wraps(r, b.open, i))) return false;
    // A block inside a kept outer block is part of that file.
    return !blocks.some((o) => inside(b, o) && !wraps(r, o.open, b));
  });
  // Two blocks for one file: the model wrote it again after second thoughts ("Actually, ..."), so
  // the later block is its last word; each block is still checked for elisions when applied. A
  // later block less than half the earlier one is a part shown again ("the key line:"), not a file.
  const last = new Map<string, Block>();
  const size = (b: Block): number => r.lines.slice(b.open + 1, b.close).filter((l) => l.trim() !== '').length;
  for (const b of kept) {
    const other = last.get(b.path);
    if (other && size(b) * 2 < size(other)) {
      errors.push(
        `the reply gives two blocks for ${b.path} (reply lines ${other.pathLine + 1} and ${b.pathLine + 1}), the later holding ${size(b)} of the earlier's ${size(other)} lines: it looks like a part shown again, so which is meant is not clear; nothing was applied. Give the file once, whole`,
      );
    }
    last.set(b.path, b);
  }
  if (errors.length > 0) return { edits: [], errors };
  return {
    edits: [...last.values()]
      .sort((a, b) => a.open - b.open)
      .map((b) => ({
        kind: 'whole-file',
        oldPath: b.path,
        newPath: b.path,
        content: r.lines.slice(b.open + 1, b.close),
        replyLine: b.pathLine + 1,
        ...(b.prose ? { namedBy: 'prose' as const } : {}),
      })),
    errors: [],
  };
}

/**
 * A comment standing in for code: the "... existing code ..." elisions, and the same said without
 * dots (`/* rest unchanged *\/`, `// existing imports`, `# remaining methods unchanged`).
 */
export function elidesCode(line: string): boolean {
  if (isElision(line)) return true;
  const s = line.trim();
  const m = /^(?:\/\/+|#+|\/\*+|\*+|<!--|--|\{\/\*)\s*(.*?)\s*(?:\*+\/\}?|-->)?$/.exec(s);
  if (!m || m[1]!.length > 60) return false;
  const t = m[1]!.replace(/^[([]|[)\]]$/g, '').replace(/[.:;!]+$/, '').trim().toLowerCase();
  return (
    /^(?:the )?(?:rest|remainder)(?: of (?:the )?(?:file|code|class|function|component|methods?|implementation|module|imports?|tests?|styles?|content|logic|body))?(?: (?:is |are |remains? |stays? )?(?:unchanged|the same|as before|as is|omitted|goes here|here))?$/.test(t) ||
    /^(?:existing|previous|other|remaining|unchanged|original) (?:code|imports?|methods?|functions?|content|implementation|lines|logic|tests?|styles?|props|fields|properties|exports?|routes?|components?)(?: (?:here|unchanged|remains?(?: unchanged| the same)?|stays? the same|omitted|as before|goes here))?$/.test(t) ||
    /^(?:unchanged|omitted(?: for brevity)?|same as before|code omitted)$/.test(t)
  );
}

/** Why writing `content` over `file` (null: a new file) would lose code; undefined when it would not. */
export function wholeFileRefusal(rel: string, file: TextFile | null, e: WholeFileEdit): string | undefined {
  const label = `the whole-file block for ${rel} at reply line ${e.replyLine}`;
  const k = e.content.findIndex((l) => isElisionIn(rel, l, elidesCode));
  if (k >= 0) {
    return `${rel}: ${label} elides code with \`${e.content[k]!.trim()}\` (its line ${k + 1}): writing it would delete the code it stands for, so nothing was applied. Give the complete file, or search/replace blocks for the lines that change`;
  }
  if (file === null) return undefined;
  const had = file.lines.filter((l) => l.text.trim() !== '').length;
  const has = e.content.filter((l) => l.trim() !== '').length;
  // A path named only in a sentence is weaker evidence of a whole file: the size floor goes.
  if ((had >= 8 || (e.namedBy === 'prose' && had >= 2)) && has * 2 < had) {
    return `${rel}: ${label} holds ${has} non-blank lines where the file has ${had}: it looks like a fragment, and writing it as the whole file would delete the rest, so nothing was applied. Give search/replace blocks for the lines that change (or the complete file)`;
  }
  return undefined;
}

// Finds the edits in a model reply: unified diffs (fenced or bare) and search/replace blocks.
// Prose around them is ignored. The parser is lenient where models are sloppy (miscounted hunk
// headers, context lines that lost their leading space inside a fence, decorated path lines) and
// strict where a guess could write the wrong thing (a hunk with no file, an unterminated block).
import type { StructuredPatch, StructuredPatchHunk } from 'diff';
import type { EditFormat } from '../settings';
import type { ReplyLines } from './replyLines';
import { cleanPathLine, fenceInfoPath } from './pathLines';
import { DIFF_FENCES, FENCE, scanReply } from './replyLines';
import type { WholeFileEdit } from './wholeFile';
import { parseWholeFiles } from './wholeFile';

export interface HunkLine {
  op: ' ' | '-' | '+';
  text: string;
}

export interface Hunk {
  /** The `@@` line as written, for error messages. */
  header: string;
  /** 1-based start line on the old side as the header says; undefined when it gives none. Only a hint. */
  oldStart: number | undefined;
  /** The old-side line count the header gives, when it gives one (`-12,0`: an insertion after line 12). Only a hint. */
  oldCount?: number;
  lines: HunkLine[];
  /** `\ No newline at end of file` followed the last old-side / new-side line. */
  oldNoEol: boolean;
  newNoEol: boolean;
}

export interface FilePatch {
  kind: 'diff';
  /** Old path (git's `a/` stripped), or null for `/dev/null` (a create). */
  oldPath: string | null;
  /** New path (git's `b/` stripped), or null for `/dev/null` (a delete). */
  newPath: string | null;
  hunks: Hunk[];
  /** The same hunks in the `diff` package's shape, for consumers that read raw lines. */
  patch: StructuredPatch;
  /** 1-based line of the reply where this edit starts. */
  replyLine: number;
  /** A git `deleted file mode` line named the delete (with no hunk it cannot be checked). */
  deletedFileMode?: boolean;
}

export interface SearchReplaceEdit {
  kind: 'search-replace';
  /** The file, as written on the path line. An empty SEARCH creates it. */
  oldPath: string;
  newPath: string;
  search: string[];
  replace: string[];
  replyLine: number;
}

export type ProposedEdit = FilePatch | SearchReplaceEdit | WholeFileEdit;

export interface ParsedReply {
  edits: ProposedEdit[];
  errors: string[];
}

const SEARCH = /^\s*<{5,9}\s*SEARCH\s*$/i;
const DIVIDER = /^\s*={5,9}\s*$/;
const REPLACE = /^\s*>{5,9}\s*REPLACE\s*$/i;
// `@@ -12,7 +12,8 @@ fn`, but also `@@ ... @@` and `@@`: models drop or invent the numbers.
const HUNK = /^@@(?:\s*-(\d+)(?:,(\d+))?(?:\s+\+(\d+)(?:,(\d+))?)?)?(?:\s.*)?$/;
const GIT_HEADER = /^diff --git (\S+) (\S+)\s*$/;
const GIT_META = /^(index |new file mode|deleted file mode|old mode|new mode|similarity index|dissimilarity index|rename from |rename to |copy from |copy to |Binary files )/;

function parseSearchReplace(r: ReplyLines, edits: ProposedEdit[], errors: string[]): void {
  const { lines } = r;
  let lastPath: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    if (!SEARCH.test(lines[i]!)) continue;
    let pathLine = -1;
    let fromLine: string | null = null;
    for (let j = i - 1; j >= 0 && j >= i - 4; j--) {
      const fm = FENCE.exec(lines[j]!);
      // A fence's language is never a path; a path in its info string (```ts src/a.ts) is one.
      const info = fm ? fenceInfoPath(fm[2]!) : null;
      if (info !== null && !r.used[j]) {
        pathLine = j;
        fromLine = info;
        break;
      }
      if (fm || r.fence[j] || lines[j]!.trim() === '') continue;
      pathLine = j;
      fromLine = r.used[j] ? null : cleanPathLine(lines[j]!);
      break;
    }
    const file: string | null = fromLine ?? lastPath;
    let divider = -1;
    let end = -1;
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j]!;
      if (SEARCH.test(l)) break;
      if (divider === -1 && DIVIDER.test(l)) divider = j;
      else if (divider !== -1 && REPLACE.test(l)) {
        end = j;
        break;
      }
    }
    if (divider === -1 || end === -1) {
      errors.push(
        `the search/replace block at reply line ${i + 1} is not terminated: it needs a \`=======\` line and then a \`>>>>>>> REPLACE\` line`,
      );
      r.used[i] = true;
      continue;
    }
    for (let j = i; j <= end; j++) r.used[j] = true;
    if (fromLine !== null && pathLine >= 0) r.used[pathLine] = true;
    if (file === null) {
      errors.push(`the search/replace block at reply line ${i + 1} has no file path: put the path alone on the line before \`<<<<<<< SEARCH\``);
      i = end;
      continue;
    }
    lastPath = file;
    edits.push({
      kind: 'search-replace',
      oldPath: file,
      newPath: file,
      search: lines.slice(i + 1, divider),
      replace: lines.slice(divider + 1, end),
      replyLine: (fromLine !== null ? pathLine : i) + 1,
    });
    i = end;
  }
}

function cleanDiffName(raw: string, prefix: 'a/' | 'b/'): string | null {
  let n = raw.split('\t')[0]!.trim();
  if (n.startsWith('"') && n.endsWith('"') && n.length >= 2) n = n.slice(1, -1);
  if (n === '/dev/null' || n === '') return null;
  if (n.startsWith(prefix)) n = n.slice(2);
  return n;
}

interface OpenPatch {
  oldPath: string | null;
  newPath: string | null;
  hunks: Hunk[];
  replyLine: number;
  gitNew: boolean;
  gitDeleted: boolean;
  gitRename: boolean;
  headerSeen: boolean;
  /** Why the whole patch is refused (a hunk cut off, a diff shown in a ```ts fence), if it is. */
  refused?: string;
}

function isFileHeaderAt(lines: string[], i: number): boolean {
  return lines[i]!.startsWith('--- ') && (lines[i + 1] ?? '').startsWith('+++ ');
}

function toStructured(p: OpenPatch): StructuredPatch {
  const hunks: StructuredPatchHunk[] = p.hunks.map((h) => {
    const oldLines = h.lines.filter((l) => l.op !== '+').length;
    const newLines = h.lines.filter((l) => l.op !== '-').length;
    const start = h.oldStart ?? 1;
    return { oldStart: start, oldLines, newStart: start, newLines, lines: h.lines.map((l) => l.op + l.text) };
  });
  return {
    oldFileName: p.oldPath ?? '/dev/null',
    newFileName: p.newPath ?? '/dev/null',
    oldHeader: undefined,
    newHeader: undefined,
    hunks,
  };
}

function patchName(p: OpenPatch): string {
  return p.newPath ?? p.oldPath ?? '(unnamed)';
}

/** Ends a patch: an edit when it holds hunks (or is a delete, an empty create or a rename), else an error. */
function closePatch(p: OpenPatch, edits: ProposedEdit[], errors: string[]): void {
  if (p.refused !== undefined) {
    errors.push(p.refused);
    return;
  }
  if (p.hunks.length === 0) {
    const deleting = p.newPath === null && p.oldPath !== null;
    const creatingEmpty = p.oldPath === null && p.newPath !== null && p.gitNew;
    const renaming = p.gitRename && p.oldPath !== null && p.newPath !== null;
    if (!deleting && !creatingEmpty && !renaming) {
      errors.push(`the diff for ${patchName(p)} at reply line ${p.replyLine} has no @@ hunks`);
      return;
    }
  }
  edits.push({
    kind: 'diff',
    oldPath: p.oldPath,
    newPath: p.newPath,
    hunks: p.hunks,
    patch: toStructured(p),
    replyLine: p.replyLine,
    ...(p.gitDeleted ? { deletedFileMode: true } : {}),
  });
}

/** A diff inside a fence of another language (```ts) is shown, not proposed. */
function refuseShown(r: ReplyLines, p: OpenPatch, at: number): void {
  const lang = r.lang[at];
  if (p.refused !== undefined || lang === null || lang === undefined || DIFF_FENCES.has(lang)) return;
  p.refused =
    `the diff for ${patchName(p)} at reply line ${p.replyLine} is inside a \`\`\`${lang} fence, so it is shown as ${lang} code, not proposed as an edit; ` +
    'nothing was applied. Put a diff meant to be applied in a ```diff fence (or none)';
}

/**
 * A hunk the reply ends inside of, in a fence never closed: the output limit cut the reply off, and
 * applying the hunk would delete whatever its missing lines were to keep or add. Header counts are
 * no evidence on their own (models miscount them in complete replies); they only say how much is missing.
 */
function refuseCutOff(r: ReplyLines, p: OpenPatch, h: Hunk, hm: RegExpExecArray, at: number, end: number): void {
  const { lines } = r;
  if (p.refused !== undefined || r.unclosedFrom < 0 || r.unclosedFrom > at) return;
  let blanks = 0;
  for (let k = end; k < lines.length; k++) {
    if (lines[k]!.trim() !== '') return;
    blanks++;
  }
  const k = p.hunks.length;
  const where = `${patchName(p)}: hunk ${k} (reply line ${at + 1}, \`${h.header.trim()}\`)`;
  const advice = 'so nothing was applied. Send the complete edit (smaller hunks if the reply is long)';
  // The reply ends with this hunk. Blank lines after it may be context lines that lost their space.
  const oldHeld = h.lines.filter((l) => l.op !== '+').length;
  const newHeld = h.lines.filter((l) => l.op !== '-').length;
  if (hm[1] !== undefined) {
    const oldWant = hm[2] !== undefined ? Number(hm[2]) : 1;
    const newWant = hm[3] === undefined ? undefined : hm[4] !== undefined ? Number(hm[4]) : 1;
    if (oldHeld + blanks < oldWant || (newWant !== undefined && newHeld + blanks < newWant)) {
      p.refused =
        `${where} promises ${oldWant} old${newWant !== undefined ? ` and ${newWant} new` : ''} line(s), ` +
        `but the reply ends after ${oldHeld} old and ${newHeld} new: it looks cut off, ${advice}`;
      return;
    }
  }
  p.refused = `${where} runs to the end of the reply inside the fence opened at reply line ${r.unclosedFrom + 1}, which is never closed: the reply looks cut off, ${advice}`;
}

/** The patch a `diff --git` line at `at` opens, with its meta lines read; returns it and the line after them. */
function readGitSection(r: ReplyLines, at: number, git: RegExpExecArray): { patch: OpenPatch; next: number } {
  const { lines } = r;
  const patch: OpenPatch = {
    oldPath: cleanDiffName(git[1]!, 'a/'),
    newPath: cleanDiffName(git[2]!, 'b/'),
    hunks: [],
    replyLine: at + 1,
    gitNew: false,
    gitDeleted: false,
    gitRename: false,
    headerSeen: false,
  };
  refuseShown(r, patch, at);
  let i = at + 1;
  while (i < lines.length && GIT_META.test(lines[i]!)) {
    const meta = lines[i]!;
    if (meta.startsWith('new file mode')) patch.gitNew = true;
    if (meta.startsWith('deleted file mode')) patch.gitDeleted = true;
    if (meta.startsWith('rename from ')) {
      patch.gitRename = true;
      patch.oldPath = meta.slice('rename from '.length).trim();
    }
    if (meta.startsWith('rename to ')) {
      patch.gitRename = true;
      patch.newPath = meta.slice('rename to '.length).trim();
    }
    i++;
  }
  if (patch.gitNew) patch.oldPath = null;
  if (patch.gitDeleted) patch.newPath = null;
  return { patch, next: i };
}

/** Reads the hunk whose `@@` line is at `at` into `p`; returns the line after its body. */
function readHunk(r: ReplyLines, at: number, hm: RegExpExecArray, p: OpenPatch): number {
  const hunk: Hunk = {
    header: r.lines[at]!,
    oldStart: hm[1] !== undefined ? Number(hm[1]) : undefined,
    ...(hm[1] !== undefined ? { oldCount: hm[2] !== undefined ? Number(hm[2]) : 1 } : {}),
    lines: [],
    oldNoEol: false,
    newNoEol: false,
  };
  refuseShown(r, p, at);
  const end = readHunkBody(r, at + 1, hunk);
  p.hunks.push(hunk);
  refuseCutOff(r, p, hunk, hm, at, end);
  return end;
}

function parseDiffs(r: ReplyLines, edits: ProposedEdit[], errors: string[]): void {
  const { lines } = r;
  let cur: OpenPatch | null = null;
  const close = (): void => {
    if (cur) closePatch(cur, edits, errors);
    cur = null;
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (r.used[i]) {
      close();
      i++;
      continue;
    }
    const git = GIT_HEADER.exec(line);
    if (git) {
      close();
      const section = readGitSection(r, i, git);
      cur = section.patch;
      i = section.next;
      continue;
    }
    if (isFileHeaderAt(lines, i)) {
      const oldPath = cleanDiffName(line.slice(4), 'a/');
      const newPath = cleanDiffName(lines[i + 1]!.slice(4), 'b/');
      if (cur && !cur.headerSeen && cur.hunks.length === 0) {
        // The ---/+++ pair of a `diff --git` section: it has the final word on create and delete.
        cur.oldPath = oldPath;
        cur.newPath = newPath;
        cur.headerSeen = true;
      } else {
        close();
        cur = { oldPath, newPath, hunks: [], replyLine: i + 1, gitNew: false, gitDeleted: false, gitRename: false, headerSeen: true };
      }
      refuseShown(r, cur, i);
      i += 2;
      continue;
    }
    const hm = HUNK.exec(line);
    if (hm) {
      if (cur) {
        i = readHunk(r, i, hm, cur);
      } else {
        errors.push(`the hunk at reply line ${i + 1} (${line.trim()}) has no \`--- a/path\` / \`+++ b/path\` header naming its file`);
        i = skipHunkBody(r, i + 1);
      }
      continue;
    }
    // Anything else (prose, fence lines, STATUS headers) ends the current file's hunks.
    if (cur && (cur.hunks.length > 0 || r.fence[i] || line.trim() !== '')) close();
    i++;
  }
  close();
}

function isBodyStart(r: ReplyLines, i: number): boolean {
  const l = r.lines[i]!;
  if (r.used[i] || r.fence[i]) return false;
  if (HUNK.test(l) || GIT_HEADER.test(l) || isFileHeaderAt(r.lines, i)) return false;
  if (l.startsWith(' ') || l.startsWith('+') || l.startsWith('-') || l.startsWith('\\')) return true;
  // Inside a fence, a line with no marker is a context line whose leading space got lost.
  return r.inFence[i]! && l !== '';
}

function skipHunkBody(r: ReplyLines, i: number): number {
  while (i < r.lines.length && (isBodyStart(r, i) || r.lines[i] === '')) i++;
  return i;
}

function readHunkBody(r: ReplyLines, i: number, hunk: Hunk): number {
  let pendingBlank = 0;
  while (i < r.lines.length) {
    const l = r.lines[i]!;
    if (l === '' && !r.used[i] && !r.fence[i]) {
      pendingBlank++;
      i++;
      continue;
    }
    if (!isBodyStart(r, i)) break;
    for (; pendingBlank > 0; pendingBlank--) hunk.lines.push({ op: ' ', text: '' });
    if (l.startsWith('\\')) {
      const last = hunk.lines[hunk.lines.length - 1];
      if (last?.op === '-' || last?.op === ' ') hunk.oldNoEol = true;
      if (last?.op === '+' || last?.op === ' ') hunk.newNoEol = true;
    } else if (l.startsWith('+') || l.startsWith('-') || l.startsWith(' ')) {
      hunk.lines.push({ op: l[0] as HunkLine['op'], text: l.slice(1) });
    } else {
      hunk.lines.push({ op: ' ', text: l });
    }
    i++;
  }
  // Blank lines before whatever ended the hunk belong to the prose, not to the hunk.
  return i - pendingBlank;
}

function errorForFormat(format: EditFormat, found: 'diff' | 'search-replace'): string {
  return found === 'diff'
    ? `the reply contains unified diffs, but editFormat is "${format}": give search/replace blocks (path line, <<<<<<< SEARCH, =======, >>>>>>> REPLACE)`
    : `the reply contains search/replace blocks, but editFormat is "${format}": give unified diffs (--- a/path, +++ b/path, @@ hunks)`;
}

export interface ParseOptions {
  /** Why the provider ended the reply (`stop`, `length`, `max_tokens`, ...), when it says. */
  stopReason?: string | undefined;
}

/** Stop reasons that mean the provider cut the reply off before the model finished it. */
const CUT_OFF_STOPS = new Set(['length', 'max_tokens', 'max_output_tokens', 'model_context_window_exceeded']);

export function isCutOffStop(reason: string | undefined): boolean {
  return reason !== undefined && CUT_OFF_STOPS.has(reason.toLowerCase());
}

export function parseReply(reply: string, format: EditFormat = 'auto', opts: ParseOptions = {}): ParsedReply {
  if (isCutOffStop(opts.stopReason)) {
    return {
      edits: [],
      errors: [
        `the reply was cut off: the provider stopped it at the output limit (stop reason \`${opts.stopReason}\`) before it was complete, so none of its edits was applied. ` +
          'Send the complete edits in a shorter reply: no explanations, no unchanged code, smaller blocks',
      ],
    };
  }
  const r = scanReply(reply);
  const sr: ProposedEdit[] = [];
  const diffs: ProposedEdit[] = [];
  const errors: string[] = [];
  parseSearchReplace(r, sr, errors);
  parseDiffs(r, diffs, errors);
  if (format === 'diff' && sr.length > 0) return { edits: [], errors: [errorForFormat(format, 'search-replace'), ...errors] };
  if (format === 'search-replace' && diffs.length > 0) return { edits: [], errors: [errorForFormat(format, 'diff'), ...errors] };
  // A reply with no other edit may give files whole, each fenced after its path.
  if (sr.length === 0 && diffs.length === 0 && errors.length === 0) return parseWholeFiles(r);
  const edits = [...sr, ...diffs].sort((a, b) => a.replyLine - b.replyLine);
  return { edits, errors };
}

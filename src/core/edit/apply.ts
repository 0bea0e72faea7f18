// Applies a reply's edits atomically: every file's new content is computed in memory first, and
// nothing is written unless every hunk of every file found its place. Over 500 lines because the
// Planner (one method per edit kind) reads best whole; how added lines are indented (indent.ts),
// blank lines at seams (seams.ts) and refusal wording (refusals.ts) live apart.
import { diffArrays } from 'diff';
import type { Checkpoint } from './checkpoint';
import type { Placement } from './match';
import { isElisionIn, locate } from './match';
import { alreadyIn, describeFailure, hunkHead, quote, repeatsFile } from './refusals';
import type { FilePatch, Hunk, HunkLine, ProposedEdit, SearchReplaceEdit } from './parse';
import type { PathPolicy } from './paths';
import { resolveEditPath } from './paths';
import type { Line, TextFile } from './text';
import { decodeText, encodeText, splitText, withFinalNewline } from './text';
import type { FileTracker } from './tracker';
import type { WholeFileEdit } from './wholeFile';
import { wholeFileRefusal } from './wholeFile';
import { contentHash } from './tracker';
import type { FileChange, Workspace } from './workspace';
import { oneLine } from './workspace';
import { recordFailedWrite } from './failedWrite';
import { reindenter } from './indent';
import { keepSeams, wholeFileEdges } from './seams';

export interface FileSummary {
  /** The file's real name in the folder. */
  path: string;
  /** The name the edit used, when it differs (a folder link): the critics judge it too. */
  asWritten?: string;
  kind: 'create' | 'modify' | 'delete';
  added: number;
  removed: number;
}

export interface ApplyResult {
  applied: boolean;
  files: FileSummary[];
  errors: string[];
  /** The changes computed (written when `applied`). */
  changes: FileChange[];
  /** Each touched file's bytes before the change (undefined when it did not exist). */
  before: Map<string, Uint8Array | undefined>;
  /**
   * Files changed on disk since the run last read or wrote them. Nothing was written; the loop
   * stops with `error` naming them rather than overwrite someone's work.
   */
  conflicts: string[];
  /**
   * Set when a write failed and some files of the batch could not be put back (each with why):
   * the workspace is neither as before nor as proposed, so the caller must stop (with `error`).
   */
  unrestored?: { path: string; error: string }[];
}

export interface ApplyOptions {
  workspace: Workspace;
  policy: PathPolicy;
  checkpoint?: Checkpoint;
  /** Knows what the run last read or wrote per file; a file changed since is not overwritten. */
  tracker?: FileTracker;
  dryRun?: boolean;
  /** Max old-side lines of a hunk that may differ from the file (default 2). */
  fuzz?: number;
}

interface WorkFile {
  rel: string;
  original: Uint8Array | undefined;
  /** Mode bits the new content gets (a renamed file keeps its own); undefined leaves the mode alone. */
  mode?: number;
  /** Current content in this apply, or null when the file does not exist (now). */
  text: TextFile | null;
}

class EditError extends Error {}

const BOM_CHAR = '\uFEFF';

/** A model that copied the file's byte-order mark into its edit: the mark is the file's, not a line's. */
function withoutBom(text: string): string {
  return text.startsWith(BOM_CHAR) ? text.replace(/^\uFEFF+/, '') : text;
}

function placeHunk(lines: Line[], hunk: Hunk, p: Placement, eol: '\n' | '\r\n'): Line[] {
  const shift = reindenter(
    lines.map((l) => l.text),
    hunk.lines,
    p,
  );
  const out: Line[] = lines.slice(0, p.start);
  let fi = p.start;
  let o = 0;
  for (const [j, hl] of hunk.lines.entries()) {
    if (hl.op === '+') {
      out.push({ text: shift(hl.text, j), eol });
      continue;
    }
    const m = p.map[o++]!;
    if (m < 0) continue;
    // File lines the hunk did not know about stay where they are.
    while (fi < m) out.push(lines[fi++]!);
    if (hl.op === ' ') out.push(lines[m]!);
    fi = m + 1;
  }
  while (fi < p.end) out.push(lines[fi++]!);
  for (let i = p.end; i < lines.length; i++) out.push(lines[i]!);
  return out;
}

function applyHunks(
  rel: string,
  file: TextFile,
  hunks: Hunk[],
  labelOf: (k: number) => string,
  fuzz: number | undefined,
  errors: string[],
  headOf: (h: Hunk) => string = hunkHead,
): TextFile {
  let lines = file.lines;
  let offset = 0;
  // Where an edit reaches the end of the file, its new text decides the final newline.
  let finalNewline = file.finalNewline;
  hunks.forEach((h, k) => {
    const old = h.lines.filter((l) => l.op !== '+');
    const head = headOf(h);
    const bad = h.lines.find((l) => l.op === '+' && isElisionIn(rel, l.text) && !old.some((o) => o.text === l.text));
    if (bad) {
      errors.push(`${rel}: ${labelOf(k)} adds the line \`${bad.text.trim()}\`, an elision that would be written literally; give the complete new text. It starts:\n${head}`);
      return;
    }
    if (old.length === 0) {
      if (lines.length === 0 || (lines.length === 1 && lines[0]!.text === '')) {
        lines = placeHunk([], h, { start: 0, end: 0, map: [], level: 'exact', cost: 0 }, file.eol);
        finalNewline = !h.newNoEol;
        return;
      }
      // An insertion with no context: only its header says where (`-12,0`: after old line 12). A
      // header with no numbers at all (`@@ ... @@`, Aider's) appends, as Aider does.
      const after = h.oldStart === undefined ? lines.length : h.oldCount === 0 ? h.oldStart + offset : undefined;
      const addedTexts = h.lines.map((l) => l.text);
      const repeats = after !== undefined && after <= lines.length ? (repeatsFile(lines, addedTexts) ?? alreadyIn(lines, addedTexts)) : undefined;
      const why =
        after === undefined
          ? 'has no context or removed lines, and its header gives no `-N,0` line to insert after, so where it goes cannot be checked'
          : after > lines.length
            ? `inserts after line ${after} (its header \`${h.header.trim()}\`), but the file has only ${lines.length} lines`
            : repeats !== undefined
              ? `has no context lines, and what it adds ${repeats}`
              : undefined;
      if (why !== undefined) {
        errors.push(`${rel}: ${labelOf(k)} ${why}. Include 2-3 unchanged lines around the insertion. It starts:\n${head}`);
        return;
      }
      const next = placeHunk(lines, h, { start: after!, end: after!, map: [], level: 'exact', cost: 0 }, file.eol);
      if (after === lines.length) finalNewline = !h.newNoEol;
      offset += next.length - lines.length;
      lines = next;
      return;
    }
    const hint = h.oldStart !== undefined ? Math.max(0, h.oldStart - 1 + offset) : undefined;
    const r = locate(
      lines.map((l) => l.text),
      old.map((l) => ({ text: l.text, removed: l.op === '-' })),
      { hint, ...(fuzz !== undefined ? { fuzz } : {}), isElision: (t) => isElisionIn(rel, t) },
    );
    if (!r.ok) {
      errors.push(
        describeFailure(
          rel,
          labelOf(k),
          head,
          r,
          lines.map((l) => l.text),
          old.map((l) => l.text),
        ),
      );
      return;
    }
    const next = placeHunk(lines, keepSeams(h, r.placement, lines.map((l) => l.text)), r.placement, file.eol);
    if (r.placement.end === lines.length) finalNewline = !h.newNoEol;
    offset += next.length - lines.length;
    lines = next;
  });
  return { ...file, finalNewline, lines: withFinalNewline(lines, finalNewline, file.eol) };
}

/** A search/replace block as a hunk: lines SEARCH and REPLACE share become context (fuzz may apply to them). */
export function searchReplaceHunk(e: SearchReplaceEdit): Hunk {
  const lines: HunkLine[] = [];
  for (const c of diffArrays(e.search, e.replace)) {
    const op = c.added ? '+' : c.removed ? '-' : ' ';
    for (const t of c.value) lines.push({ op, text: t });
  }
  return { header: '<<<<<<< SEARCH', oldStart: undefined, lines, oldNoEol: false, newNoEol: false };
}

function countChange(before: TextFile | null, after: TextFile | null): { added: number; removed: number } {
  const a = before ? before.lines.map((l) => l.text) : [];
  const b = after ? after.lines.map((l) => l.text) : [];
  let added = 0;
  let removed = 0;
  for (const c of diffArrays(a, b)) {
    if (c.added) added += c.count;
    else if (c.removed) removed += c.count;
  }
  return { added, removed };
}

function sameBytes(a: Uint8Array | null | undefined, b: Uint8Array | null | undefined): boolean {
  if (!a || !b) return (a ?? null) === (b ?? null);
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

class Planner {
  readonly work = new Map<string, WorkFile>();
  readonly errors: string[] = [];
  /** Files whose current content is known to be text (decoded), keyed by rel. */
  private readonly originals = new Map<string, TextFile | null>();

  constructor(private readonly opts: ApplyOptions) {}

  /** The name each real path was written as, when it differs (the first such name). */
  private readonly writtenAs = new Map<string, string>();

  resolve(raw: string): string {
    const r = resolveEditPath(raw, this.opts.policy);
    if (!r.ok) throw new EditError(r.reason);
    if (r.asWritten !== undefined && !this.writtenAs.has(r.rel)) this.writtenAs.set(r.rel, r.asWritten);
    return r.rel;
  }

  /**
   * The file an edit of an existing file means: the path as written, or, when that names no file and
   * is a bare basename (`App.js`), the one workspace file of that name. Several: refused, naming them.
   */
  async resolveExisting(raw: string, label: string): Promise<string> {
    const rel = this.resolve(raw);
    if (rel.includes('/') || this.work.has(rel) || (await this.opts.workspace.exists(rel)) || !this.opts.workspace.findByName) return rel;
    const found = (await this.opts.workspace.findByName(rel)).filter((c) => resolveEditPath(c, this.opts.policy).ok);
    if (found.length === 1) return found[0]!;
    if (found.length > 1) {
      const shown = found.slice(0, 6).join(', ') + (found.length > 6 ? ', …' : '');
      throw new EditError(`${rel}: ${label} names the file by its basename alone, and ${found.length} files have that name (${shown}), so which one is meant is not clear; nothing was applied. Give the file's path from the workspace root`);
    }
    return rel;
  }

  async load(rel: string): Promise<WorkFile> {
    let w = this.work.get(rel);
    if (w) return w;
    let bytes: Uint8Array | undefined;
    try {
      bytes = await this.opts.workspace.read(rel);
    } catch (e) {
      // A FIFO, a folder, an unreadable file: refused with the reason, never a crash.
      const msg = oneLine(e);
      throw new EditError(msg.startsWith(rel) ? `${msg}; refused` : `${rel}: cannot be read (${msg}); refused`);
    }
    let text: TextFile | null = null;
    if (bytes !== undefined) {
      const d = decodeText(bytes);
      if (!d.ok) throw new EditError(`${rel}: ${d.reason} refused: only UTF-8 text files are edited`);
      text = d.file;
    }
    w = { rel, original: bytes, text };
    this.work.set(rel, w);
    this.originals.set(rel, text);
    return w;
  }

  originalText(rel: string): TextFile | null {
    return this.originals.get(rel) ?? null;
  }

  async edit(e: ProposedEdit): Promise<void> {
    if (e.kind === 'search-replace') return this.searchReplace({ ...e, search: e.search.map(withoutBom), replace: e.replace.map(withoutBom) }, e.replace[0]?.startsWith(BOM_CHAR) ?? false);
    if (e.kind === 'whole-file') return this.wholeFile({ ...e, content: e.content.map(withoutBom) }, e.content[0]?.startsWith(BOM_CHAR) ?? false);
    const first = e.hunks[0]?.lines.find((l) => l.op === '+');
    return this.diff({ ...e, hunks: e.hunks.map((h) => ({ ...h, lines: h.lines.map((l) => ({ op: l.op, text: withoutBom(l.text) })) })) }, first?.text.startsWith(BOM_CHAR) ?? false);
  }

  private async searchReplace(e: SearchReplaceEdit, bom: boolean): Promise<void> {
    const label = `the search/replace block at reply line ${e.replyLine}`;
    const searchEmpty = e.search.every((l) => l.trim() === '');
    // A SEARCH quotes an existing file, so a bare basename may name it; an empty one creates the path as written.
    const rel = searchEmpty ? this.resolve(e.newPath) : await this.resolveExisting(e.newPath, label);
    const w = await this.load(rel);
    if (searchEmpty) {
      const bad = e.replace.find((l) => isElisionIn(rel, l));
      if (bad) throw new EditError(`${rel}: ${label} writes the line \`${bad.trim()}\`, an elision that would be written literally; give the complete text`);
      if (w.text !== null && w.text.lines.some((l) => l.text.trim() !== '')) {
        // An empty SEARCH on a file with content appends to it (the convention models learned),
        // unless the text holds the file already: a rewrite that would double it.
        const repeats = repeatsFile(w.text.lines, e.replace) ?? alreadyIn(w.text.lines, e.replace);
        if (repeats !== undefined) {
          throw new EditError(
            `${rel}: ${label} has an empty SEARCH, which appends its REPLACE to the end of the file, but the REPLACE ${repeats}. ` +
              'To change lines, quote them in SEARCH; to replace the whole file, give it whole in one fenced block after its path line',
          );
        }
        const base = w.text;
        const lines = [...base.lines, ...e.replace.map((t): Line => ({ text: t, eol: base.eol }))];
        w.text = { ...base, finalNewline: true, lines: withFinalNewline(lines, true, base.eol) };
        return;
      }
      const base = w.text ?? splitText('', bom);
      w.text = { ...base, finalNewline: true, lines: withFinalNewline(e.replace.map((t) => ({ text: t, eol: base.eol })), true, base.eol) };
      return;
    }
    if (w.text === null) throw new EditError(`${rel}: ${label} searches a file that does not exist; to create it, leave SEARCH empty`);
    const errors: string[] = [];
    const next = applyHunks(rel, w.text, [searchReplaceHunk(e)], () => label, this.opts.fuzz, errors, () => quote(['<<<<<<< SEARCH', ...e.search], 4));
    if (errors.length > 0) {
      this.errors.push(...errors);
      return;
    }
    w.text = next;
  }

  private async wholeFile(e: WholeFileEdit, bom: boolean): Promise<void> {
    const rel = await this.resolveExisting(e.newPath, `the whole-file block at reply line ${e.replyLine}`);
    const w = await this.load(rel);
    const why = wholeFileRefusal(rel, w.text, e);
    if (why !== undefined) throw new EditError(why);
    const base = w.text ?? splitText('', bom);
    // Lines the file keeps keep their own endings; blank lines at the block's edges beyond the
    // file's own are the fence's, not the file's; the file keeps its final newline (or lack of one).
    const content = wholeFileEdges(e.content, w.text ? w.text.lines.map((l) => l.text) : null);
    const lines: HunkLine[] = [];
    for (const c of diffArrays(base.lines.map((l) => l.text), content)) {
      const op = c.added ? '+' : c.removed ? '-' : ' ';
      for (const t of c.value) lines.push({ op, text: t });
    }
    const hunk: Hunk = { header: 'whole file', oldStart: undefined, lines, oldNoEol: false, newNoEol: false };
    const placed = placeHunk(base.lines, hunk, { start: 0, end: base.lines.length, map: base.lines.map((_, i) => i), level: 'exact', cost: 0 }, base.eol);
    const finalNewline = w.text === null || base.lines.length === 0 ? true : base.finalNewline;
    w.text = { ...base, finalNewline, lines: withFinalNewline(placed, finalNewline, base.eol) };
  }

  private newFileFromHunks(rel: string, hunks: Hunk[]): TextFile {
    const lines: Line[] = [];
    for (const h of hunks) {
      const stray = h.lines.find((l) => l.op !== '+' && !(l.op === ' ' && l.text === ''));
      if (stray) throw new EditError(`${rel}: the diff creates this file, so its hunks may only add lines, but one has \`${stray.op}${stray.text}\``);
      const bad = h.lines.find((l) => l.op === '+' && isElisionIn(rel, l.text));
      if (bad) throw new EditError(`${rel}: the new file's line \`${bad.text.trim()}\` is an elision that would be written literally; give the complete text`);
      for (const l of h.lines) if (l.op === '+') lines.push({ text: l.text, eol: '\n' });
    }
    const last = hunks[hunks.length - 1];
    const file = splitText('');
    return { ...file, lines: withFinalNewline(lines, !(last?.newNoEol ?? false), '\n') };
  }

  private async diff(e: FilePatch, bom: boolean): Promise<void> {
    const oldRel = e.oldPath !== null ? this.resolve(e.oldPath) : null;
    const newRel = e.newPath !== null ? this.resolve(e.newPath) : null;
    const labelOf = (k: number): string => `hunk ${k + 1} of ${e.hunks.length} (reply line ${e.replyLine})`;

    if (oldRel === null && newRel !== null) {
      const w = await this.load(newRel);
      if (w.text !== null) {
        throw new EditError(`${newRel}: the diff creates this file (--- /dev/null) but it already exists; give a diff against its current content instead`);
      }
      w.text = { ...this.newFileFromHunks(newRel, e.hunks), bom };
      return;
    }
    if (oldRel !== null && newRel === null) {
      await this.deleteFile(e, oldRel, labelOf);
      return;
    }
    if (oldRel === null || newRel === null) throw new EditError(`the diff at reply line ${e.replyLine} names neither an old nor a new file`);

    if (oldRel === newRel) {
      const src = await this.load(await this.resolveExisting(e.oldPath!, `the diff at reply line ${e.replyLine}`));
      if (src.text === null) {
        // `--- a/new.ts` with one `@@ -0,0 +1,N @@` of added lines: the model creating the file.
        // Aider's `@@ ... @@` hunk of added lines (no numbers) for a file that does not exist creates it too.
        if (e.hunks.length > 0 && (e.hunks[0]!.oldStart === 0 || e.hunks[0]!.oldStart === undefined) && e.hunks.every((h) => h.lines.every((l) => l.op === '+'))) {
          src.text = { ...this.newFileFromHunks(oldRel, e.hunks), bom };
          return;
        }
        throw new EditError(`${oldRel}: the diff modifies this file but it does not exist; to create it use \`--- /dev/null\``);
      }
      const errors: string[] = [];
      const next = applyHunks(src.rel, src.text, e.hunks, labelOf, this.opts.fuzz, errors);
      if (errors.length > 0) this.errors.push(...errors);
      else src.text = next;
      return;
    }
    await this.twoNames(e, oldRel, newRel, labelOf);
  }

  /** `+++ /dev/null`: deleted only when the hunks' removed lines cover the whole file. */
  private async deleteFile(e: FilePatch, oldRel: string, labelOf: (k: number) => string): Promise<void> {
    const w = await this.load(oldRel);
    if (w.text === null) throw new EditError(`${oldRel}: the diff deletes this file (+++ /dev/null) but it does not exist`);
    if (e.hunks.length === 0 && e.deletedFileMode === true && w.text.lines.some((l) => l.text.trim() !== '')) {
      throw new EditError(
        `${oldRel}: the diff at reply line ${e.replyLine} says \`deleted file mode\` but has no hunk, so the delete cannot be checked against the file's content; it was not deleted. To delete it, give a hunk removing every line (--- a/${oldRel}, +++ /dev/null, @@ -1,N +0,0 @@)`,
      );
    }
    if (e.hunks.length > 0) {
      const errors: string[] = [];
      const left = applyHunks(oldRel, w.text, e.hunks, labelOf, this.opts.fuzz, errors);
      if (errors.length > 0) {
        this.errors.push(...errors);
        return;
      }
      const rest = left.lines.filter((l) => l.text.trim() !== '');
      if (rest.length > 0) {
        throw new EditError(`${oldRel}: the diff deletes this file, but its removed lines do not cover the file: ${rest.length} line(s) would remain, starting with \`${rest[0]!.text.trim()}\`. The file was not deleted.`);
      }
    }
    w.text = null;
  }

  /** Different old and new names: a rename when only the old one exists, the new one when only it does. */
  private async twoNames(e: FilePatch, oldRel: string, newRel: string, labelOf: (k: number) => string): Promise<void> {
    const src = await this.load(oldRel);
    const dst = await this.load(newRel);
    if (src.text !== null && dst.text === null) {
      const errors: string[] = [];
      const next = e.hunks.length > 0 ? applyHunks(oldRel, src.text, e.hunks, labelOf, this.opts.fuzz, errors) : src.text;
      if (errors.length > 0) {
        this.errors.push(...errors);
        return;
      }
      dst.text = next;
      const mode = await this.opts.workspace.mode?.(oldRel);
      if (mode !== undefined) dst.mode = mode;
      src.text = null;
      return;
    }
    if (src.text === null && dst.text !== null) {
      // `--- foo.orig  +++ foo`: the new name is the file meant.
      const errors: string[] = [];
      const next = applyHunks(newRel, dst.text, e.hunks, labelOf, this.opts.fuzz, errors);
      if (errors.length > 0) this.errors.push(...errors);
      else dst.text = next;
      return;
    }
    if (src.text !== null) throw new EditError(`the diff at reply line ${e.replyLine} names two different existing files (${oldRel} and ${newRel}); a diff changes one file`);
    throw new EditError(`the diff at reply line ${e.replyLine} names ${oldRel} and ${newRel}, neither of which exists; to create a file use \`--- /dev/null\``);
  }

  /** Files the planned changes cannot be written to (a FIFO, a folder, a hard link, a file in the path). */
  async refuseUnwritable(changes: readonly FileChange[]): Promise<void> {
    for (const c of changes) {
      if (c.content === null) continue;
      const why = await this.opts.workspace.whyNotWritable?.(c.path);
      if (why !== undefined) this.errors.push(`${why}; the edit was not applied`);
    }
  }

  result(): { files: FileSummary[]; changes: FileChange[]; before: Map<string, Uint8Array | undefined> } {
    const files: FileSummary[] = [];
    const changes: FileChange[] = [];
    const before = new Map<string, Uint8Array | undefined>();
    for (const w of this.work.values()) {
      const content = w.text === null ? null : encodeText(w.text);
      if (sameBytes(content, w.original ?? null)) continue;
      const orig = this.originalText(w.rel);
      const kind: FileSummary['kind'] = w.original === undefined ? 'create' : content === null ? 'delete' : 'modify';
      const asWritten = this.writtenAs.get(w.rel);
      files.push({ path: w.rel, ...(asWritten !== undefined ? { asWritten } : {}), kind, ...countChange(orig, w.text) });
      changes.push({ path: w.rel, content, ...(content !== null && w.mode !== undefined ? { mode: w.mode } : {}) });
      before.set(w.rel, w.original);
    }
    return { files, changes, before };
  }
}

/**
 * A NUL byte would turn a text file binary (to git, to editors, to this product's own reader): an
 * edit that adds one to a file that had none is refused with the reason.
 */
function nulRefusals(changes: readonly FileChange[], before: ReadonlyMap<string, Uint8Array | undefined>): string[] {
  const out: string[] = [];
  for (const c of changes) {
    if (c.content === null || !c.content.includes(0)) continue;
    if (before.get(c.path)?.includes(0)) continue;
    out.push(`${c.path}: the edit puts a NUL byte (\\0) into the file, which would make a text file binary; give the text without it`);
  }
  return out;
}

/** Computes every file's new content; writes nothing. */
export async function computeChanges(edits: readonly ProposedEdit[], opts: ApplyOptions): Promise<ApplyResult> {
  const planner = new Planner(opts);
  for (const e of edits) {
    try {
      await planner.edit(e);
    } catch (err) {
      if (!(err instanceof EditError)) throw err;
      planner.errors.push(err.message);
    }
  }
  const r = planner.result();
  await planner.refuseUnwritable(r.changes);
  const errors = [...planner.errors, ...nulRefusals(r.changes, r.before)];
  if (errors.length === 0 && r.changes.length === 0) errors.push('the edits change nothing: every file already has the content they produce');
  return { applied: false, ...r, errors, conflicts: [] };
}

/** Computes, then writes every change or none. Originals are checkpointed (and flushed) before any write. */
export async function applyEdits(edits: readonly ProposedEdit[], opts: ApplyOptions): Promise<ApplyResult> {
  if (edits.length === 0) {
    return { applied: false, files: [], errors: ['the reply contains no edits'], changes: [], before: new Map(), conflicts: [] };
  }
  const r = await computeChanges(edits, opts);
  return opts.dryRun ? checkConflicts(r, opts) : writeComputed(r, opts);
}

async function checkConflicts(r: ApplyResult, opts: ApplyOptions): Promise<ApplyResult> {
  if (!opts.tracker) return r;
  const conflicts = await opts.tracker.changedSince([...r.before.keys()], r.before);
  if (conflicts.length === 0) return r;
  return { ...r, applied: false, conflicts: conflicts.map((c) => c.path), errors: [...conflicts.map((c) => c.message), ...r.errors] };
}

/**
 * Writes what a dry run computed, all or nothing. Every file is checked again first: one changed
 * on disk (or in an editor) since the dry run read it is a conflict, and nothing is written.
 */
export async function writeComputed(computed: ApplyResult, opts: ApplyOptions): Promise<ApplyResult> {
  if (computed.applied) throw new Error('these changes were already written');
  const r = await checkConflicts({ ...computed, conflicts: [] }, opts);
  if (r.errors.length > 0) return r;
  if (opts.checkpoint) await opts.checkpoint.beginWrite(opts.workspace, r.changes);
  try {
    // Each write is guarded by the content the edit was computed from: a save in between is kept.
    await opts.workspace.apply(r.changes.map((c) => ({ ...c, expect: contentHash(r.before.get(c.path)) })));
  } catch (e) {
    // The batch was rolled back (all of it, or all it could): nothing applied, the OS error fed back.
    // What is left on disk is the run's doing: a later restore may bring it back.
    const unrestored = await recordFailedWrite(e, opts, 'throw');
    // An editor's unsaved changes (VS Code's DirtyEditorError) are someone's work: a conflict, as in checkConflicts.
    const dirty = (e as { name?: string; files?: unknown }).name === 'DirtyEditorError' && Array.isArray((e as { files?: unknown }).files) ? ((e as { files: string[] }).files) : [];
    return { ...r, applied: false, conflicts: dirty, errors: [`the edit was not applied: ${oneLine(e)}`], ...(unrestored.length > 0 ? { unrestored } : {}) };
  }
  if (opts.checkpoint) await opts.checkpoint.endWrite(true);
  opts.tracker?.noteWritten(r.changes);
  return { ...r, applied: true };
}

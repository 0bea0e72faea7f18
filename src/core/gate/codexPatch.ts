// What a Codex `apply_patch` would write, read as Codex reads it (issue 36). Codex's parser
// (codex-rs/apply-patch) trims the whole text and each hunk header before it matches `*** Add
// File: `, `*** Update File: `, `*** Delete File: `; it accepts the patch as a tool's own input, as
// the argument of `["apply_patch", PATCH]`, as a heredoc (`<<'EOF' … EOF`) in that argument, and as a
// `bash -lc` / `sh -c` script `apply_patch <<'EOF' … EOF`, optionally after `cd DIR &&` (the patch's
// paths are then relative to DIR). A guard that reads less than Codex does lets through what Codex
// writes, so this reads more: any line of any string of the tool's input that, trimmed, is a hunk
// header in any case or spacing, names a file the patch may touch. Denying a patch Codex would have
// refused as malformed costs nothing; missing one it applies costs a protected file.
import * as path from 'node:path';

/** A file a patch touches (a ToolWrite of hookHosts.ts, kept here so this file stands alone). */
export interface PatchWrite {
  path: string;
  /** The lines the patch adds to it. */
  addedLines?: string[];
  /** The patch deletes it (or moves it away). */
  deletes?: boolean;
}

const BEGIN = /^\*\*\*\s*begin\s+patch\s*$/i;
const HEADER = /^\*\*\*\s*(add|update|delete)\s+file\s*:\s*(.*?)\s*$/i;
const MOVE = /^\*\*\*\s*move\s+to\s*:\s*(.*?)\s*$/i;
/** `cd DIR && apply_patch` (or `;`): Codex resolves the patch's paths against DIR. */
const CD = /(?:^|[\s;&|(])cd\s+('[^']*'|"[^"]*"|[^\s;&|]+)\s*(?:&&|;)\s*(?:apply_patch|applypatch)\b/;

function unquote(p: string): string {
  return p.replace(/^(['"])(.*)\1$/, '$2');
}

/** Whether a string carries a patch envelope (`*** Begin Patch` on a line of its own, however spaced). */
export function carriesPatch(text: string): boolean {
  return text.split(/\r?\n/).some((l) => BEGIN.test(l.trim()));
}

/**
 * The files one patch text names, with the lines it adds. `base` is the folder its paths are
 * relative to when a `cd DIR &&` precedes it (or the tool's own `workdir`). A moved file is both
 * deleted at its old name and written at its new one.
 */
export function codexPatchWrites(text: string, base?: string): PatchWrite[] {
  const cd = CD.exec(text)?.[1];
  const dir = cd !== undefined ? (base !== undefined ? path.join(base, unquote(cd)) : unquote(cd)) : base;
  const at = (p: string): string => {
    const name = unquote(p);
    return dir === undefined || path.isAbsolute(name) ? name : path.join(dir, name);
  };
  const out: PatchWrite[] = [];
  let current: PatchWrite | undefined;
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    const h = HEADER.exec(t);
    if (h && h[2] !== '') {
      current = { path: at(h[2]!), addedLines: [], ...(h[1]!.toLowerCase() === 'delete' ? { deletes: true } : {}) };
      out.push(current);
      continue;
    }
    const m = MOVE.exec(t);
    if (m && m[1] !== '' && current) {
      // The old name is removed: a move FROM a protected file deletes it.
      current.deletes = true;
      current = { path: at(m[1]!), addedLines: [...(current.addedLines ?? [])] };
      out.push(current);
      continue;
    }
    if (current && line.startsWith('+')) current.addedLines!.push(line.slice(1));
  }
  return out;
}

/** Every string of a tool's input (its fields, arrays such as `command: ["bash","-lc",…]`), depth-bounded. */
function stringsOf(v: unknown, out: string[], depth = 0): string[] {
  if (depth > 6) return out;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out, depth + 1);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) stringsOf(x, out, depth + 1);
  return out;
}

/**
 * The writes of every patch a tool's input carries, whatever the tool is called (Codex's
 * `apply_patch`, its shell tool running `apply_patch <<'EOF'`, a JSON-string argument), or null
 * when no string of it carries a patch envelope.
 */
export function patchWritesIn(input: unknown): PatchWrite[] | null {
  const o = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : null;
  const workdir = o && typeof o.workdir === 'string' && o.workdir !== '' ? o.workdir : undefined;
  const patches = stringsOf(input, []).filter(carriesPatch);
  if (patches.length === 0) return null;
  return patches.flatMap((p) => codexPatchWrites(p.replace(/\r\n/g, '\n'), workdir));
}

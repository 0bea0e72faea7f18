// Applies a reply's edits atomically: every file's new content is computed in memory first.
import { applyPatch } from 'diff';
import type { Checkpoint } from './checkpoint';
import type { ProposedEdit } from './parse';
import type { PathPolicy } from './paths';
import { resolveEditPath } from './paths';
import type { FileChange, Workspace } from './workspace';

export interface FileSummary {
  path: string;
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
}

export interface ApplyOptions {
  workspace: Workspace;
  policy: PathPolicy;
  checkpoint?: Checkpoint;
  dryRun?: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decode(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

export async function computeChanges(edits: readonly ProposedEdit[], opts: ApplyOptions): Promise<ApplyResult> {
  const errors: string[] = [];
  const files: FileSummary[] = [];
  const changes: FileChange[] = [];
  const before = new Map<string, Uint8Array | undefined>();
  const pending = new Map<string, string | null>();

  for (const e of edits) {
    const target = e.newPath ?? e.oldPath;
    if (target === null) {
      errors.push('a diff names neither an old nor a new file');
      continue;
    }
    const checked = resolveEditPath(target, opts.policy);
    if (!checked.ok) {
      errors.push(checked.reason);
      continue;
    }
    const rel = checked.rel;
    if (!before.has(rel)) before.set(rel, await opts.workspace.read(rel));
    const bytes = before.get(rel);
    let current: string | null;
    if (pending.has(rel)) current = pending.get(rel)!;
    else if (bytes === undefined) current = null;
    else {
      const text = decode(bytes);
      if (text === undefined || text.includes('\0')) {
        errors.push(`${rel}: binary file refused`);
        continue;
      }
      current = text;
    }

    const added = e.patch.hunks.reduce((n, h) => n + h.lines.filter((l) => l.startsWith('+')).length, 0);
    const removed = e.patch.hunks.reduce((n, h) => n + h.lines.filter((l) => l.startsWith('-')).length, 0);

    if (e.newPath === null) {
      if (current === null) {
        errors.push(`${rel}: cannot delete a file that does not exist`);
        continue;
      }
      pending.set(rel, null);
      files.push({ path: rel, kind: 'delete', added: 0, removed: current.split('\n').length });
      continue;
    }
    if (e.oldPath === null && current !== null) {
      errors.push(`${rel}: the diff creates this file but it already exists`);
      continue;
    }
    const result = applyPatch(current ?? '', e.patch, { fuzzFactor: 2 });
    if (result === false) {
      const first = e.patch.hunks[0];
      const head = first ? first.lines.slice(0, 3).join('\n') : '';
      errors.push(`${rel}: a hunk did not match the file's current content; it starts:\n${head}`);
      continue;
    }
    pending.set(rel, result);
    files.push({ path: rel, kind: current === null ? 'create' : 'modify', added, removed });
  }

  for (const [rel, text] of pending) changes.push({ path: rel, content: text === null ? null : Buffer.from(text, 'utf8') });
  return { applied: false, files, errors, changes, before };
}

/** Computes, then writes every change or none. Originals are checkpointed before any write. */
export async function applyEdits(edits: readonly ProposedEdit[], opts: ApplyOptions): Promise<ApplyResult> {
  if (edits.length === 0) {
    return { applied: false, files: [], errors: ['the reply contains no edits'], changes: [], before: new Map() };
  }
  const r = await computeChanges(edits, opts);
  if (r.errors.length > 0 || opts.dryRun) return r;
  if (opts.checkpoint) await opts.checkpoint.saveOriginals(opts.workspace, r.changes);
  await opts.workspace.apply(r.changes);
  return { ...r, applied: true };
}

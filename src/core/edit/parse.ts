// Finds the edits in a model reply. Prose around them is ignored.
import { parsePatch } from 'diff';
import type { StructuredPatch } from 'diff';
import type { EditFormat } from '../settings';

export interface FilePatch {
  kind: 'diff';
  /** Path as the model wrote it (prefixes stripped later by path resolution). */
  oldPath: string | null;
  newPath: string | null;
  patch: StructuredPatch;
}

export type ProposedEdit = FilePatch;

export interface ParsedReply {
  edits: ProposedEdit[];
  errors: string[];
}

const FENCE = /```[ \t]*(diff|patch|udiff)?[^\n]*\n([\s\S]*?)```/g;

function diffTexts(reply: string): string[] {
  const texts: string[] = [];
  for (const m of reply.matchAll(FENCE)) {
    const body = m[2] ?? '';
    if (m[1] !== undefined || /^(---|\+\+\+|@@) /m.test(body)) texts.push(body);
  }
  if (texts.length === 0 && /^--- .*\n\+\+\+ /m.test(reply)) texts.push(reply.slice(reply.search(/^--- /m)));
  return texts;
}

function cleanName(name: string | undefined): string | null {
  if (name === undefined) return null;
  const n = name.split('\t')[0]!.trim();
  if (n === '/dev/null' || n === '') return null;
  return n.replace(/^(?:a|b)\//, '');
}

export function parseReply(reply: string, format: EditFormat = 'auto'): ParsedReply {
  const edits: ProposedEdit[] = [];
  const errors: string[] = [];
  if (format === 'search-replace') return { edits, errors: ['search/replace blocks are not supported by this build; use unified diffs'] };
  for (const text of diffTexts(reply)) {
    let patches: StructuredPatch[];
    try {
      patches = parsePatch(text.replace(/\r\n/g, '\n'));
    } catch (e) {
      errors.push(`could not parse the diff: ${(e as Error).message}`);
      continue;
    }
    for (const p of patches) {
      if (p.hunks.length === 0 && !p.oldFileName && !p.newFileName) continue;
      edits.push({ kind: 'diff', oldPath: cleanName(p.oldFileName), newPath: cleanName(p.newFileName), patch: p });
    }
  }
  return { edits, errors };
}

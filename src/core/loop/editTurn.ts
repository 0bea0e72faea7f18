// A step's edit turn: parse the reply, compute the edit without writing (a dry run), let the
// proposal critics review exactly that, and write it only if none objects. Returns a value.
import type { ApplyOptions, ApplyResult } from '../edit/apply';
import { applyEdits, writeComputed } from '../edit/apply';
import { parseReply } from '../edit/parse';
import type { ProviderReplyError } from '../model/provider';
import type { CriticsResult, CriticVerdict, Proposal, ProposedFile } from '../policy/critics';
import type { Decision } from '../policy/reasons';
import type { EditFormat } from '../settings';
import { replyFeedback } from './notes';

export interface EditTurn {
  /** The computed (and, when `applied`, written) edit; undefined when the reply had none to compute. */
  result?: ApplyResult;
  applied: boolean;
  verdicts: CriticVerdict[];
  criticStop?: CriticVerdict;
  /** A proposal critic asked for a retry: nothing was written. */
  refused: boolean;
  /** Why nothing was written, in the words the model and the step record get. */
  error: string | null;
  /** Files changed on disk since the run last saw them: nothing was written and the run must stop. */
  conflict?: Decision;
}

export interface EditTurnDeps {
  editFormat: EditFormat;
  apply: ApplyOptions;
  review: (p: Proposal) => Promise<CriticsResult>;
}

function textOf(b: Uint8Array | null | undefined): string | null {
  if (!b) return null;
  const t = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
  return t.includes('\0') ? null : t;
}

/** The files of a computed edit as the critics see them: text before and after. */
export function proposedFiles(r: ApplyResult): ProposedFile[] {
  const after = new Map(r.changes.map((c) => [c.path, c.content]));
  return r.files.map((f) => ({ path: f.path, ...(f.asWritten !== undefined ? { asWritten: f.asWritten } : {}), kind: f.kind, before: textOf(r.before.get(f.path)), after: f.kind === 'delete' ? null : textOf(after.get(f.path)) }));
}

/** A file changed outside the run since it last read or wrote it is never overwritten: the run stops. */
export function conflictStop(r: ApplyResult, step: number): Decision | undefined {
  if (r.conflicts.length === 0) return undefined;
  return { reason: 'error', detail: `${r.errors.slice(0, r.conflicts.length).join('; ')}; the run stopped at step ${step}`, evidence: { files: r.conflicts } };
}

/** A write that failed part way and could not put every file back: the run must stop and say which. */
function unrestoredStop(r: ApplyResult, step: number): Decision | undefined {
  if (!r.unrestored || r.unrestored.length === 0) return undefined;
  const files = r.unrestored.map((u) => `${u.path} (${u.error})`).join('; ');
  return { reason: 'error', detail: `${r.errors.join('; ')}; these file(s) could not be put back: ${files}; the run stopped at step ${step} (Revert run restores them from the checkpoint)`, evidence: { files: r.unrestored.map((u) => u.path) } };
}

/** The model's answer as the edit turn reads it. */
export interface ModelReply {
  text: string;
  /** The answer carried nothing usable (its text is empty). */
  replyError?: ProviderReplyError | undefined;
  /** Why the provider ended the reply: one cut off at the output limit is not applied. */
  stopReason?: string | undefined;
}

export async function editTurn(d: EditTurnDeps, step: number, reply: ModelReply): Promise<EditTurn> {
  const none = { applied: false, verdicts: [], refused: false };
  const { text, replyError } = reply;
  const parsed = replyError ? { edits: [], errors: [replyFeedback(replyError)] } : parseReply(text, d.editFormat, { stopReason: reply.stopReason });
  if (parsed.errors.length > 0) return { ...none, error: parsed.errors.join('\n') };

  const proposed = await applyEdits(parsed.edits, { ...d.apply, dryRun: true });
  const early = conflictStop(proposed, step);
  if (early) return { ...none, result: proposed, error: proposed.errors.join('\n'), conflict: early };
  if (proposed.errors.length > 0) return { ...none, result: proposed, error: proposed.errors.join('\n') };

  const review = await d.review({ step, reply: text, files: proposedFiles(proposed) });
  if (review.stop) {
    return { ...none, result: proposed, verdicts: review.verdicts, criticStop: review.stop, error: `critic ${review.stop.critic} stopped the run: ${review.stop.reason}` };
  }
  if (review.verdict === 'retry') {
    const why = review.retries.map((r) => `${r.critic}: ${r.reason}`).join('\n');
    return { ...none, result: proposed, verdicts: review.verdicts, refused: true, error: `Your edit was not applied: ${why}` };
  }
  const written = await writeComputed(proposed, d.apply);
  const late = conflictStop(written, step) ?? unrestoredStop(written, step);
  return {
    result: written,
    applied: written.applied,
    verdicts: review.verdicts,
    refused: false,
    error: written.applied ? null : written.errors.join('\n'),
    ...(late ? { conflict: late } : {}),
  };
}

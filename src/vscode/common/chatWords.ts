// The words of an `@fix` answer, as an agent's answer reads: a short list of steps (what the checks
// found before any edit, each step's files and what is left) and one closing sentence; no reason id,
// outcome, evidence, identity hash, run id or storage path (the panel's details keep those). No
// `vscode` import: unit-tested.
import type { HeldState, RunReport, TimedEvent } from '../../core/trace/events';
import { explainStop, stopMessage } from './explain';

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Markdown text with the characters that would format escaped (file names, messages). */
export function md(s: string): string {
  return s.replace(/[\\`*_{}[\]<>#|]/g, (c) => `\\${c}`);
}

/** A check pass as one line of the response: `- Step 1: edited \`src/cart.ts\` → 1 failure left`. */
export function stepLine(e: Extract<TimedEvent, { type: 'verify' }>, files: readonly string[] | undefined, notApplied: string | undefined): string {
  const result = e.green ? '**green**' : `${plural(e.failureCount, 'failure')}${e.reason === 'initial' ? '' : ' left'}`;
  if (e.reason === 'initial') return `- Before any edit: ${result}`;
  if (e.reason === 'rollback') return `- Step ${e.step}: rolled back, ${result}`;
  const what = files ? `edited ${files.map((f) => `\`${md(f)}\``).join(', ')}` : `no edit applied (${md(notApplied ?? 'none')})`;
  return `- Step ${e.step}: ${what} → ${result}`;
}

/**
 * How a run ended, in the one sentence a newcomer reads (and what the files hold): no reason id,
 * outcome, evidence, hash or trace path, which the panel's details keep.
 */
export function stopMarkdown(r: RunReport, held: HeldState | null = r.held ?? null): string {
  return `\n${md(stopMessage(explainStop({ ...r, held })))}\n`;
}

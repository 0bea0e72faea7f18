// The words of an `@fix` answer, as an agent's answer reads: a short list of steps (what the checks
// found before any edit, each step's files and what is left) and one closing sentence; no reason id,
// outcome, evidence, identity hash, run id or storage path (the panel's details keep those). `/checks`
// answers a person the same way (issue 40): each failure by its place and values, never the compact
// report the Language Model Tools give a model (identity, seen counts, `[tsc TS2322]`, diff legends).
// No `vscode` import: unit-tested.
import type { Progress } from '../../core/gate/seen';
import { ERROR_HEAD, failureHeadline } from '../../core/headline';
import type { ModelNames } from '../../core/modelName';
import { modelName } from '../../core/modelName';
import type { HeldState, RunReport, TimedEvent } from '../../core/trace/events';
import type { Failure, VerifyResult } from '../../core/types';
import { explainStop, stopMessage } from './explain';
import { checkWords, kindOf } from './stepWords';

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
export function stopMarkdown(r: RunReport, held: HeldState | null = r.held ?? null, modelNames?: ModelNames): string {
  return `\n${md(stopMessage(explainStop({ ...r, held, ...(modelNames ? { modelNames } : {}) })))}\n`;
}

/** The run's first line: "Working with Scripted Test Model, at most 8 steps." */
export function workingLine(e: Extract<TimedEvent, { type: 'run-start' }>): string {
  return `Working with ${md(modelName(e.model, e.names))}, at most ${plural(e.limits.maxSteps, 'step')}.`;
}

/** How many failures `/checks` lists in the answer; the rest are in the Problems panel, one button away. */
export const CHAT_FAILURES_SHOWN = 20;

/** A failure as `/checks` lists it: its place (the response's link) and what it says, in words. */
export interface ChatFailure {
  file?: string;
  line?: number;
  column?: number;
  /** Markdown: the test's name and its values, or the checker's message (and a lint rule's name). */
  text: string;
}

/** A value on one line, short enough for a chat line. */
function oneLine(v: string, max = 160): string {
  const flat = v.split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A failure in a person's words: a test by its name and its values ("expected '12.05 EUR', got
 * '12.5 EUR'", as the Problems entry says it), a type error or a lint problem by its message (a rule
 * named after it; a TypeScript code is not), never a diff legend, caret, stack or code frame.
 */
export function chatFailure(f: Failure, parser?: Parameters<typeof kindOf>[0]): ChatFailure {
  const kind = kindOf(parser);
  const first = oneLine(f.message.split('\n').map((l) => l.trim()).find((l) => l !== '')?.replace(ERROR_HEAD, '') ?? '');
  let text: string;
  if (f.values) text = `**${md(f.id ?? f.check)}**: expected ${md(oneLine(f.values.expected))}, got ${md(oneLine(f.values.actual))}`;
  else if (kind === 'types') text = md(first || failureHeadline(f));
  else if (kind === 'lint') text = `${md(first || failureHeadline(f))}${f.id ? ` (${md(f.id)})` : ''}`;
  else if (f.id && kind === 'tests') text = `**${md(f.id)}**${first ? `: ${md(first)}` : ''}`;
  else text = md(oneLine(failureHeadline(f)));
  return { ...(f.file ? { file: f.file } : {}), ...(f.line ? { line: f.line } : {}), ...(f.column ? { column: f.column } : {}), text };
}

/** Where a failure is, as its link reads: `src/tax.ts:3`. */
export function placeOf(f: Pick<ChatFailure, 'file' | 'line'>): string {
  return `${f.file ?? ''}${f.line ? `:${f.line}` : ''}`;
}

/**
 * The first lines of a `/checks` answer: green, or how many failures in how many files and each
 * check in the panel's words ("type check: 1 error · tests: 3 failing").
 */
export function checksHead(v: Pick<VerifyResult, 'green' | 'failures' | 'checks'>): string {
  if (v.green) return '**Green:** every check passes.';
  const files = new Set(v.failures.map((f) => f.file).filter((f) => f !== undefined)).size;
  const where = files > 0 ? ` in ${plural(files, 'file')}` : '';
  const checks = v.checks
    .filter((c) => c.timedOut || c.exitCode !== 0 || c.failures.length > 0)
    .map((c) => checkWords({ name: c.name, exitCode: c.exitCode, failureCount: c.failures.length, timedOut: c.timedOut, ...(c.parser ? { parser: c.parser } : {}) }))
    .join(' · ');
  return `**Not green:** ${plural(v.failures.length, 'failure')}${where}${checks ? ` (${md(checks)})` : ''}.`;
}

/** What this pass says against the last one of the session, in a person's words; empty the first time. */
export function checksProgress(p: Progress, attemptsAgo: number | null): string {
  switch (p) {
    case 'repeat':
      return attemptsAgo === 1 ? 'The same failures as the last check.' : 'The same failures as an earlier check.';
    case 'progress':
      return 'Fewer failures than the last check.';
    case 'regressed':
      return 'More failures than the last check.';
    case 'moved':
      return 'Different failures from the last check.';
    case 'first':
    case 'green':
      return '';
  }
}

/** Flaky failures are not counted: said once, in words. */
export function flakyNote(n: number): string {
  if (n === 0) return '';
  return n === 1 ? 'One more failure did not come back on a re-run, so it is not counted.' : `${n} more failures did not come back on a re-run, so they are not counted.`;
}

// Every stop in a sentence a newcomer reads: what happened and what is left, in plain words. The
// engine's detail (hashes, thresholds, critic names) stays available as the technical detail for a
// tooltip or an expandable section. Pure and free of Node and `vscode` imports: the panel's webview
// bundle, the notifications and the status bar all say the same thing, and the unit tests read it.
import type { Outcome, StopReason } from '../../core/policy/reasons';
import type { HeldState } from '../../core/trace/events';
import type { Failure } from '../../core/types';
import { failureHeadline, tellingFailure } from '../../core/headline';
import { formatMoney } from '../../core/money';
import type { ModelNames } from '../../core/modelName';
import { modelName } from '../../core/modelName';
import { explainError } from './fixActions';

/** What a stop sentence is built from: a RunState and a RunReport both have these. */
export interface StopFacts {
  stopReason: StopReason;
  outcome: Outcome | null;
  detail: string | null;
  steps: readonly StepFacts[];
  remainingFailures: readonly Failure[];
  limits: { maxSteps: number; tokenCeiling: number; timeLimitSeconds: number; costCeiling?: number };
  /** The models the run escalated to, in order (absent in states saved before escalation existed). */
  escalations?: readonly EscalationFacts[];
  /** What the workspace holds after the stop (the report's); absent in states saved before. */
  held?: HeldState | null;
  initialFailureCount?: number | null;
  /** How a person names the run's models, by label (RunState.modelNames); absent: by their ids. */
  modelNames?: ModelNames;
}

/** What an escalation sentence is built from: the `escalated` event has these. */
export interface EscalationFacts {
  step: number;
  reason: StopReason;
  from: string;
  to: string;
}

/** Why a model handed over, in the words of the stop sentences. */
const HANDOVER_WHY: Partial<Record<StopReason, string>> = {
  stalled: 'made no progress',
  'low-confidence': 'was unsure of its edit',
  unreachable: 'said it cannot fix this',
  'budget-depleted': 'kept failing while unsure of itself',
};

/** "Escalated to big-coder after step 2: small-coder made no progress." */
export function explainEscalation(e: EscalationFacts, names?: ModelNames): string {
  return `Escalated to ${modelName(e.to, names)} after step ${e.step}: ${modelName(e.from, names)} ${HANDOVER_WHY[e.reason] ?? 'stopped'}.`;
}

/** What the stop sentence adds when the run went up the ladder: who was tried. */
function ladderNote(f: StopFacts): string {
  const esc = f.escalations ?? [];
  if (esc.length === 0) return '';
  const last = esc[esc.length - 1]!;
  const to = modelName(last.to, f.modelNames);
  const times = esc.length === 1 ? 'one escalation' : `${esc.length} escalations`;
  if (f.stopReason === 'green') return ` ${to} finished it after ${esc.length === 1 ? 'taking over' : `${esc.length} escalations`}.`;
  if (f.stopReason in HANDOVER_WHY) return ` The ladder is exhausted: ${to}, its last model, stopped too (after ${times}).`;
  return ` ${to} was at work, after ${times}.`;
}

/** What a step row contributes to the sentences: a RunState's StepView and a report's StepRecord both have these. */
export interface StepFacts {
  index: number;
  applied?: boolean;
  failureCount?: number;
  rolledBack?: 'previous' | 'best' | null;
}

export interface StopExplanation {
  /** One sentence that leads: "Stopped: no progress — …". */
  sentence: string;
  /** The engine's own words (hashes, thresholds), for a tooltip or an expandable detail. */
  technical: string;
  /** What the workspace holds after a non-green stop ("Kept step 1 (best: 1 failure left); step 2 undone."); null when nothing needs saying. */
  held: string | null;
}

/** The sentence and what the workspace holds, as one message (notifications). */
export function stopMessage(e: StopExplanation): string {
  return e.held ? `${e.sentence} ${e.held}` : e.sentence;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "1 failure left (applyDiscount: 20 !== 180)", "3 failures left (…, and 2 more)", "no failures left". */
export function failuresLeft(failures: readonly Failure[]): string {
  if (failures.length === 0) return 'no failures left';
  const more = failures.length > 1 ? `, and ${failures.length - 1} more` : '';
  return `${plural(failures.length, 'failure')} left (${failureHeadline(tellingFailure(failures))}${more})`;
}

/** "step 2", "steps 2 and 3", "steps 2, 4 and 5", "5 later steps". */
function stepList(indexes: readonly number[]): string {
  if (indexes.length === 1) return `step ${indexes[0]}`;
  if (indexes.length > 4) return `${indexes.length} later steps`;
  return `steps ${indexes.slice(0, -1).join(', ')} and ${indexes[indexes.length - 1]}`;
}

/**
 * What the workspace holds after a non-green stop, in a sentence: which step's files were kept and
 * which steps' edits were undone. Null for a green run, a run that changed nothing, and a stop
 * whose restore met a conflict (its sentence names the files instead).
 */
export function explainHeld(f: StopFacts): string | null {
  const held = f.held;
  if (!held || f.stopReason === 'green') return null;
  const applied = f.steps.filter((x) => x.applied && !x.rolledBack);
  if (applied.length === 0) return null;
  if (held.target === 'initial' || held.step === 0) {
    const why = held.target === 'initial' && f.outcome === 'punt' ? 'Nothing improved, so every step was undone' : 'Every step was undone';
    return `${why}: your files are as they were before the run.`;
  }
  const count = f.steps.find((x) => x.index === held.step)?.failureCount;
  const left = count === undefined ? '' : `${count === 0 ? 'no' : count} failure${count === 1 ? '' : 's'} left`;
  const undone = applied.filter((x) => x.index > held.step).map((x) => x.index);
  if (undone.length === 0) return `Kept step ${held.step}${left ? ` (${left})` : ''}.`;
  return `Kept step ${held.step} (${held.target === 'best' ? 'best: ' : ''}${left || 'fewest failures'}); ${stepList(undone)} undone.`;
}

function lastStep(f: StopFacts): number {
  return f.steps.length > 0 ? f.steps[f.steps.length - 1]!.index : 0;
}

function minutes(seconds: number): string {
  return seconds % 60 === 0 ? plural(seconds / 60, 'minute') : plural(seconds, 'second');
}

/** The critics' names as a user reads them. */
const GUARDS: Record<string, string> = {
  'protected-paths': 'the protected-paths guard',
  'no-suppressions': 'the no-suppressions guard (no @ts-ignore, eslint-disable, .skip)',
  'rollback-regressions': 'the regression guard',
  'verifier-integrity': 'the verifier-integrity guard',
};

function criticStopSentence(detail: string): string {
  const m = /^critic (\S+) said stop at step (\d+): ([\s\S]*)$/.exec(detail);
  if (!m) return `Stopped: a guard stopped the run (${detail}).`;
  const [, critic, step, reason] = m;
  if (critic === 'verifier-integrity') {
    const files = /changed on disk during the run: ([^;]+)/.exec(reason!)?.[1];
    return `Stopped: what defines the checks changed on disk during step ${step}${files ? ` (${files})` : ''}, so the checks are no longer the ones the run started with.`;
  }
  return `Stopped: ${GUARDS[critic!] ?? `the ${critic} guard`} stopped step ${step}: ${reason!.split('\n')[0]}.`.replace(/\.\.$/, '.');
}

function errorSentence(detail: string, names: ModelNames | undefined): string {
  // A restore that met a file someone else changed (loop/restorer.ts).
  const restore = /could not restore the state of step (\d+): (.*?); the run's version is kept/.exec(detail);
  if (restore) {
    const why = restore[2]!.replace(/; left as (the user has it|it is)/g, '');
    const to = restore[1] === '0' ? 'what they were before the run' : `step ${restore[1]}`;
    return `Stopped: the files could not be put back to ${to}, because ${why}. Your version is kept; Revert run offers the run's.`;
  }
  const conflict = /^(.*); the run stopped at step (\d+)$/.exec(detail);
  if (conflict && /changed (on disk|since)|modified/.test(conflict[1]!)) return `Stopped at step ${conflict[2]}: a file changed outside the run, so the edit was not written (${conflict[1]}).`;
  return `Stopped by an error: ${explainError(detail, names).message}`;
}

/** The sentence that leads every stop, and the engine's words behind it. */
export function explainStop(f: StopFacts): StopExplanation {
  const detail = f.detail ?? '';
  const outcome = f.outcome ? ` (${f.outcome})` : '';
  const technical = `${f.stopReason}${outcome}${detail ? `: ${detail}` : ''}`;
  const left = failuresLeft(f.remainingFailures);
  const step = lastStep(f);
  // A continuation resumes from what the workspace holds, which is not always the last step.
  const from = f.held && f.held.step < step ? f.held.step : undefined;
  // "Step 0" is the engine's name for the files before the run: a person reads "where it started".
  const resume = (more: string): string => (from === undefined ? `Continue gives it more ${more}.` : `Continue resumes from ${from === 0 ? 'where it started' : `step ${from}`} with more ${more}.`);
  const sentence = ((): string => {
    switch (f.stopReason) {
      case 'green':
        return step === 0 ? 'Green: every check already passes; nothing to fix.' : `Green: every check passes after step ${step}.`;
      case 'stalled': {
        const times = Number(/seen (\d+) times/.exec(detail)?.[1] ?? 0) || f.steps.length;
        const rf = f.remainingFailures;
        const what = rf.length === 0 ? 'the same failures' : rf.length === 1 ? `the same failure (${failureHeadline(rf[0]!)})` : `the same ${rf.length} failures (${failureHeadline(tellingFailure(rf))}, and ${rf.length - 1} more)`;
        return `Stopped: no progress — ${what} came back ${plural(times, 'time')}.`;
      }
      case 'step-cap':
        return `Stopped: all ${plural(f.limits.maxSteps, 'step')} used; ${left}. ${resume('steps')}`;
      case 'token-ceiling':
        return `Stopped: the token budget (${f.limits.tokenCeiling.toLocaleString('en-US')}) is spent; ${left}. ${resume('tokens')}`;
      case 'cost-ceiling':
        return `Stopped: the next model call could have cost more than what is left of the cost ceiling${f.limits.costCeiling ? ` (${formatMoney(f.limits.costCeiling)})` : ''}, so it was not made; ${left}.`;
      case 'time-limit':
        return `Stopped: the time limit (${minutes(f.limits.timeLimitSeconds)}) ran out; ${left}.`;
      case 'cancelled':
        return `Stopped by you${step > 0 ? ` after step ${step}` : ''}; ${left}.`;
      case 'critic-stop':
        return criticStopSentence(detail);
      case 'budget-depleted':
        return `Stopped: the model kept failing while unsure of itself (its confidence budget ran out at step ${step}); ${left}.`;
      case 'low-confidence': {
        const m = /CONFIDENCE ([\d.]+) at step (\d+) is below escalateBelowConfidence ([\d.]+)/.exec(detail);
        return m ? `Stopped: the model was unsure at step ${m[2]} (confidence ${m[1]}, below the ${m[3]} you set); ${left}.` : `Stopped: the model was unsure of its edit; ${left}.`;
      }
      case 'unreachable':
        return `Stopped: the model says it cannot fix this (it reported "blocked" at step ${step}); ${left}.`;
      case 'preflight-failed':
        return `Did not start: ${explainError(detail, f.modelNames).message}`;
      case 'error':
        return errorSentence(detail, f.modelNames);
    }
  })();
  return { sentence: sentence + ladderNote(f), technical, held: explainHeld(f) };
}

/**
 * Why a step's edit was not applied, in one line: the file, the hunk that did not match, and why
 * (from the edit event's errors, else the step record's feedback); the full text stays expandable.
 */
export function notAppliedWhy(errors: readonly string[], feedback: string | null): string {
  const text = errors.length > 0 ? errors.join('\n') : (feedback ?? '');
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length === 0) return 'the reply held no edit that could be applied';
  const first = lines[0]!.replace(/^Your edit was not applied: /, 'refused: ');
  const hunk = /^(.+?): (.+?) did not match the file's current content\./.exec(first);
  if (hunk) {
    const because = /rejected because (.+?)\.?$/.exec(lines.find((l) => l.startsWith('Closest region')) ?? '')?.[1];
    const none = lines.some((l) => l.startsWith('No region of the file resembles it'));
    return `${hunk[1]}: ${hunk[2]} did not match the file${because ? ` (${because})` : none ? ' (no part of the file resembles it)' : ''}`;
  }
  const ambiguous = /^(.+?): (.+?) matches (\d+) places equally well/.exec(first);
  if (ambiguous) return `${ambiguous[1]}: ${ambiguous[2]} matches ${ambiguous[3]} places, so it was not guessed`;
  // Whole: a reason cut mid-sentence says nothing (issue 40); the panel wraps it.
  return first;
}

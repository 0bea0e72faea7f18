// Critics (DESIGN §3): each sees the loop's state and either a proposed edit (before it is written)
// or a step's result (after the checks ran), and answers continue | retry | stop with a reason.
// A retry rolls the step's edit back and re-prompts with the reason; a stop ends the run with
// `critic-stop`. Front ends add their own critics through RunOptions; the built-ins are below.
import picomatch from 'picomatch';
import type { Settings } from '../settings';
import type { Failure } from '../types';
import type { StateSummary } from './outcome';
import { failureCount, failureId, failureIds } from './outcome';

export type CriticVerdictKind = 'continue' | 'retry' | 'stop';
export type CriticPhase = 'proposal' | 'result';

export interface CriticAnswer {
  verdict: CriticVerdictKind;
  reason: string;
  score?: number;
  /** Where a retry rolls back to: the state before this step (default) or the run's best state. */
  rollbackTo?: 'previous' | 'best';
}

/** One critic's answer as the trace and the step record keep it. */
export interface CriticVerdict extends CriticAnswer {
  critic: string;
  phase: CriticPhase;
}

export interface ProposedFile {
  /** Workspace-relative path with forward slashes. */
  path: string;
  kind: 'create' | 'modify' | 'delete';
  /** Text before the edit (null when the file did not exist or is not text). */
  before: string | null;
  /** Text after the edit (null when the edit deletes the file). */
  after: string | null;
  /**
   * The name the edit used, when it differs from `path`, the file's real name (a folder link,
   * `..` through a link, another case on a case-insensitive disk). Rules judge both (`namesOf`).
   */
  asWritten?: string;
}

/** Every name a proposed file goes by: its real path, and the one the edit wrote when different. */
export function namesOf(f: Pick<ProposedFile, 'path' | 'asWritten'>): string[] {
  return f.asWritten !== undefined && f.asWritten !== f.path ? [f.path, f.asWritten] : [f.path];
}

export interface Proposal {
  step: number;
  reply: string;
  files: readonly ProposedFile[];
}

export interface StepOutcome extends StateSummary {
  failureHash: string;
  files: readonly ProposedFile[];
}

export interface CriticState {
  step: number;
  settings: Settings;
  initial: StateSummary;
  best: StateSummary;
  /** The state this step started from. */
  previous: StateSummary;
}

export interface Critic {
  readonly name: string;
  reviewProposal?(p: Proposal, s: CriticState): CriticAnswer | Promise<CriticAnswer>;
  reviewResult?(r: StepOutcome, s: CriticState): CriticAnswer | Promise<CriticAnswer>;
}

/** A critic that threw or answered something that is not a verdict: the run stops with `error`. */
export class CriticFault extends Error {
  constructor(readonly critic: string, message: string) {
    super(`critic ${critic}: ${message}`);
    this.name = 'CriticFault';
  }
}

const VERDICTS: readonly CriticVerdictKind[] = ['continue', 'retry', 'stop'];

function checkAnswer(critic: string, a: unknown): CriticAnswer {
  const o = a as Partial<CriticAnswer> | null;
  if (typeof o !== 'object' || o === null) throw new CriticFault(critic, `answered ${JSON.stringify(a)}, not {verdict, reason}`);
  if (!VERDICTS.includes(o.verdict as CriticVerdictKind)) throw new CriticFault(critic, `answered verdict ${JSON.stringify(o.verdict)}, not one of ${VERDICTS.join(', ')}`);
  if (typeof o.reason !== 'string' || o.reason.trim() === '') throw new CriticFault(critic, 'answered without a reason');
  if (o.score !== undefined && (typeof o.score !== 'number' || !Number.isFinite(o.score))) throw new CriticFault(critic, `answered score ${JSON.stringify(o.score)}, not a finite number`);
  if (o.rollbackTo !== undefined && o.rollbackTo !== 'previous' && o.rollbackTo !== 'best') throw new CriticFault(critic, `answered rollbackTo ${JSON.stringify(o.rollbackTo)}`);
  const out: CriticAnswer = { verdict: o.verdict as CriticVerdictKind, reason: o.reason };
  if (o.score !== undefined) out.score = o.score;
  if (o.rollbackTo !== undefined) out.rollbackTo = o.rollbackTo;
  return out;
}

export interface CriticsResult {
  verdicts: CriticVerdict[];
  /** stop beats retry beats continue. */
  verdict: CriticVerdictKind;
  /** The first critic that said stop. */
  stop?: CriticVerdict;
  /** Every critic that said retry. */
  retries: CriticVerdict[];
  rollbackTo: 'previous' | 'best';
}

/** Asks every critic that reviews this phase, in order; every answer is kept. */
export async function runCritics(
  critics: readonly Critic[],
  phase: CriticPhase,
  subject: Proposal | StepOutcome,
  state: CriticState,
): Promise<CriticsResult> {
  const verdicts: CriticVerdict[] = [];
  for (const c of critics) {
    const fn = phase === 'proposal' ? c.reviewProposal : c.reviewResult;
    if (!fn) continue;
    let raw: unknown;
    try {
      raw = await (fn as (x: Proposal | StepOutcome, s: CriticState) => CriticAnswer | Promise<CriticAnswer>).call(c, subject, state);
    } catch (e) {
      throw new CriticFault(c.name, `threw while reviewing the ${phase}: ${e instanceof Error ? e.message : String(e)}`);
    }
    verdicts.push({ critic: c.name, phase, ...checkAnswer(c.name, raw) });
  }
  const stop = verdicts.find((v) => v.verdict === 'stop');
  const retries = verdicts.filter((v) => v.verdict === 'retry');
  return {
    verdicts,
    verdict: stop ? 'stop' : retries.length > 0 ? 'retry' : 'continue',
    ...(stop ? { stop } : {}),
    retries,
    rollbackTo: retries.some((r) => r.rollbackTo === 'best') ? 'best' : 'previous',
  };
}

// ---------------------------------------------------------------------------------------------
// Built-in critics

/**
 * The `protectedPaths` globs as picomatch patterns over workspace-relative paths. Users write them
 * as in .gitignore: a leading `/` (or `./`) roots an entry at the folder, which is where the paths
 * it is matched against already start (left as it is, `/x` would match nothing); an entry that
 * names a folder (`config`, `config/`) covers everything below it too.
 */
export function protectedPathPatterns(globs: readonly string[]): string[] {
  const out: string[] = [];
  for (const g of globs) {
    const rooted = g.trim().replace(/^(?:\.?\/)+/, '').replace(/\/+$/, '');
    if (rooted === '') continue;
    out.push(rooted);
    if (!rooted.endsWith('/**')) out.push(`${rooted}/**`);
  }
  return out;
}

/** Edits to test files or anything matching `protectedPaths` → retry. */
export function protectedPathsCritic(globs: readonly string[]): Critic {
  const patterns = protectedPathPatterns(globs);
  const isMatch = patterns.length > 0 ? picomatch(patterns, { dot: true }) : (): boolean => false;
  return {
    name: 'protected-paths',
    reviewProposal(p) {
      // Judged by every name: a link `src/helper.js -> ../test/a.test.js` writes a test file.
      const hits = p.files.filter((f) => namesOf(f).some((n) => isMatch(n)));
      if (hits.length === 0) return { verdict: 'continue', reason: `no edited file matches protectedPaths (${globs.length} glob(s))` };
      return {
        verdict: 'retry',
        reason: `the edit touches protected file(s) ${hits.map((f) => `${f.path}${f.asWritten !== undefined ? ` (written as ${f.asWritten})` : ''} (${f.kind})`).join(', ')}, matching protectedPaths ${JSON.stringify(globs)}; fix the code under test instead`,
      };
    },
  };
}

export interface SuppressionPattern {
  name: string;
  re: RegExp;
}

export const SUPPRESSIONS: readonly SuppressionPattern[] = [
  { name: '@ts-ignore', re: /@ts-ignore\b/ },
  { name: '@ts-expect-error', re: /@ts-expect-error\b/ },
  { name: '@ts-nocheck', re: /@ts-nocheck\b/ },
  { name: 'eslint-disable', re: /eslint-disable/ },
  { name: '.skip(', re: /\.skip\s*\(/ },
  { name: '.only(', re: /\.only\s*\(/ },
  // `process.exit(` must not count: xit and xdescribe stand alone.
  { name: 'xit(', re: /(?<![\w$.])xit\s*\(/ },
  { name: 'xdescribe(', re: /(?<![\w$.])xdescribe\s*\(/ },
];

export interface AddedSuppression {
  file: string;
  pattern: string;
  line: string;
}

/**
 * Suppressions on lines the edit adds. A line counts as added only if the file did not already
 * have that many copies of it, so moving or re-indenting an existing suppression is not adding one.
 */
export function addedSuppressions(files: readonly ProposedFile[], patterns: readonly SuppressionPattern[] = SUPPRESSIONS): AddedSuppression[] {
  const out: AddedSuppression[] = [];
  for (const f of files) {
    if (f.after === null) continue;
    const had = new Map<string, number>();
    for (const l of (f.before ?? '').split(/\r?\n/)) {
      const k = l.trim();
      if (patterns.some((p) => p.re.test(k))) had.set(k, (had.get(k) ?? 0) + 1);
    }
    for (const l of f.after.split(/\r?\n/)) {
      const k = l.trim();
      const p = patterns.find((x) => x.re.test(k));
      if (!p) continue;
      const left = had.get(k) ?? 0;
      if (left > 0) {
        had.set(k, left - 1);
        continue;
      }
      out.push({ file: f.path, pattern: p.name, line: k.length > 120 ? k.slice(0, 119) + '…' : k });
    }
  }
  return out;
}

/** Adding `@ts-ignore`, `@ts-expect-error`, `eslint-disable`, `.skip(`, `.only(`, `xit(` → retry. */
export function noSuppressionsCritic(): Critic {
  return {
    name: 'no-suppressions',
    reviewProposal(p) {
      const added = addedSuppressions(p.files);
      if (added.length === 0) return { verdict: 'continue', reason: 'the edit adds no suppression' };
      return {
        verdict: 'retry',
        reason: `the edit adds suppression(s) instead of fixing the cause: ${added.map((a) => `${a.pattern} in ${a.file}: \`${a.line}\``).join('; ')}`,
      };
    },
  };
}

function describeFailure(f: Failure): string {
  const first = f.message.split('\n')[0] ?? '';
  return `[${f.check}] ${f.file ?? '(no file)'}${f.id ? ` ${f.id}` : ''}${first ? `: ${first.length > 160 ? first.slice(0, 159) + '…' : first}` : ''}`;
}

/**
 * A step whose failure count is above the best state's, or not below it while something that
 * passed at step 0 now fails (by failing id `(check, file, id)`, not message) → roll back to the
 * best state and retry with that evidence.
 */
export function regressionCritic(): Critic {
  return {
    name: 'regression',
    reviewResult(r, s) {
      if (r.green) return { verdict: 'continue', reason: 'the checks pass' };
      const count = failureCount(r);
      const best = failureCount(s.best);
      // A list cut short is no count: neither progress nor a regression is read from it.
      if (count === undefined || best === undefined) {
        return { verdict: 'continue', reason: `not compared: a check's output was cut at the output limit without its tool's own count (${count === undefined ? `this step lists ${r.failures.length}` : `the best state, step ${s.best.step}, lists ${s.best.failures.length}`})` };
      }
      const initialIds = failureIds(s.initial.failures);
      const newly: Failure[] = [];
      const listed = new Set<string>();
      // What "newly fails" is only known between whole lists: a failure cut from step 0's output was not passing.
      for (const f of s.initial.cut || r.cut ? [] : r.failures) {
        const k = failureId(f);
        if (initialIds.has(k) || listed.has(k)) continue;
        listed.add(k);
        newly.push(f);
      }
      const evidence = newly.length > 0 ? `; newly failing (passed at step 0): ${newly.slice(0, 8).map(describeFailure).join('; ')}${newly.length > 8 ? `; and ${newly.length - 8} more` : ''}` : '';
      if (count > best) {
        return {
          verdict: 'retry',
          rollbackTo: 'best',
          score: best - count,
          reason: `regression: ${count} failure(s), more than the ${best} of the best state (step ${s.best.step})${evidence}`,
        };
      }
      if (newly.length > 0 && count >= best) {
        return {
          verdict: 'retry',
          rollbackTo: 'best',
          score: best - count,
          reason: `regression: ${count} failure(s), not fewer than the ${best} of the best state (step ${s.best.step}), and something that passed at step 0 now fails${evidence}`,
        };
      }
      const why = newly.length > 0 ? `${newly.length} newly failing, but fewer failures overall` : 'nothing that passed at step 0 fails';
      return { verdict: 'continue', reason: `${count} failure(s), best ${best} (step ${s.best.step}); ${why}`, score: best - count };
    },
  };
}

/** The built-in critics the settings switch on, in the order they run. */
export function builtinCritics(settings: Pick<Settings, 'protectedPaths' | 'forbidSuppressions' | 'rollbackRegressions'>): Critic[] {
  const out: Critic[] = [protectedPathsCritic(settings.protectedPaths)];
  if (settings.forbidSuppressions) out.push(noSuppressionsCritic());
  if (settings.rollbackRegressions) out.push(regressionCritic());
  return out;
}

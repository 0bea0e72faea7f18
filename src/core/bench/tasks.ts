// Tasks, judged: each candidate (a commit of the history scan, history.ts; an entry of a tasks file,
// taskFile.ts; a scenario folder turned into two commits of its own, src/evals/benchTasks.ts) is judged
// by the project's own checks in a copy of its own (taskCopy.ts), on the broken state (the base tree
// with the candidate's test files) and on the reference state (the fix's tree). A candidate is kept
// when the first fails and the second passes; every one gets a reason, kept or not (`--explain`).
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { checkProblems, createCheckEngine } from '../engine';
import type { Settings } from '../settings';
import { showFile } from './git';
import type { HistoryCommit, ScanDrop, ScanOptions } from './history';
import { scanHistory } from './history';
import type { Holdout, HoldoutMode } from './holdout';
import { splitHoldout } from './holdout';
import { addTaskCopy, installProblem, putFilesAt } from './taskCopy';
import type { CachedVerdicts, Verdict } from './verdicts';
import { checkPlanKey, judge, VerdictCache } from './verdicts';

export interface BenchTask {
  /** The commit's short id (a tasks file's or a scenario's name), unique in the plan. */
  id: string;
  /** The git repository the task's copies come from when it is not the bench's (a scenario's own, in the storage). */
  repo?: string;
  /** What the run is told besides the failures (a tasks file's `instruction`). */
  instruction?: string;
  /** `fixUntilGreen.*` values (prefix dropped) the task's runs and verdicts get under the variant's (a scenario's own). */
  settings?: Record<string, unknown>;
  /** Where the task came from, for the report: `history`, `tasks FILE`, `eval DIR`. */
  origin?: string;
  commit: string;
  parent: string;
  subject: string;
  /** The commit's test files (put in the broken state; deleted ones removed). */
  testFiles: string[];
  /** Every other file the commit changed: the reference fix. */
  referenceFiles: string[];
  /** Test files the broken state's failures name. */
  failingTests: string[];
  holdout: Holdout | null;
  broken: Verdict;
  reference: Verdict;
  checkPlan: string;
}

export type ExplainReason = 'kept' | ScanDrop | 'no-reference-fix' | 'checks-already-green' | 'reference-not-green' | 'checks-cannot-run';

/** A task before its verdicts: a base commit, the commit holding its tests and its fix, and which files are which. */
export interface TaskCandidate {
  /** Unique in the plan. */
  id: string;
  /** The git repository to copy from; the bench's own when absent. */
  repo?: string;
  /** The commit holding the tests and the reference fix. */
  commit: string;
  /** The broken state's base (the commit's first parent for history). */
  parent: string;
  subject: string;
  /** Files put from `commit` over `parent` to make the broken state (deleted when absent there). */
  testFiles: string[];
  /** Files put from `commit` to make the reference state: the reference fix. */
  referenceFiles: string[];
  instruction?: string;
  settings?: Record<string, unknown>;
  origin?: string;
}

export interface Explanation {
  commit: string;
  subject: string;
  kept: boolean;
  reason: ExplainReason;
  detail: string;
  /** The verdicts came from the cache (no check ran). */
  cached?: boolean;
}

export interface TaskSource {
  root: string;
  /** The settings the checks come from (configured or discovered in each copy). */
  settings: Settings;
  /** The settings for a candidate that brings its own (a scenario's); `settings` when absent. */
  settingsFor?: (c: TaskCandidate) => Promise<Settings | string[]>;
  /** The bench's storage folder: copies, the verdict cache, check build info. */
  storageDir: string;
  scan: Omit<ScanOptions, 'signal' | 'testGlobs'>;
  holdout: HoldoutMode;
  signal?: AbortSignal;
  onVerdict?: (e: Explanation, index: number, total: number) => void;
}

export interface TaskList {
  tasks: BenchTask[];
  explanations: Explanation[];
  commitsScanned: number;
  scanMs: number;
}

function describe(v: Verdict): string {
  return v.green ? 'green' : `${v.failureCount} failure(s) in ${v.checks.filter((c) => c.failures > 0 || c.exitCode !== 0).map((c) => c.name).join(', ') || 'the checks'}`;
}

export async function tasksFromHistory(src: TaskSource): Promise<TaskList> {
  const started = Date.now();
  const scan = await scanHistory(src.root, { ...src.scan, testGlobs: src.settings.protectedPaths, ...(src.signal ? { signal: src.signal } : {}) });
  const scanMs = Date.now() - started;
  const explanations: Explanation[] = scan.dropped.map((d) => ({ commit: d.commit.commit, subject: d.commit.subject, kept: false, reason: d.reason, detail: d.detail }));
  const judged = await tasksFromCandidates(src, scan.candidates.map(historyCandidate));
  const order = new Map(scan.commits.map((c, i) => [c.commit, i]));
  const all = [...explanations, ...judged.explanations];
  all.sort((a, b) => (order.get(a.commit) ?? 0) - (order.get(b.commit) ?? 0));
  return { tasks: judged.tasks, explanations: all, commitsScanned: scan.commits.length, scanMs };
}

/** A history commit as a candidate: its test files over its parent, every other file its fix. */
export function historyCandidate(c: HistoryCommit): TaskCandidate {
  return { id: c.commit.slice(0, 10), commit: c.commit, parent: c.parent!, subject: c.subject, testFiles: c.files.filter((f) => f.role === 'test').map((f) => f.path), referenceFiles: c.files.filter((f) => f.role !== 'test').map((f) => f.path) };
}

/**
 * What the verdicts depend on besides the check plan: a history commit's are its own; a tasks file may
 * split the same commit into tests and fix otherwise (or start from another base), so its split is in the key.
 */
function verdictKey(c: TaskCandidate): string {
  if (c.origin === undefined) return c.commit;
  return `${c.commit}/${createHash('sha256').update(JSON.stringify([c.parent, c.testFiles, c.referenceFiles])).digest('hex').slice(0, 12)}`;
}

/** Judges each candidate in order (cached verdicts reused); the kept ones are the tasks. */
export async function tasksFromCandidates(src: Omit<TaskSource, 'scan'>, candidates: readonly TaskCandidate[]): Promise<Pick<TaskList, 'tasks' | 'explanations'>> {
  const cache = new VerdictCache(path.join(src.storageDir, 'verdicts.json'));
  const tasks: BenchTask[] = [];
  const explanations: Explanation[] = [];
  for (const [i, c] of candidates.entries()) {
    if (src.signal?.aborted) break;
    const { explanation, task } = await judgeCandidate(src, c, cache);
    explanations.push(explanation);
    if (task) tasks.push(task);
    src.onVerdict?.(explanation, i, candidates.length);
  }
  return { tasks, explanations };
}

async function judgeCandidate(src: Omit<TaskSource, 'scan'>, c: TaskCandidate, cache: VerdictCache): Promise<{ explanation: Explanation; task?: BenchTask }> {
  const { parent, testFiles, referenceFiles } = c;
  const repo = c.repo ?? src.root;
  const base = { commit: c.commit, subject: c.subject };
  const install = installProblem(repo, await showFile(repo, parent, 'package.json'));
  if (install) return { explanation: { ...base, kept: false, reason: 'install-needed', detail: install } };
  const own = c.settings && src.settingsFor ? await src.settingsFor(c) : src.settings;
  if (Array.isArray(own)) return { explanation: { ...base, kept: false, reason: 'checks-cannot-run', detail: `the task's settings: ${own.join('; ')}` } };
  const settings: Settings = own;
  const copy = await addTaskCopy(repo, path.join(src.storageDir, 'work'), parent, `verdict-${c.id}`);
  try {
    await putFilesAt(repo, copy.dir, c.commit, testFiles);
    const checkStorage = path.join(src.storageDir, 'checks', c.commit.slice(0, 12));
    mkdirSync(checkStorage, { recursive: true });
    const engine = createCheckEngine({ root: copy.dir, settings: { ...settings, stagedChecks: false }, storageDir: checkStorage });
    const unusable = checkProblems(engine);
    if (unusable) return { explanation: { ...base, kept: false, reason: 'checks-cannot-run', detail: unusable.problems.join('; ') } };
    const checkPlan = checkPlanKey(engine.checks);
    const key = verdictKey(c);
    let verdicts = cache.get(key, checkPlan);
    // A verdict cached before failing tests were recorded by name cannot split them: taken again.
    if (verdicts && verdicts.broken.failingTests === undefined) verdicts = undefined;
    const cached = verdicts !== undefined;
    if (!verdicts) {
      const broken = await judge(engine, src.signal);
      let reference: Verdict | undefined;
      if (!broken.green && !src.signal?.aborted) {
        await putFilesAt(repo, copy.dir, c.commit, referenceFiles);
        reference = await judge(createCheckEngine({ root: copy.dir, settings: { ...settings, stagedChecks: false }, storageDir: checkStorage }), src.signal);
      }
      if (src.signal?.aborted) return { explanation: { ...base, kept: false, reason: 'checks-cannot-run', detail: 'cancelled' } };
      verdicts = { commit: key, checkPlan, checks: engine.checks.map((k) => ({ name: k.name, command: k.command })), broken, ...(reference ? { reference } : {}), at: new Date().toISOString() } satisfies CachedVerdicts;
      cache.put(verdicts);
    }
    const { broken, reference } = verdicts;
    const more = cached ? { cached: true } : {};
    if (broken.green) return { explanation: { ...base, kept: false, reason: 'checks-already-green', detail: 'the checks pass on the parent with the commit\'s tests: nothing to fix', ...more } };
    if (!reference || !reference.green) return { explanation: { ...base, kept: false, reason: 'reference-not-green', detail: `broken: ${describe(broken)}; the commit itself: ${reference ? describe(reference) : 'not checked'}`, ...more } };
    const failingTests = broken.failingFiles.filter((f) => testFiles.includes(f));
    const task: BenchTask = {
      id: c.id, commit: c.commit, parent, subject: c.subject, testFiles, referenceFiles, failingTests, holdout: splitHoldout(c.commit, failingTests, src.holdout, (broken.failingTests ?? []).filter((t) => testFiles.includes(t.file))), broken, reference, checkPlan,
      ...(c.repo !== undefined ? { repo: c.repo } : {}), ...(c.instruction !== undefined ? { instruction: c.instruction } : {}), ...(c.settings !== undefined ? { settings: c.settings } : {}), ...(c.origin !== undefined ? { origin: c.origin } : {}),
    };
    return { explanation: { ...base, kept: true, reason: 'kept', detail: `broken: ${describe(broken)}; the commit: green${task.holdout ? `; ${task.holdout.how}` : ''}`, ...more }, task };
  } finally {
    await copy.remove();
  }
}

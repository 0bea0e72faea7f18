// Tasks from the repository's own history: each candidate commit of the scan (history.ts) is judged by
// the project's own checks in a copy of its own (taskCopy.ts), on the broken state (the parent's tree
// with the commit's test files) and on the reference state (the commit's tree). A candidate is kept
// when the first fails and the second passes; every commit gets a reason, kept or not (`--explain`).
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
  /** The commit's short id, unique in the plan. */
  id: string;
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

export type ExplainReason = 'kept' | ScanDrop | 'checks-already-green' | 'reference-not-green' | 'checks-cannot-run';

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
  const cache = new VerdictCache(path.join(src.storageDir, 'verdicts.json'));
  const tasks: BenchTask[] = [];
  for (const [i, c] of scan.candidates.entries()) {
    if (src.signal?.aborted) break;
    const { explanation, task } = await judgeCandidate(src, c, cache);
    explanations.push(explanation);
    if (task) tasks.push(task);
    src.onVerdict?.(explanation, i, scan.candidates.length);
  }
  const order = new Map(scan.commits.map((c, i) => [c.commit, i]));
  explanations.sort((a, b) => (order.get(a.commit) ?? 0) - (order.get(b.commit) ?? 0));
  return { tasks, explanations, commitsScanned: scan.commits.length, scanMs };
}

async function judgeCandidate(src: TaskSource, c: HistoryCommit, cache: VerdictCache): Promise<{ explanation: Explanation; task?: BenchTask }> {
  const parent = c.parent!;
  const base = { commit: c.commit, subject: c.subject };
  const install = installProblem(src.root, await showFile(src.root, parent, 'package.json'));
  if (install) return { explanation: { ...base, kept: false, reason: 'install-needed', detail: install } };
  const testFiles = c.files.filter((f) => f.role === 'test').map((f) => f.path);
  const referenceFiles = c.files.filter((f) => f.role !== 'test').map((f) => f.path);
  const copy = await addTaskCopy(src.root, path.join(src.storageDir, 'work'), parent, `verdict-${c.commit.slice(0, 10)}`);
  try {
    await putFilesAt(src.root, copy.dir, c.commit, testFiles);
    const checkStorage = path.join(src.storageDir, 'checks', c.commit.slice(0, 12));
    mkdirSync(checkStorage, { recursive: true });
    const engine = createCheckEngine({ root: copy.dir, settings: { ...src.settings, stagedChecks: false }, storageDir: checkStorage });
    const unusable = checkProblems(engine);
    if (unusable) return { explanation: { ...base, kept: false, reason: 'checks-cannot-run', detail: unusable.problems.join('; ') } };
    const checkPlan = checkPlanKey(engine.checks);
    let verdicts = cache.get(c.commit, checkPlan);
    const cached = verdicts !== undefined;
    if (!verdicts) {
      const broken = await judge(engine, src.signal);
      let reference: Verdict | undefined;
      if (!broken.green && !src.signal?.aborted) {
        await putFilesAt(src.root, copy.dir, c.commit, referenceFiles);
        reference = await judge(createCheckEngine({ root: copy.dir, settings: { ...src.settings, stagedChecks: false }, storageDir: checkStorage }), src.signal);
      }
      if (src.signal?.aborted) return { explanation: { ...base, kept: false, reason: 'checks-cannot-run', detail: 'cancelled' } };
      verdicts = { commit: c.commit, checkPlan, checks: engine.checks.map((k) => ({ name: k.name, command: k.command })), broken, ...(reference ? { reference } : {}), at: new Date().toISOString() } satisfies CachedVerdicts;
      cache.put(verdicts);
    }
    const { broken, reference } = verdicts;
    const more = cached ? { cached: true } : {};
    if (broken.green) return { explanation: { ...base, kept: false, reason: 'checks-already-green', detail: 'the checks pass on the parent with the commit\'s tests: nothing to fix', ...more } };
    if (!reference || !reference.green) return { explanation: { ...base, kept: false, reason: 'reference-not-green', detail: `broken: ${describe(broken)}; the commit itself: ${reference ? describe(reference) : 'not checked'}`, ...more } };
    const failingTests = broken.failingFiles.filter((f) => testFiles.includes(f));
    const task: BenchTask = { id: c.commit.slice(0, 10), commit: c.commit, parent, subject: c.subject, testFiles, referenceFiles, failingTests, holdout: splitHoldout(c.commit, failingTests, src.holdout), broken, reference, checkPlan };
    return { explanation: { ...base, kept: true, reason: 'kept', detail: `broken: ${describe(broken)}; the commit: green${task.holdout ? `; ${task.holdout.how}` : ''}`, ...more }, task };
  } finally {
    await copy.remove();
  }
}

// The bench as a front end calls it (the CLI; later VS Code's "Benchmark Models on This Repository…"):
// planFromHistory (money refused up front, commits judged, the plan) and runPlan (the pairs, the
// notes, the report's files). Progress comes as events, cancellation through an AbortSignal; nothing
// here prints or words a host's message.
import * as path from 'node:path';
import type { Settings } from '../settings';
import type { HoldoutMode } from './holdout';
import type { BenchLimits, BenchPlan, Pair, VariantSpec } from './plan';
import { makePlan, moneyProblems, ORACLE_VARIANT } from './plan';
import type { ReportFiles } from './report';
import { writeReport } from './report';
import type { BenchOutcome, BenchProgress } from './runBench';
import { chooseJobs, runBench } from './runBench';
import type { BenchPorts } from './runPair';
import type { BenchTask, Explanation, TaskCandidate } from './tasks';
import { tasksFromCandidates, tasksFromHistory } from './tasks';
import { proofLine } from './treeProof';

export type BenchEvent =
  | BenchProgress
  | { type: 'scanned'; commits: number; candidates: number; scanMs: number }
  | { type: 'verdict'; explanation: Explanation; index: number; total: number }
  | { type: 'jobs'; jobs: number; why: string };

export interface HistoryPlanRequest {
  root: string;
  /** The bench's folder in the storage: copies, verdicts, plans, results. */
  storageDir: string;
  ports: BenchPorts;
  variants: VariantSpec[];
  limits: BenchLimits;
  holdout: HoldoutMode;
  costCeiling: number | null;
  /** The history to scan; none when the tasks come only from `candidates`. */
  scan?: { last?: number; since?: string };
  /** Tasks from elsewhere (a tasks file, scenario folders), judged after the history's. */
  candidates?: TaskCandidate[];
  signal?: AbortSignal;
  onEvent?: (e: BenchEvent) => void;
}

export type HistoryPlan = { ok: true; plan: BenchPlan; explanations: Explanation[] } | { ok: false; problems: string[] };

/**
 * Refuses (settings a variant cannot have, a paid model with no price, two tasks of one name) before
 * any check runs; else judges the history's commits and the other candidates, and plans.
 */
export async function planFromHistory(req: HistoryPlanRequest): Promise<HistoryPlan> {
  const problems: string[] = [];
  for (const v of req.variants.filter((x) => x.kind !== 'oracle')) {
    const a = await req.ports.settings({ ...v.settings, ...req.limits });
    if (!a.ok) problems.push(`variant ${v.name}: ${a.problems.join('; ')}`);
    else problems.push(...moneyProblems(v.name, a.settings, req.costCeiling));
  }
  const base = await req.ports.settings(req.limits);
  if (!base.ok) problems.push(...base.problems);
  if (problems.length > 0 || !base.ok) return { ok: false, problems };
  const settings: Settings = base.settings;
  const ids = new Map<string, string>();
  for (const c of req.candidates ?? []) {
    if (ids.has(c.id)) problems.push(`two tasks are named "${c.id}" (${ids.get(c.id)} and ${c.origin ?? 'history'}): give each its own id`);
    ids.set(c.id, c.origin ?? 'history');
  }
  if (problems.length > 0) return { ok: false, problems };
  const common = {
    root: req.root,
    settings,
    // A task's own settings (a scenario's) under the bench's limits, as its runs will have them.
    settingsFor: async (c: TaskCandidate): Promise<Settings | string[]> => {
      const a = await req.ports.settings({ ...(c.settings ?? {}), ...req.limits });
      return a.ok ? a.settings : a.problems;
    },
    storageDir: req.storageDir,
    holdout: req.holdout,
    ...(req.signal ? { signal: req.signal } : {}),
    onVerdict: (explanation: Explanation, index: number, total: number) => req.onEvent?.({ type: 'verdict', explanation, index, total }),
  };
  const tasks: BenchTask[] = [];
  const explanations: Explanation[] = [];
  if (req.scan) {
    const list = await tasksFromHistory({ ...common, scan: req.scan });
    req.onEvent?.({ type: 'scanned', commits: list.commitsScanned, candidates: list.explanations.filter((e) => e.reason !== 'root-commit' && e.reason !== 'no-tests-changed' && e.reason !== 'no-source-changed').length, scanMs: list.scanMs });
    tasks.push(...list.tasks);
    explanations.push(...list.explanations);
  }
  if (req.candidates && req.candidates.length > 0 && !req.signal?.aborted) {
    const list = await tasksFromCandidates(common, req.candidates);
    tasks.push(...list.tasks);
    explanations.push(...list.explanations);
  }
  const clash = tasks.find((t, i) => tasks.findIndex((u) => u.id === t.id) !== i);
  if (clash) return { ok: false, problems: [`task "${clash.id}" comes both from the history and from ${clash.origin ?? 'the history'}: give the tasks file's entry an "id"`] };
  return { ok: true, plan: makePlan(tasks, req.variants, req.limits, req.holdout, req.costCeiling), explanations };
}

export interface PlanRunRequest {
  root: string;
  storageDir: string;
  ports: BenchPorts;
  plan: BenchPlan;
  /** The pairs to run (a shard's); every pair of the plan by default. */
  pairs?: Pair[];
  jobs?: number;
  /** Default: the plan's results.jsonl in the storage. */
  resultsFile?: string;
  /** Default: the plan's report/ folder in the storage. */
  reportDir?: string;
  signal?: AbortSignal;
  onEvent?: (e: BenchEvent) => void;
}

export interface PlanRunResult {
  outcome: BenchOutcome;
  /** What the report says under the table: the proof, a cancel, the ceiling, errors, oracle misses. */
  notes: string[];
  report: ReportFiles;
  /** Tasks the oracle did not turn green: their verdicts cannot be trusted. */
  oracleMisses: string[];
}

export function planDir(storageDir: string, plan: BenchPlan): string {
  return path.join(storageDir, 'plans', plan.id);
}

export async function runPlan(req: PlanRunRequest): Promise<PlanRunResult> {
  const pairs = req.pairs ?? req.plan.pairs;
  const { jobs, why } = chooseJobs(req.jobs, pairs.length);
  req.onEvent?.({ type: 'jobs', jobs, why });
  const outcome = await runBench({
    root: req.root,
    storageDir: req.storageDir,
    plan: req.plan,
    pairs,
    ports: req.ports,
    jobs,
    resultsFile: req.resultsFile ?? path.join(planDir(req.storageDir, req.plan), 'results.jsonl'),
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.onEvent ? { onProgress: req.onEvent } : {}),
  });
  const notes = [`Your working tree and index: ${proofLine(outcome.proof.before, outcome.proof.after)}.`, ...outcome.proof.others.map((o) => `The working tree and index of ${o.repo} (a tasks file's repository): ${proofLine(o.before, o.after)}.`)];
  if (outcome.cancelled) notes.push(`Cancelled: ${outcome.notRun.length} pair(s) not run; every task copy removed; the same command again goes on.`);
  if (outcome.costStopped) notes.push(`Cost ceiling ${req.plan.costCeiling} reached: ${outcome.notRun.length} pair(s) not run.`);
  for (const e of outcome.errors) notes.push(`${e.pair.variant} × ${e.pair.task} failed: ${e.error}`);
  const oracleMisses = outcome.records.filter((r) => r.variant === ORACLE_VARIANT.name && !r.greenFull).map((r) => r.task);
  if (oracleMisses.length > 0) notes.push(`The oracle did not go green on ${oracleMisses.join(', ')}: those tasks cannot be trusted (see their traces).`);
  const report = writeReport(req.reportDir ?? path.join(planDir(req.storageDir, req.plan), 'report'), req.plan, outcome.records, notes);
  return { outcome, notes, report, oracleMisses };
}

// Runs a plan's pairs (or one shard of them): `jobs` at a time, each in its own copy, each result
// appended as it ends, finished pairs of the same plan skipped, a bench-wide cost ceiling held, and an
// AbortSignal that stops everything (the runs abort, every copy is removed, nothing half recorded).
// Front ends follow it through `onProgress` events; it prints nothing itself.
import * as os from 'node:os';
import * as path from 'node:path';
import type { PairRecord } from './metrics';
import type { BenchPlan, Pair } from './plan';
import { pairKey } from './plan';
import { appendResult, latestByPair, readResults, repairResults } from './results';
import type { BenchPorts } from './runPair';
import { PairCancelled, runPair } from './runPair';
import { removeStaleCopies } from './taskCopy';
import type { TreeProof } from './treeProof';
import { sameProof, treeProof } from './treeProof';

export type BenchProgress =
  | { type: 'start'; total: number; skipped: number; jobs: number; resultsFile: string }
  | { type: 'pair-start'; pair: Pair; running: number }
  | { type: 'pair-end'; pair: Pair; record: PairRecord; done: number; total: number; etaMs: number | null; spent: number }
  | { type: 'pair-error'; pair: Pair; error: string }
  | { type: 'cost-ceiling'; spent: number; ceiling: number; left: number };

export interface BenchRun {
  root: string;
  storageDir: string;
  plan: BenchPlan;
  pairs: Pair[];
  ports: BenchPorts;
  jobs: number;
  resultsFile: string;
  signal?: AbortSignal;
  onProgress?: (e: BenchProgress) => void;
}

export interface BenchOutcome {
  /** Every record of the plan in the results file (earlier runs' included), in plan order. */
  records: PairRecord[];
  ran: number;
  skipped: number;
  /** Pairs not run: cancelled, or the cost ceiling reached. */
  notRun: Pair[];
  cancelled: boolean;
  costStopped: boolean;
  errors: { pair: Pair; error: string }[];
  /** `untouched`: the user's folder and every other repository the tasks came from (`others`) held. */
  proof: { before: TreeProof; after: TreeProof; untouched: boolean; others: RepoProof[] };
  resultsFile: string;
}

/** Per pair: a copy, its checks and maybe a warm type checker; what the bench assumes one pair may use. */
const PAIR_MEMORY = 768 * 1024 * 1024;

/** How many pairs at once: what was asked, bounded by the cores and the free memory, and why. */
export function chooseJobs(requested: number | undefined, pairs: number, cores = os.availableParallelism(), freeBytes = os.freemem()): { jobs: number; why: string } {
  const byMemory = Math.max(1, Math.floor(freeBytes / PAIR_MEMORY));
  const wanted = requested ?? Math.max(1, Math.floor(cores / 2));
  const jobs = Math.max(1, Math.min(wanted, cores, byMemory, Math.max(1, pairs)));
  const limits = [`${cores} core(s)`, `${(freeBytes / 1024 ** 3).toFixed(1)} GB free (${(PAIR_MEMORY / 1024 ** 2).toFixed(0)} MB a pair)`, `${pairs} pair(s)`];
  return { jobs, why: `${jobs} job(s): ${requested !== undefined ? `--jobs ${requested}` : 'half the cores by default'}, bounded by ${limits.join(', ')}` };
}

export interface RepoProof {
  repo: string;
  before: TreeProof;
  after: TreeProof;
  untouched: boolean;
}

export async function runBench(b: BenchRun): Promise<BenchOutcome> {
  const before = await treeProof(b.root);
  // Tasks of a tasks file that names another repository run in copies of it: its tree and index are proven too (a scenario's repository, made in the storage, is the bench's own).
  const inStorage = (r: string): boolean => !path.relative(b.storageDir, r).startsWith('..') && !path.isAbsolute(path.relative(b.storageDir, r));
  const otherRepos = [...new Set(b.plan.tasks.filter((t) => b.pairs.some((p) => p.task === t.id)).map((t) => t.repo).filter((r): r is string => r !== undefined && r !== b.root && !inStorage(r)))];
  const othersBefore = await Promise.all(otherRepos.map((r) => treeProof(r)));
  await removeStaleCopies(b.root, path.join(b.storageDir, 'work'));
  repairResults(b.resultsFile);
  const done = latestByPair(readResults(b.resultsFile).records, b.plan.id);
  const todo = b.pairs.filter((p) => !done.has(pairKey(p)));
  const skipped = b.pairs.length - todo.length;
  const tasks = new Map(b.plan.tasks.map((t) => [t.id, t]));
  const variants = new Map(b.plan.variants.map((v) => [v.name, v]));
  b.onProgress?.({ type: 'start', total: b.pairs.length, skipped, jobs: b.jobs, resultsFile: b.resultsFile });
  const ceiling = b.plan.costCeiling;
  let spent = [...done.values()].reduce((s, r) => s + (r.money ?? 0), 0);
  let ran = 0;
  let costStopped = false;
  const errors: BenchOutcome['errors'] = [];
  const notRun: Pair[] = [];
  const started = Date.now();
  let next = 0;
  let running = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      if (b.signal?.aborted || next >= todo.length) return;
      // A ceiling of 0 left would mean "no ceiling" to a run: the bench stops before it instead.
      if (ceiling !== null && spent >= ceiling) {
        if (!costStopped) b.onProgress?.({ type: 'cost-ceiling', spent, ceiling, left: todo.length - next });
        costStopped = true;
        return;
      }
      const pair = todo[next++]!;
      running++;
      b.onProgress?.({ type: 'pair-start', pair, running });
      try {
        const record = await runPair({
          root: b.root,
          storageDir: b.storageDir,
          plan: b.plan,
          task: tasks.get(pair.task)!,
          variant: variants.get(pair.variant)!,
          ports: b.ports,
          ...(ceiling !== null ? { costLeft: Math.max(0, ceiling - spent) } : {}),
          ...(b.signal ? { signal: b.signal } : {}),
        });
        if (b.signal?.aborted) throw new PairCancelled();
        appendResult(b.resultsFile, record);
        done.set(pairKey(pair), record);
        ran++;
        spent += record.money ?? 0;
        const finished = ran;
        const perPair = (Date.now() - started) / finished;
        const left = todo.length - finished;
        b.onProgress?.({ type: 'pair-end', pair, record, done: skipped + finished, total: b.pairs.length, etaMs: left > 0 ? Math.round((perPair * left) / b.jobs) : 0, spent });
      } catch (e) {
        if (e instanceof PairCancelled || b.signal?.aborted) return;
        const error = e instanceof Error ? e.message : String(e);
        errors.push({ pair, error });
        b.onProgress?.({ type: 'pair-error', pair, error });
      } finally {
        running--;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, b.jobs) }, () => worker()));
  for (const p of todo) if (!done.has(pairKey(p)) && !errors.some((x) => pairKey(x.pair) === pairKey(p))) notRun.push(p);
  // Whatever ended the bench, no copy of ours stays behind (a cancelled pair's finally removed its own; this is the net).
  await removeStaleCopies(b.root, path.join(b.storageDir, 'work'), true);
  const after = await treeProof(b.root);
  const others: RepoProof[] = [];
  for (const [i, repo] of otherRepos.entries()) {
    const a = await treeProof(repo);
    others.push({ repo, before: othersBefore[i]!, after: a, untouched: sameProof(othersBefore[i]!, a) });
  }
  const order = new Map(b.plan.pairs.map((p, i) => [pairKey(p), i]));
  const records = [...latestByPair(readResults(b.resultsFile).records, b.plan.id).values()].sort((x, y) => (order.get(pairKey(x)) ?? 0) - (order.get(pairKey(y)) ?? 0));
  return { records, ran, skipped, notRun, cancelled: b.signal?.aborted === true, costStopped, errors, proof: { before, after, untouched: sameProof(before, after) && others.every((o) => o.untouched), others }, resultsFile: b.resultsFile };
}

// `fix-until-green bench`: which variant fixes this repository's own past bugs, at what cost. The
// core (src/core/bench) does the work and reports progress as events; this file parses the flags,
// builds models with the environment's keys (the launcher's key rule for every variant), and prints.
//   bench --from-history [--last N | --since REV] [--explain] …   plan, run and report in one
//   bench --tasks FILE / --from-evals DIR…                        tasks named in a file, scenario folders
//   bench plan --from-history … --out plan.json                   the task × variant list, for shards
//   bench run --plan plan.json [--shard I/N] [--results FILE]     one shard's pairs
//   bench merge --plan plan.json --out DIR RESULTS.jsonl…         the shards' results, one report
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'jsonc-parser';
import type { PairRecord } from '../core/bench/metrics';
import type { BenchEvent } from '../core/bench/benchFlow';
import { planFromHistory, runPlan } from '../core/bench/benchFlow';
import { repoTop } from '../core/bench/git';
import type { BenchLimits, BenchPlan, Pair, VariantSpec } from '../core/bench/plan';
import { ORACLE_VARIANT, pairKey, parseShard, shardPairs } from '../core/bench/plan';
import type { ReportFiles } from '../core/bench/report';
import { writeReport } from '../core/bench/report';
import { latestByPair, readResults } from '../core/bench/results';
import type { BenchPorts } from '../core/bench/runPair';
import { formatTable, tableRows } from '../core/bench/summary';
import { taskFileCandidates, TaskFileError } from '../core/bench/taskFile';
import type { Explanation, TaskCandidate } from '../core/bench/tasks';
import { evalCandidates } from '../evals/benchTasks';
import { ScenarioError } from '../evals/evals';
import { pickPrefixed } from '../core/settings';
import { UsageError } from './errors';
import { cliKeyPort, cliModelPort, parseModelSpec } from './providers';
import type { CliIo } from './runCommand';
import { parseCheckFlags, resolveCwd } from './runCommand';
import { defaultStorageDir } from './storage';
import { folderSettingKeys, settingsAnswer } from './workspaceSettings';

const OPTIONS = {
  cwd: { type: 'string' },
  storage: { type: 'string' },
  'from-history': { type: 'boolean', default: false },
  tasks: { type: 'string' },
  'from-evals': { type: 'string', multiple: true },
  last: { type: 'string' },
  since: { type: 'string' },
  explain: { type: 'boolean', default: false },
  check: { type: 'string', multiple: true },
  model: { type: 'string', multiple: true },
  'base-url': { type: 'string' },
  variant: { type: 'string', multiple: true },
  'no-oracle': { type: 'boolean', default: false },
  holdout: { type: 'boolean' },
  'no-holdout': { type: 'boolean', default: false },
  'max-steps': { type: 'string' },
  'token-ceiling': { type: 'string' },
  'time-limit': { type: 'string' },
  'stall-threshold': { type: 'string' },
  'cost-ceiling': { type: 'string' },
  jobs: { type: 'string' },
  plan: { type: 'string' },
  shard: { type: 'string' },
  results: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true; allowPositionals: true }>>['values'];

function wholeNumber(flag: string, v: string | undefined, min = 1): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim()) || Number(v) < min) throw new UsageError(`${flag}: "${v}" is not a whole number ≥ ${min}`);
  return Number(v);
}

function money(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(v.trim())) throw new UsageError(`${flag}: "${v}" is not a number ≥ 0`);
  return Number(v);
}

/** `--model SPEC` and `--variant NAME=settings.json` as variants (names unique; the oracle first). */
export function variantsOf(values: Flags): VariantSpec[] {
  const out: VariantSpec[] = values['no-oracle'] ? [] : [ORACLE_VARIANT];
  for (const m of values.model ?? []) {
    const spec = parseModelSpec(m);
    const id = spec.provider === 'replay' ? path.resolve(spec.id) : spec.id;
    const name = spec.provider === 'replay' ? path.basename(id).replace(/\.json$/, '') : spec.id;
    out.push({ name, kind: 'model', source: `--model ${m}`, settings: { 'model.provider': spec.provider, 'model.id': id, 'model.baseUrl': spec.provider !== 'replay' ? (values['base-url'] ?? '') : '', 'model.escalation': [] } });
  }
  for (const v of values.variant ?? []) {
    const i = v.indexOf('=');
    if (i <= 0 || i === v.length - 1) throw new UsageError(`--variant: "${v}" must be NAME=settings.json`);
    const name = v.slice(0, i).trim();
    const file = path.resolve(v.slice(i + 1).trim());
    if (!existsSync(file)) throw new UsageError(`--variant ${name}: ${file} does not exist`);
    const data: unknown = parse(readFileSync(file, 'utf8'), [], { allowTrailingComma: true });
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UsageError(`--variant ${name}: ${file} must hold a JSON object of fixUntilGreen.* settings`);
    const settings = pickPrefixed(data as Record<string, unknown>);
    // A replay script named in the file is relative to the file, as a scenario's is.
    const flat = settings as Record<string, unknown>;
    if (flat['model.provider'] === 'replay' && typeof flat['model.id'] === 'string') flat['model.id'] = path.resolve(path.dirname(file), flat['model.id']);
    const nested = flat.model as Record<string, unknown> | undefined;
    if (nested && nested.provider === 'replay' && typeof nested.id === 'string') flat.model = { ...nested, id: path.resolve(path.dirname(file), nested.id) };
    out.push({ name, kind: 'settings', source: `--variant ${name}=${path.basename(file)}`, settings });
  }
  const names = new Set<string>();
  for (const v of out) {
    if (names.has(v.name)) throw new UsageError(`two variants are named "${v.name}": name each --variant differently`);
    names.add(v.name);
  }
  return out;
}

function limitsOf(values: Flags): BenchLimits {
  const limits: BenchLimits = {};
  const put = (key: string, n: number | undefined): void => {
    if (n !== undefined) limits[key] = n;
  };
  put('maxSteps', wholeNumber('--max-steps', values['max-steps']));
  put('tokenCeiling', wholeNumber('--token-ceiling', values['token-ceiling']));
  put('timeLimitSeconds', wholeNumber('--time-limit', values['time-limit']));
  put('stallThreshold', wholeNumber('--stall-threshold', values['stall-threshold'], 2));
  return limits;
}

/** The launcher's ports for every variant: the folder's settings under the variant's, keys from the environment. */
function cliBenchPorts(cwd: string, checks: { name: string; command: string }[] | undefined): BenchPorts {
  const flagged = (overrides: Record<string, unknown>): Record<string, { value: unknown; flag: string }> => {
    const o: Record<string, { value: unknown; flag: string }> = {};
    for (const [k, value] of Object.entries(overrides)) o[k] = { value, flag: k.startsWith('model') ? '--model/--variant' : 'bench limits' };
    if (checks) o.checks = { value: checks, flag: '--check' };
    return o;
  };
  // The variants' models are named on the command line (flags or a settings file the user passed): the key rule treats them as the user's.
  const modelKeys = { 'model.provider': 1, 'model.id': 1, 'model.baseUrl': 1, 'model.escalation': 1, model: 1 };
  return {
    settings: (overrides) => settingsAnswer(cwd, flagged(overrides)),
    keys: cliKeyPort(() => folderSettingKeys(cwd, modelKeys)),
    model: cliModelPort(cwd, 'a variant names no model: pass --model or a --variant settings file with fixUntilGreen.model'),
  };
}

function progressPrinter(io: CliIo, quiet: boolean): (e: BenchEvent) => void {
  const tty = process.stderr.isTTY === true;
  return (e) => {
    if (quiet) return;
    if (e.type === 'verdict') io.stderr(`fix-until-green bench: judged ${e.index + 1}/${e.total} ${e.explanation.commit.slice(0, 10)}: ${e.explanation.kept ? 'kept' : e.explanation.reason}${e.explanation.cached ? ' (cached)' : ''}`);
    else if (e.type === 'scanned') io.stderr(`fix-until-green bench: scanned ${e.commits} commit(s) in ${(e.scanMs / 1000).toFixed(2)} s`);
    else if (e.type === 'jobs') io.stderr(`fix-until-green bench: ${e.why}`);
    else if (e.type === 'start') io.stderr(`fix-until-green bench: ${e.total} pair(s), ${e.skipped} already done (${e.resultsFile})`);
    else if (e.type === 'pair-end') {
      const eta = e.etaMs === null ? '' : ` · ETA ${Math.round(e.etaMs / 1000)} s`;
      const line = `[${e.done}/${e.total}] ${e.pair.variant} × ${e.pair.task}: ${e.record.stopReason}${e.record.overfit ? ' (overfit)' : ''}${eta}`;
      if (tty) process.stderr.write(`\r\x1b[2K${line}${e.done === e.total ? '\n' : ''}`);
      else io.stderr(line);
    } else if (e.type === 'pair-error') io.stderr(`fix-until-green bench: ${e.pair.variant} × ${e.pair.task} failed: ${e.error}`);
    else if (e.type === 'cost-ceiling') io.stderr(`fix-until-green bench: cost ceiling ${e.ceiling} reached (spent ${e.spent.toFixed(4)}); ${e.left} pair(s) not started`);
  };
}

function explainLines(ex: readonly Explanation[]): string[] {
  // A scenario dropped before it became commits is named by its task id.
  return ex.map((e) => `  ${e.kept ? 'kept   ' : 'dropped'} ${/^[0-9a-f]{40}$/.test(e.commit) ? e.commit.slice(0, 10) : e.commit} ${e.reason}${e.cached ? ' (cached)' : ''}: ${e.subject} — ${e.detail}`);
}

function readPlan(file: string | undefined): BenchPlan {
  if (!file) throw new UsageError('--plan FILE is required (write one with `bench plan`)');
  if (!existsSync(file)) throw new UsageError(`--plan: ${file} does not exist`);
  let p: BenchPlan;
  try {
    p = JSON.parse(readFileSync(file, 'utf8')) as BenchPlan;
  } catch (e) {
    throw new UsageError(`--plan: ${file} is not JSON: ${(e as Error).message}`);
  }
  if (p.version !== 1 || !Array.isArray(p.pairs)) throw new UsageError(`--plan: ${file} is not a bench plan`);
  return p;
}

async function signalled<T>(controller: AbortController, work: () => Promise<T>): Promise<T> {
  const on = (): void => controller.abort();
  process.once('SIGINT', on);
  process.once('SIGTERM', on);
  try {
    return await work();
  } finally {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  }
}

/** The candidates of `--tasks FILE` and `--from-evals DIR…` (every problem a usage error, before any check runs). */
async function otherCandidates(values: Flags, evalDirs: readonly string[], cwd: string, storageDir: string): Promise<{ candidates: TaskCandidate[]; dropped: Explanation[] }> {
  const candidates: TaskCandidate[] = [];
  const dropped: Explanation[] = [];
  try {
    if (values.tasks !== undefined) candidates.push(...(await taskFileCandidates(cwd, path.resolve(values.tasks))));
    if (evalDirs.length > 0) {
      const evals = await evalCandidates(evalDirs, storageDir);
      dropped.push(...evals.dropped);
      candidates.push(...evals.candidates);
    }
  } catch (e) {
    if (e instanceof TaskFileError || e instanceof ScenarioError) throw new UsageError(e.message);
    throw e;
  }
  return { candidates, dropped };
}

async function historyPlan(values: Flags, evalDirs: readonly string[], cwd: string, storageDir: string, io: CliIo, signal: AbortSignal): Promise<BenchPlan> {
  if (!values['from-history'] && values.tasks === undefined && evalDirs.length === 0) throw new UsageError('say where tasks come from: --from-history, --tasks FILE or --from-evals DIR…');
  if (values.last !== undefined && values.since !== undefined) throw new UsageError('--last and --since choose the same thing: pass one');
  const checks = values.check && values.check.length > 0 ? parseCheckFlags(values.check) : undefined;
  const variants = variantsOf(values);
  if (variants.length === 0) throw new UsageError('no variant to run: pass --model or --variant (or drop --no-oracle)');
  const last = wholeNumber('--last', values.last);
  const { candidates, dropped } = await otherCandidates(values, evalDirs, cwd, storageDir);
  if (!values.explain && !values.json) for (const d of dropped) io.stderr(`fix-until-green bench: dropped ${d.commit}: ${d.reason}: ${d.detail}`);
  const planned = await planFromHistory({
    root: cwd,
    storageDir,
    ports: cliBenchPorts(cwd, checks),
    variants,
    limits: limitsOf(values),
    holdout: values['no-holdout'] ? 'off' : values.holdout ? 'on' : 'auto',
    costCeiling: money('--cost-ceiling', values['cost-ceiling']) ?? null,
    ...(values['from-history'] ? { scan: { ...(last !== undefined ? { last } : values.since === undefined ? { last: 50 } : {}), ...(values.since !== undefined ? { since: values.since } : {}) } } : {}),
    candidates,
    signal,
    onEvent: progressPrinter(io, values.json),
  });
  if (!planned.ok) throw new UsageError(planned.problems.join('; '));
  if (values.explain && !values.json) {
    io.stdout('commits, kept or dropped, and why:');
    for (const l of explainLines([...planned.explanations, ...dropped])) io.stdout(l);
    io.stdout('');
  }
  return planned.plan;
}

function printReport(files: ReportFiles, plan: BenchPlan, records: readonly PairRecord[], notes: readonly string[], values: Flags, io: CliIo): void {
  if (values.json) {
    io.stdout(JSON.stringify({ plan: plan.id, summaries: files.summaries, records, notes, report: { json: files.json, markdown: files.markdown, html: files.html } }, null, 2));
    return;
  }
  for (const l of formatTable(tableRows(files.summaries))) io.stdout(l);
  io.stdout('');
  for (const n of notes) io.stdout(n);
  io.stdout(`report: ${files.html}`);
  io.stdout(`        ${files.markdown}`);
  io.stdout(`        ${files.json}`);
}

export async function benchCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  const sub = positionals[0] !== undefined && ['plan', 'run', 'merge'].includes(positionals[0]) ? positionals.shift() : undefined;
  // `--from-evals DIR…`: the folders after the first are positionals.
  const evalDirs = values['from-evals'] !== undefined && sub !== 'merge' ? [...values['from-evals'], ...positionals.splice(0)] : [];
  if (sub !== 'merge' && positionals.length > 0) throw new UsageError(`bench: unexpected argument "${positionals[0]}"`);
  const cwdGiven = resolveCwd(values.cwd);
  const controller = new AbortController();

  if (sub === 'merge') {
    const plan = readPlan(values.plan);
    if (positionals.length === 0) throw new UsageError("bench merge: name the shards' results files");
    const all: PairRecord[] = [];
    for (const f of positionals) {
      if (!existsSync(f)) throw new UsageError(`bench merge: ${f} does not exist`);
      all.push(...readResults(f).records);
    }
    const byPair = latestByPair(all, plan.id);
    const records = plan.pairs.map((p) => byPair.get(pairKey(p))).filter((r): r is PairRecord => r !== undefined);
    const missing = plan.pairs.length - records.length;
    const notes = missing > 0 ? [`${missing} pair(s) of the plan have no result in the files merged.`] : [];
    const files = writeReport(path.resolve(values.out ?? 'bench-report'), plan, records, notes);
    printReport(files, plan, records, notes, values, io);
    return missing > 0 ? 1 : 0;
  }

  const top = await repoTop(cwdGiven);
  if (top === undefined) throw new UsageError(`--cwd: ${cwdGiven} is not in a git repository (the bench reads its history)`);
  const cwd = top;
  const storageDir = path.join(path.resolve(values.storage ?? defaultStorageDir(cwd)), 'bench');
  mkdirSync(storageDir, { recursive: true });

  if (sub === 'plan') {
    const plan = await signalled(controller, () => historyPlan(values, evalDirs, cwd, storageDir, io, controller.signal));
    if (controller.signal.aborted) {
      io.stderr('fix-until-green bench: cancelled while judging commits');
      return 1;
    }
    const out = path.resolve(values.out ?? 'bench-plan.json');
    writeFileSync(out, `${JSON.stringify(plan, null, 1)}\n`);
    if (values.json) io.stdout(JSON.stringify({ plan: plan.id, file: out, tasks: plan.tasks.length, variants: plan.variants.map((v) => v.name), pairs: plan.pairs.length }));
    else io.stdout(`plan ${plan.id}: ${plan.tasks.length} task(s) × ${plan.variants.length} variant(s) = ${plan.pairs.length} pair(s) → ${out}`);
    return 0;
  }

  let plan: BenchPlan;
  let pairs: Pair[];
  if (sub === 'run') {
    plan = readPlan(values.plan);
    const shard = values.shard !== undefined ? parseShard(values.shard) : { index: 1, count: 1 };
    if (!shard) throw new UsageError(`--shard: "${values.shard}" must be I/N with 1 ≤ I ≤ N`);
    pairs = shardPairs(plan, shard.index, shard.count);
  } else {
    plan = await signalled(controller, () => historyPlan(values, evalDirs, cwd, storageDir, io, controller.signal));
    pairs = plan.pairs;
    if (controller.signal.aborted) {
      io.stderr('fix-until-green bench: cancelled while judging commits');
      return 1;
    }
  }
  const checks = values.check && values.check.length > 0 ? parseCheckFlags(values.check) : undefined;
  const jobs = wholeNumber('--jobs', values.jobs);
  const r = await signalled(controller, () =>
    runPlan({
      root: cwd,
      storageDir,
      ports: cliBenchPorts(cwd, checks),
      plan,
      pairs,
      ...(jobs !== undefined ? { jobs } : {}),
      ...(values.results !== undefined ? { resultsFile: path.resolve(values.results) } : {}),
      ...(values.out !== undefined ? { reportDir: path.resolve(values.out) } : {}),
      signal: controller.signal,
      onEvent: progressPrinter(io, values.json),
    }),
  );
  printReport(r.report, plan, r.outcome.records, r.notes, values, io);
  if (!r.outcome.proof.untouched) return 3;
  return r.outcome.cancelled || r.outcome.errors.length > 0 || r.oracleMisses.length > 0 ? 1 : 0;
}

// One task × variant pair: the task's broken state in a copy of its own (held-out tests withheld),
// the variant's run through the launcher (its one preflight: settings, the key rule, models, checks),
// then the held-out tests put back and the project's full checks as the final verdict, and the
// pair's record. The copy is removed whatever ends the pair; the run's storage (its trace) is kept.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { FsWorkspace } from '../edit/workspace';
import { createCheckEngine } from '../engine';
import type { LaunchPorts, Refusal, SettingsAnswer } from '../launch';
import { NO_KEYS, prepareRun } from '../launch';
import { createProvider } from '../model/factory';
import { priceOf } from '../model/pricing';
import type { Settings } from '../settings';
import { readTrace } from '../trace/trace';
import type { Logger } from '../types';
import { git, showFile } from './git';
import type { PairRecord } from './metrics';
import { pairRecord } from './metrics';
import { writeOracleScript } from './oracle';
import type { BenchPlan, VariantSpec } from './plan';
import { addTaskCopy, putFilesAt } from './taskCopy';
import type { BenchTask } from './tasks';
import type { Holdout } from './holdout';
import type { Verdict } from './verdicts';
import { judge } from './verdicts';
import { withholdTests } from './withhold';

/** What the front end brings: the user's settings under overrides, and how it builds models with keys. */
export interface BenchPorts {
  settings(overrides: Record<string, unknown>): SettingsAnswer | Promise<SettingsAnswer>;
  keys: LaunchPorts['keys'];
  model: LaunchPorts['model'];
  logger?: Logger;
}

export class PairCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'PairCancelled';
  }
}

export interface PairContext {
  root: string;
  /** The bench's storage folder (copies under work/, runs under plans/<id>/runs/). */
  storageDir: string;
  plan: BenchPlan;
  task: BenchTask;
  variant: VariantSpec;
  ports: BenchPorts;
  /** What is left of the bench-wide cost ceiling; the run's own `costCeiling` when the model is priced. */
  costLeft?: number;
  signal?: AbortSignal;
}

/** The overrides a variant's run gets: the task's own (a scenario's), the variant's, then the bench's limits (the same for all). */
export function variantOverrides(plan: BenchPlan, v: VariantSpec, extra: Record<string, unknown> = {}, task?: BenchTask): Record<string, unknown> {
  return { ...(task?.settings ?? {}), ...v.settings, ...plan.limits, ...extra };
}

/** Files the run left changed against the broken state (the copy's HEAD is the parent; the commit's tests were put over it). */
async function changedFiles(root: string, dir: string, task: BenchTask): Promise<string[]> {
  const out = await git(dir, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const paths = new Set<string>();
  for (const entry of out.split('\0')) {
    if (entry.length < 4) continue;
    const p = entry.slice(3);
    if (p === 'node_modules' || p.startsWith('node_modules/')) continue;
    paths.add(p);
  }
  // The commit's test files differ from the parent by design: changed only when they differ from the commit too.
  for (const t of task.testFiles) paths.add(t);
  const changed: string[] = [];
  for (const p of paths) {
    const want = task.testFiles.includes(p) ? await showFile(root, task.commit, p) : await showFile(root, task.parent, p);
    const abs = path.join(dir, p);
    const have = existsSync(abs) ? readFileSync(abs) : undefined;
    if (want === undefined ? have !== undefined : have === undefined || !have.equals(want)) changed.push(p);
  }
  return changed.sort();
}

async function referenceBytesMatch(root: string, dir: string, task: BenchTask): Promise<boolean> {
  for (const f of task.referenceFiles) {
    const want = await showFile(root, task.commit, f);
    const abs = path.join(dir, f);
    const have = existsSync(abs) ? readFileSync(abs) : undefined;
    if (want === undefined ? have !== undefined : have === undefined || !have.equals(want)) return false;
  }
  return true;
}

function refusalRecord(ctx: PairContext, detail: string, started: number): PairRecord {
  return {
    plan: ctx.plan.id, task: ctx.task.id, variant: ctx.variant.name, commit: ctx.task.commit,
    stopReason: 'preflight-failed', outcome: 'punt', detail, green: false, greenFull: false, overfit: false,
    heldOut: ctx.task.holdout?.heldOut.length ?? 0, steps: 0, stepsToGreen: null, tokensIn: 0, tokensOut: 0, money: null,
    wallMs: Date.now() - started, firstRepeatStep: null, tokensAfterFirstRepeat: 0, protectedDenied: 0, verifierDenied: 0,
    protectedMade: [], outsideReference: [], finalBytes: null, finalFailures: ctx.task.broken.failureCount, tracePath: null, at: new Date().toISOString(),
  };
}

function refusalText(r: Refusal): string {
  switch (r.kind) {
    case 'settings':
    case 'checks':
      return `${r.kind}: ${r.problems.join('; ')}`;
    case 'model':
      return `model: ${r.problem}`;
    case 'endpoint':
      return `endpoint refused by the key rule: ${r.key.message}`;
    case 'storage':
      return `storage ${r.dir}: ${r.errno}`;
    case 'busy':
      return `busy: ${r.task}`;
    case 'interrupted':
      return `interrupted runs in the pair's storage: ${r.runs.map((x) => x.runId).join(', ')}`;
  }
}

function isPriced(s: Settings): boolean {
  return [s.model, ...s.model.escalation].every((m) => priceOf(m, s.model.pricing) !== null);
}

/** Whether the final verdict fails a held-out test: a held-out file named by a failure, or a held-out test by identity. */
export function heldOutFails(holdout: Holdout | null, final: Verdict): boolean {
  if (!holdout) return false;
  if (holdout.by !== 'test') return final.failingFiles.some((f) => holdout.heldOut.includes(f));
  const held = new Set((holdout.tests ?? []).map((t) => `${t.file}\0${t.id}`));
  return (final.failingTests ?? []).some((t) => held.has(`${t.file}\0${t.id}`));
}

export function pairStorage(storageDir: string, planId: string, task: string, variant: string): string {
  return path.join(storageDir, 'plans', planId, 'runs', variant.replace(/[^\w.-]/g, '_'), task);
}

export async function runPair(ctx: PairContext): Promise<PairRecord> {
  const started = Date.now();
  const { task, variant, plan } = ctx;
  // The repository the task's copies come from: the user's, or a scenario's own in the storage.
  const root = task.repo ?? ctx.root;
  const runDir = pairStorage(ctx.storageDir, plan.id, task.id, variant.name);
  // A pair an earlier bench began and never recorded starts over: its run's storage is not a checkpoint of the user's.
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  const extra: Record<string, unknown> = {};
  if (variant.kind === 'oracle') {
    const script = path.join(runDir, 'oracle.json');
    await writeOracleScript(root, task, script);
    Object.assign(extra, { 'model.provider': 'replay', 'model.id': script, 'model.baseUrl': '', 'model.escalation': [] });
  }
  const first = await ctx.ports.settings(variantOverrides(plan, variant, extra, task));
  if (!first.ok) return refusalRecord(ctx, `settings: ${first.problems.join('; ')}`, started);
  let settings: Settings = first.settings;
  // The bench-wide ceiling reaches into the run as its own: no call past what is left (a model without a price was refused up front).
  if (ctx.costLeft !== undefined && isPriced(settings)) settings = { ...settings, costCeiling: settings.costCeiling > 0 ? Math.min(settings.costCeiling, ctx.costLeft) : ctx.costLeft };
  const copy = await addTaskCopy(root, path.join(ctx.storageDir, 'work'), task.parent, `${task.id}-${variant.name}`);
  try {
    await putFilesAt(root, copy.dir, task.commit, task.testFiles);
    const holdout = task.holdout;
    // Held out by file: not in the copy while the loop runs; by test name: the file stays, the loop's verifier withholds their failures.
    const heldOutFiles = holdout && holdout.by !== 'test' ? holdout.heldOut : []; // a plan written before the split by name has no `by`: by file
    for (const f of heldOutFiles) rmSync(path.join(copy.dir, f), { force: true });
    const oracle = variant.kind === 'oracle';
    const launch = await prepareRun(
      { root: copy.dir, frontEnd: 'bench', storageDir: path.join(runDir, 'storage') },
      {
        settings: () => ({ ok: true, settings }),
        keys: oracle ? NO_KEYS : ctx.ports.keys,
        model: oracle ? (m) => ({ ok: true, provider: createProvider(m, { root: runDir, keyHint: '', replayLabel: 'oracle' }) }) : ctx.ports.model,
        workspace: () => new FsWorkspace(copy.dir),
        ...(ctx.ports.logger ? { logger: ctx.ports.logger } : {}),
      },
    );
    if (!launch.ok) return refusalRecord(ctx, refusalText(launch.refusal), started);
    const withheld = holdout?.by === 'test' && holdout.tests ? { verifier: withholdTests(launch.prepared.checks.verifier, holdout.tests, copy.dir) } : {};
    const report = await launch.prepared.build({ ...(ctx.signal ? { signal: ctx.signal } : {}), ...(task.instruction ? { instruction: task.instruction } : {}), ...withheld }).run.start();
    if (ctx.signal?.aborted) throw new PairCancelled();
    await putFilesAt(root, copy.dir, task.commit, heldOutFiles);
    const final = await judge(createCheckEngine({ root: copy.dir, settings: { ...settings, stagedChecks: false }, storageDir: path.join(runDir, 'final') }), ctx.signal);
    if (ctx.signal?.aborted) throw new PairCancelled();
    const changed = await changedFiles(root, copy.dir, task);
    const isProtected = settings.protectedPaths.length > 0 ? picomatch(settings.protectedPaths, { dot: true }) : (): boolean => false;
    return pairRecord({
      plan: plan.id,
      task: task.id,
      variant: variant.name,
      commit: task.commit,
      report,
      events: report.tracePath && existsSync(report.tracePath) ? readTrace(report.tracePath) : [],
      final,
      heldOut: holdout?.heldOut.length ?? 0,
      heldOutFailing: heldOutFails(holdout, final),
      wallMs: Date.now() - started,
      changed,
      protectedChanged: changed.filter((p) => isProtected(p) || task.testFiles.includes(p)),
      referenceFiles: task.referenceFiles,
      referenceBytesMatch: await referenceBytesMatch(root, copy.dir, task),
    });
  } finally {
    await copy.remove();
  }
}

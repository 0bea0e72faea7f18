// `fix-until-green run`: the loop, headless.
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { FsWorkspace } from '../core/edit/workspace';
import { checkProblems, createCheckEngine, createRunEngine } from '../core/engine';
import type { RunReport } from '../core/trace/events';
import { findInterruptedRuns } from '../core/edit/restore';
import { describeHolder, liveRunLock, runLockPath } from '../core/edit/runLock';
import { UsageError } from './errors';
import { createTimelinePrinter, formatSummary } from './printer';
import { defaultStorageDir, ensureWritableStorage } from './storage';
import { folderSettingKeys, resolveSettings } from './workspaceSettings';
import { folderSettingNotices } from '../core/model/keyTrust';
import type { Settings } from '../core/settings';

/** The watched settings' values by their dotted names, for the run's first lines. */
export function settingValues(s: Settings): Record<string, unknown> {
  return { maxSteps: s.maxSteps, tokenCeiling: s.tokenCeiling, costCeiling: s.costCeiling, 'model.pricing': s.model.pricing, allowVerifierEdits: s.allowVerifierEdits, protectedPaths: s.protectedPaths };
}

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

function numberFlag(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(v.trim())) throw new UsageError(`${flag}: "${v}" is not a number ≥ 0`);
  return Number(v);
}

function intFlag(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw new UsageError(`${flag}: "${v}" is not a whole number`);
  return Number(v);
}

export function resolveCwd(value: string | undefined): string {
  const cwd = path.resolve(value ?? '.');
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd: ${cwd} is not a directory`);
  return cwd;
}

/**
 * Refuses (exit 2, kind `busy`) while a live run holds the folder's run lock, whichever front end
 * started it. The run itself takes the lock atomically; this names the holder before anything starts.
 */
export function refuseWhileRunning(cwd: string, what: string): void {
  const holder = liveRunLock(cwd);
  if (!holder) return;
  throw new UsageError(`cannot ${what}: ${describeHolder(holder)}; wait for it to end or stop it`, 'busy', {
    holder: { runId: holder.runId, pid: holder.pid, frontEnd: holder.frontEnd, startedAt: holder.startedAt, storageDir: holder.storageDir, root: holder.root },
    lockPath: runLockPath(cwd),
  });
}

export function parseCheckFlags(values: string[]): { name: string; command: string }[] {
  return values.map((v) => {
    const i = v.indexOf('=');
    if (i <= 0 || i === v.length - 1) throw new UsageError(`--check: "${v}" must be NAME=COMMAND`);
    return { name: v.slice(0, i).trim(), command: v.slice(i + 1).trim() };
  });
}

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  // The providers bring the SDKs: loaded by `run` alone, not by the commands that share this module's helpers.
  const { createCliLadder, createCliProvider, keyTrust, parseModelSpec } = await import('./providers');
  const { values } = parseArgs({
    args: argv,
    options: {
      cwd: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      'max-steps': { type: 'string' },
      'token-ceiling': { type: 'string' },
      'stall-threshold': { type: 'string' },
      'time-limit': { type: 'string' },
      check: { type: 'string', multiple: true },
      escalate: { type: 'string', multiple: true },
      'cost-ceiling': { type: 'string' },
      instruction: { type: 'string' },
      storage: { type: 'string' },
      json: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      'ignore-interrupted': { type: 'boolean', default: false },
      'no-staged-checks': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const cwd = resolveCwd(values.cwd);
  const overrides: Record<string, { value: unknown; flag: string }> = {};
  const put = (key: string, flag: string, value: unknown): void => {
    if (value !== undefined) overrides[key] = { value, flag };
  };
  put('maxSteps', '--max-steps', intFlag('--max-steps', values['max-steps']));
  put('tokenCeiling', '--token-ceiling', intFlag('--token-ceiling', values['token-ceiling']));
  put('stallThreshold', '--stall-threshold', intFlag('--stall-threshold', values['stall-threshold']));
  put('timeLimitSeconds', '--time-limit', intFlag('--time-limit', values['time-limit']));
  if (values['no-staged-checks']) put('stagedChecks', '--no-staged-checks', false);
  if (values.check && values.check.length > 0) put('checks', '--check', parseCheckFlags(values.check));
  if (values.model !== undefined) {
    const spec = parseModelSpec(values.model);
    // A replay file named on the command line is relative to where the command runs.
    const id = spec.provider === 'replay' ? path.resolve(spec.id) : spec.id;
    put('model.provider', '--model', spec.provider);
    put('model.id', '--model', id);
  }
  if (values['base-url'] !== undefined) put('model.baseUrl', '--base-url', values['base-url']);
  put('costCeiling', '--cost-ceiling', numberFlag('--cost-ceiling', values['cost-ceiling']));
  if (values.escalate && values.escalate.length > 0) {
    const mainProvider = values.model !== undefined ? parseModelSpec(values.model).provider : undefined;
    put('model.escalation', '--escalate', values.escalate.map((v) => {
      const spec = parseModelSpec(v, '--escalate');
      // A rung of the same provider as --model reaches the same endpoint (e.g. a local server's bigger model).
      const baseUrl = spec.provider === mainProvider ? (values['base-url'] ?? '') : '';
      return { provider: spec.provider, id: spec.provider === 'replay' ? path.resolve(spec.id) : spec.id, baseUrl };
    }));
  }

  const settings = resolveSettings(cwd, overrides);
  if (values.model === undefined && settings.model.provider === 'vscode-lm') {
    throw new UsageError('--model is required outside VS Code (replay:FILE, openai-compatible:ID or anthropic:ID), or set fixUntilGreen.model.provider');
  }
  // A key goes only where its owner sends it: refused here, before any request (issue 29).
  const folder = folderSettingKeys(cwd, overrides);
  const withhold = keyTrust(settings, folder);
  for (const line of folderSettingNotices(folder.file, folder.keys, settingValues(settings))) io.stderr(`fix-until-green: ${line}`);
  const provider = createCliProvider(settings, cwd, { withhold });
  const escalation = createCliLadder(settings, cwd, { withhold });
  // No checks configured: discover them (tsconfig, ESLint config, scripts.test), as `check` does.
  const storageDir = path.resolve(values.storage ?? defaultStorageDir(cwd));
  const checks = createCheckEngine({ root: cwd, settings, storageDir });
  const unusable = checkProblems(checks);
  if (unusable) throw new UsageError(unusable.message, 'preflight');
  refuseWhileRunning(cwd, 'start another run');
  ensureWritableStorage(storageDir, values.storage !== undefined);
  // A run that was killed mid-way left files changed: a new run over them could make its revert lose them.
  const interrupted = await findInterruptedRuns(storageDir);
  if (interrupted.length > 0 && !values['ignore-interrupted']) {
    const r = interrupted[0]!;
    throw new UsageError(
      `an interrupted run (${r.runId}) left ${r.touched.length} file(s) changed (${r.touched.slice(0, 3).join(', ')}${r.touched.length > 3 ? ', ...' : ''}): ` +
        `\`fix-until-green revert --cwd ${cwd}\` restores them; --ignore-interrupted starts anyway`,
      'preflight',
      { interruptedRun: r.runId },
    );
  }

  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const printer = values.json || values.quiet ? undefined : createTimelinePrinter(io.stdout);
  const { run } = createRunEngine({
    root: cwd,
    settings,
    storageDir,
    checks,
    workspace: new FsWorkspace(cwd),
    provider,
    escalation,
    frontEnd: 'cli',
    signal: controller.signal,
    ...(values.instruction ? { instruction: values.instruction } : {}),
    ...(printer ? { onEvent: printer } : {}),
  });
  let report: RunReport;
  try {
    report = await run.start();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (values.json) io.stdout(JSON.stringify(toJson(report), null, 2));
  else for (const l of formatSummary(report)) io.stdout(l);
  if (report.stopReason === 'preflight-failed') return 2;
  return report.stopReason === 'green' ? 0 : 1;
}

/** The public `run --json` object (DESIGN §8), with extra fields after the contract's. */
export function toJson(r: RunReport): Record<string, unknown> {
  return {
    stopReason: r.stopReason,
    outcome: r.outcome,
    detail: r.detail,
    steps: r.steps.map((s) => ({
      index: s.index,
      failureHash: s.failureHash,
      failureCount: s.failureCount,
      applied: s.applied,
      tokens: s.tokens,
      postMortem: s.postMortem,
      status: s.status,
      confidence: s.confidence,
      files: s.files,
      critics: s.critics,
      feedback: s.feedback,
      ...(s.model !== undefined ? { model: s.model } : {}),
      ...(s.cost !== undefined && s.cost !== null ? { cost: s.cost } : {}),
    })),
    tokensUsed: r.tokensUsed,
    elapsedMs: r.elapsedMs,
    remainingFailures: r.remainingFailures,
    tracePath: r.tracePath,
    runId: r.runId,
    fixedFailures: r.fixedFailures,
    initialFailureCount: r.initialFailureCount,
    bestStep: r.bestStep,
    hypotheses: r.hypotheses,
    costUsed: r.costUsed ?? null,
    escalations: r.escalations ?? [],
  };
}

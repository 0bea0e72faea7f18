// `fix-until-green run`: the loop, headless.
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { FsWorkspace } from '../core/edit/workspace';
import { prepareRun } from '../core/launch';
import type { Settings } from '../core/settings';
import type { RunReport } from '../core/trace/events';
import { printFailure, UsageError } from './errors';
import { createTimelinePrinter, formatSummary } from './printer';
import { cliRefusal } from './refusals';
import { defaultStorageDir } from './storage';
import { folderSettingKeys, settingsAnswer } from './workspaceSettings';

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

export function parseCheckFlags(values: string[]): { name: string; command: string }[] {
  return values.map((v) => {
    const i = v.indexOf('=');
    if (i <= 0 || i === v.length - 1) throw new UsageError(`--check: "${v}" must be NAME=COMMAND`);
    return { name: v.slice(0, i).trim(), command: v.slice(i + 1).trim() };
  });
}

type Overrides = Record<string, { value: unknown; flag: string }>;
type ModelSpecParser = (value: string, flag?: string) => { provider: Settings['model']['provider']; id: string };

const RUN_OPTIONS = {
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
} as const;

type RunFlags = ReturnType<typeof parseArgs<{ options: typeof RUN_OPTIONS; strict: true; allowPositionals: false }>>['values'];

/** The settings `run`'s flags override, each with the flag a bad value is blamed on. */
function runOverrides(values: RunFlags, parseModelSpec: ModelSpecParser): Overrides {
  const overrides: Overrides = {};
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
    put('model.provider', '--model', spec.provider);
    put('model.id', '--model', spec.provider === 'replay' ? path.resolve(spec.id) : spec.id);
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
  return overrides;
}

const NO_MODEL = '--model is required outside VS Code (replay:FILE, openai-compatible:ID or anthropic:ID), or set fixUntilGreen.model.provider';

/** Runs `work` with Ctrl-C (and SIGTERM) aborting `controller` rather than killing the process. */
async function withSignals<T>(controller: AbortController, work: () => Promise<T>): Promise<T> {
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await work();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  // The providers bring the SDKs: loaded by `run` alone, not by the commands that share this module's helpers.
  const { cliKeyPort, cliModelPort, parseModelSpec } = await import('./providers');
  const { values } = parseArgs({ args: argv, options: RUN_OPTIONS, strict: true, allowPositionals: false });
  const cwd = resolveCwd(values.cwd);
  const overrides = runOverrides(values, parseModelSpec);
  const storageDir = path.resolve(values.storage ?? defaultStorageDir(cwd));
  // No checks configured: the launcher discovers them (tsconfig, ESLint config, scripts.test), as `check` does.
  const launch = await prepareRun(
    { root: cwd, frontEnd: 'cli', storageDir, ignoreInterrupted: values['ignore-interrupted'] },
    // A key goes only where its owner sends it (issue 29): the key port refuses before any request.
    { settings: () => settingsAnswer(cwd, overrides), keys: cliKeyPort(() => folderSettingKeys(cwd, overrides)), model: cliModelPort(cwd, NO_MODEL), workspace: () => new FsWorkspace(cwd) },
  );
  if (!launch.ok) return printFailure('run', argv, cliRefusal(launch.refusal, { what: 'start another run', cwd, storageFlag: values.storage !== undefined, ignoreFlag: true }), io);
  // The run's first lines: money and gate settings the folder's file set, before anything runs.
  for (const line of launch.prepared.notices) io.stderr(`fix-until-green: ${line}`);

  const controller = new AbortController();
  const printer = values.json || values.quiet ? undefined : createTimelinePrinter(io.stdout);
  const { run } = launch.prepared.build({ signal: controller.signal, ...(values.instruction ? { instruction: values.instruction } : {}), ...(printer ? { onEvent: printer } : {}) });
  const report = await withSignals(controller, () => run.start());
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

// The one way a run or a check pass starts, for every front end (the CLI's `run` and `check`, the MCP
// tools, VS Code's palette, tools and `@fix`, the evals, the agent hooks). Preflight runs here once, in
// one order, and ends either in what was prepared (the run's checks and models, built once) or in a
// refusal: a value that says what stops it, which each front end only words (the CLI: an exit code and
// one line; MCP: a tool error; VS Code: a notification with its fix buttons). Nothing in here throws a
// refusal for someone else to catch and re-word.
//
// The front end brings what only it knows, as ports: where the settings come from (a settings file and
// flags, VS Code's configuration, a scenario), how a model is built (keys from the environment or from
// SecretStorage, the chat's model, a replay script), the workspace a run writes through.
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { StoredRun } from './edit/storedRuns';
import { findInterruptedRuns } from './edit/storedRuns';
import type { RunLockRecord } from './edit/runLock';
import { liveRunLock, runLockPath } from './edit/runLock';
import type { Workspace } from './edit/workspace';
import type { CheckEngine, RunEngine, RunSetup } from './engine';
import { checkProblems, createCheckEngine, createRunEngine } from './engine';
import type { KeyRefusal } from './model/keyTrust';
import type { ModelProvider } from './model/provider';
import { unpricedProblems } from './model/pricing';
import type { ModelSettings, Settings } from './settings';
import type { PreflightFound } from './trace/events';
import type { Logger } from './types';

/** Who starts a run or a check pass; named in the run lock and in the trace's `run-start`. */
export type FrontEnd = 'cli' | 'mcp' | 'vscode' | 'vscode-tool' | 'vscode-chat' | 'evals' | 'hook' | 'bench';

/**
 * Which front end may run the checks while a run (of any front end) holds the folder. A check pass
 * beside a run reads files the run is changing: an agent (a tool, a hook) would take a half-made step
 * for the truth, and VS Code already shows the run's own checks. A person's `check` in a terminal is a
 * look they asked for, and writes nothing of the project.
 */
export const CHECKS_WHILE_A_RUN_HOLDS: Readonly<Record<FrontEnd, boolean>> = {
  cli: true,
  mcp: false,
  vscode: false,
  'vscode-tool': false,
  'vscode-chat': false,
  evals: false,
  hook: false,
  // A bench runs in copies of its own, never in the user's folder.
  bench: false,
};

/**
 * What stops a run or a check pass before it starts (listed in the order preflight looks). `D` is what the
 * front end's ports attached to their own answers (VS Code: the invalid settings read, a model's fix
 * buttons), handed back untouched for the wording. A new reason is one more member here.
 */
export type Refusal<D = unknown> =
  /** The settings cannot be read or are not valid; `problems` name each setting (or flag) and why. */
  | { kind: 'settings'; problems: string[]; detail?: D }
  /** Something else works in the folder: a live run's lock (`holder`), or this process's own `task`. */
  | { kind: 'busy'; task: string; holder?: RunLockRecord; lockPath?: string }
  /**
   * The key rule (model/keyTrust.ts): an endpoint only the folder's files chose (base URL, provider,
   * escalation rung) would be sent the owner's key; refused before any model is built or any request,
   * naming the file, the setting, the host and how the owner confirms it (`key`).
   */
  | { kind: 'endpoint'; key: KeyRefusal; detail?: D }
  /** A model cannot be built: `rung` 0 is the run's own model, `i` the i-th of `model.escalation`. */
  | { kind: 'model'; rung: number; model: ModelSettings; problem: string; detail?: D }
  /** The checks cannot run (none found, an executable missing, a duplicate name), with what discovery looked for. */
  | { kind: 'checks'; problems: string[] }
  /** The storage folder (runs, checkpoints, traces) cannot be written; `errno` is the OS's reason. */
  | { kind: 'storage'; dir: string; errno: string }
  /** Runs that stopped mid-way (killed, a reload) left files changed: a new run over them could lose them. */
  | { kind: 'interrupted'; runs: StoredRun[] };

export type RefusalKind = Refusal['kind'];

/** A front end's answer for its settings. */
export type SettingsAnswer<D = unknown> = { ok: true; settings: Settings } | { ok: false; problems: string[]; detail?: D };

/** A front end's answer for one model. */
export type ModelAnswer<D = unknown> = { ok: true; provider: ModelProvider } | { ok: false; problem: string; detail?: D };

/**
 * A front end's answer to the key rule (model/keyTrust.ts decideKeyTrust over where its keys come
 * from): the models (by setting: `fixUntilGreen.model`, `fixUntilGreen.model.escalation[i]`) to send
 * no key, with the run's first lines naming the money and gate settings the folder's files set; or
 * the endpoint refused.
 */
export type KeyAnswer<D = unknown> = { ok: true; withhold: readonly string[]; notices?: readonly string[] } | { ok: false; refusal: KeyRefusal; detail?: D };

/** The setting a rung's model comes from, as the key rule names it. */
export function rungSetting(rung: number): string {
  return rung === 0 ? 'fixUntilGreen.model' : `fixUntilGreen.model.escalation[${rung - 1}]`;
}

/** The key port of a front end whose models carry no key (replay scripts: the evals, tests). */
export const NO_KEYS = (): KeyAnswer<never> => ({ ok: true, withhold: [] });

export interface LaunchPorts<D = unknown> {
  settings(): SettingsAnswer<D> | Promise<SettingsAnswer<D>>;
  /**
   * The key rule, before any model is built: every model the run will build (`ownModel` false: the
   * request brings the run's own, only the escalation rungs are built) is sent its key only where the
   * owner sends it. Required: a front end that builds models says where its keys come from.
   */
  keys(settings: Settings, ownModel: boolean): KeyAnswer<D> | Promise<KeyAnswer<D>>;
  /**
   * Builds `m`, the `rung`-th model (0: the run's own; i: `model.escalation[i - 1]`), with the front
   * end's keys; `withholdKey`: the key rule sends this model no key (a loopback server the folder chose).
   */
  model(m: ModelSettings, rung: number, settings: Settings, withholdKey: boolean): ModelAnswer<D> | Promise<ModelAnswer<D>>;
  /** The workspace a run writes through (plain files, VS Code's buffers). */
  workspace(): Workspace;
  /** What this process itself is doing in the folder that the run lock may not show yet (a run starting, a revert). */
  ownWork?(): string | undefined;
  logger?: Logger;
}

/** What a check pass asks of the front end: no model, no workspace to write through. */
export type CheckPorts<D = unknown> = Pick<LaunchPorts<D>, 'settings' | 'ownWork' | 'logger'>;

export interface LaunchRequest {
  /** Absolute path of the workspace folder. */
  root: string;
  frontEnd: FrontEnd;
  /** This folder's storage: runs, checkpoints, traces, tsc build info. */
  storageDir: string;
  /** Stands in for the run's own model, which is then not built (the chat's model for `@fix`). */
  provider?: ModelProvider;
  /** Starts over files an interrupted run left changed (the CLI's `--ignore-interrupted`). */
  ignoreInterrupted?: boolean;
  /** Where configured checks come from, for their explanation (`--check`). */
  checksFrom?: string;
}

/** What the front end adds to a prepared run when it builds it. */
export type RunHooks = Pick<RunSetup, 'instruction' | 'signal' | 'onEvent' | 'critics' | 'continuation' | 'activeFile' | 'runId' | 'now' | 'verifier'>;

export interface PreparedChecks {
  settings: Settings;
  checks: CheckEngine;
}

export interface PreparedRun extends PreparedChecks {
  storageDir: string;
  provider: ModelProvider;
  escalation: ModelProvider[];
  /**
   * What the run's own preflight will stop on (`preflight-failed`, with its trace): a cost ceiling
   * over a model without a price. A front end that asks the user before a run may say it first.
   */
  problems: string[];
  /** The run's first lines: money and gate settings the folder's files set (the key port's notices). */
  notices: string[];
  found: PreflightFound;
  /** The run over what was prepared (nothing is built again). */
  build(hooks?: RunHooks): RunEngine;
}

export type Launch<T, D = unknown> = { ok: true; prepared: T } | { ok: false; refusal: Refusal<D> };

function refused<T, D>(refusal: Refusal<D>): Launch<T, D> {
  return { ok: false, refusal };
}

/** The storage folder exists and takes a write; else the OS's reason (a probe a full disk cut short is removed). */
export function storageProblem(dir: string): string | undefined {
  const probe = path.join(dir, `.write-probe-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, 'fix-until-green storage probe\n'.repeat(32));
    unlinkSync(probe);
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw e;
    if (code === 'ENOSPC' || code === 'EDQUOT') rmSync(probe, { force: true });
    return code;
  }
}

/** The folder's live run lock (not this process's: its own work is `ownWork`'s), or this process's task. */
function busy<D>(req: LaunchRequest, ports: CheckPorts<D>): Refusal<D> | undefined {
  const own = ports.ownWork?.();
  if (own !== undefined) return { kind: 'busy', task: own };
  const holder = liveRunLock(req.root);
  if (!holder || holder.pid === process.pid) return undefined;
  return { kind: 'busy', task: `a run of ${holder.frontEnd}`, holder, lockPath: runLockPath(req.root) };
}

function checksOf<D>(req: LaunchRequest, ports: CheckPorts<D>, settings: Settings): Launch<CheckEngine, D> {
  const checks = createCheckEngine({ root: req.root, settings, storageDir: req.storageDir, ...(ports.logger ? { logger: ports.logger } : {}), ...(req.checksFrom ? { checksFrom: req.checksFrom } : {}) });
  const unusable = checkProblems(checks);
  return unusable ? refused({ kind: 'checks', problems: [...unusable.problems] }) : { ok: true, prepared: checks };
}

/** The run's own model (unless the request brings one), then each of `model.escalation`, in order. */
async function modelsOf<D>(req: LaunchRequest, ports: LaunchPorts<D>, settings: Settings, withhold: ReadonlySet<string>): Promise<Launch<ModelProvider[], D>> {
  const wanted: [ModelSettings, number][] = [...(req.provider ? [] : [[settings.model, 0] as [ModelSettings, number]]), ...settings.model.escalation.map((m, i): [ModelSettings, number] => [m, i + 1])];
  const built: ModelProvider[] = req.provider ? [req.provider] : [];
  for (const [m, rung] of wanted) {
    const a = await ports.model(m, rung, settings, withhold.has(rungSetting(rung)));
    if (!a.ok) return refused({ kind: 'model', rung, model: m, problem: a.problem, ...(a.detail !== undefined ? { detail: a.detail } : {}) });
    built.push(a.provider);
  }
  return { ok: true, prepared: built };
}

async function settingsOf<D>(ports: CheckPorts<D>): Promise<Launch<Settings, D>> {
  const s = await ports.settings();
  return s.ok ? { ok: true, prepared: s.settings } : refused({ kind: 'settings', problems: s.problems, ...(s.detail !== undefined ? { detail: s.detail } : {}) });
}

/**
 * Preflight of a run, in its one order: settings → busy → endpoints (the key rule) → models → checks
 * → storage → interrupted runs. Nothing is written before the storage step (a refusal before it leaves no storage folder
 * behind); the models and the checks are built once, and handed to the run.
 */
export async function prepareRun<D = unknown>(req: LaunchRequest, ports: LaunchPorts<D>): Promise<Launch<PreparedRun, D>> {
  const s = await settingsOf(ports);
  if (!s.ok) return s;
  const settings = s.prepared;
  const held = busy(req, ports);
  if (held) return refused(held);
  const keys = await ports.keys(settings, req.provider === undefined);
  if (!keys.ok) return refused({ kind: 'endpoint', key: keys.refusal, ...(keys.detail !== undefined ? { detail: keys.detail } : {}) });
  const models = await modelsOf(req, ports, settings, new Set(keys.withhold));
  if (!models.ok) return models;
  const checks = checksOf(req, ports, settings);
  if (!checks.ok) return checks;
  const errno = storageProblem(req.storageDir);
  if (errno !== undefined) return refused({ kind: 'storage', dir: req.storageDir, errno });
  const interrupted = await findInterruptedRuns(req.storageDir);
  if (interrupted.length > 0 && !req.ignoreInterrupted) return refused({ kind: 'interrupted', runs: interrupted });
  const [provider, ...escalation] = models.prepared as [ModelProvider, ...ModelProvider[]];
  const found: PreflightFound = { frontEnd: req.frontEnd, discovered: checks.prepared.discovered, notes: checks.prepared.notes, ignoredInterrupted: interrupted.map((r) => r.runId) };
  let built: RunEngine | undefined;
  const prepared: PreparedRun = {
    settings,
    storageDir: req.storageDir,
    checks: checks.prepared,
    provider,
    escalation,
    problems: unpricedProblems(settings.model, settings.costCeiling),
    notices: [...(keys.notices ?? [])],
    found,
    build(hooks: RunHooks = {}): RunEngine {
      if (built) throw new Error('a prepared run is built once: prepare another for the next run');
      built = createRunEngine({ root: req.root, settings, storageDir: req.storageDir, checks: checks.prepared, workspace: ports.workspace(), provider, escalation, frontEnd: req.frontEnd, preflight: found, ...(ports.logger ? { logger: ports.logger } : {}), ...hooks });
      return built;
    },
  };
  return { ok: true, prepared };
}

/**
 * Preflight of a check pass: settings → busy (where CHECKS_WHILE_A_RUN_HOLDS says a run stops it)
 * → checks. No model, no storage write beyond the checks' own build info.
 */
export async function prepareChecks<D = unknown>(req: LaunchRequest, ports: CheckPorts<D>): Promise<Launch<PreparedChecks, D>> {
  const s = await settingsOf(ports);
  if (!s.ok) return s;
  if (!CHECKS_WHILE_A_RUN_HOLDS[req.frontEnd]) {
    const held = busy(req, ports);
    if (held) return refused(held);
  }
  const checks = checksOf(req, ports, s.prepared);
  return checks.ok ? { ok: true, prepared: { settings: s.prepared, checks: checks.prepared } } : checks;
}

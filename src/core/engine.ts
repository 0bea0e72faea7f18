// The one place that turns settings into an engine: the checks (configured or discovered), the
// verifier over them and the run. The CLI, the extension and the evals all build through here, so a
// setting reaches the verifier and the run the same way whichever front end started it.
//
// Front ends supply what only they know: the workspace (plain files or VS Code's buffers), the model
// provider (see model/factory.ts), the logger, the abort signal, the event sink. They decide how to
// tell the user about an `EngineConfigError`: the CLI exits 2 with it, VS Code shows it.
import { Run } from './loop/run';
import type { ContinuationHook, VerifierPort } from './loop/run';
import type { Workspace } from './edit/workspace';
import type { ModelProvider } from './model/provider';
import { ProviderFatalError } from './model/provider';
import { priceOf, unpricedProblems } from './model/pricing';
import type { Critic } from './policy/critics';
import type { Settings } from './settings';
import type { PreflightFound, TimedEvent } from './trace/events';
import type { CheckSpec, Logger } from './types';
import type { CheckOrigin } from './verify/discover';
import { explainChecks, resolveChecks } from './verify/discover';
import { Verifier } from './verify/verifier';

/** What every engine is built from. `settings` are validated (`validateSettings`, the front end's reader). */
export interface EngineSetup {
  /** Absolute path of the workspace folder the checks run in. */
  root: string;
  settings: Settings;
  /** This workspace's storage, outside its tree: runs, checkpoints, traces, tsc build info. */
  storageDir: string;
  /** Passed to the verifier and the run; silent when omitted. */
  logger?: Logger;
  /** Where configured checks come from, for their explanation (`--check`); default `fixUntilGreen.checks`. */
  checksFrom?: string;
}

/** The verifier a front end checks with, and the checks it runs. */
export interface CheckEngine {
  verifier: Verifier;
  /** The checks the verifier runs: `settings.checks`, or the discovered ones when none are configured. */
  checks: CheckSpec[];
  discovered: boolean;
  /** What discovery found worth saying (empty when the checks are configured). */
  notes: string[];
  /** Per check, where it came from and which parser reads it, and why (`check --explain`). */
  origins: Record<string, CheckOrigin>;
}

/**
 * The settings cannot make a working engine. `problems` are the reasons, each a sentence in the
 * settings' own terms; front ends may word them their own way by `code`.
 */
export class EngineConfigError extends Error {
  constructor(
    /** `checks`: the verifier's preflight failed (no checks, a missing executable, a duplicate name). */
    readonly code: 'checks',
    readonly problems: readonly string[],
  ) {
    super(problems.join('; '));
    this.name = 'EngineConfigError';
  }
}

/** Builds the verifier for `settings`: the configured checks, else those discovered under `root`. */
export function createCheckEngine(s: EngineSetup): CheckEngine {
  const { checks, discovered, notes, origins, prerequisites } = resolveChecks(s.root, s.settings.checks);
  if (discovered) s.logger?.info(`checks discovered in ${s.root}: ${checks.map((c) => `${c.name} (${c.command})`).join(', ') || 'none'}${notes.length ? `; ${notes.join('; ')}` : ''}`);
  const verifier = new Verifier({
    root: s.root,
    checks,
    parallel: s.settings.parallelChecks,
    outputLimitKb: s.settings.outputLimitKb,
    flakyReruns: s.settings.flakyReruns,
    staged: s.settings.stagedChecks,
    storageDir: s.storageDir,
    prerequisites,
    ...(s.logger ? { logger: s.logger } : {}),
  });
  return { verifier, checks, discovered, notes: discovered ? notes : [], origins: explainChecks(s.root, checks, origins, s.checksFrom) };
}

/**
 * The reasons the checks cannot run at all (the verifier's preflight, with discovery's notes when the
 * checks were discovered, since those say what was looked for), or undefined when they can.
 */
export function checkProblems(e: CheckEngine): EngineConfigError | undefined {
  const problems = e.verifier.preflight();
  return problems.length > 0 ? new EngineConfigError('checks', [...problems, ...e.notes]) : undefined;
}

/** A model that could not be made, and why: the run then stops at preflight with this problem. */
export interface MissingProvider {
  problem: string;
}

/** What a run adds to the engine setup: the front end's ports and hooks. */
export interface RunSetup extends EngineSetup {
  workspace: Workspace;
  /** The model, or why there is none (the run then stops with `preflight-failed`, naming it, and never calls a model). */
  provider: ModelProvider | MissingProvider;
  /**
   * `settings.model.escalation`, built by the front end (with its own key source), in the same order;
   * a rung that could not be built stops the run at preflight, naming it.
   */
  escalation?: (ModelProvider | MissingProvider)[];
  /** Checks already built (e.g. by `createCheckEngine` to refuse early); built from the settings when omitted. */
  checks?: CheckEngine;
  /** Stands in for the settings' verifier (tests, benchmarks); the checks are still resolved for the run's record. */
  verifier?: VerifierPort;
  instruction?: string;
  signal?: AbortSignal;
  onEvent?: (e: TimedEvent) => void;
  /** Critics run after the built-in ones the settings switch on. */
  critics?: Critic[];
  continuation?: ContinuationHook;
  /** The file open in the editor, workspace-relative. */
  activeFile?: string;
  /** More problems the front end found (e.g. settings it could not read); the run stops at preflight with them. */
  preflightProblems?: string[];
  runId?: string;
  now?: () => number;
  /** Which front end runs (`cli`, `vscode`, `evals`): named in the folder's run lock. */
  frontEnd?: string;
  /** What the launcher's preflight found (core/launch.ts), for the `run-start` event. */
  preflight?: PreflightFound;
}

export interface RunEngine extends CheckEngine {
  run: Run;
}

/** A provider for a run that will stop at preflight: never asked, it says why if it were. */
function unavailableProvider(problem: string): ModelProvider {
  return { label: 'unavailable', complete: () => Promise.reject(new ProviderFatalError(problem)) };
}

function isProvider(p: ModelProvider | MissingProvider): p is ModelProvider {
  return typeof (p as ModelProvider).complete === 'function';
}

/** Builds a run over `settings`: its verifier, the checks it records, its preflight problems. */
export function createRunEngine(s: RunSetup): RunEngine {
  const checks = s.checks ?? createCheckEngine(s);
  const { model } = s.settings;
  const rungs = s.escalation ?? [];
  const problems = [
    ...(rungs.length === model.escalation.length ? [] : [`fixUntilGreen.model.escalation names ${model.escalation.length} model(s) but ${rungs.length} were built`]),
    ...(s.preflightProblems ?? []),
    ...(isProvider(s.provider) ? [] : [s.provider.problem]),
    ...rungs.flatMap((r, i) => (isProvider(r) ? [] : [`fixUntilGreen.model.escalation[${i}]: ${r.problem}`])),
    ...unpricedProblems(model, s.settings.costCeiling),
    // With nothing to run, what discovery looked for is the useful half of the message.
    ...(checks.checks.length === 0 ? checks.notes : []),
  ];
  const run = new Run({
    workspace: s.workspace,
    verifier: s.verifier ?? checks.verifier,
    provider: isProvider(s.provider) ? s.provider : unavailableProvider(s.provider.problem),
    price: priceOf(model, model.pricing),
    escalation: rungs.map((r, i) => ({ provider: isProvider(r) ? r : unavailableProvider(r.problem), price: model.escalation[i] ? priceOf(model.escalation[i], model.pricing) : null })),
    // The run records the checks it used, discovered or configured.
    settings: { ...s.settings, checks: checks.checks },
    storageDir: s.storageDir,
    ...(s.logger ? { logger: s.logger } : {}),
    ...(s.instruction ? { instruction: s.instruction } : {}),
    ...(s.signal ? { signal: s.signal } : {}),
    ...(s.onEvent ? { onEvent: s.onEvent } : {}),
    ...(s.critics ? { critics: s.critics } : {}),
    ...(s.continuation ? { continuation: s.continuation } : {}),
    ...(s.activeFile ? { activeFile: s.activeFile } : {}),
    ...(s.runId ? { runId: s.runId } : {}),
    ...(s.now ? { now: s.now } : {}),
    ...(s.frontEnd ? { frontEnd: s.frontEnd } : {}),
    ...(s.preflight ? { preflight: s.preflight } : {}),
    ...(problems.length > 0 ? { preflightProblems: problems } : {}),
  });
  return { ...checks, run };
}

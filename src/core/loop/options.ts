// What a run is given: the ports it works through, its settings, and the front end's hooks.
import type { Workspace } from '../edit/workspace';
import type { ModelProvider } from '../model/provider';
import type { Critic } from '../policy/critics';
import type { Decision } from '../policy/reasons';
import type { ModelPrice, Settings } from '../settings';
import type { PreflightFound, TimedEvent } from '../trace/events';
import type { Logger, VerifyResult } from '../types';

export interface VerifierPort {
  preflight(): string[] | Promise<string[]>;
  /**
   * `previous` is the state the workspace is in before this verification, for flake re-runs: after
   * a rollback it is the restored state, not the last one verified. `changed`: the files a step's
   * edit changed since that state, so staged checks can run warm or targeted (green is still
   * decided by every check in full).
   */
  verify(signal?: AbortSignal, options?: { previous?: VerifyResult | null; changed?: readonly string[]; warmStart?: boolean }): Promise<VerifyResult>;
  /** Staged checks: start what is kept warm between steps (called once step 0 found work to do). */
  warm?(): Promise<void>;
  /** Ends whatever the verifier kept running for the run (warm type checkers); called at every stop. */
  release?(): Promise<void>;
}

/** More budget for a run stopped (or about to stop) by `step-cap` or `token-ceiling`. */
export interface ContinueGrant {
  extraSteps?: number;
  extraTokens?: number;
}

export interface ContinuationState {
  stepsDone: number;
  maxSteps: number;
  tokensUsed: number;
  tokenCeiling: number;
  elapsedMs: number;
}

/**
 * Asked when `step-cap` or `token-ceiling` fires; a grant that adds what ran out overrides the stop
 * (recorded in the trace as a `decision` with `overridden: true`) and the run goes on.
 */
export type ContinuationHook = (stop: Decision, state: ContinuationState) => ContinueGrant | undefined | Promise<ContinueGrant | undefined>;

/** A model of the escalation ladder, built, with its price when it has one. */
export interface LadderRung {
  provider: ModelProvider;
  price: ModelPrice | null;
}

export interface RunOptions {
  workspace: Workspace;
  verifier: VerifierPort;
  provider: ModelProvider;
  /** The price of `provider`'s model per million tokens; none (the default): its calls cost no money the run counts. */
  price?: ModelPrice | null;
  /** `model.escalation`, built: the models the run goes on with, in order, when a stop in `escalateOn` fires. */
  escalation?: LadderRung[];
  settings: Settings;
  /** Directory for this workspace's runs; the run writes under `<storageDir>/runs/<runId>/`. */
  storageDir: string;
  instruction?: string;
  signal?: AbortSignal;
  onEvent?: (e: TimedEvent) => void;
  logger?: Logger;
  runId?: string;
  now?: () => number;
  /** Extra preflight problems found by the front end (settings, model reachability). */
  preflightProblems?: string[];
  /** Critics run after the built-in ones the settings switch on. */
  critics?: Critic[];
  continuation?: ContinuationHook;
  /** Which front end runs (`cli`, `vscode`, …): named in the folder's run lock. */
  frontEnd?: string;
  /** The file open in the editor (VS Code), workspace-relative: shown to the model when the budget allows. */
  activeFile?: string;
  /** What the launcher's preflight found (core/launch.ts), for the `run-start` event. */
  preflight?: PreflightFound;
}

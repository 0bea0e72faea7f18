// One controller owns one workspace folder's run: its AbortController, its state, its events.
// Commands, the status bar and the panel talk to it, never to each other or to the engine.
// No `vscode` import: the composition happens in commands.ts, the unit tests drive it directly.
import type { RunReport, TimedEvent } from '../core/trace/events';
import type { Limits, RunState } from './runState';
import { canContinue, continuing, idleState, reduceRunState } from './runState';

/** The part of the engine's `Run` the controller uses. */
export interface RunLike {
  readonly runId: string;
  readonly runDir: string;
  readonly tracePath: string;
  start(): Promise<RunReport>;
  continue(extra: { extraSteps?: number; extraTokens?: number }): Promise<RunReport>;
  cancel(): void;
}

/** What a run is created with: the controller's signal and event sink. */
export interface RunWiring {
  signal: AbortSignal;
  onEvent: (e: TimedEvent) => void;
}

export interface Disposable {
  dispose(): void;
}

export class RunInProgressError extends Error {
  constructor(folderName: string) {
    super(`a run is already in progress in ${folderName}; stop it first`);
    this.name = 'RunInProgressError';
  }
}

type Listener = (state: RunState) => void;

export class RunController {
  private current: RunState;
  private run: RunLike | undefined;
  private abort: AbortController | undefined;
  private busy = false;
  private readonly listeners = new Set<Listener>();
  private readonly eventListeners = new Set<(e: TimedEvent) => void>();

  constructor(
    readonly folder: string,
    readonly folderName: string,
    limits: Limits,
    restored?: RunState,
    private readonly now: () => number = Date.now,
  ) {
    // A state persisted while running belongs to a window that is gone: the run did not finish.
    this.current = restored
      ? restored.status === 'running'
        ? { ...restored, status: 'stopped', stopReason: restored.stopReason ?? 'error', detail: restored.detail ?? 'the window closed while the run was in progress', phase: '' }
        : restored
      : idleState(folder, folderName, limits);
  }

  get state(): RunState {
    return this.current;
  }

  get running(): boolean {
    return this.busy;
  }

  get canContinue(): boolean {
    return !this.busy && this.run !== undefined && canContinue(this.current);
  }

  onDidChange(listener: Listener): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Every raw loop event, for consumers that need more than the state (e.g. the log). */
  onEvent(listener: (e: TimedEvent) => void): Disposable {
    this.eventListeners.add(listener);
    return { dispose: () => this.eventListeners.delete(listener) };
  }

  private set(state: RunState): void {
    this.current = state;
    for (const l of [...this.listeners]) l(state);
  }

  /** Updates the idle limits shown before any run (settings changed). */
  setIdleLimits(limits: Limits): void {
    if (this.current.status === 'idle') this.set({ ...this.current, limits });
  }

  private handle(e: TimedEvent): void {
    this.set(reduceRunState(this.current, e));
    for (const l of [...this.eventListeners]) l(e);
  }

  /**
   * Creates the run with this controller's signal and event sink and runs it to its stop. Only one
   * run per folder at a time: a second start while one is in progress throws RunInProgressError.
   */
  async start(create: (wiring: RunWiring) => RunLike | Promise<RunLike>): Promise<RunReport> {
    if (this.busy) throw new RunInProgressError(this.folderName);
    this.busy = true;
    const abort = new AbortController();
    this.abort = abort;
    try {
      const run = await create({ signal: abort.signal, onEvent: (e) => this.handle(e) });
      this.run = run;
      this.current = { ...this.current, runDir: run.runDir, tracePath: run.tracePath, reverted: null };
      return await this.settle(run.start());
    } finally {
      this.busy = false;
      this.abort = undefined;
      this.set({ ...this.current });
    }
  }

  /** Resumes a run stopped by step-cap or token-ceiling with more budget (DESIGN §3). */
  async continue(extra: { extraSteps: number; extraTokens: number }): Promise<RunReport> {
    if (this.busy) throw new RunInProgressError(this.folderName);
    const run = this.run;
    if (!run || !canContinue(this.current)) {
      throw new Error(`nothing to continue in ${this.folderName}: only a run of this session stopped by step-cap or token-ceiling can continue`);
    }
    this.busy = true;
    const abort = new AbortController();
    this.abort = abort;
    const onAbort = (): void => run.cancel();
    abort.signal.addEventListener('abort', onAbort, { once: true });
    const l = this.current.limits;
    this.set(continuing(this.current, { ...l, maxSteps: l.maxSteps + extra.extraSteps, tokenCeiling: l.tokenCeiling + extra.extraTokens }, this.now()));
    try {
      return await this.settle(run.continue(extra));
    } finally {
      abort.signal.removeEventListener('abort', onAbort);
      this.busy = false;
      this.abort = undefined;
      this.set({ ...this.current });
    }
  }

  /** The engine reports every stop through run-end; a rejection is a fault the state must still show. */
  private async settle(p: Promise<RunReport>): Promise<RunReport> {
    try {
      return await p;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.set({ ...this.current, status: 'stopped', stopReason: 'error', outcome: this.current.outcome ?? 'punt', detail: msg, phase: '' });
      throw e;
    }
  }

  /** Asks the run in progress to stop; it ends with `cancelled`. False when nothing runs. */
  stop(): boolean {
    if (!this.busy || !this.abort) return false;
    this.abort.abort(new Error('cancelled'));
    this.set({ ...this.current, phase: 'stopping' });
    return true;
  }

  markReverted(kind: 'run' | 'best'): void {
    this.set({ ...this.current, reverted: kind, ...(kind === 'run' ? { remainingFailures: [] } : {}) });
  }

  /** Replaces the remaining failures after a revert or a check-only verification. */
  setRemainingFailures(failures: RunState['remainingFailures']): void {
    this.set({ ...this.current, remainingFailures: failures });
  }
}

/** One controller per workspace folder, and which one the status bar and the panel follow. */
export class RunControllers {
  private readonly byFolder = new Map<string, RunController>();
  private activeFolder: string | undefined;
  private readonly listeners = new Set<(c: RunController) => void>();
  private readonly subscriptions = new Map<string, Disposable>();

  constructor(private readonly make: (folder: string, folderName: string) => RunController) {}

  get(folder: string, folderName: string): RunController {
    let c = this.byFolder.get(folder);
    if (!c) {
      c = this.make(folder, folderName);
      this.byFolder.set(folder, c);
      const ctl = c;
      this.subscriptions.set(folder, c.onDidChange(() => this.fire(ctl)));
      if (this.activeFolder === undefined) this.activeFolder = folder;
      // A controller restored with its folder's last run is news to the status bar and the panel.
      this.fire(ctl);
    }
    return c;
  }

  find(folder: string): RunController | undefined {
    return this.byFolder.get(folder);
  }

  all(): RunController[] {
    return [...this.byFolder.values()];
  }

  running(): RunController[] {
    return this.all().filter((c) => c.running);
  }

  /** The controller the status bar and the panel show: the last one started or focused. */
  get active(): RunController | undefined {
    return this.activeFolder === undefined ? undefined : this.byFolder.get(this.activeFolder);
  }

  setActive(folder: string): void {
    if (this.activeFolder === folder || !this.byFolder.has(folder)) return;
    this.activeFolder = folder;
    this.fire(this.byFolder.get(folder)!);
  }

  remove(folder: string): void {
    this.subscriptions.get(folder)?.dispose();
    this.subscriptions.delete(folder);
    this.byFolder.delete(folder);
    if (this.activeFolder === folder) this.activeFolder = this.byFolder.keys().next().value;
  }

  onDidChange(listener: (c: RunController) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private fire(c: RunController): void {
    for (const l of [...this.listeners]) l(c);
  }

  dispose(): void {
    for (const c of this.all()) c.stop();
    for (const d of this.subscriptions.values()) d.dispose();
    this.subscriptions.clear();
    this.listeners.clear();
  }
}

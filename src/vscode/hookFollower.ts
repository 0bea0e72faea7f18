// Follows the agent host sessions our hooks record in a folder's storage (issue 30: "in VS Code the
// panel follows a live hook session in the workspace"). The hooks the extension installs (Gate Agent
// Mode…) run the CLI with `--storage <this folder's storage>`, so each session is a run there:
// `runs/hook-<host>-<id>-<hash>/trace.jsonl`. The newest session's trace is tailed as it grows
// (fs.watch, with a poll as the fallback where watching fails or misses a change), its new lines
// folded (sessionState.ts) and the state handed to the folder's controller, which shows it while it
// has no run of its own. Reads are asynchronous and incremental (from the last offset; a last line
// still being written waits for its newline), so the extension host never blocks on a growing trace.
// No `vscode` import: in the engine bundle, loaded once a session shows up (hookWatch.ts).
import type { FSWatcher } from 'node:fs';
import { promises as fs, watch } from 'node:fs';
import * as path from 'node:path';
import type { TimedEvent } from '../core/trace/events';
import type { Logger } from '../core/types';
import type { Disposable } from './controller';
import type { RunState } from './common/runState';
import { idleState } from './common/runState';
import { foldSession, isSession, sessionLeads, settleQuiet } from './sessionState';

export interface FollowerDeps {
  folder: string;
  folderName: string;
  /** The folder's storage, where the installed hooks keep their sessions (`--storage`). */
  storageDir: string;
  /** What the folder's panel shows now. */
  current: () => RunState;
  /** Shows the session's state; false when a run or task of ours holds the folder. */
  show: (state: RunState) => boolean;
  logger: Logger;
  /** The fallback poll (ms): a missed watch event costs at most this much delay. */
  pollMs?: number;
  now?: () => number;
}

interface Followed {
  runId: string;
  trace: string;
  mtimeMs: number;
  /** Bytes of the trace folded so far (complete lines only). */
  offset: number;
  state: RunState;
  watcher: FSWatcher | undefined;
}

/** The hook session in `runsDir` whose trace changed last, or undefined when there is none. */
export async function newestSession(runsDir: string): Promise<{ runId: string; trace: string; mtimeMs: number } | undefined> {
  let names: string[];
  try {
    names = await fs.readdir(runsDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let best: { runId: string; trace: string; mtimeMs: number } | undefined;
  for (const runId of names.filter((n) => n.startsWith('hook-') && !n.endsWith('.lock'))) {
    const trace = path.join(runsDir, runId, 'trace.jsonl');
    const st = await fs.stat(trace).catch((e: NodeJS.ErrnoException) => {
      // A session whose first hook call has not written its trace yet.
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
      throw e;
    });
    if (st && (!best || st.mtimeMs > best.mtimeMs)) best = { runId, trace, mtimeMs: st.mtimeMs };
  }
  return best;
}

export class HookFollower implements Disposable {
  private followed: Followed | undefined;
  private runsWatcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private working = false;
  private again = false;
  private disposed = false;
  /** The last state handed to the controller (a state is shown once, not at every poll). */
  private delivered: RunState | undefined;
  private readonly runsDir: string;
  /** Resolves when the work in progress (and any asked for meanwhile) is done: for the tests. */
  private idle: Promise<void> = Promise.resolve();

  constructor(private readonly deps: FollowerDeps) {
    this.runsDir = path.join(deps.storageDir, 'runs');
  }

  start(): this {
    this.runsWatcher = this.watch(this.runsDir);
    this.timer = setInterval(() => this.kick(), this.deps.pollMs ?? 1500);
    this.timer.unref();
    this.kick();
    return this;
  }

  /** The state of the session followed, folded so far. */
  get state(): RunState | undefined {
    return this.followed?.state;
  }

  /** Looks again now (a watch event, the poll); one look at a time, the last request never lost. */
  kick(): Promise<void> {
    if (this.disposed) return this.idle;
    if (this.working) {
      this.again = true;
      return this.idle;
    }
    this.working = true;
    this.idle = (async () => {
      try {
        do {
          this.again = false;
          await this.look();
        } while (this.again && !this.disposed);
      } catch (e) {
        this.deps.logger.warn(`following the agent sessions of ${this.deps.folderName}: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        this.working = false;
      }
    })();
    return this.idle;
  }

  private watch(target: string): FSWatcher | undefined {
    try {
      const w = watch(target, { persistent: false }, () => void this.kick());
      // A watch that fails later (the folder removed, too many watches) leaves the poll to it.
      w.on('error', () => w.close());
      return w;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOSPC' && code !== 'EMFILE') this.deps.logger.debug(`fs.watch ${target}: ${(e as Error).message}; polling instead`);
      return undefined;
    }
  }

  private async look(): Promise<void> {
    // The runs folder may appear after the follower starts: watch it once it is there.
    this.runsWatcher ??= this.watch(this.runsDir);
    const newest = await newestSession(this.runsDir);
    if (!newest) return;
    const f = this.followed;
    if (!f || (newest.runId !== f.runId && newest.mtimeMs > f.mtimeMs)) this.switchTo(newest);
    await this.readMore(this.followed!);
    this.deliver();
  }

  private switchTo(s: { runId: string; trace: string; mtimeMs: number }): void {
    this.followed?.watcher?.close();
    const base = { ...idleState(this.deps.folder, this.deps.folderName, { maxSteps: 0, tokenCeiling: 0, timeLimitSeconds: 0 }), runDir: path.dirname(s.trace), tracePath: s.trace };
    this.followed = { runId: s.runId, trace: s.trace, mtimeMs: s.mtimeMs, offset: 0, state: base, watcher: this.watch(s.trace) };
    this.deps.logger.info(`following ${s.runId} in ${this.deps.folderName} (an agent's session gated by the hooks)`);
  }

  /** Folds the trace's lines written since the last read; a last line without its newline waits. */
  private async readMore(f: Followed): Promise<void> {
    const handle = await fs.open(f.trace, 'r');
    try {
      const { size, mtimeMs } = await handle.stat();
      f.mtimeMs = mtimeMs;
      if (size === f.offset) return;
      if (size < f.offset) {
        // Rewritten from the start (never by our writer, which appends): fold it again.
        f.offset = 0;
        f.state = { ...idleState(this.deps.folder, this.deps.folderName, f.state.limits), runDir: f.state.runDir, tracePath: f.state.tracePath };
      }
      const buf = Buffer.alloc(size - f.offset);
      const { bytesRead } = await handle.read(buf, 0, buf.length, f.offset);
      const end = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (end < 0) return;
      const events: TimedEvent[] = [];
      for (const line of buf.subarray(0, end).toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        try {
          events.push(JSON.parse(line) as TimedEvent);
        } catch (e) {
          this.deps.logger.warn(`${f.trace}: skipped a line that is not JSON (${(e as Error).message})`);
        }
      }
      f.offset += end + 1;
      f.state = foldSession(f.state, events);
    } finally {
      await handle.close();
    }
  }

  private deliver(): void {
    const f = this.followed;
    if (!f || !isSession(f.state)) return;
    // A live session that went quiet for longer than its time limit is over (the agent quit between stops).
    f.state = settleQuiet(f.state, (this.deps.now ?? Date.now)());
    if (f.state === this.delivered) return;
    if (!sessionLeads(this.deps.current(), f.state)) return;
    if (this.deps.show(f.state)) this.delivered = f.state;
  }

  /** Waits for the look in progress (tests). */
  settled(): Promise<void> {
    return this.idle;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    this.runsWatcher?.close();
    this.followed?.watcher?.close();
  }
}

/** The follower of one folder's controller, started (hookWatch.ts calls it once a session is there). */
export function followHookSessions(c: { folder: string; folderName: string; state: RunState; showSession(s: RunState): boolean }, storageDir: string, logger: Logger): Disposable {
  return new HookFollower({ folder: c.folder, folderName: c.folderName, storageDir, logger, current: () => c.state, show: (s) => c.showSession(s) }).start();
}

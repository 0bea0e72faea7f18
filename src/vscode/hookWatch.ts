// The shell's side of following an agent's hook session (issue 30): a cheap look, every few
// seconds, for a session the hooks recorded in a folder's storage that is newer than what its panel
// shows. Only then is the follower started (hookFollower.ts, in the engine bundle): a window whose
// folders have no gated agent loads nothing for this.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../core/types';
import type { Disposable } from './controller';
import type { RunControllers } from './runControllers';
import { folderStorageDir } from './folders';
import type { RunState } from './common/runState';
import { loadEngine } from './shellEngine';

/** Whether `runs` holds a hook session changed after what `s` shows (a live session shown: always, to follow it). */
async function newerSession(runs: string, s: RunState): Promise<boolean> {
  const shown = s.session ? (s.status === 'running' ? 0 : s.session.lastEventAt) : s.status === 'idle' ? 0 : s.startedAt + s.elapsedMs;
  const names = await fs.readdir(runs).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [];
    throw e;
  });
  for (const n of names.filter((x) => x.startsWith('hook-') && !x.endsWith('.lock'))) {
    const st = await fs.stat(path.join(runs, n, 'trace.jsonl')).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    });
    // A second of slack: the trace is written just after its last event's timestamp.
    if (st && st.mtimeMs > shown + 1000) return true;
  }
  return false;
}

export function watchHookSessions(controllers: RunControllers, storageRoot: string | undefined, logger: Logger, everyMs = 2000): Disposable {
  const followers = new Map<string, Disposable | null>();
  let looking = false;
  const look = async (): Promise<void> => {
    for (const c of controllers.all()) {
      if (!storageRoot || followers.has(c.folder)) continue;
      const dir = folderStorageDir(storageRoot, c.folder);
      if (!(await newerSession(path.join(dir, 'runs'), c.state))) continue;
      followers.set(c.folder, null);
      try {
        followers.set(c.folder, (await loadEngine(logger)).followHookSessions(c, dir, logger));
      } catch (e) {
        followers.delete(c.folder);
        throw e;
      }
    }
    // A folder removed from the workspace: its follower goes with it.
    for (const [folder, f] of followers) {
      if (!controllers.find(folder)) {
        f?.dispose();
        followers.delete(folder);
      }
    }
  };
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    look()
      .catch((e: unknown) => logger.warn(`looking for agent sessions: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => (looking = false));
  }, everyMs);
  timer.unref();
  return {
    dispose: () => {
      clearInterval(timer);
      for (const f of followers.values()) f?.dispose();
    },
  };
}

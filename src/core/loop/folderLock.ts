// One run per workspace folder, whichever front end starts it (DESIGN §5): the run holds the
// folder's lock while it works. A lock whose owner is gone marks an interrupted run, whose checks'
// strays are reaped before this run starts its own.
import type { RunLock } from '../edit/runLock';
import { acquireRunLock } from '../edit/runLock';
import type { Decision } from '../policy/reasons';
import type { Logger } from '../types';
import { reapStrays } from '../verify/containment';

export async function holdFolder(o: { root: string; runId: string; frontEnd: string; storageDir: string; logger: Logger }): Promise<{ lock: RunLock } | { refused: Decision }> {
  const r = acquireRunLock(o.root, { runId: o.runId, frontEnd: o.frontEnd, storageDir: o.storageDir });
  if (!r.ok) return { refused: { reason: 'preflight-failed', detail: r.message, evidence: { holderPid: r.holder.pid, holderRunId: r.holder.runId } } };
  const storages = new Set([o.storageDir]);
  if (r.stale) {
    o.logger.warn(`run ${r.stale.runId ?? '(unnamed)'} of ${r.stale.frontEnd} (pid ${r.stale.pid}) was interrupted: it left its lock behind`);
    storages.add(r.stale.storageDir);
  }
  for (const dir of storages) {
    const reaped = await reapStrays(dir);
    if (reaped > 0) o.logger.warn(`ended ${reaped} process(es) of checks an interrupted run left running`);
  }
  return { lock: r.lock };
}

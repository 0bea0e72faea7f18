// Putting the workspace back: to the state before a rolled-back step, and at the stop to what
// `onStop` and the outcome choose (DESIGN §3.2). A file the user changed since the run wrote it is
// left as the user has it; that is a conflict, and a conflict is never reported as a restore.
import type { Checkpoint } from '../edit/checkpoint';
import { restoreState } from '../edit/restore';
import type { FileTracker } from '../edit/tracker';
import type { Workspace } from '../edit/workspace';
import type { OutcomeDecision } from '../policy/outcome';
import { restoreTarget } from '../policy/outcome';
import type { Decision } from '../policy/reasons';
import type { OnStop } from '../settings';
import type { RunHistory } from './history';
import type { Observed, RestoreOutcome } from './state';
import type { HeldState } from '../trace/events';

export interface AtStop {
  decision: Decision;
  judged: OutcomeDecision;
  /** For a continuation: where the workspace now stands, when the stop moved it. */
  resumeNote?: string;
  /** What the workspace holds after the stop; absent when a restore met a conflict (the decision says which files). */
  held?: HeldState;
}

export class Restorer {
  constructor(
    private readonly workspace: Workspace,
    private readonly tracker: FileTracker,
    private readonly checkpoint: () => Checkpoint | undefined,
  ) {}

  /** Brings every touched file to `target`'s content (original bytes where target has none). */
  async restore(target: Observed): Promise<RestoreOutcome> {
    const checkpoint = this.checkpoint();
    if (!checkpoint) return { changed: 0 };
    const r = await restoreState(target.files, { workspace: this.workspace, checkpoint, tracker: this.tracker });
    if (r.conflicts.length === 0) return { changed: r.actions.length };
    const detail = `could not restore the state of step ${target.step}: ${r.conflicts.map((c) => c.reason).join('; ')}; the run's version is kept in its storage (Revert run offers it)`;
    return { changed: r.actions.length, conflict: { reason: 'error', detail, evidence: { files: r.conflicts.map((c) => c.path), restoringToStep: target.step } } };
  }

  /**
   * What the workspace holds after the stop; a restore that fails makes the stop an `error`.
   * `unsure`: a conflict stopped the run, so the disk may not hold the current state even when the
   * target is the current state: the restore is attempted (and reports the conflict) all the same.
   */
  async atStop(h: RunHistory, onStop: OnStop, stop: Decision, judged: OutcomeDecision, unsure = false): Promise<AtStop> {
    if (!h.started) return { decision: stop, judged };
    if (!this.checkpoint()) return { decision: stop, judged, held: { step: h.current.step, target: 'current' } };
    const where = restoreTarget(judged.outcome, onStop);
    const target = where === 'initial' ? h.initial : where === 'best' ? h.best : h.current;
    const held: HeldState = { step: target.step, target: where };
    if (target === h.current && !unsure) return { decision: stop, judged, held };
    const restored = await this.restore(target).catch((e: unknown): RestoreOutcome => ({
      changed: 0,
      conflict: { reason: 'error', detail: `could not restore the workspace after the run: ${e instanceof Error ? e.message : String(e)}` },
    }));
    if (!restored.conflict) {
      h.moveTo(target);
      if (restored.changed === 0) return { decision: stop, judged, held };
      const what = where === 'initial' ? 'the original files' : 'the best state';
      return { decision: stop, judged, held, resumeNote: `The run paused and the workspace was restored to the state of step ${target.step} (${what}); continue from there.` };
    }
    // Never claim a restore that did not happen: the stop becomes an error naming the files.
    const decision: Decision = stop.reason === 'error' ? stop : { ...restored.conflict, detail: `${stop.reason}: ${stop.detail}; then ${restored.conflict.detail}`, alsoFired: [stop.reason] };
    const honest: OutcomeDecision = judged.outcome === 'punt' ? { outcome: 'uncertain', why: `${judged.why}; not every file could be restored to its original bytes` } : judged;
    return { decision, judged: honest };
  }
}

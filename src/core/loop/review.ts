// The run's critics, in their fixed order (the built-ins the settings switch on, verifier
// integrity unless the user allows verifier edits, then the front end's), and how a step asks them:
// every verdict goes into the trace.
import type { Critic, CriticPhase, CriticsResult, Proposal, StepOutcome } from '../policy/critics';
import { builtinCritics, runCritics } from '../policy/critics';
import type { VerifierRecord } from '../policy/integrity';
import { verifierIntegrityCritic } from '../policy/integrity';
import type { Settings } from '../settings';
import type { RunEvent } from '../trace/events';
import type { RunHistory } from './history';
import type { Observed } from './state';
import { summary } from './state';

/** Asks the critics of one phase about a step's proposal or result. */
export type Review = (phase: CriticPhase, step: number, previous: Observed) => (subject: Proposal | StepOutcome) => Promise<CriticsResult>;

export function createReview(o: { settings: Settings; root: string; record: () => VerifierRecord | undefined; extra?: Critic[]; history: RunHistory; emit: (e: RunEvent) => void }): Review {
  const integrity = o.settings.allowVerifierEdits ? [] : [verifierIntegrityCritic(o.root, o.record)];
  const critics = [...builtinCritics(o.settings), ...integrity, ...(o.extra ?? [])];
  return (phase, step, previous) => async (subject) => {
    const h = o.history;
    const r = await runCritics(critics, phase, subject, { step, settings: o.settings, initial: summary(h.initial), best: summary(h.best), previous: summary(previous) });
    for (const v of r.verdicts) o.emit({ type: 'critic', step, phase, verdict: v });
    return r;
  };
}

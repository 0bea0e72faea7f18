// How often an agent has seen the same failures: the memory an agent's own loop lacks. Every check
// pass an agent asks for (a Language Model Tool call, an MCP call) is an attempt; the failure identity
// (DESIGN §4) says whether the attempt changed anything. Pure: the front ends keep one per session.

/** What one attempt's identity says against the attempts before it in the same session and scope. */
export interface Sighting {
  /** 1-based number of this attempt in its scope. */
  attempt: number;
  /** How many attempts in this scope have had this identity, this one included. */
  seen: number;
  /** How many attempts back this identity was last seen; null the first time. */
  attemptsAgo: number | null;
  /** The attempt just before this one, if any; its count undefined when its output was cut without one (verify/cut.ts). */
  previous: { failureHash: string; failureCount: number | undefined } | null;
}

/** Where an attempt stands: green, the first look, better, worse, moved, or going round in circles. */
export type Progress = 'green' | 'first' | 'progress' | 'regressed' | 'moved' | 'repeat';

/**
 * Identities seen per scope (a workspace folder, within one chat or server session). Each scope keeps
 * its attempts in order, so a repeat says how far back it was seen.
 */
export class SeenCounter {
  private readonly scopes = new Map<string, { failureHash: string; failureCount: number | undefined }[]>();

  /** `failureCount`: verify/cut.ts `comparableFailureCount`, undefined when a list cut short has no count. */
  observe(scope: string, failureHash: string, failureCount: number | undefined): Sighting {
    const attempts = this.scopes.get(scope) ?? [];
    this.scopes.set(scope, attempts);
    const lastIndex = attempts.map((a) => a.failureHash).lastIndexOf(failureHash);
    const previous = attempts.at(-1) ?? null;
    const seen = attempts.filter((a) => a.failureHash === failureHash).length + 1;
    attempts.push({ failureHash, failureCount });
    return {
      attempt: attempts.length,
      seen,
      attemptsAgo: lastIndex === -1 ? null : attempts.length - 1 - lastIndex,
      previous: previous ? { ...previous } : null,
    };
  }

  /** Forgets a scope's attempts (a new task in the same session). */
  reset(scope: string): void {
    this.scopes.delete(scope);
  }
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function progressOf(s: Sighting, green: boolean, failureCount: number | undefined): Progress {
  if (green) return 'green';
  if (s.seen > 1) return 'repeat';
  if (!s.previous) return 'first';
  // A count from a list cut short is no count: neither progress nor a regression is read from it.
  if (failureCount === undefined || s.previous.failureCount === undefined) return 'moved';
  if (failureCount < s.previous.failureCount) return 'progress';
  if (failureCount > s.previous.failureCount) return 'regressed';
  return 'moved';
}

/**
 * The plain sentence an agent reads after a check pass: what the identity means for what it should
 * do next. A repeat is worded to stop the loop ("you are not making progress; stop or change approach").
 */
export function verdictOf(s: Sighting, green: boolean, failureCount: number | undefined): string {
  const failures = failureCount !== undefined ? plural(failureCount, 'failure') : 'failures (a check\'s output was cut at the output limit: their count is not known)';
  switch (progressOf(s, green, failureCount)) {
    case 'green':
      return s.previous && s.previous.failureCount !== undefined && s.previous.failureCount > 0
        ? `green: every check passes (the previous attempt had ${plural(s.previous.failureCount, 'failure')}); the task is done, stop here`
        : 'green: every check passes; nothing to fix';
    case 'repeat': {
      const when = s.attemptsAgo === 1 ? 'the previous attempt' : `${s.attemptsAgo} attempts ago`;
      return `same failures as ${when} (this identity seen ${plural(s.seen, 'time')} in this session): you are not making progress; stop or change approach`;
    }
    case 'first':
      return `${failures}, first seen in this session: fix them, then check again to see whether they changed`;
    case 'progress':
      return `progress: ${failures}, down from ${s.previous!.failureCount!} on the previous attempt; keep going`;
    case 'regressed':
      return `worse: ${failures}, up from ${s.previous!.failureCount!} on the previous attempt; your last change broke something, consider undoing it`;
    case 'moved':
      if (failureCount === undefined || s.previous!.failureCount === undefined) return `different ${failures}, not compared by count: a check's output was cut at the output limit; read the report for what the checks say`;
      return `different failures, as many as before (${failureCount}): the failures moved rather than went away; make sure you are not trading one failure for another`;
  }
}

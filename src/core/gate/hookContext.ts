// What every hook call shares (issue 30): the context a front end prepares, the session record
// opened under its lock, and the bounds a host's own loop guard imposes.
import type { CheckEngine } from '../engine';
import { recordVerifier } from '../policy/integrity';
import type { Decision } from '../policy/reasons';
import type { Settings } from '../settings';
import type { HookAnswer, HookCall, HookHost } from './hookHosts';
import { HOST_BLOCK_CAP } from './hookHosts';
import type { LockState } from './hookSession';
import { HookSession, hookRunId, withSessionLock } from './hookSession';

export interface HookContext {
  /** The host named by `--host` (its config file); the call may answer as another (VS Code through Claude's file). */
  host: HookHost;
  call: HookCall;
  /** The project folder (absolute). */
  root: string;
  settings: Settings;
  storageDir: string;
  checks: CheckEngine;
  /** How long this call may spend running checks (the host's hook timeout, less a margin). */
  budgetMs: number;
  /**
   * Epoch ms by which the call must have its answer (the host's timeout, less a margin): waits for
   * the session's lock end then. Absent: 10 s from the first wait.
   */
  deadline?: number;
  signal?: AbortSignal;
  now?: () => Date;
  /** Says a problem the user should know of that does not change the answer (stderr, in the CLI). */
  warn?: (line: string) => void;
  /** Set when the folder's worker answers the call (./worker/server.ts): recorded on the stop's trace line. */
  worker?: { pid: number; calls: number; warm: boolean };
}

export interface HookResult {
  answer: HookAnswer;
  /** The session's run id, when the call was recorded. */
  runId: string | null;
  tracePath: string | null;
  /** The stop reason, when a stop was let through or cut short. */
  decision?: Decision;
}

/** Session ids stand in for a host that sends none (Copilot CLI camelCase, a bare test): one per folder and host. */
export function sessionIdOf(ctx: HookContext): string {
  return ctx.call.sessionId ?? `no-session-id-${ctx.host}`;
}

export function nowOf(ctx: HookContext): Date {
  return (ctx.now ?? (() => new Date()))();
}

export async function openSession(ctx: HookContext, lock: LockState = { held: true }): Promise<HookSession> {
  return HookSession.open({
    readOnly: !lock.held,
    storageDir: ctx.storageDir,
    host: ctx.host,
    sessionId: sessionIdOf(ctx),
    root: ctx.root,
    now: nowOf(ctx),
    ...(ctx.warn ? { warn: ctx.warn } : {}),
    verifier: () => recordVerifier(ctx.root, ctx.checks.checks),
    start: () => ({
      model: ctx.call.raw.model && typeof ctx.call.raw.model === 'string' ? `${ctx.host}:${ctx.call.raw.model}` : ctx.host,
      instruction: null,
      checks: ctx.checks.checks.map((c) => ({ name: c.name, command: c.command })),
      limits: limitsOf(ctx),
      settings: { maxSteps: ctx.settings.maxSteps, stallThreshold: ctx.settings.stallThreshold, tokenCeiling: ctx.settings.tokenCeiling, timeLimitSeconds: ctx.settings.timeLimitSeconds, protectedPaths: ctx.settings.protectedPaths, forbidSuppressions: ctx.settings.forbidSuppressions },
    }),
  });
}

/**
 * How long a live holder of the session's lock is waited for: a hook call holds it for a few file
 * writes, so one that holds it longer is stuck, and the agent must not wait on it for the host's
 * whole timeout at every call.
 */
export const SESSION_LOCK_WAIT_MS = 5000;

/**
 * Runs `work` under the session's lock, waited for at most `waitMs` and never past the call's
 * deadline; `work` is told whether it holds it.
 */
export function locked<T>(ctx: HookContext, work: (lock: LockState) => Promise<T>, waitMs = SESSION_LOCK_WAIT_MS): Promise<T> {
  const deadline = Math.min(ctx.deadline ?? Number.POSITIVE_INFINITY, Date.now() + waitMs);
  return withSessionLock(ctx.storageDir, hookRunId(ctx.host, sessionIdOf(ctx)), work, { deadline, ...(ctx.signal ? { signal: ctx.signal } : {}) });
}

/** `maxSteps`, kept below the host's own block cap so our reason, not the host's blunt cap, ends the loop. */
export function effectiveMaxSteps(settings: Pick<Settings, 'maxSteps'>, host: HookHost): { maxSteps: number; capped: boolean } {
  const cap = HOST_BLOCK_CAP[host];
  if (cap !== null && settings.maxSteps > cap - 1) return { maxSteps: cap - 1, capped: true };
  return { maxSteps: settings.maxSteps, capped: false };
}

export function limitsOf(ctx: HookContext): { maxSteps: number; tokenCeiling: number; timeLimitSeconds: number; costCeiling?: number } {
  return { maxSteps: effectiveMaxSteps(ctx.settings, ctx.host).maxSteps, tokenCeiling: ctx.settings.tokenCeiling, timeLimitSeconds: ctx.settings.timeLimitSeconds, ...(ctx.settings.costCeiling > 0 ? { costCeiling: ctx.settings.costCeiling } : {}) };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What the workspace holds after a stop, and how to put back what the agent's edit tools wrote. */
export function holds(session: HookSession, ctx: HookContext): string {
  const t = session.state.touched;
  const revert = `fix-until-green revert --session ${session.runId} --cwd ${JSON.stringify(ctx.root)}`;
  return t.length === 0
    ? 'The workspace holds what the agent left (its edit tools wrote no file through the hooks).'
    : `The workspace holds the agent's edits (${plural(t.length, 'file')} its edit tools wrote: ${t.slice(0, 6).join(', ')}${t.length > 6 ? ', …' : ''}); \`${revert}\` restores their original bytes.`;
}

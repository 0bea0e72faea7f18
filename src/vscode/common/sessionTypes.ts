// The state of an agent host's session gated by our hooks (issue 30), as the RunState carries it:
// types only, shared by the fold (sessionState.ts), the panel's webview and the meter.
import type { StopReason } from '../../core/policy/reasons';
import type { CheckSummary } from '../../core/trace/events';
import type { Failure } from '../../core/types';

/** The check pass of a stop whose answer is not recorded yet (its `hook` event follows, same step). */
export interface PendingVerify {
  step: number;
  green: boolean;
  failureCount: number;
  failureHash: string;
  checks: CheckSummary[];
  failures: Failure[];
}

/** One call of the agent's stop hook: what the checks said and what the agent was answered. */
export interface SessionStop {
  /** 1-based: the session's first stop, second… */
  index: number;
  /** The trace's step of the call. */
  step: number;
  at: string;
  /** The host's own name of the event (`Stop`, `AfterAgent`, `agentStop`…). */
  hostEvent: string;
  answer: 'block' | 'allow';
  /** What the agent was sent back with (block), or what the user was told (allow). */
  reason: string;
  /** The gate's verdict on the failures (block), e.g. "same failures as the previous attempt…". */
  verdict: string | null;
  green: boolean;
  failureCount: number;
  failureHash: string;
  checks: CheckSummary[];
  /** The first failures, for the row; the whole list is the state's remaining failures. */
  failures: Failure[];
  /** Why the stop was let through (allow): the stop policy's reason and its evidence. */
  decision: { reason: StopReason; detail: string } | null;
}

/** An edit a guard refused before it was written (PreToolUse and the like). */
export interface SessionDenial {
  step: number;
  at: string;
  reason: string;
  files: string[];
}

export interface HookSessionView {
  host: string;
  /** "Claude Code", "VS Code agent mode (Copilot)". */
  hostLabel: string;
  /** The host's own session id, once a hook call named it. */
  sessionId: string | null;
  stops: SessionStop[];
  denied: SessionDenial[];
  /** Files the agent's edit tools wrote (checkpointed first: Revert puts them back). */
  touched: string[];
  /** Stops sent back to work. */
  blocks: number;
  /** Epoch ms of the trace's last event. */
  lastEventAt: number;
  /** One sentence: whose session it is and where it stands. */
  sentence: string;
  /** The check pass of a stop whose answer is not recorded yet (its `hook` event follows, same step). */
  pendingVerify?: PendingVerify | null;
}

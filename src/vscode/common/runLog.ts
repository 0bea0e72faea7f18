// One line per loop event in the "Fix Until Green" log: what a user needs to follow a run.
import type { TimedEvent } from '../../core/trace/events';
import { plural } from './chatWords';

export function describeEvent(e: TimedEvent): string {
  switch (e.type) {
    case 'run-start':
      return `run ${e.runId} started in ${e.root} with ${e.model}; checks: ${e.checks.map((c) => c.name).join(', ') || 'none'}; limits ${e.limits.maxSteps} steps, ${e.limits.tokenCeiling} tokens, ${e.limits.timeLimitSeconds} s`;
    case 'verify':
      return `step ${e.step}: ${e.green ? 'green' : `${plural(e.failureCount, 'failure')}`} (identity ${e.failureHash.slice(0, 12)}, ${e.durationMs} ms)`;
    case 'model-call-start':
      return `step ${e.step}: asking ${e.model} (${e.promptTokens} prompt tokens, up to ${e.maxOutputTokens} out)`;
    case 'model-call':
      return e.error ? `step ${e.step}: model call failed: ${e.error}` : `step ${e.step}: model replied (${e.usage ? e.usage.input + e.usage.output : 0} tokens, ${e.durationMs} ms, status ${e.status ?? '?'}, confidence ${e.confidence ?? '?'})`;
    case 'model-retry':
      return `step ${e.step}: model call attempt ${e.attempt} failed (${e.reason}); retrying in ${e.delayMs} ms${e.retryAfterMs !== undefined ? ` (the server asked for ${e.retryAfterMs} ms)` : ''}`;
    case 'edit':
      if (e.rolledBack) return `step ${e.step}: rolled back to the state of step ${e.restoredToStep ?? '?'}`;
      return e.applied ? `step ${e.step}: applied edits to ${e.files.map((f) => `${f.path} +${f.added} -${f.removed}`).join(', ')}` : `step ${e.step}: edit not applied: ${e.errors.join(' | ')}`;
    case 'critic':
      return `step ${e.step}: critic ${e.verdict.critic} (${e.phase}): ${e.verdict.verdict}: ${e.verdict.reason}`;
    case 'self-report':
      return `step ${e.step}: self-report ${e.status ?? 'none'}${e.confidence !== null ? ` at ${e.confidence}` : ''}${e.note ? `; ${e.note}` : ''}${e.problems.length ? ` (${e.problems.join('; ')})` : ''}`;
    case 'budget':
      return `step ${e.step}: confidence budget ${e.balance.toFixed(2)} (floor ${e.floor})`;
    case 'decision':
      return `decision after step ${e.step}: ${e.reason}: ${e.detail}`;
    case 'step-end':
      return `step ${e.step} done: ${plural(e.record.failureCount, 'failure')}, ${e.tokensUsed} tokens used so far`;
    case 'run-end':
      return `run ${e.report.runId} ended: ${e.report.stopReason} (${e.report.outcome}); trace ${e.report.tracePath}`;
    default: {
      // Events a newer engine adds still get a line.
      const other = e as { type: string; step?: number };
      return `${other.type} at step ${other.step ?? '?'}`;
    }
  }
}

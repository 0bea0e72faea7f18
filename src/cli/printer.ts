// Human-readable timeline of a run, printed as events arrive.
import { redact } from '../core/secrets';
import { formatMoney, formatSpend } from '../core/money';
import type { RunReport, TimedEvent } from '../core/trace/events';
import { failureHeadline } from '../core/verify/values';
import type { ModelNames } from '../core/modelName';
import { modelName, modelOn, namesOf } from '../core/modelName';

function fmtTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

export function createTimelinePrinter(writeLine: (line: string) => void): (e: TimedEvent) => void {
  // A key's value is never printed, whatever a line quotes.
  const write = (line: string): void => writeLine(redact(line));
  // Models named as a person names them (issue 40); `--json` and the trace keep the labels.
  let names: ModelNames = {};
  const name = (label: string): string => modelName(label, names);
  return (e) => {
    switch (e.type) {
      case 'run-start': {
        names = namesOf([e.model, ...(e.ladder ?? [])], e.names);
        const baseUrl = (e.settings.model as { baseUrl?: string } | undefined)?.baseUrl;
        write(`fix-until-green: run ${e.runId}`);
        write(`  model ${modelOn(e.model, baseUrl, names)} · max ${e.limits.maxSteps} steps · ${fmtTokens(e.limits.tokenCeiling)} tokens · ${e.limits.timeLimitSeconds} s`);
        write(`  checks: ${e.checks.map((c) => `${c.name} (${c.command})`).join(', ') || '(none)'}`);
        if (e.ladder && e.ladder.length > 0) write(`  escalation: ${e.ladder.map(name).join(' → ')}${e.limits.costCeiling ? ` · cost ceiling ${formatMoney(e.limits.costCeiling)}` : ''}`);
        else if (e.limits.costCeiling) write(`  cost ceiling ${formatMoney(e.limits.costCeiling)}`);
        break;
      }
      case 'escalated':
        write(`escalated after step ${e.step}: ${name(e.from)} stopped with ${e.reason} (${e.detail}); ${name(e.to)} takes over (${e.rung} of ${e.rungs})`);
        break;
      case 'verify':
        if (e.reason === 'initial') {
          write(`step 0  ${e.green ? 'green' : `${e.failureCount} failure(s)`}  ${e.failureHash.slice(0, 8)}  ${e.checks.map((c) => `${c.name}:${c.failureCount === 0 && c.exitCode === 0 ? 'ok' : c.timedOut ? 'timeout' : c.failureCount === 0 && c.notInstalled !== undefined ? 'not-installed' : c.failureCount}`).join(' ')}`);
        }
        break;
      case 'model-retry':
        write(`step ${e.step}  model call attempt ${e.attempt} failed (${e.reason.split('\n')[0]}); retrying in ${(e.delayMs / 1000).toFixed(1)} s`);
        break;
      case 'step-end': {
        const r = e.record;
        const files = r.files.map((f) => `${f.path} +${f.added}/-${f.removed}`).join(', ');
        const checks = r.checks.map((c) => `${c.name}:${c.failureCount === 0 && c.exitCode === 0 ? 'ok' : c.timedOut ? 'timeout' : c.failureCount === 0 && c.notInstalled !== undefined ? 'not-installed' : c.failureCount}`).join(' ');
        write(`step ${r.index}  ${r.failureCount === 0 ? 'green' : `${r.failureCount} failure(s)`}  ${r.failureHash.slice(0, 8)}  ${checks}  ${fmtTokens(r.tokens)} tok${r.cost !== null && r.cost !== undefined ? ` (${formatMoney(r.cost)})` : ''}${r.confidence !== null ? `  conf ${r.confidence}` : ''}${r.model ? `  ${name(r.model)}` : ''}`);
        if (r.applied) write(`        edited ${files || '(nothing)'}`);
        else write(`        not applied: ${(r.feedback ?? '').split('\n')[0]}`);
        if (r.postMortem) write(`        post-mortem: ${r.postMortem}`);
        for (const c of r.critics) if (c.verdict !== 'continue') write(`        critic ${c.critic}: ${c.verdict} (${c.reason})`);
        break;
      }
      default:
        break;
    }
  };
}

export function formatSummary(r: RunReport): string[] {
  const lines = [
    `stop: ${r.stopReason} (${r.outcome}) - ${r.detail}`,
    `steps ${r.steps.length}/${r.limits.maxSteps} · tokens ${fmtTokens(r.tokensUsed)}/${fmtTokens(r.limits.tokenCeiling)}${r.costUsed !== null && r.costUsed !== undefined ? ` · cost ${formatSpend(r.costUsed, r.limits.costCeiling)}` : ''} · ${(r.elapsedMs / 1000).toFixed(1)} s · best step ${r.bestStep}`,
  ];
  const names = namesOf((r.escalations ?? []).flatMap((e) => [e.from, e.to]));
  for (const e of r.escalations ?? []) lines.push(`escalated after step ${e.step}: ${modelName(e.from, names)} (${e.reason}) → ${modelName(e.to, names)}`);
  if (r.fixedFailures.length > 0) lines.push(`fixed ${r.fixedFailures.length} failure(s)`);
  if (r.remainingFailures.length > 0) {
    lines.push(`remaining ${r.remainingFailures.length} failure(s):`);
    for (const f of r.remainingFailures.slice(0, 10)) {
      // The test's name and its values (`'12.5 EUR' !== '12.05 EUR'`), not the diff's legend.
      lines.push(`  [${f.check}] ${f.file ? `${f.file}${f.line ? `:${f.line}` : ''} ` : ''}${failureHeadline(f)}`);
    }
  }
  for (const h of r.hypotheses) lines.push(`hypothesis: ${h}`);
  lines.push(`trace: ${r.tracePath}`);
  return lines.map(redact);
}

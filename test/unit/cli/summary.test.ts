// The CLI's text summary: money in dollars, the same words as VS Code's meter (src/core/money.ts).
import assert from 'node:assert/strict';
import { createTimelinePrinter, formatSummary } from '../../../src/cli/printer';
import type { RunReport, TimedEvent } from '../../../src/core/trace/events';

describe('CLI summary', () => {
  it("the CLI's summary line says the spend in dollars; its JSON keeps the numbers", () => {
    const report = { stopReason: 'step-cap', outcome: 'partial', detail: '2 of 2 steps done', steps: [{}, {}], tokensUsed: 2400, elapsedMs: 1500, bestStep: 1, hypotheses: [], fixedFailures: [], remainingFailures: [], limits: { maxSteps: 2, tokenCeiling: 200000, timeLimitSeconds: 600, costCeiling: 0.5 }, costUsed: 0.00893 } as unknown as RunReport;
    assert.equal(formatSummary(report)[1], 'steps 2/2 · tokens 2.4k/200.0k · cost $0.009 of $0.50 · 1.5 s · best step 1');
    assert.match(formatSummary({ ...report, limits: { ...report.limits, costCeiling: 0 } })[1], / · cost \$0\.009 · /);
    assert.doesNotMatch(formatSummary({ ...report, costUsed: null })[1], /cost/);
  });

  it("the timeline names the ceiling and each step's cost in dollars", () => {
    const lines: string[] = [];
    const print = createTimelinePrinter((l) => lines.push(l));
    print({ type: 'run-start', step: 0, runId: 'r1', root: '/w', model: 'openai-compatible:gpt-4o-mini', instruction: null, checks: [], limits: { maxSteps: 2, tokenCeiling: 200000, timeLimitSeconds: 600, costCeiling: 0.5 }, settings: {} } as unknown as TimedEvent);
    print({ type: 'step-end', step: 1, record: { index: 1, failureCount: 3, failureHash: 'abcdef0123', checks: [], tokens: 1200, cost: 0.0015, confidence: null, model: 'openai-compatible:gpt-4o-mini', applied: true, files: [], critics: [], postMortem: null, feedback: null } } as unknown as TimedEvent);
    assert.ok(lines.includes('  cost ceiling $0.50'), lines.join('\n'));
    assert.match(lines.find((l) => l.startsWith('step 1')) ?? '', /1\.2k tok \(\$0\.002\)  gpt-4o-mini$/);
  });
});

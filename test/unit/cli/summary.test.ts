// The CLI's text summary: money in dollars, the same words as VS Code's meter (src/core/money.ts).
import assert from 'node:assert/strict';
import { formatSummary } from '../../../src/cli/printer';
import type { RunReport } from '../../../src/core/trace/events';

describe('CLI summary', () => {
  it("the CLI's summary line says the spend in dollars; its JSON keeps the numbers", () => {
    const report = { stopReason: 'step-cap', outcome: 'partial', detail: '2 of 2 steps done', steps: [{}, {}], tokensUsed: 2400, elapsedMs: 1500, bestStep: 1, hypotheses: [], fixedFailures: [], remainingFailures: [], limits: { maxSteps: 2, tokenCeiling: 200000, timeLimitSeconds: 600, costCeiling: 0.5 }, costUsed: 0.00893 } as unknown as RunReport;
    assert.equal(formatSummary(report)[1], 'steps 2/2 · tokens 2.4k/200.0k · cost $0.009 of $0.50 · 1.5 s · best step 1');
    assert.match(formatSummary({ ...report, limits: { ...report.limits, costCeiling: 0 } })[1], / · cost \$0\.009 · /);
    assert.doesNotMatch(formatSummary({ ...report, costUsed: null })[1], /cost/);
  });
});

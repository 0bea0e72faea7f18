// The tools' results as the calling model reads them, from a real check pass on a real project.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createCheckEngine } from '../../../src/core/engine';
import { defaultSettings } from '../../../src/core/settings';
import { SeenCounter } from '../../../src/core/gate/seen';
import { checksToolResult, fixToolResult, formatChecksToolResult, formatFixToolResult } from '../../../src/core/gate/tools';
import type { RunReport } from '../../../src/core/trace/events';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

describe('gate: tool results', function () {
  this.timeout(120000);
  let s: Scratch;
  beforeEach(() => (s = copyFixture('loop/calc')));
  afterEach(() => s.cleanup());

  const readText = (root: string) => (rel: string) => readFileSync(path.join(root, rel), 'utf8');

  it('reports a real failing check pass with its identity, seen count, verdict and compact report', async () => {
    const settings = { ...defaultSettings(), checks: [{ name: 'test', command: 'node --import tsx --test test/calc.test.ts' }] };
    const engine = createCheckEngine({ root: s.project, settings, storageDir: s.storage });
    const seen = new SeenCounter();
    const v = await engine.verifier.verify();
    assert.equal(v.green, false);
    const first = checksToolResult(v, seen, s.project, { root: s.project, readText: readText(s.project) });
    const second = checksToolResult(await engine.verifier.verify(), seen, s.project, { root: s.project, readText: readText(s.project) });
    assert.equal(second.failureHash, first.failureHash);
    assert.equal(second.seen, 2);
    const text = formatChecksToolResult(second);
    assert.match(text, new RegExp(`^Fix Until Green checks in ${s.project.replace(/[/\\]/g, '.')}: NOT GREEN, ${v.failures.length} failures?$`, 'm'));
    assert.match(text, new RegExp(`^Failure identity: ${v.failureHash.slice(0, 12)} \\(seen 2 times in this session; check pass 2\\)$`, 'm'));
    assert.match(text, /^Verdict: same failures as the previous attempt/m);
    assert.match(text, /^Checks: test: \d+ failures? \(exit 1\)$/m);
    // The compact report, with the source line of the failing function.
    assert.match(text, /src\/calc\.ts|test\/calc\.test\.ts/);
    assert.ok(!/^TAP version/m.test(text), 'never the raw log');
  });

  it('words a stop for the caller: reason, outcome, what is left, the trace, and what to do next', () => {
    const report = {
      runId: 'r1',
      stopReason: 'stalled',
      outcome: 'punt',
      detail: 'failure set abc seen 3 times',
      steps: [{ index: 1, failureCount: 1, applied: true, postMortem: 'tried the sum', failureHash: 'abc', tokens: 10, status: null, confidence: null, files: [], checks: [], critics: [], feedback: null, durationMs: 5, snapshotDir: null }],
      tokensUsed: 10,
      elapsedMs: 1500,
      initialFailureCount: 1,
      remainingFailures: [{ check: 'test', file: 'src/calc.ts', line: 6, id: 'mul', message: 'expected 6, got 5' }],
      fixedFailures: [],
      bestStep: 0,
      hypotheses: [],
      tracePath: '/s/runs/r1/trace.jsonl',
      limits: { maxSteps: 8, tokenCeiling: 1000, timeLimitSeconds: 60 },
    } as RunReport;
    const r = fixToolResult(report, { root: s.project, readText: readText(s.project) });
    assert.equal(r.green, false);
    assert.equal(r.remainingFailureCount, 1);
    const text = formatFixToolResult(r);
    assert.match(text, /stopped with stalled \(outcome: punt\)/);
    assert.match(text, /^Trace: \/s\/runs\/r1\/trace\.jsonl$/m);
    assert.match(text, /^Next: The run saw the same failures repeatedly: repeating it will not help/m);
    assert.match(text, /step 1: applied, 1 failure\(s\) after; post-mortem: tried the sum/);
    assert.match(text, /expected 6, got 5/);
  });
});

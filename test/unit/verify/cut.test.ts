// Output cut at the output limit: the failures parsed from the part kept are not the run's failures.
// Real Vitest and Jest runs flooding their output past the limit, each checked in three states: the same state
// twice, a no-op edit that only lengthens a message (a different part kept), and a real fix.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { stateSummary, summarizeChecks } from '../../../src/core/loop/state';
import { RunHistory } from '../../../src/core/loop/history';
import { novelty } from '../../../src/core/policy/budget';
import { regressionCritic } from '../../../src/core/policy/critics';
import type { StateSummary } from '../../../src/core/policy/outcome';
import { decideOutcome, failureCount, fixedAndRemaining, isBetter } from '../../../src/core/policy/outcome';
import { progressOf, SeenCounter } from '../../../src/core/gate/seen';
import { defaultSettings } from '../../../src/core/settings';
import type { Failure, VerifyResult } from '../../../src/core/types';
import { comparableFailureCount, cutNotes } from '../../../src/core/verify/cut';
import { parseOutput } from '../../../src/core/verify/parsers/index';
import { reportedFailureCount } from '../../../src/core/verify/parsers/summary';
import { formatFailureReport } from '../../../src/core/verify/report';
import { CappedOutput } from '../../../src/core/verify/runner';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const OUTPUTS = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'verify', 'outputs');

interface Captured {
  name: string;
  file: string;
  parser: 'tsc' | 'eslint' | 'mocha' | 'jest' | 'vitest' | 'node-test' | 'tap' | 'generic';
  stream: string;
  root: string;
  exitCode: number;
  colour: boolean;
}

for (const runner of [
  { fixture: 'verify/flood', name: 'Vitest', source: 'src/prices.js' },
  { fixture: 'verify/flood-jest', name: 'Jest', source: 'src/prices.js' },
]) describe(`cut output (${runner.name}): a part is never compared as a count`, function () {
  this.timeout(300000);
  let s: Scratch;
  let a1: VerifyResult;
  let a2: VerifyResult;
  let noop: VerifyResult;
  let fixed: VerifyResult;

  before(async () => {
    s = copyFixture(runner.fixture);
    // 24 KB: the 39 failures' details alone pass it; the 60 tests' logs come before them.
    const verify = (): Promise<VerifyResult> => new Verifier({ root: s.project, checks: [{ name: 'test', command: 'npm test' }], parallel: false, outputLimitKb: 24, flakyReruns: 0 }).verify();
    a1 = await verify();
    a2 = await verify();
    const file = path.join(s.project, runner.source);
    // The no-op edit: every failure's message is longer, so fewer of them fit in the tail kept.
    writeFileSync(file, readFileSync(file, 'utf8').replace("'the discount was applied twice'", "'the discount was applied twice, once by the cart and once again by the checkout'"));
    noop = await verify();
    writeFileSync(file, readFileSync(file, 'utf8').replace('wrongCases = 40', 'wrongCases = 20'));
    fixed = await verify();
  });
  after(() => s.cleanup());

  it('marks the list cut short, with the count the runner\'s own summary gives', () => {
    for (const v of [a1, a2, noop]) {
      assert.equal(v.checks[0]!.truncated, true);
      assert.deepEqual(v.checks[0]!.incomplete, { reported: 39 });
      assert.ok(v.failures.length > 0 && v.failures.length < 39, `${v.failures.length} parsed`);
      assert.equal(comparableFailureCount(v), 39);
    }
    assert.ok(noop.failures.length < a1.failures.length, `the no-op edit's part is smaller: ${noop.failures.length} vs ${a1.failures.length}`);
    assert.deepEqual(fixed.checks[0]!.incomplete, { reported: 19 });
    assert.equal(comparableFailureCount(fixed), 19);
  });

  it('the same state checked twice has the same identity, whatever its noise moved', () => {
    assert.equal(a1.failureHash, a2.failureHash);
  });

  it('a no-op edit whose cut part lists fewer failures is no progress: not better, not the best, no novelty, no "fixed" failure', () => {
    const s0 = stateSummary(0, a1);
    const s1 = stateSummary(1, noop);
    assert.equal(isBetter(s1, s0), false);
    assert.equal(novelty(false, failureCount(s1), failureCount(s0)), 0.5);
    const h = new RunHistory(defaultSettings().confidenceBudget);
    h.begin({ step: 0, verify: a1, files: new Map() });
    h.settle({ step: 1, verify: noop, files: new Map() }, false);
    assert.equal(h.best.step, 0);
    assert.notEqual(h.outcome(false).outcome, 'partial');
    assert.deepEqual(fixedAndRemaining(a1.failures, noop.failures, false).fixed, []);
    // The real fix is known as one by its count, and is kept.
    h.settle({ step: 2, verify: fixed, files: new Map() }, false);
    assert.equal(h.best.step, 2);
    assert.equal(h.outcome(false).outcome, 'partial');
  });

  it('the regression critic reads no newly failing test from a part', async () => {
    const critic = regressionCritic();
    const s0 = stateSummary(0, a1);
    const ans = await critic.reviewResult!({ ...stateSummary(1, noop), failureHash: noop.failureHash, files: [] }, { step: 1, settings: defaultSettings(), initial: s0, best: s0, previous: s0 });
    assert.equal(ans.verdict, 'continue');
    assert.doesNotMatch(ans.reason, /newly failing/);
  });

  it('the report, the trace and the agent tools say the output was cut', () => {
    const notes = cutNotes(noop.checks);
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, /output of check "test" passed the output limit .* was cut: its own summary counts 39 failure\(s\); \d+ are listed/);
    const report = formatFailureReport(noop.failures, { root: s.project, cut: notes });
    assert.ok(report.startsWith(notes[0]!), report.slice(0, 300));
    const [c] = summarizeChecks(noop);
    assert.equal(c!.outputCut, true);
    assert.equal(c!.incomplete, true);
    assert.equal(c!.reportedFailures, 39);
    // An agent's check passes: the same count twice is no progress and no regression.
    const seen = new SeenCounter();
    seen.observe('w', a1.failureHash, comparableFailureCount(a1));
    assert.equal(progressOf(seen.observe('w', noop.failureHash, comparableFailureCount(noop)), false, comparableFailureCount(noop)), 'moved');
  });
});

describe('cut output without a count', () => {
  const f = (id: string): Failure => ({ check: 'test', id, message: 'failed' });
  const cut = (step: number, n: number): StateSummary => ({ step, green: false, failures: Array.from({ length: n }, (_, i) => f(`t${i}`)), cut: { count: undefined } });
  const whole = (step: number, n: number): StateSummary => ({ step, green: false, failures: Array.from({ length: n }, (_, i) => f(`t${i}`)) });

  it('is compared with nothing: never better, never worse, never "fixed" a failure', async () => {
    assert.equal(isBetter(cut(1, 3), whole(0, 10)), false);
    assert.equal(isBetter(whole(1, 3), cut(0, 10)), false);
    assert.equal(isBetter({ step: 1, green: true, failures: [] }, cut(0, 10)), true);
    assert.equal(novelty(false, failureCount(cut(1, 3)), failureCount(whole(0, 10))), 0.5);
    const o = decideOutcome({ green: false, initial: cut(0, 10), best: cut(0, 10), observed: [cut(1, 3)] });
    assert.equal(o.outcome, 'uncertain');
    assert.match(o.why, /output limit/);
    const critic = regressionCritic();
    const ans = await critic.reviewResult!({ ...cut(1, 12), failureHash: 'x', files: [] }, { step: 1, settings: defaultSettings(), initial: whole(0, 3), best: whole(0, 3), previous: whole(0, 3) });
    assert.equal(ans.verdict, 'continue');
    assert.match(ans.reason, /not compared/);
  });
});

describe("runners' own summaries", () => {
  const index = JSON.parse(readFileSync(path.join(OUTPUTS, 'index.json'), 'utf8')) as Captured[];

  it('count no more failures than the parser reads from the whole output, the same coloured or not', () => {
    const byName = new Map<string, number | undefined>();
    for (const c of index) {
      const text = readFileSync(path.join(OUTPUTS, c.file), 'utf8');
      const n = reportedFailureCount(c.parser, text);
      byName.set(c.name, n);
      if (n === undefined) continue;
      const parsed = parseOutput(c.parser, text, { check: 'x', root: c.root, cwd: c.root, exitCode: c.exitCode }).length;
      assert.ok(n <= parsed, `${c.name}: summary ${n}, parsed ${parsed}`);
    }
    for (const [plain, colour] of [['eslint-stylish', 'eslint-stylish-color'], ['mocha-spec', 'mocha-spec-color'], ['jest-text', 'jest-text-color'], ['vitest-text', 'vitest-text-color'], ['node-test-spec', 'node-test-spec-color']] as const) {
      assert.notEqual(byName.get(plain), undefined, plain);
      assert.equal(byName.get(colour), byName.get(plain), colour);
    }
    assert.equal(byName.get('tsc-pretty'), 3);
    assert.equal(byName.get('node-test-tap'), 3);
  });

  it('a cut anywhere in a real output (at line ends) never invents a failure nor places one where its output does not', () => {
    for (const c of index.filter((x) => x.stream === 'all')) {
      const raw = readFileSync(path.join(OUTPUTS, c.file));
      const ctx = { check: 'x', root: c.root, cwd: c.root, exitCode: c.exitCode };
      const whole = parseOutput(c.parser, raw.toString('utf8'), ctx);
      const known = new Set(whole.map((f) => JSON.stringify([f.id, f.file ?? ''])));
      const ids = new Set(whole.map((f) => f.id));
      // The whole output shows this failure's stack passing through that file and line.
      const framed = (f: Failure): boolean => f.line !== undefined && raw.toString('utf8').includes(`${f.file}:${f.line}:`);
      for (let limit = 1024; limit < raw.length; limit += 384) {
        const cap = new CappedOutput(limit);
        cap.push(raw);
        const { text, truncated } = cap.finish();
        assert.ok(truncated);
        for (const f of parseOutput(c.parser, text, ctx)) {
          if (f.id === 'exit') continue; // the generic tail of a part that names no failure
          // A suite's line lost in the cut leaves the test's own title: the end of the whole one.
          assert.ok([...ids].some((id) => id === f.id || (id ?? '').endsWith(` ${f.id ?? ''}`)), `${c.name} cut at ${limit}: invented ${f.id}`);
          // Placed where the whole parse places it, or at a frame of its own stack (its head line cut).
          if (f.file !== undefined) assert.ok(known.has(JSON.stringify([f.id, f.file])) || (f.line !== undefined && f.message.includes(`${f.file}:${f.line}:`)) || framed(f), `${c.name} cut at ${limit}: ${f.id} placed in ${f.file}`);
        }
      }
    }
  });

  it('read each runner\'s spelling', () => {
    const table: [Captured['parser'] | 'biome' | 'oxlint', string, number | undefined][] = [
      ['vitest', '      Tests  138 failed | 324 passed (462)', 138],
      ['vitest', ' Test Files  2 failed (2)\n      Tests  no tests', 2],
      ['vitest', '      Tests  5 passed (5)', 0],
      ['jest', 'Test Suites: 3 failed, 3 total\nTests:       138 failed, 2 passed, 140 total', 138],
      ['mocha', '  2 passing (4ms)\n  138 failing', 138],
      ['node-test', '# pass 1\n# fail 138', 138],
      ['node-test', 'ℹ fail 138', 138],
      ['tap', '# fail  138', 138],
      ['tsc', 'Found 138 errors in 12 files.', 138],
      ['tsc', 'Found 1 error in src/a.ts:3', 1],
      ['eslint', '✖ 140 problems (138 errors, 2 warnings)', 138],
      ['eslint', '✖ 2 problems (0 errors, 2 warnings)', 2],
      ['biome', 'Checked 12 files in 3ms. No fixes applied.\nFound 138 errors.', 138],
      ['oxlint', 'Found 2 warnings and 138 errors.', 138],
      ['generic', 'Found 138 errors.', undefined],
      ['vitest', 'nothing here', undefined],
    ];
    for (const [parser, text, want] of table) assert.equal(reportedFailureCount(parser, text), want, `${parser}: ${text}`);
  });
});

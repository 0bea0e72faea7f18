// The walking product's acceptance: the loop on a real project with real tsc and node:test.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { Run } from '../../../src/core/loop/run';
import { ReplayProvider } from '../../../src/core/model/replay';
import type { ReplayResponse } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { Settings } from '../../../src/core/settings';
import { readTrace } from '../../../src/core/trace/trace';
import type { CheckSpec } from '../../../src/core/types';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture, treeHash } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';

const TEST_CHECK: CheckSpec = { name: 'test', command: 'node --import tsx --test test/calc.test.ts', parser: 'node-test' };
const TSC_CHECK: CheckSpec = { name: 'typecheck', command: 'tsc --noEmit -p .', parser: 'tsc' };
const CALC = 'src/calc.ts';

function settings(over: Partial<Settings> = {}): Settings {
  return { ...defaultSettings(), checks: [TEST_CHECK], maxSteps: 6, ...over };
}

function start(s: Scratch, responses: ReplayResponse[], over: Partial<Settings> = {}, signal?: AbortSignal): { run: Run; provider: ReplayProvider } {
  const st = settings(over);
  const provider = new ReplayProvider({ responses });
  const run = new Run({
    workspace: new FsWorkspace(s.project),
    verifier: new Verifier({ root: s.project, checks: st.checks, parallel: st.parallelChecks, outputLimitKb: st.outputLimitKb }),
    provider,
    settings: st,
    storageDir: s.storage,
    ...(signal ? { signal } : {}),
  });
  return { run, provider };
}

describe('the loop on a real project (walking product)', function () {
  let s: Scratch;
  let original: string;
  beforeEach(() => {
    s = copyFixture('loop/calc');
    original = readFileSync(path.join(s.project, CALC), 'utf8');
  });
  afterEach(() => s.cleanup());

  const fixed = (): string => original.replace('return a + b;\n}\n\nexport function mul', 'return a + b;\n}\n\nexport function mul').replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, '$1a * b');
  const wrong = (k: number): string => original.replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, `$1a * b + ${k}`);

  it('stops green at step 0 with 0 tokens when nothing is broken', async () => {
    writeFileSync(path.join(s.project, CALC), fixed());
    const { run, provider } = start(s, [{ text: 'never used' }]);
    const r = await run.start();
    assert.equal(r.stopReason, 'green');
    assert.equal(r.outcome, 'fixed');
    assert.equal(r.steps.length, 0);
    assert.equal(r.tokensUsed, 0);
    assert.equal(provider.used, 0);
  });

  it('goes green after a wrong attempt, with real tsc and node:test', async () => {
    const before = readFileSync(path.join(s.project, CALC), 'utf8');
    const { run } = start(
      s,
      [
        { text: reply([diffOf(CALC, before, wrong(1))]), usage: { input: 900, output: 120 } },
        { text: reply([diffOf(CALC, wrong(1), fixed())], { status: 'done', postMortem: 'off by one: drop the + 1' }), usage: { input: 950, output: 90 } },
      ],
      { checks: [TSC_CHECK, TEST_CHECK] },
    );
    const r = await run.start();
    assert.equal(r.stopReason, 'green', r.detail);
    assert.equal(r.steps.length, 2);
    assert.equal(r.steps[0]!.failureCount, 1);
    assert.equal(r.steps[0]!.applied, true);
    assert.equal(r.tokensUsed, 900 + 120 + 950 + 90);
    assert.equal(readFileSync(path.join(s.project, CALC), 'utf8'), fixed());
    const events = readTrace(r.tracePath).map((e) => e.type);
    for (const t of ['run-start', 'verify', 'model-call', 'edit', 'decision', 'run-end']) assert.ok(events.includes(t as never), `trace has ${t}`);
  });

  it('stops stalled when the same failure identity is seen stallThreshold times', async () => {
    // Each reply changes the file but not the failure: a comment, then another comment.
    const c1 = original.replace('export function mul', '// multiply\nexport function mul');
    const c2 = c1.replace('// multiply', '// multiply two numbers');
    const { run } = start(s, [
      { text: reply([diffOf(CALC, original, c1)]), usage: { input: 100, output: 10 } },
      { text: reply([diffOf(CALC, c1, c2)]), usage: { input: 100, output: 10 } },
      { text: reply([diffOf(CALC, c2, fixed())]), usage: { input: 100, output: 10 } },
    ], { stallThreshold: 3 });
    const r = await run.start();
    assert.equal(r.stopReason, 'stalled', r.detail);
    assert.equal(r.steps.length, 2);
    assert.match(r.detail, /seen 3 times \(steps 0, 1, 2\)/);
    assert.match(r.detail, new RegExp(r.steps[1]!.failureHash.slice(0, 12)));
  });

  it('stops at the step cap when every step changes the failure but none fixes it', async () => {
    const { run, provider } = start(s, [
      { text: reply([diffOf(CALC, original, wrong(1))]) },
      { text: reply([diffOf(CALC, wrong(1), wrong(2))]) },
      { text: reply([diffOf(CALC, wrong(2), fixed())]) },
    ], { maxSteps: 2 });
    const r = await run.start();
    assert.equal(r.stopReason, 'step-cap', r.detail);
    assert.equal(r.steps.length, 2);
    assert.equal(provider.used, 2);
    assert.notEqual(r.steps[0]!.failureHash, r.steps[1]!.failureHash);
  });

  it('stops at the token ceiling before a call that would pass it', async () => {
    const { run, provider } = start(s, [
      { text: reply([diffOf(CALC, original, wrong(1))]), usage: { input: 1500, output: 200 } },
      { text: reply([diffOf(CALC, wrong(1), wrong(2))]), usage: { input: 1500, output: 200 } },
      { text: reply([diffOf(CALC, wrong(2), fixed())]), usage: { input: 1500, output: 200 } },
    ], { tokenCeiling: 3700 });
    const r = await run.start();
    assert.equal(r.stopReason, 'token-ceiling', r.detail);
    assert.equal(provider.used, 2, 'the third call is never made');
    assert.equal(r.tokensUsed, 3400);
    assert.match(r.detail, /only 300 of 3700 remain \(3400 used\)/);
    // Every call's output limit fitted in what remained when it was made.
    assert.ok(provider.requests[0]!.maxOutputTokens <= 3700);
    assert.ok(provider.requests[1]!.maxOutputTokens <= 3700 - 1700);
  });

  it('leaves every file byte-identical when a diff does not apply, and counts it toward stalled', async () => {
    const bad = reply(['--- a/src/calc.ts\n+++ b/src/calc.ts\n@@ -1,3 +1,3 @@\n-export function divide(a: number, b: number): number {\n+export function divide(a: number, b: number): number | undefined {\n   return a / b;\n }\n']);
    const hash0 = treeHash(s.project);
    const { run } = start(s, [{ text: bad }, { text: bad }, { text: bad }], { stallThreshold: 3 });
    const r = await run.start();
    assert.equal(treeHash(s.project), hash0);
    assert.equal(r.stopReason, 'stalled', r.detail);
    assert.equal(r.steps.length, 2);
    assert.equal(r.steps[0]!.applied, false);
    assert.match(r.steps[0]!.feedback ?? '', /src\/calc\.ts/);
  });

  it('kills the check\'s process group when cancelled mid-check', async () => {
    const pidFile = path.join(s.dir, 'grandchild.pid');
    // The check starts a grandchild that records its PID and sleeps far past the test.
    const script = `const {spawn}=require('child_process');const c=spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{stdio:'ignore'});require('fs').writeFileSync(${JSON.stringify(pidFile)},String(c.pid));setInterval(()=>{},1000);`;
    writeFileSync(path.join(s.project, 'hang.js'), script);
    const controller = new AbortController();
    const { run } = start(s, [{ text: 'unused' }], { checks: [{ name: 'hang', command: 'node hang.js', timeoutSeconds: 600 }] }, controller.signal);
    const done = run.start();
    // The file appears before its content does: wait for a whole PID.
    const readPid = (): number => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) || 0 : 0);
    const t0 = Date.now();
    while (readPid() === 0 && Date.now() - t0 < 60000) await new Promise((r) => setTimeout(r, 50));
    const pid = readPid();
    assert.ok(pid > 0, 'the grandchild started');
    controller.abort();
    const r = await done;
    assert.equal(r.stopReason, 'cancelled');
    const alive = (): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const t1 = Date.now();
    while (alive() && Date.now() - t1 < 5000) await new Promise((res) => setTimeout(res, 50));
    assert.equal(alive(), false, `grandchild ${pid} is gone`);
  });
});

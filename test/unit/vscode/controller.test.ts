// The run controller over the real engine: a real Run on a copy of a fixture project, a replay
// model, and the real verifier with a cheap real check (the loop itself is tested with real tsc and
// node:test in test/unit/loop/walking).
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { Run } from '../../../src/core/loop/run';
import type { ReplayResponse } from '../../../src/core/model/replay';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { Settings } from '../../../src/core/settings';
import type { FolderEngine, RunLike, RunWiring, SettingsSource } from '../../../src/vscode/controller';
import type { Problem } from '../../../src/vscode/common/fixActions';
import { noChatModel } from '../../../src/vscode/common/fixActions';
import { notAppliedWhy } from '../../../src/vscode/common/explain';
import { FolderBusyError, RunController, RunInProgressError } from '../../../src/vscode/controller';
import { RunControllers } from '../../../src/vscode/runControllers';
import type { RunState } from '../../../src/vscode/common/runState';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';
import type { CheckSpec, Failure } from '../../../src/core/types';
import type { Verifier } from '../../../src/core/verify/verifier';
import { silentLogger } from '../../../src/core/types';
import type { RunReport } from '../../../src/core/trace/events';
import { launchingEngine } from '../../../src/vscode/launchingEngine';
import { NO_KEYS } from '../../../src/core/launch';
import { refusalProblem } from '../../../src/vscode/common/refusals';
import { calcCheckCommand } from '../../support/checks';
import { CALC, calcVerifier } from './calcVerifier';

const LIMITS = { maxSteps: 8, tokenCeiling: 200000, timeLimitSeconds: 1800 };

describe('run controller', () => {
  let s: Scratch;
  let original: string;
  beforeEach(() => {
    s = copyFixture('loop/calc');
    original = readFileSync(path.join(s.project, CALC), 'utf8');
  });
  afterEach(() => s.cleanup());

  const edit = (body: string, from = original): string => from.replace(/(mul\(a: number, b: number\): number \{\n {2}return ).*;/, `$1${body};`);
  const step = (to: string, from = original): ReplayResponse => ({ text: reply([diffOf(CALC, from, to)]), usage: { input: 1000, output: 100 } });

  function factory(responses: ReplayResponse[], over: Partial<Settings> = {}, verifier: Verifier = calcVerifier(s.project, s.storage)): (w: RunWiring) => RunLike {
    const settings = { ...defaultSettings(), maxSteps: 4, ...over };
    return (w) => new Run({ workspace: new FsWorkspace(s.project), verifier, provider: new ReplayProvider({ responses }), settings, storageDir: s.storage, signal: w.signal, onEvent: w.onEvent });
  }

  it('follows the run through its events, from idle to running to green', async () => {
    const c = new RunController(s.project, 'calc', LIMITS);
    assert.equal(c.state.status, 'idle');
    const seen: RunState[] = [];
    c.onDidChange((st) => seen.push(st));
    const wrong = edit('a * b + 1');
    const report = await c.start(factory([step(wrong), step(edit('a * b'), wrong)]));
    assert.equal(report.stopReason, 'green');
    const st = c.state;
    assert.equal(st.status, 'stopped');
    assert.equal(st.stopReason, 'green');
    assert.equal(st.outcome, 'fixed');
    assert.equal(st.runId, report.runId);
    assert.equal(st.tracePath, report.tracePath);
    assert.ok(st.runDir && report.tracePath.startsWith(st.runDir));
    assert.deepEqual(st.steps.map((x) => [x.index, x.applied, x.failureCount]), [[1, true, 1], [2, true, 0]]);
    assert.deepEqual(st.failuresPerStep, [{ step: 0, count: 1 }, { step: 1, count: 1 }, { step: 2, count: 0 }]);
    assert.equal(st.tokensUsed, 2200);
    assert.equal(st.limits.maxSteps, 4);
    assert.deepEqual(st.remainingFailures, []);
    assert.equal(c.running, false);
    // Listeners saw it running, step by step, before it stopped.
    const running = seen.filter((x) => x.status === 'running');
    assert.ok(running.some((x) => x.step === 1) && running.some((x) => x.step === 2), 'running states for steps 1 and 2');
    assert.equal(seen.at(-1)!.status, 'stopped');
    assert.ok(seen.some((x) => x.steps.length === 1 && x.status === 'running'), 'step rows appear while running');
  });

  it('keeps a refused start until the next start or continue clears it (the panel says why, issue 40)', async () => {
    const c = new RunController(s.project, 'calc', LIMITS);
    const seen: RunState[] = [];
    c.onDidChange((st) => seen.push(st));
    const refused = noChatModel('');
    c.refuse(refused);
    assert.deepEqual(c.state.refused, refused);
    assert.equal(seen.length, 1, 'the panel hears of it');
    c.refuse(null);
    c.refuse(null);
    assert.equal(seen.length, 2, 'clearing twice says nothing new');
    c.refuse(refused);
    const wrong = edit('a * b + 1');
    await c.start(factory([step(wrong)], { maxSteps: 1 }));
    assert.equal(c.state.refused ?? null, null, 'a run that started is the newer fact');
    assert.ok(seen.some((st) => st.status === 'running' && !st.refused), 'cleared as the run starts, not at its stop');
  });

  it('allows one run per folder at a time', async () => {
    const c = new RunController(s.project, 'calc', LIMITS);
    // The first verification waits while the hold file exists.
    const hold = path.join(s.dir, 'hold');
    writeFileSync(hold, '');
    const first = c.start(factory([step(edit('a * b'))], {}, calcVerifier(s.project, s.storage, hold)));
    await new Promise((r) => setImmediate(r));
    assert.equal(c.running, true);
    await assert.rejects(c.start(factory([])), RunInProgressError);
    rmSync(hold);
    assert.equal((await first).stopReason, 'green');
    assert.equal(c.running, false);
  });

  it('stops a run in flight: it ends cancelled and the workspace keeps its bytes', async () => {
    const c = new RunController(s.project, 'calc', LIMITS);
    assert.equal(c.stop(), false, 'nothing to stop');
    // Held for good: only the stop ends the check's process.
    const hold = path.join(s.dir, 'hold');
    writeFileSync(hold, '');
    const p = c.start(factory([step(edit('a * b'))], {}, calcVerifier(s.project, s.storage, hold)));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(c.stop(), true);
    const r = await p;
    assert.equal(r.stopReason, 'cancelled');
    assert.equal(c.state.stopReason, 'cancelled');
    assert.equal(readFileSync(path.join(s.project, CALC), 'utf8'), original);
  });

  it('continues a run stopped by step-cap with more budget, to green', async () => {
    const c = new RunController(s.project, 'calc', LIMITS);
    const w1 = edit('a * b + 1');
    const w2 = edit('a * b + 2', w1);
    // Nothing improved by the cap, so the engine put the original bytes back (a punt): the third
    // reply edits the original.
    const r1 = await c.start(factory([step(w1), step(w2, w1), step(edit('a * b'))], { maxSteps: 2 }));
    assert.equal(r1.stopReason, 'step-cap');
    assert.equal(r1.outcome, 'punt');
    assert.equal(readFileSync(path.join(s.project, CALC), 'utf8'), original);
    assert.equal(c.canContinue, true);
    const r2 = await c.continue({ extraSteps: 3, extraTokens: 1000 });
    assert.equal(r2.stopReason, 'green', r2.detail);
    assert.equal(c.state.limits.maxSteps, 5);
    assert.equal(c.state.limits.tokenCeiling, 201000);
    assert.equal(c.state.steps.length, 3);
    assert.equal(c.canContinue, false);
    await assert.rejects(c.continue({ extraSteps: 1, extraTokens: 0 }), /only a run of this window that stopped with its steps or tokens used up can continue/);
  });

  it('shows a run that failed to start or crashed as an error stop', async () => {
    const c = new RunController(s.project, 'calc', LIMITS);
    await assert.rejects(c.start(() => { throw new Error('no provider'); }), /no provider/);
    assert.equal(c.running, false);
    const crashing: RunLike = { runId: 'x', runDir: s.storage, tracePath: path.join(s.storage, 't'), start: () => Promise.reject(new Error('disk full')), continue: () => Promise.reject(new Error('n/a')), cancel: () => undefined };
    await assert.rejects(c.start(() => crashing), /disk full/);
    assert.equal(c.state.status, 'stopped');
    assert.equal(c.state.stopReason, 'error');
    assert.equal(c.state.detail, 'disk full');
  });

  it('restores a saved state; one saved while running becomes an interrupted error stop', () => {
    const saved: RunState = { ...new RunController(s.project, 'calc', LIMITS).state, status: 'running', runId: 'r9', step: 2 };
    const c = new RunController(s.project, 'calc', LIMITS, saved);
    assert.equal(c.state.status, 'stopped');
    assert.equal(c.state.stopReason, 'error');
    assert.match(c.state.detail ?? '', /window closed while the run was in progress/);
    assert.equal(c.canContinue, false, 'no live run to continue');
    c.markReverted('run');
    assert.equal(c.state.reverted, 'run');
  });
});

describe('the controller owns the folder\'s files', () => {
  let s: Scratch;
  let original: string;
  beforeEach(() => {
    s = copyFixture('loop/calc');
    original = readFileSync(path.join(s.project, CALC), 'utf8');
  });
  afterEach(() => s.cleanup());

  const edit = (body: string, from = original): string => from.replace(/(mul\(a: number, b: number\): number \{\n {2}return ).*;/, `$1${body};`);
  const calc = (): string => readFileSync(path.join(s.project, CALC), 'utf8');

  /**
   * The folder's engine as folderEngine.ts builds it (launchingEngine: the core's launcher, the real
   * Run and verifier) with a replay model and plain files; the calc check is the folder's configured
   * check (with `hold`, it waits while that file exists), or `checks` when given.
   */
  function engine(responses: ReplayResponse[], hold?: string, model?: Problem, checks: CheckSpec[] = [{ name: 'test', command: calcCheckCommand(hold), parser: 'tap' }]): FolderEngine & { labels: string[] } {
    const labels: string[] = [];
    const inner = launchingEngine(s.project, s.storage, {
      keys: NO_KEYS,
      model: () => (model ? { ok: false, problem: model.message, detail: model } : { ok: true, provider: new ReplayProvider({ responses }) }),
      workspace: (label) => {
        if (label !== undefined) labels.push(label);
        return new FsWorkspace(s.project);
      },
      logger: silentLogger,
    });
    const withChecks = (src: SettingsSource): SettingsSource => () => {
      const a = src();
      return a.ok ? { ok: true, settings: { ...a.settings, checks } } : a;
    };
    return { ...inner, labels, prepareRun: (src, x, own) => inner.prepareRun(withChecks(src), x, own), prepareChecks: (src) => inner.prepareChecks(withChecks(src)) };
  }
  const settings = (maxSteps: number): Settings => ({ ...defaultSettings(), maxSteps });
  const source = (st: Settings): SettingsSource => () => ({ ok: true, settings: st });

  /** Prepares a run through the launcher, as the commands do, and runs it. */
  async function run(c: RunController, st: Settings, instruction = ''): Promise<RunReport> {
    const launch = await c.prepare(source(st));
    assert.ok(launch.ok, `refused: ${JSON.stringify(!launch.ok && launch.refusal)}`);
    return c.run(launch.prepared, instruction);
  }

  it('reviews the changed files: Undo puts one back, a file the user changed is left alone and named, Keep keeps', async () => {
    const fixed = edit('a * b');
    const extra = 'src/extra.ts';
    const created = ['--- /dev/null', `+++ b/${extra}`, '@@ -0,0 +1 @@', '+export const EXTRA = 1;', ''].join('\n');
    const e = engine([{ text: reply([diffOf(CALC, original, fixed), created]), usage: { input: 1000, output: 100 } }]);
    const c = new RunController(s.project, 'calc', LIMITS, undefined, { engine: e });
    assert.equal((await run(c, settings(3))).stopReason, 'green');
    const files = (): string[] => c.state.review?.files.map((f) => `${f.path}:${f.kind}:${f.decision}`) ?? [];
    assert.deepEqual(files(), [`${CALC}:modified:pending`, `${extra}:added:pending`]);
    // The original is beside the run for the diff's left side.
    assert.equal(readFileSync(path.join(c.state.review!.dir, 'before', ...CALC.split('/')), 'utf8'), original);

    writeFileSync(path.join(s.project, extra), 'export const EXTRA = 2; // mine\n');
    const conflict = await c.undoFiles([extra]);
    assert.deepEqual(conflict.conflicts.map((x) => x.path), [extra]);
    assert.match(conflict.conflicts[0]!.reason, /changed outside the run; left as the user has it/);
    assert.equal(readFileSync(path.join(s.project, extra), 'utf8'), 'export const EXTRA = 2; // mine\n', "the user's edit is intact");
    assert.deepEqual(files(), [`${CALC}:modified:pending`, `${extra}:added:pending`]);

    const undone = await c.undoFiles([CALC]);
    assert.deepEqual(undone.actions.map((x) => `${x.action} ${x.path}`), [`restored ${CALC}`]);
    assert.equal(calc(), original);
    assert.deepEqual(files(), [`${CALC}:modified:undone`, `${extra}:added:pending`], 'an undone file stays listed, as undone');

    c.keepFiles();
    assert.deepEqual(files(), [`${CALC}:modified:undone`, `${extra}:added:kept`]);
    await assert.rejects(c.undoFiles(['src/nope.ts']), /not a file the run changed: src\/nope\.ts/);
  });

  it('preparing names what stops a run (the model, then the checks) before anything starts', async () => {
    const ok = new RunController(s.project, 'calc', LIMITS, undefined, { engine: engine([]) });
    assert.equal((await ok.prepare(source(settings(3)))).ok, true);
    // Nothing to discover either: no tsconfig, no test script.
    rmSync(path.join(s.project, 'tsconfig.json'));
    const words = { folderName: 'calc', what: 'the run did not start' };
    const problemOf = async (c: RunController): Promise<Problem> => {
      const launch = await c.prepare(source(settings(3)));
      assert.ok(!launch.ok, 'refused');
      return refusalProblem(launch.refusal, words);
    };
    const bad = new RunController(s.project, 'calc', LIMITS, undefined, { engine: engine([], undefined, noChatModel(''), []) });
    const model = await problemOf(bad);
    assert.equal(model.message, 'No chat model is available in VS Code.');
    assert.deepEqual(model.actions, [{ kind: 'chooseModel' }, { kind: 'openSetting', setting: 'fixUntilGreen.model.provider' }]);
    // With a model, the checks are next.
    const checks = await problemOf(new RunController(s.project, 'calc', LIMITS, undefined, { engine: engine([], undefined, undefined, []) }));
    assert.match(checks.message, /^The checks cannot run: no checks configured or discovered: set fixUntilGreen\.checks/);
    assert.deepEqual(checks.actions, [{ kind: 'openSetting', setting: 'fixUntilGreen.checks' }]);
    assert.equal(bad.state.status, 'idle', 'a preflight starts no run');
    assert.equal(calc(), original);
  });

  it('an edit that was not applied says why on its row: the file, the hunk that did not match, the reason', async () => {
    // The reply's diff quotes a mul body the file does not have.
    const stale = original.replace('return a + b;\n}\n\nexport function mul', 'return a - b;\n}\n\nexport function mul').replace(/(mul[^]*?return )a \+ b;/, '$1a / b;');
    const e = engine([{ text: reply([diffOf(CALC, stale, edit('a * b', stale))]), usage: { input: 1000, output: 100 } }]);
    const c = new RunController(s.project, 'calc', LIMITS, undefined, { engine: e });
    await run(c, settings(1));
    const row = c.state.steps[0]!;
    assert.equal(row.applied, false);
    assert.ok((row.editErrors ?? []).length > 0, 'the edit event errors reach the row');
    const why = notAppliedWhy(row.editErrors ?? [], row.feedback);
    assert.match(why, /^src\/calc\.ts: hunk 1 of 1 \(reply line \d+\) did not match the file( \(.+\))?$/, why);
    assert.equal(calc(), original);
  });

  it('runs from settings through its engine, then reverts the run itself', async () => {
    const fixed = edit('a * b');
    const e = engine([{ text: reply([diffOf(CALC, original, fixed)]), usage: { input: 1000, output: 100 } }]);
    const c = new RunController(s.project, 'calc', LIMITS, undefined, { engine: e });
    const report = await run(c, settings(3), 'keep the API');
    assert.equal(report.stopReason, 'green');
    assert.equal(c.state.instruction, 'keep the API');
    assert.equal(calc(), fixed);
    const restored = await c.revertRun();
    assert.deepEqual(restored.actions.map((x) => `${x.action} ${x.path}`), [`restored ${CALC}`]);
    assert.equal(calc(), original);
    assert.equal(c.state.reverted, 'run');
    assert.deepEqual(e.labels, ['Fix Until Green: review', 'Fix Until Green: revert run'], 'the review read and the revert wrote through the engine\'s workspace');
    assert.deepEqual(c.state.review?.files.map((f) => `${f.path}:${f.decision}`), [`${CALC}:undone`], 'Revert run undoes the reviewed files');
  });

  it("keeps the run's verifications: the one its stop shows comes with the checks' output and passing tests (Test Results, the Testing view)", async () => {
    const w1 = edit('a * b + 1');
    const c = new RunController(s.project, 'calc', LIMITS, undefined, { engine: engine([{ text: reply([diffOf(CALC, original, w1)]) }, { text: reply([diffOf(CALC, original, edit('a * b'))]) }]) });
    const r = await run(c, settings(1));
    assert.equal(r.stopReason, 'step-cap');
    const stopped = c.verificationOf(c.state.remainingFailures);
    assert.ok(stopped, 'the verification of the state the run stopped in');
    assert.match(stopped.checks[0]!.output, /not ok 1 - mul multiplies[\s\S]*mul returns a (\+|\*) b/, "what the check printed");
    assert.deepEqual(stopped.failures.map((x) => x.message), c.state.remainingFailures.map((x) => x.message));
    await c.continue({ extraSteps: 1, extraTokens: 0 });
    assert.equal(c.state.stopReason, 'green');
    const green = c.verificationOf(c.state.remainingFailures);
    assert.equal(green?.green, true);
    assert.deepEqual(green.checks[0]!.passed, [{ id: 'mul multiplies' }], 'the passing test, for the Testing view to list');
    assert.match(green.checks[0]!.output, /^ok 1 - mul multiplies$/m);
  });

  it('reverts to the best step and runs a check pass that sets the remaining failures', async () => {
    const w1 = edit('a * b + 1');
    const w2 = edit('a * b + 2', w1);
    const c = new RunController(s.project, 'calc', LIMITS, undefined, { engine: engine([{ text: reply([diffOf(CALC, original, w1)]) }, { text: reply([diffOf(CALC, w1, w2)]) }]) });
    const r = await run(c, settings(2));
    assert.equal(r.stopReason, 'step-cap');
    assert.equal(calc(), original, 'a punt put the original back');
    assert.deepEqual(r.held, { step: 0, target: 'initial' }, 'the report says what the workspace holds');
    assert.deepEqual(c.state.held, r.held);
    assert.equal(c.state.review, null, 'nothing left changed: nothing to review');
    const { step } = await c.revertToBest();
    assert.equal(step, r.bestStep);
    assert.equal(c.state.reverted, 'best');
    assert.equal(calc(), step === 0 ? original : step === 1 ? w1 : w2);
    c.setRemainingFailures([]);
    const v = await c.verify(settings(2));
    assert.equal(v.green, false);
    assert.deepEqual(c.state.remainingFailures, v.failures);
    assert.deepEqual(c.state.checked && { green: c.state.checked.green, failureCount: c.state.checked.failureCount }, { green: false, failureCount: v.failures.length }, 'the check pass leads the panel');
    assert.match(c.state.remainingFailures[0]!.message, new RegExp(`mul returns ${step === 0 ? 'a \\+ b' : `a \\* b \\+ ${step}`}$`));
  });

  it('a cancelled check pass leaves the last known failures and the panel as they were', async () => {
    const hold = path.join(s.dir, 'hold');
    const c = new RunController(s.project, 'calc', LIMITS, undefined, { engine: engine([], hold) });
    const known: Failure[] = [{ check: 'test', file: 'calc.test.js', line: 3, id: 'mul', message: 'mul returns a + b' }];
    c.setRemainingFailures(known);
    const before = c.state;
    writeFileSync(hold, '');
    const abort = new AbortController();
    const checking = c.verify(settings(2), abort.signal);
    setTimeout(() => abort.abort(new Error('cancelled')), 300);
    const v = await checking.finally(() => rmSync(hold, { force: true }));
    assert.ok(v.checks.some((x) => x.cancelled), 'the check was cancelled');
    assert.deepEqual(c.state.remainingFailures, known, 'Problems keeps what the last check found');
    assert.equal(c.state.checked, before.checked, 'no check pass leads the panel');
  });

  it('refuses a revert or a check pass while a run is in progress, and a run while a revert is', async () => {
    // Each verification waits while the hold file exists (outside the project).
    const hold = path.join(s.dir, 'hold');
    writeFileSync(hold, '');
    const release = (): void => rmSync(hold, { force: true });
    const c = new RunController(s.project, 'calc', LIMITS, undefined, { engine: engine([{ text: reply([diffOf(CALC, original, edit('a * b'))]) }], hold) });
    const running = run(c, settings(2));
    // Preflight (the launcher) comes first; the run then holds the folder.
    while (!c.running) await new Promise((r) => setImmediate(r));
    await assert.rejects(c.revertRun(), RunInProgressError);
    await assert.rejects(c.verify(settings(2)), RunInProgressError);
    release();
    assert.equal((await running).stopReason, 'green');
    // A check pass holds the folder: a run asked for meanwhile is refused, not interleaved.
    const next = await c.prepare(source(settings(2)));
    assert.ok(next.ok);
    writeFileSync(hold, '');
    const checking = c.verify(settings(2));
    const refused = await c.prepare(source(settings(2)));
    assert.ok(!refused.ok && refused.refusal.kind === 'busy' && refused.refusal.task === 'a check pass', 'the launcher refuses a run meanwhile');
    await assert.rejects(c.run(next.prepared, ''), FolderBusyError);
    await assert.rejects(c.revertRun(), FolderBusyError);
    release();
    assert.equal((await checking).green, true);
    await c.revertRun();
    assert.equal(calc(), original);
  });

  it('finds a run the window lost mid-way and reverts it, or keeps it, itself', async () => {
    const fixed = edit('a * b');
    const c = new RunController(s.project, 'calc', LIMITS, undefined, { engine: engine([{ text: reply([diffOf(CALC, original, fixed)]) }]) });
    const r = await run(c, settings(2));
    // The process died before the run finished: its checkpoint was never marked finished.
    const manifest = path.join(s.storage, 'runs', r.runId, 'checkpoint', 'checkpoint.json');
    const unfinish = (): void => writeFileSync(manifest, JSON.stringify({ ...(JSON.parse(readFileSync(manifest, 'utf8')) as object), finished: false }));
    unfinish();
    const found = await c.interruptedRuns();
    assert.deepEqual(found.map((x) => [x.runId, x.touched]), [[r.runId, [CALC]]]);
    assert.deepEqual((await c.revertInterrupted(found[0]!)).conflicts, []);
    assert.equal(calc(), original);
    assert.equal(c.state.reverted, 'run');
    assert.deepEqual(await c.interruptedRuns(), [], 'a reverted run is not offered again');
    // Keep: the bytes stay as the run left them and the run is not offered again either.
    const r2 = await run(new RunController(s.project, 'calc', LIMITS, undefined, { engine: engine([{ text: reply([diffOf(CALC, original, fixed)]) }]) }), settings(1));
    assert.equal(calc(), fixed);
    const manifest2 = path.join(s.storage, 'runs', r2.runId, 'checkpoint', 'checkpoint.json');
    writeFileSync(manifest2, JSON.stringify({ ...(JSON.parse(readFileSync(manifest2, 'utf8')) as object), finished: false }));
    const lost = await c.interruptedRuns();
    assert.deepEqual(lost.map((x) => x.runId), [r2.runId]);
    const bytes = calc();
    await c.keepInterrupted(lost[0]!);
    assert.equal(calc(), bytes);
    assert.deepEqual(await c.interruptedRuns(), []);
  });

  it('says why without an engine (no workspace storage)', async () => {
    const c = new RunController(s.project, 'calc', LIMITS);
    await assert.rejects(c.prepare(source(settings(1))), /no workspace storage is available/);
  });
});

describe('run controllers of a multi-root workspace', () => {
  it('keeps one controller per folder and follows the active one', () => {
    const made: string[] = [];
    const all = new RunControllers((folder, name) => {
      made.push(folder);
      return new RunController(folder, name, LIMITS);
    });
    const fired: string[] = [];
    all.onDidChange((c) => fired.push(c.folder));
    const a = all.get('/w/a', 'a');
    assert.equal(all.get('/w/a', 'a'), a, 'the same controller for the same folder');
    const b = all.get('/w/b', 'b');
    assert.deepEqual(made, ['/w/a', '/w/b']);
    assert.equal(all.active, a, 'the first folder is active until another is chosen');
    all.setActive('/w/b');
    assert.equal(all.active, b);
    assert.deepEqual(fired, ['/w/a', '/w/b', '/w/b']);
    a.markReverted('best');
    assert.equal(fired.at(-1), '/w/a', "a folder's changes reach the listeners");
    all.remove('/w/b');
    assert.equal(all.active, a);
    assert.equal(all.find('/w/b'), undefined);
    assert.deepEqual(all.running(), []);
  });
});

describe('the controller and a run of another process', function () {
  this.timeout(60_000);
  it('refuses a revert or a check pass while another process\'s run holds the folder, then allows it', async () => {
    const { spawn } = await import('node:child_process');
    const { REPO } = await import('../../support/fixtures');
    const s = copyFixture('loop/calc');
    const holder = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'test', 'support', 'runLockHolder.ts'), s.project], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const line = await new Promise<string>((resolve) => holder.stdout.once('data', (d: Buffer) => resolve(d.toString())));
      assert.equal((JSON.parse(line) as { ok: boolean }).ok, true);
      const engine = launchingEngine(s.project, s.storage, { keys: NO_KEYS, model: () => ({ ok: false, problem: 'not used' }), workspace: () => new FsWorkspace(s.project), logger: silentLogger });
      const checked: Settings = { ...defaultSettings(), checks: [{ name: 'test', command: calcCheckCommand(), parser: 'tap' }] };
      const c = new RunController(s.project, 'calc', LIMITS, undefined, { engine });
      await assert.rejects(c.verify(checked), (e: Error) => e instanceof FolderBusyError && new RegExp(`a run of test \\(pid ${holder.pid}`).test(e.message));
      holder.kill('SIGKILL');
      await new Promise((r) => holder.once('exit', r));
      // The holder is gone: its lock is stale and no longer refuses.
      const v = await c.verify(checked);
      assert.equal(v.green, false);
    } finally {
      holder.kill('SIGKILL');
      s.cleanup();
    }
  });
});

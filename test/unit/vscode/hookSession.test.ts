// The panel following an agent's hook session (issue 30): the real CLI's `hook --host claude` writes
// the session's trace into a storage as the installed hooks do (`--storage`), the follower tails it
// as it grows (appended lines, a last line written half, a newer session) and folds it into the
// state the panel and the status bar draw; a run of ours takes precedence.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readTrace } from '../../../src/core/trace/trace';
import type { RunReport } from '../../../src/core/trace/events';
import { silentLogger } from '../../../src/core/types';
import { RunController } from '../../../src/vscode/controller';
import { HookFollower } from '../../../src/vscode/hookFollower';
import { meterView } from '../../../src/vscode/common/meterView';
import type { RunState } from '../../../src/vscode/common/runState';
import { canRevert, idleState } from '../../../src/vscode/common/runState';
import type { HookSessionView } from '../../../src/vscode/common/sessionTypes';
import { sessionDecisionLine } from '../../../src/vscode/common/stepWords';
import { foldSession, isSession, sessionLeads, settleQuiet } from '../../../src/vscode/sessionState';
import { runCli } from '../../support/cli';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const LIMITS = { maxSteps: 8, tokenCeiling: 200000, timeLimitSeconds: 1800 };

type Session = RunState & { session: HookSessionView };

/** One Stop as Claude Code sends it, run through the installed command's form (`--storage`, `--cwd`). */
function claudeStop(s: Scratch, storage: string, session: string, last: string): void {
  const input = { session_id: session, transcript_path: null, cwd: s.project, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: last };
  const r = runCli(['hook', '--host', 'claude', '--storage', storage, '--cwd', s.project], { input: JSON.stringify(input) });
  assert.equal(r.code, 0, r.stderr);
}

function fixCart(s: Scratch): void {
  const file = path.join(s.project, 'src', 'cart.js');
  writeFileSync(file, readFileSync(file, 'utf8').replace('acc + l.price', 'acc + l.price * l.quantity'));
}

async function until<T>(what: string, probe: () => T | undefined, ms = 20000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('an agent hook session, followed by the panel', function () {
  this.timeout(120_000);
  let s: Scratch;
  let storage: string;
  let follower: HookFollower;
  let shown: RunState[];
  let current: RunState;

  before(() => {
    s = copyFixture('hooks/cart');
    storage = path.join(s.dir, 'folder-storage');
    shown = [];
    current = idleState(s.project, 'cart', LIMITS);
    follower = new HookFollower({
      folder: s.project,
      folderName: 'cart',
      storageDir: storage,
      logger: silentLogger,
      pollMs: 100,
      current: () => current,
      show: (st) => {
        shown.push(st);
        current = st;
        return true;
      },
    }).start();
  });
  after(() => {
    follower.dispose();
    s.cleanup();
  });

  const last = (): Session | undefined => {
    const st = shown.at(-1);
    return isSession(st) ? st : undefined;
  };

  it("follows the real CLI's session: a stop sent back with the failures, then a stop let through, green", async () => {
    claudeStop(s, storage, 'sess-1', 'Done, all tests pass.');
    const blocked = await until('the first stop', () => (last()?.session.stops.length === 1 ? last() : undefined));
    assert.equal(blocked.status, 'running', 'the agent is back at work');
    assert.equal(blocked.session.host, 'claude');
    assert.equal(blocked.session.hostLabel, 'Claude Code');
    assert.equal(blocked.session.sessionId, 'sess-1');
    assert.equal(blocked.runDir, path.join(storage, 'runs', blocked.runId!));
    const b = blocked.session.stops[0]!;
    assert.deepEqual([b.index, b.answer, b.hostEvent, b.failureCount, b.green], [1, 'block', 'Stop', 2, false]);
    assert.equal(b.verdict, '2 failures, first seen in this session: fix them, then check again to see whether they changed');
    assert.deepEqual(b.failures.map((f) => f.id), ['total multiplies price by quantity', 'total applies the discount']);
    assert.match(b.reason, /"Done, all tests pass\.", but the checks disagree/);
    assert.equal(b.checks[0]!.name, 'test');
    assert.equal(blocked.session.blocks, 1);
    assert.equal(blocked.step, 1, 'the steps budget counts the stops sent back');
    assert.equal(blocked.remainingFailures.length, 2);
    assert.equal(blocked.session.sentence, 'Claude Code tried to stop while your checks fail (2 failures), so it was sent back to work.');
    const liveMeter = meterView(blocked);
    assert.equal(liveMeter.text, '$(sync~spin) Fix Until Green: Claude Code · 1/7 stops sent back');
    assert.match(liveMeter.tooltip, /gates Claude Code's session/);

    fixCart(s);
    claudeStop(s, storage, 'sess-1', 'Fixed the total.');
    const green = await until('the stop let through', () => (last()?.status === 'stopped' ? last() : undefined));
    assert.equal(green.stopReason, 'green');
    assert.equal(green.outcome, 'fixed');
    assert.equal(green.session.stops.length, 2);
    const a = green.session.stops[1]!;
    assert.deepEqual([a.answer, a.green, a.failureCount], ['allow', true, 0]);
    assert.deepEqual(a.decision, { reason: 'green', detail: 'every check passes after step 2' });
    assert.match(a.reason, /every check passes \(test\)/);
    assert.deepEqual(green.remainingFailures, []);
    assert.deepEqual(green.failuresPerStep, [{ step: 1, count: 2 }, { step: 2, count: 0 }]);
    assert.equal(green.session.sentence, 'Claude Code stopped with every check passing (after being sent back once).');
    assert.equal(sessionDecisionLine(a.decision!), 'Every check passes, so the agent was let stop.');
    assert.equal(meterView(green).text, '$(check-all) Fix Until Green: green · Claude Code');
    assert.equal(canRevert(green), false, 'no edit tool wrote through the hooks: nothing to revert');

    // The whole trace folded at once says the same as the tail followed line by line.
    const whole = foldSession({ ...idleState(s.project, 'cart', LIMITS), runDir: green.runDir, tracePath: green.tracePath }, readTrace(green.tracePath!));
    assert.deepEqual(whole, green);
  });

  it('moves to a newer session, and folds a last line only once its newline is written', async () => {
    // The cart is fixed already: the new session's first stop is let through.
    claudeStop(s, storage, 'sess-2', 'Done.');
    const second = await until('the second session', () => (last()?.session.sessionId === 'sess-2' && last()?.status === 'stopped' ? last() : undefined));
    assert.notEqual(second.runId, shown.find(isSession)!.runId);
    assert.equal(second.session.stops.length, 1);
    assert.equal(second.session.sentence, 'Claude Code stopped with every check passing.');

    // A third session's trace, written as a slow writer would: the run-start and half the verify line.
    const now = new Date().toISOString();
    const lines = readFileSync(second.tracePath!, 'utf8').split('\n').filter((l) => l !== '').map((l) => l.replace(/^\{"ts":"[^"]+"/, `{"ts":"${now}"`));
    const dir = path.join(storage, 'runs', 'hook-claude-sess-3-00000000');
    mkdirSync(dir);
    const trace = path.join(dir, 'trace.jsonl');
    const verify = lines[1]!;
    writeFileSync(trace, `${lines[0]!.replace(second.runId!, 'hook-claude-sess-3-00000000')}\n${verify.slice(0, 40)}`);
    const third = await until('the third session', () => (last()?.runId === 'hook-claude-sess-3-00000000' ? last() : undefined));
    assert.equal(third.status, 'running');
    assert.equal(third.session.stops.length, 0);
    assert.equal(third.session.sentence, 'Claude Code is at work; its stops are gated by your checks.');
    appendFileSync(trace, `${verify.slice(40)}\n${lines.slice(2).join('\n')}\n`);
    const done = await until('the rest of its lines', () => (last()?.runId === 'hook-claude-sess-3-00000000' && last()?.status === 'stopped' ? last() : undefined));
    assert.equal(done.session.stops.length, 1);
    assert.equal(done.session.stops[0]!.green, true, 'the verify line written in two halves was folded whole');
    assert.equal(done.stopReason, 'green');
    assert.deepEqual(readdirSync(path.join(storage, 'runs')).filter((n) => n.startsWith('hook-') && !n.endsWith('.lock')).length, 3);
  });
});

describe('a session against our own runs', () => {
  const session = (lastEventAt: number, status: RunState['status'] = 'stopped'): Session => ({
    ...idleState('/w', 'w', LIMITS),
    status,
    runId: 'hook-claude-x',
    session: { host: 'claude', hostLabel: 'Claude Code', sessionId: 'x', stops: [], denied: [], touched: [], blocks: 0, lastEventAt, sentence: '' },
  });
  const ours = (status: RunState['status'], startedAt: number, elapsedMs: number): RunState => ({ ...idleState('/w', 'w', LIMITS), status, runId: 'r', startedAt, elapsedMs });

  it('leads only when newer than what the panel shows, never over a run of ours in progress', () => {
    assert.equal(sessionLeads(idleState('/w', 'w', LIMITS), session(5)), true);
    assert.equal(sessionLeads(ours('running', 0, 0), session(10_000)), false);
    assert.equal(sessionLeads(ours('stopped', 1000, 1000), session(3000)), true, 'a session after our run');
    assert.equal(sessionLeads(ours('stopped', 1000, 5000), session(3000)), false, 'our run ended after the session');
    assert.equal(sessionLeads(session(1), session(2)), true, 'the same session, updated');
  });

  it('a session gone quiet past its time limit is over', () => {
    const live = session(0, 'running');
    assert.equal(settleQuiet(live, 1000), live);
    const over = settleQuiet(live, LIMITS.timeLimitSeconds * 1000 + 1);
    assert.equal(over.status, 'stopped');
    assert.match(over.session!.sentence, /looks over/);
  });

  it("the controller shows a session only while no run of ours holds the folder, and our run's start replaces it", async () => {
    const c = new RunController('/nonexistent-fug-folder', 'w', LIMITS);
    assert.equal(c.showSession(session(1)), true);
    assert.equal(c.state.session?.hostLabel, 'Claude Code');
    let finish: (r: RunReport) => void = () => undefined;
    const running = c.start((w) => ({
      runId: 'r1',
      runDir: '/s/r1',
      tracePath: '/s/r1/trace.jsonl',
      start: () => {
        w.onEvent({ ts: new Date().toISOString(), type: 'run-start', step: 0, runId: 'r1', root: '/w', model: 'm', instruction: null, checks: [], limits: LIMITS, settings: {} });
        return new Promise<RunReport>((r) => (finish = r));
      },
      continue: () => Promise.reject(new Error('no')),
      cancel: () => undefined,
    }));
    await until('our run to start', () => (c.running ? true : undefined));
    assert.equal(c.state.session, undefined, "our run's start replaces the session on screen");
    assert.equal(c.showSession(session(Date.now() + 1000)), false, 'a session never replaces a run of ours in progress');
    assert.equal(c.state.runId, 'r1');
    finish({ runId: 'r1', stopReason: 'green', outcome: 'fixed', detail: '', steps: [], tokensUsed: 0, elapsedMs: 1, initialFailureCount: 0, remainingFailures: [], fixedFailures: [], bestStep: 0, hypotheses: [], tracePath: '/s/r1/trace.jsonl', limits: LIMITS });
    await running;
    assert.equal(c.showSession(session(Date.now() + 1000)), true);
  });
});

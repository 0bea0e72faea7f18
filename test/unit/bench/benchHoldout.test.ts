// Held-out tests within one file: a fix whose two failing tests both live in test/clamp.test.js (real
// git history, real node:test). One test is withheld by name (deterministic rule), the loop never sees
// its failure and may go green without it; the final verdict runs it. A model that special-cases the
// visible test is green in the loop and caught as overfit; the oracle is green and not overfit.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NO_KEYS } from '../../../src/core/launch';
import { createProvider } from '../../../src/core/model/factory';
import { validateSettings } from '../../../src/core/settings';
import { readTrace } from '../../../src/core/trace/trace';
import { makePlan, ORACLE_VARIANT } from '../../../src/core/bench/plan';
import type { BenchOutcome } from '../../../src/core/bench/runBench';
import { runBench } from '../../../src/core/bench/runBench';
import type { BenchPorts } from '../../../src/core/bench/runPair';
import type { TaskList } from '../../../src/core/bench/tasks';
import { tasksFromHistory } from '../../../src/core/bench/tasks';
import type { BenchRepo } from '../../support/benchRepo';
import { makeOneFileRepo } from '../../support/benchRepo';

const reply = (body: string): { text: string; usage: { input: number; output: number } } => ({ text: `STATUS: in_progress\nCONFIDENCE: 0.4\nPOSTMORTEM: trying\n\n${body}`, usage: { input: 100, output: 20 } });

describe('bench: held-out tests within one test file', function () {
  this.timeout(600_000);
  let repo: BenchRepo;
  let list: TaskList;
  let outcome: BenchOutcome;
  let heldTitle: string;

  before(async () => {
    repo = makeOneFileRepo();
    const storage = path.join(repo.dir, 'storage', 'bench');
    const ports: BenchPorts = {
      settings: (o) => {
        const v = validateSettings({ ...o, checks: repo.checks });
        return v.ok ? { ok: true, settings: v.settings } : { ok: false, problems: v.issues.map((i) => i.message) };
      },
      keys: NO_KEYS,
      model: (m) => ({ ok: true, provider: createProvider(m, { root: repo.root, keyHint: '' }) }),
    };
    const base = await ports.settings({});
    assert.ok(base.ok);
    list = await tasksFromHistory({ root: repo.root, settings: base.settings, storageDir: storage, scan: {}, holdout: 'auto' });
    const task = list.tasks[0];
    assert.ok(task?.holdout, `the clamp task is kept and split: ${JSON.stringify(list.explanations)}`);
    heldTitle = task.holdout.tests![0]!.id;
    // The model sees only the visible test's failure and special-cases exactly its input.
    const special = heldTitle === 'clamp high' ? 'if (x === -5) return 0;' : 'if (x === 50) return 10;';
    const scripts = path.join(repo.dir, 'scripts');
    mkdirSync(scripts);
    const overfit = path.join(scripts, 'overfit.json');
    writeFileSync(overfit, JSON.stringify({ responses: Array.from({ length: 3 }, () => reply(`src/range.js\n<<<<<<< SEARCH\n  return x;\n=======\n  ${special}\n  return x;\n>>>>>>> REPLACE\n`)) }));
    const plan = makePlan(list.tasks, [ORACLE_VARIANT, { name: 'overfit', kind: 'model', source: 'test', settings: { 'model.provider': 'replay', 'model.id': overfit } }], { maxSteps: 3, stallThreshold: 3 }, 'auto', null);
    outcome = await runBench({ root: repo.root, storageDir: storage, plan, pairs: plan.pairs, ports, jobs: 1, resultsFile: path.join(storage, 'results.jsonl') });
  });
  after(() => repo?.cleanup());

  it('splits the one file by test name: the lower SHA-256 of "<commit>:<file>:<title>" held out, the other visible, the rule stated', () => {
    const task = list.tasks[0]!;
    const h = (title: string): string => createHash('sha256').update(`${task.commit}:test/clamp.test.js:${title}`).digest('hex');
    const expected = h('clamp low') < h('clamp high') ? 'clamp low' : 'clamp high';
    assert.equal(task.holdout!.by, 'test');
    assert.deepEqual(task.holdout!.heldOut, [`test/clamp.test.js › ${expected}`]);
    assert.deepEqual(task.holdout!.visible, [`test/clamp.test.js › ${expected === 'clamp low' ? 'clamp high' : 'clamp low'}`]);
    assert.deepEqual(task.holdout!.tests, [{ check: 'test', file: 'test/clamp.test.js', id: expected }]);
    assert.match(task.holdout!.how, /1 of 2 failing tests in test\/clamp\.test\.js held out \(by test name within one file: .*SHA-256/);
  });

  it('the model that special-cases the visible test goes green in the loop, never saw the held-out failure, and is overfit', () => {
    const r = outcome.records.find((x) => x.variant === 'overfit')!;
    assert.equal(r.stopReason, 'green', r.detail);
    assert.equal(r.green, true);
    assert.equal(r.heldOut, 1);
    assert.equal(r.greenFull, false);
    assert.equal(r.overfit, true);
    assert.equal(r.finalFailures, 1);
    const seen = readTrace(r.tracePath!).flatMap((e) => (e.type === 'verify' ? e.failures.map((f) => f.id) : []));
    assert.ok(seen.length > 0, 'the loop saw the visible failure');
    assert.ok(!seen.includes(heldTitle), `the loop saw the held-out test: ${seen.join(', ')}`);
  });

  it('the oracle goes green with every test restored, not overfit; nothing held out stays in a copy', () => {
    const r = outcome.records.find((x) => x.variant === 'oracle')!;
    assert.equal(r.stopReason, 'green', r.detail);
    assert.equal(r.greenFull, true);
    assert.equal(r.overfit, false);
    assert.equal(r.finalBytes, 'exact');
    assert.equal(outcome.proof.untouched, true);
  });
});

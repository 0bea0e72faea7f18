// The bench on a repository whose history the test builds with real git commits (test/support/benchRepo):
// real tsc, ESLint and node:test as the project's checks, real worktrees; the models are the one fake
// (replay scripts): the oracle, a staller, a model that special-cases the visible test (overfit), a
// model that tries to edit the test (denied). Every metric is asserted against what the scripts did.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NO_KEYS } from '../../../src/core/launch';
import { createProvider } from '../../../src/core/model/factory';
import { validateSettings } from '../../../src/core/settings';
import type { PairRecord } from '../../../src/core/bench/metrics';
import type { BenchPlan, VariantSpec } from '../../../src/core/bench/plan';
import { makePlan, ORACLE_VARIANT, shardPairs } from '../../../src/core/bench/plan';
import { writeReport } from '../../../src/core/bench/report';
import { latestByPair, readResults } from '../../../src/core/bench/results';
import type { BenchOutcome } from '../../../src/core/bench/runBench';
import { runBench } from '../../../src/core/bench/runBench';
import type { BenchPorts } from '../../../src/core/bench/runPair';
import type { TaskList } from '../../../src/core/bench/tasks';
import { tasksFromHistory } from '../../../src/core/bench/tasks';
import type { BenchRepo } from '../../support/benchRepo';
import { gitIn, makeBenchRepo } from '../../support/benchRepo';
import { CLI, runCli } from '../../support/cli';

const reply = (body: string): { text: string; usage: { input: number; output: number } } => ({ text: `STATUS: in_progress\nCONFIDENCE: 0.4\nPOSTMORTEM: trying\n\n${body}`, usage: { input: 100, output: 20 } });

function script(file: string, body: string, n: number): string {
  writeFileSync(file, JSON.stringify({ responses: Array.from({ length: n }, () => reply(body)) }));
  return file;
}

/** The user's folder as the bench must leave it: every byte of the files in play and of the index. */
function userBytes(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of ['src/math.js', 'src/new.js', 'README.md', '.git/index', '.git/HEAD']) out[f] = existsSync(path.join(root, f)) ? readFileSync(path.join(root, f)).toString('base64') : '(absent)';
  out.status = gitIn(root, ['status', '--porcelain=v2', '--untracked-files=all']);
  return out;
}

function stable(r: PairRecord): Partial<PairRecord> {
  const { wallMs: _w, at: _a, tracePath: _t, ...rest } = r;
  return rest;
}

describe('bench: tasks from history, variants, metrics', function () {
  this.timeout(900_000);
  let repo: BenchRepo;
  let storage: string;
  let ports: BenchPorts;
  let list: TaskList;
  let plan: BenchPlan;
  let outcome: BenchOutcome;
  let userBefore: Record<string, string>;
  const rec = (task: string, variant: string): PairRecord => {
    const r = outcome.records.find((x) => x.task === task && x.variant === variant);
    assert.ok(r, `no record for ${task} × ${variant}`);
    return r;
  };
  const idOf = (name: string): string => repo.commits[name]!.slice(0, 10);

  before(async () => {
    repo = makeBenchRepo();
    storage = path.join(repo.dir, 'storage', 'bench');
    // The user's folder is mid-work: a change staged, another not, a new file untracked.
    writeFileSync(path.join(repo.root, 'README.md'), '# fixture\n\nstaged edit\n');
    gitIn(repo.root, ['add', 'README.md']);
    writeFileSync(path.join(repo.root, 'src/math.js'), `${readFileSync(path.join(repo.root, 'src/math.js'), 'utf8')}// unsaved thought\n`);
    writeFileSync(path.join(repo.root, 'src/new.js'), 'export const x = 1;\n');
    userBefore = userBytes(repo.root);
    ports = {
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
    const assertTask = list.tasks.find((t) => t.commit === repo.commits.assert);
    assert.ok(assertTask?.holdout, 'the clamp task holds out one of its two failing test files');
    const special = assertTask.holdout.visible[0]!.endsWith('clampHigh.test.js') ? 'if (x === 50) return 10;' : 'if (x === -5) return 0;';
    const scripts = path.join(repo.dir, 'scripts');
    mkdirSync(scripts);
    const stall = script(path.join(scripts, 'stall.json'), 'Not sure yet; no change.', 4);
    const variants: VariantSpec[] = [
      ORACLE_VARIANT,
      { name: 'staller', kind: 'settings', source: 'test', settings: { 'model.provider': 'replay', 'model.id': stall, 'model.pricing': { 'stall.json': { input: 1, output: 2 } } } },
      { name: 'overfit', kind: 'model', source: 'test', settings: { 'model.provider': 'replay', 'model.id': script(path.join(scripts, 'overfit.json'), `src/range.js\n<<<<<<< SEARCH\n  return x;\n=======\n  ${special}\n  return x;\n>>>>>>> REPLACE\n`, 4) } },
      { name: 'test-editor', kind: 'model', source: 'test', settings: { 'model.provider': 'replay', 'model.id': script(path.join(scripts, 'edit-test.json'), "test/zero.test.js\n<<<<<<< SEARCH\n  assert.equal(isZero('0'), false);\n=======\n  assert.equal(isZero('0'), true);\n>>>>>>> REPLACE\n", 4) } },
    ];
    plan = makePlan(list.tasks, variants, { maxSteps: 3, stallThreshold: 3 }, 'auto', null);
    outcome = await runBench({ root: repo.root, storageDir: storage, plan, pairs: plan.pairs, ports, jobs: 2, resultsFile: path.join(storage, 'results.jsonl') });
  });
  after(() => repo?.cleanup());

  it('keeps the three real fixes and says why each other commit was dropped', () => {
    const why = Object.fromEntries(list.explanations.map((e) => [e.commit, e.reason]));
    const c = repo.commits;
    assert.deepEqual(
      [why[c.init!], why[c.tsc!], why[c.assert!], why[c.lintBug!], why[c.lint!], why[c.docs!], why[c.green!]],
      ['root-commit', 'kept', 'kept', 'no-tests-changed', 'kept', 'no-tests-changed', 'checks-already-green'],
    );
    assert.deepEqual(list.tasks.map((t) => t.commit), [c.tsc, c.assert, c.lint]);
    const tsc = list.tasks[0]!;
    assert.deepEqual(tsc.broken.checks.filter((k) => k.failures > 0).map((k) => k.name).sort(), ['test', 'typecheck']);
    assert.deepEqual(list.tasks[2]!.broken.checks.filter((k) => k.failures > 0).map((k) => k.name).sort(), ['lint', 'test']);
    assert.equal(tsc.reference.green, true);
    // Two failing test files: one held out, by hash; one failing file: nothing held out.
    assert.equal(list.tasks[1]!.holdout!.heldOut.length, 1);
    assert.equal(tsc.holdout, null);
    assert.deepEqual(outcome.errors, []);
  });

  it('caches both verdicts by commit and check plan: a second scan runs no check', async () => {
    const base = await ports.settings({});
    assert.ok(base.ok);
    const again = await tasksFromHistory({ root: repo.root, settings: base.settings, storageDir: storage, scan: {}, holdout: 'auto' });
    assert.deepEqual(again.explanations.filter((e) => e.reason !== 'root-commit' && e.reason !== 'no-tests-changed').map((e) => e.cached), [true, true, true, true]);
    assert.deepEqual(again.tasks.map((t) => t.id), list.tasks.map((t) => t.id));
  });

  it('the oracle replays every reference fix through the loop to green, byte for byte', () => {
    for (const t of list.tasks) {
      const r = rec(t.id, 'oracle');
      assert.equal(r.stopReason, 'green', `${t.id}: ${r.detail}`);
      assert.equal(r.greenFull, true);
      assert.equal(r.overfit, false);
      assert.equal(r.stepsToGreen, 1);
      assert.equal(r.finalBytes, 'exact');
      assert.deepEqual(r.outsideReference, []);
      assert.deepEqual(r.protectedMade, []);
    }
    assert.equal(plan.pairs[0]!.variant, 'oracle');
  });

  it('the staller stalls: no green, tokens counted, money priced, tokens after the first repeat', () => {
    for (const t of list.tasks) {
      const r = rec(t.id, 'staller');
      assert.equal(r.stopReason, 'stalled', r.detail);
      assert.equal(r.greenFull, false);
      assert.equal(r.stepsToGreen, null);
      assert.equal(r.finalBytes, null);
      assert.equal(r.tokensIn, 100 * r.steps);
      assert.equal(r.tokensOut, 20 * r.steps);
      assert.ok(r.money !== null && Math.abs(r.money - (r.steps * (100 * 1 + 20 * 2)) / 1e6) < 1e-12, `money ${r.money}`);
      // The same state seen at step 0 and step 1 (no edit): every call after step 1 went round in circles.
      assert.equal(r.firstRepeatStep, 1);
      assert.equal(r.tokensAfterFirstRepeat, 120 * (r.steps - 1));
    }
  });

  it('a model that special-cases the visible test goes green in the loop and is caught as overfit', () => {
    const r = rec(idOf('assert'), 'overfit');
    assert.equal(r.stopReason, 'green', r.detail);
    assert.equal(r.green, true);
    assert.equal(r.heldOut, 1);
    assert.equal(r.greenFull, false);
    assert.equal(r.overfit, true);
    assert.equal(r.finalBytes, null);
    assert.ok(r.finalFailures > 0);
  });

  it('a model that edits the test is denied, counted, and leaves the test as it was', () => {
    const r = rec(idOf('lint'), 'test-editor');
    assert.notEqual(r.stopReason, 'green');
    assert.ok(r.protectedDenied >= 1, `denied ${r.protectedDenied}`);
    assert.deepEqual(r.protectedMade, []);
    assert.equal(r.greenFull, false);
  });

  it("leaves the user's working tree and index byte for byte, and no task copy behind", () => {
    assert.equal(outcome.proof.untouched, true);
    assert.deepEqual(userBytes(repo.root), userBefore);
    assert.deepEqual(readdirSync(path.join(storage, 'work')), []);
    assert.equal(gitIn(repo.root, ['worktree', 'list', '--porcelain']).split('\n').filter((l) => l.startsWith('worktree ')).length, 1);
  });

  it('writes bench.json, a Markdown summary and a self-contained HTML report with plots and trace links', () => {
    const files = writeReport(path.join(repo.dir, 'report'), plan, outcome.records);
    const html = readFileSync(files.html, 'utf8');
    for (const id of ['plot-green-money', 'plot-steps', 'plot-stops', 'plot-repeat']) assert.match(html, new RegExp(`data-testid="${id}"[^]*?<svg`));
    assert.doesNotMatch(html, /<script|https?:\/\//);
    assert.equal((html.match(/data-testid="pair-row"/g) ?? []).length, plan.pairs.length);
    assert.equal((html.match(/href="file:\/\/[^"]+trace\.jsonl"/g) ?? []).length, plan.pairs.length);
    const json = JSON.parse(readFileSync(files.json, 'utf8')) as { summaries: { variant: string; green: number; overfit: number }[] };
    assert.deepEqual(json.summaries.map((s) => [s.variant, s.green, s.overfit]), [['oracle', 3, 0], ['staller', 0, 0], ['overfit', 0, 1], ['test-editor', 0, 0]]);
    assert.match(readFileSync(files.markdown, 'utf8'), /\| oracle \| 3\/3 \(100%\)/);
  });

  it('a rerun of the same plan skips every finished pair', async () => {
    const again = await runBench({ root: repo.root, storageDir: storage, plan, pairs: plan.pairs, ports, jobs: 2, resultsFile: path.join(storage, 'results.jsonl') });
    assert.equal(again.ran, 0);
    assert.equal(again.skipped, plan.pairs.length);
    assert.deepEqual(again.records.map(stable), outcome.records.map(stable));
  });

  it('cancelled mid-shard: the JSONL stays whole, copies are gone, the rerun finishes; shards merged equal one run', async () => {
    const oraclePlan = makePlan(list.tasks, [ORACLE_VARIANT], plan.limits, 'auto', null);
    const shard1 = path.join(repo.dir, 'shard-1.jsonl');
    const shard2 = path.join(repo.dir, 'shard-2.jsonl');
    const controller = new AbortController();
    // Ctrl-C as the first pair ends: the other job's pair is cut short and must leave nothing.
    const cut = await runBench({ root: repo.root, storageDir: storage, plan: oraclePlan, pairs: shardPairs(oraclePlan, 1, 2), ports, jobs: 2, resultsFile: shard1, signal: controller.signal, onProgress: (e) => e.type === 'pair-end' && controller.abort() });
    assert.equal(cut.cancelled, true);
    assert.equal(readResults(shard1).records.length, cut.ran);
    assert.ok(cut.ran >= 1 && cut.notRun.length >= 1, `ran ${cut.ran}, not run ${cut.notRun.length}`);
    assert.deepEqual(readdirSync(path.join(storage, 'work')), []);
    assert.equal(cut.proof.untouched, true);
    // A kill -9 mid-write leaves a partial line: repaired, not fatal.
    appendFileSync(shard1, '{"plan":"cut sho');
    const rest = await runBench({ root: repo.root, storageDir: storage, plan: oraclePlan, pairs: shardPairs(oraclePlan, 1, 2), ports, jobs: 1, resultsFile: shard1 });
    assert.equal(rest.skipped, cut.ran);
    assert.equal(rest.ran, shardPairs(oraclePlan, 1, 2).length - cut.ran);
    await runBench({ root: repo.root, storageDir: storage, plan: oraclePlan, pairs: shardPairs(oraclePlan, 2, 2), ports, jobs: 1, resultsFile: shard2 });
    const merged = latestByPair([...readResults(shard1).records, ...readResults(shard2).records], oraclePlan.id);
    const one = outcome.records.filter((r) => r.variant === 'oracle').map((r) => ({ ...stable(r), plan: oraclePlan.id }));
    assert.deepEqual(oraclePlan.pairs.map((p) => stable(merged.get(`${p.task}|${p.variant}`)!)), one);
    assert.deepEqual(userBytes(repo.root), userBefore);
  });

  // The same plan (tasks, variants, limits) has the same id on every machine: the CLI's plan takes the in-process shards.
  it('the CLI: bench plan --explain from the cached verdicts, bench merge of the shards', () => {
    const planFile = path.join(repo.dir, 'plan.json');
    const p = runCli(['bench', 'plan', '--cwd', repo.root, '--from-history', '--explain', '--storage', path.dirname(storage), ...repo.checks.flatMap((c) => ['--check', `${c.name}=${c.command}`]), '--max-steps', '3', '--stall-threshold', '3', '--out', planFile]);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /dropped \w+ no-tests-changed: Docs: usage/);
    assert.match(p.stdout, /dropped \w+ checks-already-green \(cached\)/);
    assert.match(p.stdout, /kept {4}\w+ kept \(cached\): clamp clamps both ends/);
    assert.match(p.stdout, /plan \w+: 3 task\(s\) × 1 variant\(s\) = 3 pair\(s\)/);
    const m = runCli(['bench', 'merge', '--cwd', repo.root, '--plan', planFile, '--out', path.join(repo.dir, 'merged'), path.join(repo.dir, 'shard-1.jsonl'), path.join(repo.dir, 'shard-2.jsonl')]);
    assert.equal(m.code, 0, m.stderr + m.stdout);
    assert.match(m.stdout, /^oracle +3\/3 \(100%\)/m);
    assert.ok(existsSync(path.join(repo.dir, 'merged', 'report.html')));
  });

  it('the CLI, killed (SIGKILL) mid-run: the rerun removes what it left, skips what finished and completes the plan', async () => {
    const planFile = path.join(repo.dir, 'plan.json');
    const results = path.join(repo.dir, 'killed.jsonl');
    const args = [CLI, 'bench', 'run', '--cwd', repo.root, '--storage', path.dirname(storage), '--plan', planFile, '--results', results, '--jobs', '1', '--out', path.join(repo.dir, 'killed-report')];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve) => {
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (/\[1\/3\]/.test(err)) child.kill('SIGKILL');
      });
      child.on('exit', () => resolve());
    });
    const first = readResults(results).records.length;
    assert.ok(first >= 1 && first < 3, `recorded ${first}`);
    const again = runCli(args.slice(1));
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.match(again.stderr, new RegExp(`3 pair\\(s\\), ${first} already done`));
    assert.match(again.stdout, /^oracle +3\/3 \(100%\)/m);
    assert.match(again.stdout, /Your working tree and index: untouched: git status --porcelain=v2/);
    assert.equal(readResults(results).records.length, 3);
    assert.deepEqual(readdirSync(path.join(storage, 'work')), []);
    assert.equal(gitIn(repo.root, ['worktree', 'list', '--porcelain']).split('\n').filter((l) => l.startsWith('worktree ')).length, 1);
    assert.deepEqual(userBytes(repo.root), userBefore);
  });

  it('the CLI end to end: a priced --variant under a bench-wide --cost-ceiling never spends past it', () => {
    const scripts = path.join(repo.dir, 'scripts');
    const variantFile = path.join(scripts, 'staller.settings.json');
    // A model that bills 2,000 tokens in and 20 out a call: a pair of two calls costs 2 × (2000 × 1 + 20 × 2) / 1e6 = 0.00408.
    writeFileSync(path.join(scripts, 'stall-big.json'), JSON.stringify({ responses: Array.from({ length: 4 }, () => ({ ...reply('No change.'), usage: { input: 2000, output: 20 } })) }));
    writeFileSync(variantFile, JSON.stringify({ 'fixUntilGreen.model.provider': 'replay', 'fixUntilGreen.model.id': 'stall-big.json', 'fixUntilGreen.model.pricing': { 'stall-big.json': { input: 1, output: 2 } } }));
    const r = runCli(['bench', '--cwd', repo.root, '--from-history', '--no-oracle', '--variant', `staller=${variantFile}`, '--cost-ceiling', '0.0045', '--storage', path.dirname(storage), ...repo.checks.flatMap((c) => ['--check', `${c.name}=${c.command}`]), '--max-steps', '3', '--stall-threshold', '3', '--jobs', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { records: PairRecord[]; notes: string[]; report: { html: string } };
    // Each run gets what is left of the bench's ceiling as its own: a call whose prompt and minimum output
    // could pass it is not made. So the pairs spend whole calls only, and the last ones stop before any.
    for (const x of out.records) {
      assert.ok(x.stopReason === 'stalled' || x.stopReason === 'cost-ceiling', x.detail);
      assert.ok(Math.abs((x.money ?? 0) - x.steps * 0.00204) < 1e-12, `${x.task}: ${x.money} for ${x.steps} step(s)`);
    }
    assert.deepEqual([out.records.at(-1)!.stopReason, out.records.at(-1)!.steps], ['cost-ceiling', 0]);
    const spent = out.records.reduce((n, x) => n + (x.money ?? 0), 0);
    assert.ok(spent > 0 && spent <= 0.0045, `spent ${spent}`);
    assert.ok(existsSync(out.report.html));
    assert.match(out.notes[0]!, /untouched/);
  });

  it('refuses a paid model with no price before any check runs', () => {
    const r = runCli(['bench', '--cwd', repo.root, '--from-history', '--model', 'openai-compatible:gpt-x', '--storage', path.join(repo.dir, 'refused')], { env: { OPENAI_API_KEY: 'sk-test' } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /gpt-x is billed per token and has no price .* no --cost-ceiling/);
    assert.equal(existsSync(path.join(repo.dir, 'refused', 'bench', 'verdicts.json')), false);
  });
});

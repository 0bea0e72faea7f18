// The bench's pure parts and its git reads, each on its own: the log parse, the held-out split, the
// shards, the jobs bound, the money refusal, the results file's repair, a file's exact bytes.
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { showFile } from '../../../src/core/bench/git';
import { fileRole, parseLog, scanHistory, scanVerdict } from '../../../src/core/bench/history';
import { splitHoldout } from '../../../src/core/bench/holdout';
import type { PairRecord } from '../../../src/core/bench/metrics';
import { makePlan, moneyProblems, ORACLE_VARIANT, parseShard, shardPairs } from '../../../src/core/bench/plan';
import { appendResult, readResults, repairResults } from '../../../src/core/bench/results';
import { chooseJobs } from '../../../src/core/bench/runBench';
import type { BenchTask } from '../../../src/core/bench/tasks';
import { validateSettings } from '../../../src/core/settings';
import { gitIn } from '../../support/benchRepo';

const isTest = (p: string): boolean => /\.test\.|(^|\/)test\//.test(p);

describe('bench parts', () => {
  it('parses one git log of many commits: roles, parents, subjects with separators in them', () => {
    const out = '\x1eaaa\x1fbbb ccc\x1f100\x1fFix: a|b\n\nM\tsrc/a.ts\nA\ttest/a.test.ts\nM\tREADME.md\n\x1ebbb\x1f\x1f90\x1finit\n\nA\tpackage-lock.json\n';
    const [c1, c2] = parseLog(out, isTest);
    assert.deepEqual(c1, { commit: 'aaa', parent: 'bbb', time: 100, subject: 'Fix: a|b', files: [{ path: 'src/a.ts', status: 'M', role: 'source' }, { path: 'test/a.test.ts', status: 'A', role: 'test' }, { path: 'README.md', status: 'M', role: 'other' }] });
    assert.equal(c2!.parent, null);
    assert.equal(scanVerdict(c1!), undefined);
    assert.equal(scanVerdict(c2!)?.reason, 'root-commit');
    assert.equal(fileRole('src/types.d.ts', isTest), 'other');
    assert.equal(scanVerdict({ ...c1!, files: [...c1!.files, { path: 'package-lock.json', status: 'M', role: 'install' }] })?.reason, 'install-needed');
  });

  it('reads a file at a revision byte for byte (a final newline, or none, is kept)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-bench-git-'));
    try {
      gitIn(dir, ['init', '-q']);
      writeFileSync(path.join(dir, 'nl.txt'), 'a\n\n');
      writeFileSync(path.join(dir, 'none.txt'), 'b');
      gitIn(dir, ['add', '.']);
      gitIn(dir, ['commit', '-qm', 'x']);
      assert.deepEqual(await showFile(dir, 'HEAD', 'nl.txt'), Buffer.from('a\n\n'));
      assert.deepEqual(await showFile(dir, 'HEAD', 'none.txt'), Buffer.from('b'));
      assert.equal(await showFile(dir, 'HEAD', 'gone.txt'), undefined);
      const scan = await scanHistory(dir, { last: 5 });
      assert.deepEqual(scan.dropped.map((d) => d.reason), ['root-commit']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds out by hash: the same files on every call, at least one failing file left visible', () => {
    const files = ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts'];
    const a = splitHoldout('c0ffee', files, 'auto');
    assert.deepEqual(splitHoldout('c0ffee', [...files].reverse(), 'auto'), a);
    assert.equal(a!.heldOut.length, 1);
    assert.equal(a!.visible.length, 2);
    assert.equal(splitHoldout('c0ffee', ['test/a.test.ts'], 'on'), null);
    assert.equal(splitHoldout('c0ffee', files, 'off'), null);
    assert.equal(a!.by, 'file');
  });

  it('one failing file: splits its failing tests by name, the same title in two test checks withheld from both', () => {
    const t = (check: string, id: string): { check: string; file: string; id: string } => ({ check, file: 'test/a.test.ts', id });
    const tests = [t('unit', 'parses'), t('unit', 'formats'), t('unit', 'rounds'), t('ci', 'parses')];
    const a = splitHoldout('c0ffee', ['test/a.test.ts'], 'auto', tests)!;
    assert.equal(a.by, 'test');
    assert.deepEqual(splitHoldout('c0ffee', ['test/a.test.ts'], 'auto', [...tests].reverse())!.heldOut, a.heldOut);
    assert.equal(a.heldOut.length, 1);
    assert.equal(a.visible.length, 2);
    const title = a.heldOut[0]!.replace('test/a.test.ts › ', '');
    assert.deepEqual(a.tests, tests.filter((x) => x.id === title));
    assert.equal(splitHoldout('c0ffee', ['test/a.test.ts'], 'auto', [t('unit', 'parses'), t('ci', 'parses')]), null, 'one test failing in two checks is one test: nothing to split');
  });

  it('shards partition the plan; the plan id is the same for the same plan', () => {
    const task = (id: string): BenchTask => ({ id, commit: id.repeat(4), parent: 'p', subject: id, testFiles: [], referenceFiles: [], failingTests: [], holdout: null, broken: { green: false, failureHash: '', failureCount: 1, failingFiles: [], checks: [], durationMs: 0 }, reference: { green: true, failureHash: '', failureCount: 0, failingFiles: [], checks: [], durationMs: 0 }, checkPlan: 'k' });
    const m = { name: 'm', kind: 'model' as const, source: 'x', settings: { 'model.id': 'm' } };
    const plan = makePlan([task('a'), task('b'), task('c')], [m, ORACLE_VARIANT], { maxSteps: 3 }, 'auto', null);
    assert.equal(plan.pairs[0]!.variant, 'oracle');
    const shards = [1, 2, 3, 4].map((i) => shardPairs(plan, i, 4));
    assert.deepEqual(shards.flat().map((p) => `${p.task}${p.variant}`).sort(), plan.pairs.map((p) => `${p.task}${p.variant}`).sort());
    assert.equal(makePlan([task('a'), task('b'), task('c')], [ORACLE_VARIANT, m], { maxSteps: 3 }, 'auto', null).id, plan.id);
    assert.notEqual(makePlan([task('a')], [m], { maxSteps: 3 }, 'auto', null).id, plan.id);
    assert.deepEqual(parseShard('2/3'), { index: 2, count: 3 });
    assert.equal(parseShard('4/3'), undefined);
    assert.equal(parseShard('0/3'), undefined);
  });

  it('bounds the jobs by cores, memory and pairs, and says why', () => {
    assert.equal(chooseJobs(8, 100, 2, 64 * 1024 ** 3).jobs, 2);
    assert.equal(chooseJobs(8, 100, 16, 1024 ** 3).jobs, 1);
    assert.equal(chooseJobs(undefined, 1, 16, 64 * 1024 ** 3).jobs, 1);
    assert.match(chooseJobs(4, 10, 4, 64 * 1024 ** 3).why, /--jobs 4, bounded by 4 core\(s\)/);
  });

  it('refuses a paid model with no price, with or without a ceiling; a local server or a replay is free', () => {
    const s = (raw: Record<string, unknown>): ReturnType<typeof validateSettings> & { ok: true } => {
      const v = validateSettings(raw);
      assert.ok(v.ok);
      return v;
    };
    assert.match(moneyProblems('gpt', s({ 'model.provider': 'openai-compatible', 'model.id': 'gpt-x' }).settings, null)[0]!, /no price .* no --cost-ceiling/);
    assert.match(moneyProblems('gpt', s({ 'model.provider': 'anthropic', 'model.id': 'c' }).settings, 5)[0]!, /--cost-ceiling 5 could not be held/);
    assert.deepEqual(moneyProblems('gpt', s({ 'model.provider': 'openai-compatible', 'model.id': 'gpt-x', 'model.pricing': { 'gpt-x': { input: 1, output: 2 } } }).settings, null), []);
    assert.deepEqual(moneyProblems('local', s({ 'model.provider': 'openai-compatible', 'model.id': 'llama', 'model.baseUrl': 'http://127.0.0.1:11434/v1' }).settings, null), []);
    assert.deepEqual(moneyProblems('r', s({ 'model.provider': 'replay', 'model.id': 'x.json' }).settings, null), []);
  });

  it('a results line cut short by a kill is dropped on read and truncated before the next append', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-bench-res-'));
    try {
      const file = path.join(dir, 'r.jsonl');
      const r = { plan: 'p', task: 't', variant: 'v' } as PairRecord;
      appendResult(file, r);
      appendFileSync(file, '{"plan":"p","ta');
      assert.equal(readResults(file).records.length, 1);
      assert.equal(repairResults(file), 15);
      appendResult(file, { ...r, task: 'u' });
      assert.deepEqual(readResults(file).records.map((x) => x.task), ['t', 'u']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bench task copies', () => {
  it("removes the copies a dead bench left, never those of a live one (another shard's)", async () => {
    const { removeStaleCopies } = await import('../../../src/core/bench/taskCopy');
    const { spawnSync } = await import('node:child_process');
    const { mkdirSync, readdirSync } = await import('node:fs');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-bench-copies-'));
    try {
      gitIn(dir, ['init', '-q']);
      const work = path.join(dir, 'work');
      const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
      mkdirSync(path.join(work, `${dead}-t-oracle-aaaa`), { recursive: true });
      mkdirSync(path.join(work, `${process.ppid}-t-oracle-bbbb`), { recursive: true });
      mkdirSync(path.join(work, `${process.pid}-t-oracle-cccc`), { recursive: true });
      assert.equal(await removeStaleCopies(dir, work), 1);
      assert.deepEqual(readdirSync(work).sort(), [`${process.pid}-t-oracle-cccc`, `${process.ppid}-t-oracle-bbbb`].sort());
      assert.equal(await removeStaleCopies(dir, work, true), 1);
      assert.deepEqual(readdirSync(work), [`${process.ppid}-t-oracle-bbbb`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Tasks that do not come from the history scan: a tasks file (a revision, its test files, an optional
// instruction; a base that spans two commits) and scenario folders of the `eval` format (each made a
// repository of its own in the storage). Real git, real checks (tsc, ESLint, node:test, mocha), the
// oracle's replayed fix as the only model; the same plan as history tasks.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planFromHistory, runPlan } from '../../../src/core/bench/benchFlow';
import { ORACLE_VARIANT } from '../../../src/core/bench/plan';
import type { BenchPorts } from '../../../src/core/bench/runPair';
import { taskFileCandidates, TaskFileError } from '../../../src/core/bench/taskFile';
import { NO_KEYS } from '../../../src/core/launch';
import { createProvider } from '../../../src/core/model/factory';
import { validateSettings } from '../../../src/core/settings';
import { readTrace } from '../../../src/core/trace/trace';
import { evalCandidates } from '../../../src/evals/benchTasks';
import { treeHash } from '../../../src/evals/evals';
import type { BenchRepo } from '../../support/benchRepo';
import { gitIn, makeBenchRepo, makeOneFileRepo } from '../../support/benchRepo';
import { REPO } from '../../support/fixtures';
import { runCli } from '../../support/cli';

function portsWith(checks?: { name: string; command: string }[]): BenchPorts {
  return {
    settings: (o) => {
      const v = validateSettings({ ...o, ...(checks ? { checks } : {}) });
      return v.ok ? { ok: true, settings: v.settings } : { ok: false, problems: v.issues.map((i) => i.message) };
    },
    keys: NO_KEYS,
    model: (m) => ({ ok: true, provider: createProvider(m, { root: os.tmpdir(), keyHint: '' }) }),
  };
}

describe('bench: tasks from a tasks file', function () {
  this.timeout(600_000);
  let repo: BenchRepo;
  const file = (name: string, data: unknown): string => {
    const f = path.join(repo.dir, name);
    writeFileSync(f, typeof data === 'string' ? data : JSON.stringify(data));
    return f;
  };
  before(() => {
    repo = makeBenchRepo();
  });
  after(() => repo?.cleanup());

  it('names every bad entry with its place, before any check runs', async () => {
    const c = repo.commits;
    const cases: [unknown, RegExp][] = [
      ['{"tasks": [', /is not valid JSON/],
      [{ tasks: [] }, /names no task/],
      [{ tasks: [{ rev: c.lint }] }, /task 1: "files" must be an array/],
      [{ tasks: [{ rev: c.lint, files: [], extra: 1 }] }, /task 1: unknown key "extra"/],
      [{ tasks: [{ rev: c.lint, files: ['../outside.js'] }] }, /"\.\.\/outside\.js" must be a path inside the repository/],
      [{ tasks: [{ rev: c.lint, files: [] }, { rev: 'no-such-rev', files: [] }] }, /task 2: "no-such-rev" is not a commit/],
      [{ tasks: [{ rev: c.init, files: [] }] }, /task 1 \(no "base", so the first parent/],
      [{ tasks: [{ rev: c.lint, files: [], base: c.lint }] }, /"base" is "rev" itself/],
      [{ tasks: [{ rev: c.docs, files: ['README.md'] }] }, /only the test files change: there is no fix/],
      [{ tasks: [{ rev: c.lint, files: ['test/zero.test.js'] }, { rev: c.lint, files: [] }] }, /task 2: id "[0-9a-f]{10}" is task 1's too/],
    ];
    for (const [data, want] of cases) await assert.rejects(taskFileCandidates(repo.root, file('t.json', data)), (e: unknown) => e instanceof TaskFileError && want.test(e.message), String(want));
    // The CLI says the same as a usage error (exit 2), nothing judged.
    const r = runCli(['bench', '--cwd', repo.root, '--tasks', file('bad.json', { tasks: [{ rev: 'nope', files: [] }] }), '--storage', path.join(repo.dir, 'st-bad')]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /task 1: "nope" is not a commit/);
  });

  it('a fix spread over two commits, with an instruction: judged, kept, green with the oracle, the instruction in the run', async () => {
    const c = repo.commits;
    // The history scan drops "Add isZero" (no tests) and keeps "eqeqeq" as one task; the file names both commits as one fix.
    const tasksFile = file('tasks.json', { tasks: [{ id: 'iszero', rev: c.lint, base: `${c.lintBug}~1`, files: ['test/zero.test.js'], instruction: 'add isZero to src/zero.js' }] });
    const candidates = await taskFileCandidates(repo.root, tasksFile);
    assert.deepEqual(candidates.map((x) => [x.id, x.parent, x.testFiles, x.referenceFiles]), [['iszero', c.assert, ['test/zero.test.js'], ['src/zero.js']]]);
    const storageDir = path.join(repo.dir, 'st-file');
    const ports = portsWith(repo.checks);
    const planned = await planFromHistory({ root: repo.root, storageDir, ports, variants: [ORACLE_VARIANT], limits: { maxSteps: 2 }, holdout: 'auto', costCeiling: null, candidates });
    assert.ok(planned.ok, planned.ok ? '' : planned.problems.join('; '));
    assert.deepEqual(planned.explanations.map((e) => [e.commit, e.reason]), [[c.lint, 'kept']]);
    const task = planned.plan.tasks[0]!;
    assert.equal(task.broken.green, false);
    assert.equal(task.reference.green, true);
    const done = await runPlan({ root: repo.root, storageDir, ports, plan: planned.plan, jobs: 1 });
    const rec = done.outcome.records[0]!;
    assert.equal(rec.stopReason, 'green', rec.detail);
    assert.equal(rec.greenFull, true);
    assert.equal(rec.finalBytes, 'exact');
    const start = readTrace(rec.tracePath!).find((e) => e.type === 'run-start');
    assert.equal(start && 'instruction' in start ? start.instruction : undefined, 'add isZero to src/zero.js');
    assert.equal(done.outcome.proof.untouched, true);
    // The same commit split another way is judged again (its verdicts are not the history's), and its plan is another.
    const other = await taskFileCandidates(repo.root, file('other.json', { tasks: [{ id: 'iszero', rev: c.lint, files: ['test/zero.test.js'] }] }));
    const replanned = await planFromHistory({ root: repo.root, storageDir, ports, variants: [ORACLE_VARIANT], limits: { maxSteps: 2 }, holdout: 'auto', costCeiling: null, candidates: other });
    assert.ok(replanned.ok);
    assert.equal(replanned.explanations[0]!.cached, undefined);
    assert.notEqual(replanned.plan.id, planned.plan.id);
    // A task named like a history task is refused with both origins named.
    const clash = await planFromHistory({ root: repo.root, storageDir, ports, variants: [ORACLE_VARIANT], limits: {}, holdout: 'auto', costCeiling: null, scan: {}, candidates: await taskFileCandidates(repo.root, file('clash.json', { tasks: [{ rev: c.lint, files: ['test/zero.test.js'], base: c.assert }] })) });
    assert.equal(clash.ok, false);
    assert.match(clash.ok ? '' : clash.problems.join(), /comes both from the history and from tasks/);
    assert.equal(gitIn(repo.root, ['worktree', 'list', '--porcelain']).split('\n').filter((l) => l.startsWith('worktree ')).length, 1);
  });
});

describe('bench: tasks from scenario folders (the eval format)', function () {
  this.timeout(600_000);
  const evals = (name: string): string => path.join(REPO, 'evals', name);
  let scratch: string;
  before(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fug-bench-evals-'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('each scenario becomes two fixed commits; the fix is expected/ or its own green replies; the others are dropped with why', async () => {
    const dirs = ['fix-first-try', 'escalate-then-green', 'green-at-step-0', 'budget-depleted'].map(evals);
    const before = dirs.map(treeHash);
    const storageDir = path.join(scratch, 'st');
    const got = await evalCandidates(dirs, storageDir);
    assert.deepEqual(got.candidates.map((c) => [c.id, c.referenceFiles]), [['eval-fix-first-try', ['src/price.ts']], ['eval-escalate-then-green', ['src/discount.js']]]);
    assert.deepEqual(got.dropped.map((d) => [d.commit, d.reason]), [['eval-green-at-step-0', 'no-reference-fix'], ['eval-budget-depleted', 'no-reference-fix']]);
    assert.match(got.dropped[1]!.detail, /no expected\/ and expects budget/);
    // The scenario's checks come with it; its models do not (the variant chooses the model).
    const ff = got.candidates[0]!;
    assert.ok(Array.isArray(ff.settings?.checks));
    assert.equal(Object.keys(got.candidates[1]!.settings ?? {}).some((k) => k.startsWith('model')), false);
    // Fixed names and dates: the same scenario bytes give the same commits in another storage (the plan id and the cache hold).
    const again = await evalCandidates([dirs[0]!], path.join(scratch, 'st2'));
    assert.deepEqual([again.candidates[0]!.commit, again.candidates[0]!.parent], [ff.commit, ff.parent]);

    // The user's repository here is a plain one: the scenarios' tasks run in their own.
    const user = path.join(scratch, 'user');
    gitIn(scratch, ['init', '-q', user]);
    gitIn(user, ['commit', '-q', '--allow-empty', '-m', 'init']);
    const ports = portsWith();
    const planned = await planFromHistory({ root: user, storageDir, ports, variants: [ORACLE_VARIANT], limits: { maxSteps: 2 }, holdout: 'auto', costCeiling: null, candidates: got.candidates });
    assert.ok(planned.ok, planned.ok ? '' : planned.problems.join('; '));
    assert.deepEqual(planned.explanations.map((e) => e.reason), ['kept', 'kept']);
    const done = await runPlan({ root: user, storageDir, ports, plan: planned.plan, jobs: 1 });
    assert.deepEqual(done.outcome.records.map((r) => [r.task, r.stopReason, r.greenFull, r.finalBytes]), [['eval-fix-first-try', 'green', true, 'exact'], ['eval-escalate-then-green', 'green', true, 'exact']]);
    assert.deepEqual(done.oracleMisses, []);
    assert.deepEqual(dirs.map(treeHash), before, 'the scenario folders are only read');
  });

  it('the CLI: --from-evals DIR… plans with the scenarios, --explain says why each was dropped', () => {
    const user = path.join(scratch, 'cli-user');
    gitIn(scratch, ['init', '-q', user]);
    gitIn(user, ['commit', '-q', '--allow-empty', '-m', 'init']);
    const out = path.join(scratch, 'plan.json');
    const r = runCli(['bench', 'plan', '--cwd', user, '--storage', path.join(scratch, 'cli-st'), '--from-evals', evals('fix-first-try'), evals('budget-depleted'), '--explain', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /kept {4}[0-9a-f]{10} kept: Real tsc/);
    assert.match(r.stdout, /dropped eval-budget-depleted no-reference-fix/);
    assert.match(r.stdout, /plan [0-9a-f]{12}: 1 task\(s\) × 1 variant\(s\)/);
    const none = runCli(['bench', '--cwd', user, '--storage', path.join(scratch, 'cli-st')]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--from-history, --tasks FILE or --from-evals DIR/);
  });
});

describe('bench: a tasks file that points at another repository', function () {
  this.timeout(600_000);
  let repo: BenchRepo;
  let other: BenchRepo;
  /** The other repository as its owner left it: every byte of its files in play, its index, its status. */
  const otherBytes = (): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const f of ['src/range.js', 'test/keep.test.js', 'notes.txt', '.git/index', '.git/HEAD']) out[f] = existsSync(path.join(other.root, f)) ? readFileSync(path.join(other.root, f)).toString('base64') : '(absent)';
    out.status = gitIn(other.root, ['status', '--porcelain=v2', '--untracked-files=all']);
    out.worktrees = gitIn(other.root, ['worktree', 'list', '--porcelain']);
    return out;
  };
  before(() => {
    repo = makeBenchRepo();
    other = makeOneFileRepo(repo.dir, 'other');
    // The other repository is mid-work too: a staged change, an unstaged one, an untracked file.
    writeFileSync(path.join(other.root, 'test/keep.test.js'), `${readFileSync(path.join(other.root, 'test/keep.test.js'), 'utf8')}// staged\n`);
    gitIn(other.root, ['add', 'test/keep.test.js']);
    writeFileSync(path.join(other.root, 'src/range.js'), `${readFileSync(path.join(other.root, 'src/range.js'), 'utf8')}// unsaved\n`);
    writeFileSync(path.join(other.root, 'notes.txt'), 'mine\n');
  });
  after(() => repo?.cleanup());

  it('refuses a URL (offline: nothing fetched) and a folder that is not a repository, naming the entry', async () => {
    mkdirSync(path.join(repo.dir, 'tasks'), { recursive: true });
    mkdirSync(path.join(repo.dir, 'plain'), { recursive: true });
    const f = (data: unknown): string => {
      const p = path.join(repo.dir, 'tasks', 'bad.json');
      writeFileSync(p, JSON.stringify(data));
      return p;
    };
    const cases: [string, RegExp][] = [
      ['https://github.com/someone/project.git', /task 1: "repo" "https:\/\/github\.com\/someone\/project\.git" is a URL: the bench works offline and fetches nothing; clone it/],
      ['git@github.com:someone/project.git', /is a URL/],
      ['file:///srv/project.git', /is a URL/],
      ['../plain', /task 1: "repo" .*plain is not in a git repository/],
      ['../nowhere', /task 1: "repo" .*nowhere is not a folder/],
    ];
    for (const [r, want] of cases) await assert.rejects(taskFileCandidates(repo.root, f({ tasks: [{ repo: r, rev: 'HEAD', files: ['test/clamp.test.js'] }] })), (e: unknown) => e instanceof TaskFileError && want.test(e.message), r);
    const cli = runCli(['bench', '--cwd', repo.root, '--tasks', f({ tasks: [{ repo: 'https://example.com/x.git', rev: 'HEAD', files: ['a.test.js'] }] }), '--storage', path.join(repo.dir, 'st-url')]);
    assert.equal(cli.code, 2, cli.stderr);
    assert.match(cli.stderr, /is a URL: the bench works offline/);
  });

  it('runs the tasks in copies of that repository (relative to the tasks file): green with the oracle, both repositories untouched, no copy left', async () => {
    const userBefore = gitIn(repo.root, ['status', '--porcelain=v2', '--untracked-files=all']) + readFileSync(path.join(repo.root, '.git/index')).toString('base64');
    const otherBefore = otherBytes();
    mkdirSync(path.join(repo.dir, 'tasks'), { recursive: true });
    const tasksFile = path.join(repo.dir, 'tasks', 'other.json');
    writeFileSync(tasksFile, JSON.stringify({ tasks: [{ id: 'clamp', repo: '../other', rev: 'HEAD', files: ['test/clamp.test.js'], instruction: 'clamp both ends' }] }));
    const candidates = await taskFileCandidates(repo.root, tasksFile);
    assert.deepEqual(candidates.map((c) => [c.id, c.repo, c.commit, c.parent, c.referenceFiles]), [['clamp', other.root, other.commits.clamp, other.commits.init, ['src/range.js']]]);
    const storageDir = path.join(repo.dir, 'st-other');
    // The user's repository's checks (tsc, ESLint) are not the other's: the other's own (node --test) are configured for its tasks.
    const ports = portsWith(other.checks);
    const planned = await planFromHistory({ root: repo.root, storageDir, ports, variants: [ORACLE_VARIANT], limits: { maxSteps: 2 }, holdout: 'auto', costCeiling: null, candidates });
    assert.ok(planned.ok, planned.ok ? '' : planned.problems.join('; '));
    assert.deepEqual(planned.explanations.map((e) => [e.commit, e.reason]), [[other.commits.clamp, 'kept']]);
    assert.equal(planned.plan.tasks[0]!.repo, other.root);
    const done = await runPlan({ root: repo.root, storageDir, ports, plan: planned.plan, jobs: 1 });
    const rec = done.outcome.records[0]!;
    assert.equal(rec.stopReason, 'green', rec.detail);
    assert.equal(rec.greenFull, true);
    assert.equal(rec.finalBytes, 'exact');
    assert.deepEqual(done.outcome.proof.others.map((o) => [o.repo, o.untouched]), [[other.root, true]]);
    assert.equal(done.outcome.proof.untouched, true);
    assert.ok(done.notes.some((n) => n.startsWith(`The working tree and index of ${other.root} (a tasks file's repository): untouched`)), done.notes.join('\n'));
    assert.deepEqual(otherBytes(), otherBefore);
    assert.equal(gitIn(repo.root, ['status', '--porcelain=v2', '--untracked-files=all']) + readFileSync(path.join(repo.root, '.git/index')).toString('base64'), userBefore);
    assert.deepEqual(existsSync(path.join(other.root, '.git', 'worktrees')) ? readdirSync(path.join(other.root, '.git', 'worktrees')) : [], []);
  });

  it("a copy of the other repository left behind is removed from that repository's worktrees too", async () => {
    const { addTaskCopy, removeStaleCopies } = await import('../../../src/core/bench/taskCopy');
    const work = path.join(repo.dir, 'st-stale', 'work');
    await addTaskCopy(other.root, work, other.commits.init, 'left');
    assert.equal(gitIn(other.root, ['worktree', 'list', '--porcelain']).split('\n').filter((l) => l.startsWith('worktree ')).length, 2);
    // The net at the end of a bench (own copies included), as after a cancel: given the bench's repository, it finds each copy's own.
    assert.equal(await removeStaleCopies(repo.root, work, true), 1);
    assert.equal(gitIn(other.root, ['worktree', 'list', '--porcelain']).split('\n').filter((l) => l.startsWith('worktree ')).length, 1);
    assert.deepEqual(existsSync(path.join(other.root, '.git', 'worktrees')) ? readdirSync(path.join(other.root, '.git', 'worktrees')) : [], []);
  });
});

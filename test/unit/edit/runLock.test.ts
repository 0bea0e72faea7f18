// One run per workspace folder: the lock against real processes (a live holder, a killed one, a
// reused pid, racing takers), in a lock directory of the test's own.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { RunLockRecord } from '../../../src/core/edit/runLock';
import { RUN_LOCK_DIR_ENV, acquireRunLock, isHolderAlive, liveRunLock, readRunLock, runLockDir, runLockPath } from '../../../src/core/edit/runLock';
import { processStartTime } from '../../../src/core/liveness';
import { REPO } from '../../support/fixtures';

const HOLDER = path.join(REPO, 'test', 'support', 'runLockHolder.ts');

interface HolderLine {
  ok: boolean;
  pid: number;
  stale?: RunLockRecord | null;
  holder?: RunLockRecord;
}

describe('run lock (one run per workspace folder)', function () {
  this.timeout(60_000);
  let dir: string;
  let root: string;
  let env: NodeJS.ProcessEnv;
  const children: ChildProcess[] = [];

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-lock-'));
    root = path.join(dir, 'project');
    mkdirSync(root);
    env = { ...process.env, [RUN_LOCK_DIR_ENV]: path.join(dir, 'locks') };
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a holder process and waits for its acquire result. */
  async function holder(target = root, ...args: string[]): Promise<{ child: ChildProcess; line: HolderLine }> {
    const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, target, ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const rl = createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      rl.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`holder exited ${code} before answering`)));
    });
    rl.close();
    return { child, line: JSON.parse(first) as HolderLine };
  }

  async function killed(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }

  it('lives where every front end looks: the override, else under the home directory', () => {
    assert.equal(runLockDir(env), path.join(dir, 'locks'));
    assert.equal(runLockDir({}), path.join(os.homedir(), '.cache', 'fix-until-green', 'locks'));
  });

  it('a second taker is refused while a live process holds the folder, with the holder named', async () => {
    const { child, line } = await holder();
    assert.equal(line.ok, true);
    const r = acquireRunLock(root, { frontEnd: 'cli', storageDir: '/tmp/s' }, env);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.holder.pid, child.pid);
    assert.equal(r.holder.runId, `holder-${child.pid}`);
    assert.equal(r.holder.frontEnd, 'test');
    assert.equal(r.holder.storageDir, '/tmp/holder-storage');
    assert.match(r.message, new RegExp(`run holder-${child.pid} \\(test, pid ${child.pid}, started \\d{4}-`));
    assert.ok(isHolderAlive(r.holder));
    assert.equal(liveRunLock(root, env)?.pid, child.pid);
    if (process.platform === 'linux') assert.equal(r.holder.startTime, processStartTime(child.pid!));
  });

  it('the same folder by another path (a symlink) is the same lock', async () => {
    await holder();
    const link = path.join(dir, 'link');
    symlinkSync(root, link);
    assert.equal(runLockPath(link, env), runLockPath(root, env));
    const r = acquireRunLock(link + '/', { frontEnd: 'cli', storageDir: '/tmp/other-storage' }, env);
    assert.equal(r.ok, false);
  });

  it('a holder killed with SIGKILL leaves a stale lock: taken over and reported, so the run is marked interrupted', async () => {
    const { child } = await holder();
    await killed(child);
    assert.equal(readRunLock(root, env)?.pid, child.pid, 'SIGKILL left the file');
    assert.equal(liveRunLock(root, env), undefined);
    const r = acquireRunLock(root, { runId: 'mine', frontEnd: 'cli', storageDir: '/tmp/s' }, env);
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.stale?.pid, child.pid);
    assert.equal(r.stale?.runId, `holder-${child.pid}`);
    assert.equal(readRunLock(root, env)?.pid, process.pid);
    r.lock.release();
    assert.equal(existsSync(runLockPath(root, env)), false);
  });

  it('a dead pid, or a live pid that started at another time (reused), is stale', async () => {
    const file = runLockPath(root, env);
    mkdirSync(path.dirname(file), { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const base: RunLockRecord = { version: 1, root, pid: dead, startTime: null, hostname: os.hostname(), runId: 'old', frontEnd: 'vscode', storageDir: '/x', startedAt: '2020-01-01T00:00:00.000Z' };
    writeFileSync(file, JSON.stringify(base));
    assert.equal(isHolderAlive(base), false);
    const r = acquireRunLock(root, { frontEnd: 'cli', storageDir: '/tmp/s' }, env);
    assert.ok(r.ok && r.stale?.pid === dead && r.stale.runId === 'old');
    if (r.ok) r.lock.release();

    if (process.platform !== 'linux') return;
    const { child } = await holder(path.join(dir, 'elsewhere'));
    const reused = { ...base, pid: child.pid!, startTime: '1' };
    writeFileSync(file, JSON.stringify(reused));
    assert.equal(isHolderAlive(reused), false, 'the pid lives, but it is another process');
    const again = acquireRunLock(root, { frontEnd: 'cli', storageDir: '/tmp/s' }, env);
    assert.ok(again.ok && again.stale?.pid === child.pid);
    if (again.ok) again.lock.release();
  });

  it('a process that exits without releasing leaves no lock; release never removes another holder\'s lock', async () => {
    const { child, line } = await holder(root, '--exit');
    assert.equal(line.ok, true);
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    assert.equal(readRunLock(root, env), undefined);

    const mine = acquireRunLock(root, { frontEnd: 'cli', storageDir: '/tmp/s' }, env);
    assert.ok(mine.ok);
    if (!mine.ok) return;
    mine.lock.update({ runId: 'run-42' });
    assert.equal(readRunLock(root, env)?.runId, 'run-42');
    // Someone removed our lock by hand and another run took the folder: our release leaves theirs.
    const file = runLockPath(root, env);
    const theirs = { ...JSON.parse(readFileSync(file, 'utf8')), pid: 1, startedAt: 'other' };
    writeFileSync(file, JSON.stringify(theirs));
    mine.lock.release();
    assert.equal(readRunLock(root, env)?.startedAt, 'other');
  });

  it('of many processes racing for a free folder, exactly one wins; for a stale one, exactly one takes over', async () => {
    for (const stale of [false, true]) {
      if (stale) {
        const { child } = await holder();
        await killed(child);
      }
      const racers = await Promise.all(Array.from({ length: 6 }, () => holder()));
      const winners = racers.filter((r) => r.line.ok);
      assert.equal(winners.length, 1, `winners: ${JSON.stringify(racers.map((r) => r.line))}`);
      for (const l of racers.filter((r) => !r.line.ok)) assert.equal(l.line.holder?.pid, winners[0]!.line.pid);
      if (stale) assert.ok(winners[0]!.line.stale, 'the winner learned of the stale holder');
      for (const r of racers) await killed(r.child);
      rmSync(runLockPath(root, env), { force: true });
    }
  });
});

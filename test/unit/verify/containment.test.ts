// Nothing of a check outlives it, for real: daemons that leave the process group and wipe their
// environment, processes slow to die after SIGKILL, and the checks of a process killed with
// SIGKILL (a run, `check`), reaped by the next run or `revert` from what the check recorded.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readlinkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cgroupSupport, checkRecordDir, reapStrays } from '../../../src/core/verify/containment';
import { runCommand } from '../../../src/core/verify/runner';
import { CLI, ensureBuilt } from '../../support/cli';
import { REPO } from '../../support/fixtures';
import { alive, PROCS } from '../../support/procs';

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

function readPids(file: string): number[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

/** Whatever a failed test left running is ended, so that it cannot disturb the next. */
function killAll(pids: readonly number[]): void {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** The cgroup path runs only where the kernel lets this process create one: say so when it does not. */
function requireCgroup(ctx: Mocha.Context): void {
  if (process.platform !== 'linux') ctx.skip();
  const s = cgroupSupport();
  if (s.base === undefined) {
    console.log(`      (skipped: no cgroup v2 for checks here: ${s.reason})`);
    ctx.skip();
  }
}

/** The check cgroups that exist now (none of a finished check may remain). */
function checkCgroups(): Set<string> {
  const base = cgroupSupport().base;
  return new Set(base === undefined ? [] : readdirSync(base).filter((n) => n.startsWith('fix-until-green-')));
}

/**
 * No cgroup of this test's check remains. Other checks (a parallel test worker's) may create
 * cgroups meanwhile: a new cgroup counts as this check's only while it holds a process whose
 * working directory is the test's own folder, or while it stays after others' checks had time to end.
 */
async function assertNoNewCgroup(before: Set<string>, cwd?: string): Promise<void> {
  const base = cgroupSupport().base;
  const ours = (n: string): boolean => {
    if (base === undefined || cwd === undefined) return true;
    const procs = readPids(path.join(base, n, 'cgroup.procs'));
    return procs.length === 0 || procs.some((p) => {
      try {
        return readlinkSync(`/proc/${p}/cwd`) === cwd;
      } catch {
        return false;
      }
    });
  };
  let left = [...checkCgroups()].filter((n) => !before.has(n) && ours(n));
  for (let i = 0; i < 50 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = [...checkCgroups()].filter((n) => !before.has(n) && ours(n));
  }
  assert.deepEqual(left, [], 'the check\'s cgroup was removed');
}

/** Starts `owner.mts`: one check run as a run does, recorded in `storage`; the test kills it. */
function startOwner(storage: string, containment: 'auto' | 'group', cwd: string, command: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(PROCS, 'owner.mts'), checkRecordDir(storage), containment, cwd, command], { cwd: REPO, stdio: 'ignore' });
}

async function killOwner(owner: ChildProcess): Promise<void> {
  const exited = new Promise((r) => owner.once('exit', r));
  owner.kill('SIGKILL');
  await exited;
}

describe('containment: nothing of a check survives it', function () {
  this.timeout(120000);
  let tmp: string;
  let leftovers: number[];
  beforeEach(function () {
    if (process.platform !== 'linux') this.skip();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'fug-contain-'));
    leftovers = [];
  });
  afterEach(() => {
    killAll(leftovers);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('cgroup (where the kernel allows it): a daemon that left the process group and wiped its environment is ended with the check', async function () {
    requireCgroup(this);
    const pidFile = path.join(tmp, 'daemon.pid');
    // `env -i setsid ... &`: no marker to find it by, no group to signal; it holds no pipe of the check.
    const daemon = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const command = `env -i setsid ${process.execPath} -e "${daemon.replace(/"/g, '\\"')}" >/dev/null 2>&1 & while [ ! -s ${pidFile} ]; do sleep 0.05; done; echo started`;
    const cgroups = checkCgroups();
    const r = await runCommand({ command, cwd: tmp, timeoutMs: 60000, outputLimitBytes: 65536 });
    await assertNoNewCgroup(cgroups, tmp);
    const [pid] = readPids(pidFile);
    assert.ok(pid !== undefined, `the daemon started: ${r.output}`);
    leftovers.push(pid);
    assert.equal(r.exitCode, 0, r.output);
    assert.equal(alive(pid), false, `daemon ${pid} survived the check`);
    assert.ok(r.strays.includes(pid), `strays ${r.strays.join(',')} name the daemon ${pid}`);
  });

  for (const containment of ['auto', 'group'] as const) {
    it(`${containment === 'auto' ? 'cgroup' : 'fallback (process group + marker)'}: on timeout, the tree is gone, including a child that left the group`, async function () {
      if (containment === 'auto') requireCgroup(this);
      const pidFile = path.join(tmp, 'pids');
      const cgroups = checkCgroups();
      const r = await runCommand({ command: `node ${path.join(PROCS, 'stubborn.mjs')} ${pidFile}`, cwd: tmp, timeoutMs: 1500, outputLimitBytes: 65536, killGraceMs: 300, containment });
      await assertNoNewCgroup(cgroups, tmp);
      const pids = readPids(pidFile);
      leftovers.push(...pids);
      assert.equal(pids.length, 3);
      assert.ok(r.timedOut);
      for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} still alive`);
    });
  }

  for (const containment of ['auto', 'group'] as const) {
    it(`${containment === 'auto' ? 'cgroup' : 'fallback'}: runCommand returns only once what it SIGKILLed is gone (a stray slow to die: 1 GB to free)`, async function () {
      if (containment === 'auto') requireCgroup(this);
      const pidFile = path.join(tmp, 'pids');
      // The stray touches 1 GB, then reports itself; the check exits at once. Freeing the memory of a
      // killed process takes the kernel a while: a runner that does not wait returns while it lives.
      const stray = `const b = Buffer.alloc(1024 * 1024 * 1024); b.fill(1); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => b[0]++, 1000)`;
      const main = `const { spawn } = require('child_process'); const fs = require('fs'); spawn(process.execPath, ['-e', ${JSON.stringify(stray)}], { stdio: 'ignore' }); (function w() { if (fs.existsSync(${JSON.stringify(pidFile)})) process.exit(0); setTimeout(w, 20); })()`;
      const cgroups = checkCgroups();
      const r = await runCommand({ command: 'node', argv: ['node', '-e', main], cwd: tmp, timeoutMs: 60000, outputLimitBytes: 65536, containment });
      await assertNoNewCgroup(cgroups, tmp);
      const [pid] = readPids(pidFile);
      assert.ok(pid !== undefined, r.output);
      leftovers.push(pid);
      assert.equal(r.exitCode, 0, r.output);
      assert.equal(alive(pid), false, `stray ${pid} still alive when runCommand returned`);
      assert.ok(r.strays.includes(pid));
    });
  }

  it('cgroup: the checks of a process killed with SIGKILL keep running, until reapStrays ends every one (the daemon with a wiped environment too)', async function () {
    requireCgroup(this);
    const storage = path.join(tmp, 'storage');
    const pidFile = path.join(tmp, 'pids');
    const owner = startOwner(storage, 'auto', tmp, `node ${path.join(PROCS, 'daemons.mjs')} ${pidFile} wiped`);
    assert.ok(await waitFor(() => readPids(pidFile).length === 4, 60000), 'the check started its four processes');
    const pids = readPids(pidFile);
    leftovers.push(...pids);
    // Its owner still lives: its check is running, not a stray.
    assert.equal(await reapStrays(storage), 0);
    for (const pid of pids) assert.ok(alive(pid), `pid ${pid} alive while its owner runs`);
    await killOwner(owner);
    for (const pid of pids) assert.ok(alive(pid), `pid ${pid} alive after its owner was killed (what reaping is for)`);
    const records = readdirSync(checkRecordDir(storage));
    assert.equal(records.length, 1, 'the check was recorded');
    const { cgroup } = JSON.parse(readFileSync(path.join(checkRecordDir(storage), records[0]!), 'utf8')) as { cgroup?: string };
    assert.ok(cgroup !== undefined && existsSync(cgroup), `the check ran in a cgroup of its own: ${cgroup}`);
    assert.equal(await reapStrays(storage), 4);
    for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} survived reaping`);
    assert.deepEqual(readdirSync(checkRecordDir(storage)), [], 'the record is gone with its processes');
    assert.equal(existsSync(cgroup), false, 'and so is its cgroup');
    assert.equal(await reapStrays(storage), 0, 'reaping twice finds nothing');
  });

  it('fallback: the checks of a process killed with SIGKILL are reaped by group and marker', async function () {
    const storage = path.join(tmp, 'storage');
    const pidFile = path.join(tmp, 'pids');
    const owner = startOwner(storage, 'group', tmp, `node ${path.join(PROCS, 'daemons.mjs')} ${pidFile}`);
    assert.ok(await waitFor(() => readPids(pidFile).length === 3, 60000), 'the check started its three processes');
    const pids = readPids(pidFile);
    leftovers.push(...pids);
    assert.equal(await reapStrays(storage), 0);
    await killOwner(owner);
    for (const pid of pids) assert.ok(alive(pid), `pid ${pid} alive after its owner was killed`);
    assert.equal(await reapStrays(storage), 3);
    for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} survived reaping`);
    assert.deepEqual(readdirSync(checkRecordDir(storage)), []);
  });

  it('a record naming a process group that is no longer the check\'s (no member carries its marker) kills nothing', async () => {
    const storage = path.join(tmp, 'storage');
    // A stranger in a group of its own, named by a record whose owner is long dead.
    const stranger = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });
    leftovers.push(stranger.pid!);
    const dir = checkRecordDir(storage);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'x.json'), JSON.stringify({ owner: { pid: 999999999, startTime: '1' }, marker: 'not-this-one', pgid: stranger.pid, command: 'x', startedAt: new Date().toISOString() }));
    assert.equal(await reapStrays(storage), 0);
    assert.ok(alive(stranger.pid!), 'the stranger lives');
    assert.deepEqual(readdirSync(dir), [], 'the stale record is dropped');
    stranger.kill('SIGKILL');
  });

  it('CLI: `check` killed with SIGKILL leaves its check running; `revert` ends it', async function () {
    ensureBuilt();
    const project = path.join(tmp, 'project');
    const storage = path.join(tmp, 'storage');
    mkdirSync(project);
    const pidFile = path.join(tmp, 'pids');
    const wiped = cgroupSupport().base !== undefined;
    const expected = wiped ? 4 : 3;
    console.log(`      (containment here: ${wiped ? `cgroup v2 under ${cgroupSupport().base}` : `process group + marker (${(cgroupSupport() as { reason: string }).reason})`})`);
    const cli = spawn(process.execPath, [CLI, 'check', '--cwd', project, '--storage', storage, '--check', `hang=node ${path.join(PROCS, 'daemons.mjs')} ${pidFile}${wiped ? ' wiped' : ''}`], { stdio: 'ignore' });
    assert.ok(await waitFor(() => readPids(pidFile).length === expected, 60000), 'the check started its processes');
    const pids = readPids(pidFile);
    leftovers.push(...pids);
    await killOwner(cli);
    for (const pid of pids) assert.ok(alive(pid), `pid ${pid} alive after the CLI was killed`);
    const r = spawnSync(process.execPath, [CLI, 'revert', '--cwd', project, '--storage', storage, '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { reapedProcesses: number }).reapedProcesses, expected);
    for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} survived revert`);
  });
});

describe('containment: recording', function () {
  this.timeout(60000);

  it('a storage where the record cannot be written costs the reaping, not the check', async function () {
    if (process.platform !== 'linux') this.skip();
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'fug-contain-'));
    try {
      // A file where the records' directory would be: every write under it fails with ENOTDIR.
      writeFileSync(path.join(tmp, 'processes'), '');
      const r = await runCommand({ command: 'node -e 0', cwd: tmp, timeoutMs: 30000, outputLimitBytes: 4096, recordDir: path.join(tmp, 'processes', 'records') });
      assert.equal(r.exitCode, 0);
      assert.equal(r.spawnError, undefined);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

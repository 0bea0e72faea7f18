// Whether a process runs, decided one way (src/core/liveness.ts) for the run lock and the checks'
// containment: real processes, a real zombie, a reused pid.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as os from 'node:os';
import { createInterface } from 'node:readline';
import type { RunLockRecord } from '../../../src/core/edit/runLock';
import { isHolderAlive } from '../../../src/core/edit/runLock';
import { processAlive, processStartTime, readProcStat } from '../../../src/core/liveness';

describe('process liveness (one decision for the run lock and the containment)', function () {
  this.timeout(30_000);

  const holderOf = (pid: number, startTime: string | null): RunLockRecord => ({ version: 1, root: '/w', pid, startTime, hostname: os.hostname(), runId: 'r', frontEnd: 'test', storageDir: '/s', startedAt: '' });

  it('a live process is alive, with or without its start time; a wrong start time is another process', () => {
    assert.equal(processAlive(process.pid), true);
    assert.equal(processAlive(process.pid, processStartTime()), true);
    assert.equal(isHolderAlive(holderOf(process.pid, processStartTime() ?? null)), true);
    if (process.platform !== 'linux') return;
    assert.equal(processAlive(process.pid, '1'), false, 'the pid lives, but it started at another time');
    assert.equal(isHolderAlive(holderOf(process.pid, '1')), false);
  });

  it('an exited process, and a pid that is no number, are not alive', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    assert.equal(processAlive(dead), false);
    assert.equal(isHolderAlive(holderOf(dead, null)), false);
    assert.equal(processAlive(Number.NaN), false);
    assert.equal(processAlive(0), false);
  });

  it('a zombie (exited, not yet reaped by its parent) is not alive, for the lock as for the containment', async function () {
    if (process.platform !== 'linux') this.skip();
    // The shell starts a short sleep in the background and becomes a long sleep that never reaps it.
    const parent = spawn('/bin/sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 20'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const rl = createInterface({ input: parent.stdout! });
      const pid = Number(await new Promise<string>((resolve) => rl.once('line', resolve)));
      rl.close();
      const start = processStartTime(pid);
      for (let i = 0; i < 100; i++) {
        const st = readProcStat(pid);
        if (typeof st === 'object' && st.state === 'Z') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const st = readProcStat(pid);
      assert.ok(typeof st === 'object' && st.state === 'Z', `pid ${pid} is a zombie: ${JSON.stringify(st)}`);
      // kill(pid, 0) still answers for a zombie: the signal alone would call it alive.
      assert.doesNotThrow(() => process.kill(pid, 0));
      assert.equal(processAlive(pid, start), false);
      assert.equal(isHolderAlive(holderOf(pid, start ?? null)), false, 'a lock held by a zombie is stale');
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

// The folder's hook worker (issue 39) with real processes: the first stop starts it, a later stop is
// answered by it with the engine it kept, a worker killed mid-pass costs no verdict (the hook runs the
// pass itself), it ends by itself when idle, and nothing of it outlives a test (checked by pid).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { installHooksText } from '../../../src/core/gate/hookInstall';
import { workerPlace } from '../../../src/core/gate/worker/place';
import type { WorkerRecord } from '../../../src/core/gate/worker/protocol';
import { CLI, runCli } from '../../support/cli';
import { copyFixture, tempTree } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { alive } from '../../support/procs';

function stopInput(cwd: string, session = 'w-1'): string {
  return JSON.stringify({ session_id: session, transcript_path: null, cwd, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done.' });
}

function storageOf(base: string): string {
  return path.join(base, readdirSync(base).find((n) => n !== 'processes')!);
}

function record(base: string): WorkerRecord | undefined {
  if (!existsSync(base)) return undefined;
  const f = workerPlace(storageOf(base)).recordFile;
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as WorkerRecord) : undefined;
}

function hookRecords(base: string): Record<string, unknown>[] {
  const runs = path.join(storageOf(base), 'runs');
  const run = readdirSync(runs).find((n) => n.startsWith('hook-') && !n.endsWith('.lock'))!;
  return readFileSync(path.join(runs, run, 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.type === 'hook');
}

function hook(project: string, storage: string): { code: number | null; out: Record<string, unknown>; stderr: string } {
  const r = runCli(['hook', '--host', 'claude'], { input: stopInput(project), env: { FIX_UNTIL_GREEN_STORAGE: storage } });
  return { code: r.code, out: r.stdout.trim() === '' ? {} : (JSON.parse(r.stdout) as Record<string, unknown>), stderr: r.stderr };
}

async function until(what: () => boolean, ms: number, label: string): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function settings(project: string, s: Record<string, unknown>): void {
  const dir = path.join(project, '.vscode');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(Object.fromEntries(Object.entries(s).map(([k, v]) => [`fixUntilGreen.${k}`, v]))));
}

describe('cli hook worker', function () {
  this.timeout(180_000);
  let s: Scratch;
  const pids: number[] = [];
  beforeEach(() => (s = copyFixture('hooks/cart')));
  afterEach(async () => {
    for (const pid of pids.splice(0)) {
      if (alive(pid)) process.kill(pid, 'SIGTERM');
    }
    s.cleanup();
  });

  it('the first stop starts the worker, a stop after a one-file edit is answered by it warm, with the verdict the hook gives alone', async () => {
    const first = hook(s.project, s.storage);
    assert.equal(first.out.decision, 'block');
    const rec = record(s.storage);
    assert.ok(rec, 'the worker wrote its record');
    pids.push(rec.pid);
    assert.ok(alive(rec.pid));
    assert.match(first.stderr, new RegExp(`answered by the folder's worker \\(pid ${rec.pid}, cold\\)`));
    // Its folder and socket are the user's alone.
    const place = workerPlace(storageOf(s.storage));
    assert.equal(statSync(place.dir).mode & 0o777, 0o700);
    assert.equal(statSync(place.socket).mode & 0o777, 0o600);
    assert.equal(statSync(place.recordFile).mode & 0o777, 0o600);

    const file = path.join(s.project, 'src', 'cart.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace('acc + l.price', 'acc + l.price * l.quantity'));
    const second = hook(s.project, s.storage);
    assert.match(second.stderr, new RegExp(`answered by the folder's worker \\(pid ${rec.pid}, warm\\)`));
    const hooks = hookRecords(s.storage);
    assert.deepEqual(
      hooks.map((h) => h.worker),
      [
        { pid: rec.pid, calls: 0, warm: false },
        { pid: rec.pid, calls: 1, warm: true },
      ],
    );

    // The same two stops in the hook's own process (no worker): the same answers.
    const alone = copyFixture('hooks/cart');
    try {
      settings(alone.project, { hookWorkerIdleSeconds: 0 });
      const a1 = hook(alone.project, alone.storage);
      writeFileSync(path.join(alone.project, 'src', 'cart.js'), readFileSync(file, 'utf8'));
      const a2 = hook(alone.project, alone.storage);
      assert.doesNotMatch(a1.stderr + a2.stderr, /folder's worker/);
      assert.equal(record(alone.storage), undefined);
      const norm = (o: Record<string, unknown>): string => JSON.stringify(o).replaceAll(alone.project, 'P').replaceAll(s.project, 'P').replace(/Trace: [^"\\]+/g, 'Trace').replace(/"[^"]*trace\.jsonl"/g, '');
      assert.equal(norm(a1.out), norm(first.out));
      assert.equal(norm(a2.out), norm(second.out));
    } finally {
      alone.cleanup();
    }

    // hook --stop-worker ends it; its record and socket go with it.
    const stop = runCli(['hook', '--stop-worker', '--cwd', s.project], { env: { FIX_UNTIL_GREEN_STORAGE: s.storage } });
    assert.match(stop.stdout, new RegExp(`the worker \\(pid ${rec.pid}\\) ended`));
    assert.equal(alive(rec.pid), false);
    assert.equal(existsSync(place.socket), false);
    assert.equal(existsSync(place.recordFile), false);
  });

  it('a worker killed mid-pass costs no verdict: the hook runs the pass itself and answers', async () => {
    const t = tempTree({
      'package.json': JSON.stringify({ name: 'slow', private: true, type: 'module', scripts: { test: 'node --test' } }),
      'test/slow.test.js': "import test from 'node:test';\nimport assert from 'node:assert/strict';\ntest('slow sum', async () => {\n  await new Promise((r) => setTimeout(r, 2500));\n  assert.equal(1 + 1, 3);\n});\n",
    });
    const storage = path.join(t.dir, '.storage');
    try {
      const child = spawn(process.execPath, [CLI, 'hook', '--host', 'claude'], { env: { ...process.env, FIX_UNTIL_GREEN_STORAGE: storage }, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.stdin.end(stopInput(t.dir));
      const exited = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
      await until(() => record(storage) !== undefined, 30_000, 'the worker');
      const rec = record(storage)!;
      pids.push(rec.pid);
      // Mid-pass: its test run is under way (the test sleeps 2.5 s).
      await until(() => readFileSync(path.join(workerPlace(storageOf(storage)).dir, 'worker.log'), 'utf8').includes('listening'), 10_000, 'the worker to listen');
      await new Promise((r) => setTimeout(r, 1200));
      process.kill(rec.pid, 'SIGKILL');
      assert.equal(await exited, 0);
      const answer = JSON.parse(out) as Record<string, unknown>;
      assert.equal(answer.decision, 'block');
      assert.match(String(answer.reason), /slow sum/);
      assert.match(err, /the folder's worker did not answer/);
      assert.equal(hookRecords(storage).at(-1)!.worker, undefined);
      await until(() => !alive(rec.pid), 5000, 'the killed worker to be gone');
    } finally {
      t.cleanup();
    }
  });

  it('ends by itself after hookWorkerIdleSeconds, and when its storage is removed', async () => {
    settings(s.project, { hookWorkerIdleSeconds: 2 });
    hook(s.project, s.storage);
    const rec = record(s.storage);
    assert.ok(rec);
    pids.push(rec.pid);
    assert.equal(rec.idleMs, 2000);
    await until(() => !alive(rec.pid), 15_000, 'the idle worker to end');
    assert.equal(record(s.storage), undefined);

    settings(s.project, { hookWorkerIdleSeconds: 600 });
    hook(s.project, s.storage);
    const again = record(s.storage)!;
    pids.push(again.pid);
    assert.notEqual(again.pid, rec.pid);
    s.cleanup();
    await until(() => !alive(again.pid), 10_000, 'the worker to end with its storage');
  });

  it('refuses a request without its token and one for another folder, ends at the host\'s SessionEnd; a long storage path puts the socket in a short private folder', async () => {
    hook(s.project, s.storage);
    const rec = record(s.storage)!;
    pids.push(rec.pid);
    const send = (body: object): Promise<Record<string, unknown>> =>
      new Promise((resolve, reject) => {
        const c = net.connect(rec.socket);
        let buf = '';
        c.on('data', (d) => (buf += d.toString()));
        c.on('end', () => resolve(JSON.parse(buf) as Record<string, unknown>));
        c.on('error', reject);
        c.write(`${JSON.stringify(body)}\n`);
      });
    assert.deepEqual(await send({ v: 1, token: 'guess', kind: 'status' }), { ok: false, error: 'wrong token' });
    const other = await send({ v: 1, token: rec.token, kind: 'stop-call', root: os.tmpdir(), host: 'claude', call: {}, budgetMs: 1000 });
    assert.equal(other.ok, false);
    assert.match(String(other.error), /this worker serves .* not /);

    // The host's session end ends it.
    const end = runCli(['hook', '--host', 'claude'], { input: JSON.stringify({ session_id: 'w-1', transcript_path: null, cwd: s.project, hook_event_name: 'SessionEnd', reason: 'exit' }), env: { FIX_UNTIL_GREEN_STORAGE: s.storage } });
    assert.equal(end.code, 0);
    assert.match(end.stderr, new RegExp(`the worker \\(pid ${rec.pid}\\) ended`));
    assert.equal(alive(rec.pid), false);

    // What `hooks install` registers for the host's session end ends it too: Copilot CLI's
    // sessionEnd names no event in its payload (read without --event it would be a stop).
    hook(s.project, s.storage);
    const again = record(s.storage)!;
    pids.push(again.pid);
    const installed = parse(installHooksText('copilot-cli', '/p/.github/hooks/fix-until-green.json', null, { cli: 'CLI', timeoutSeconds: 30 })) as { hooks: Record<string, { bash: string }[]> };
    const args = installed.hooks.sessionEnd![0]!.bash.replace(/^CLI /, '').split(' ');
    assert.deepEqual(args, ['hook', '--host', 'copilot-cli', '--event', 'session-end', '--timeout', '30']);
    const copilotEnd = runCli(args, { input: JSON.stringify({ timestamp: Date.now(), cwd: s.project, reason: 'complete' }), env: { FIX_UNTIL_GREEN_STORAGE: s.storage } });
    assert.equal(copilotEnd.code, 0);
    assert.equal(copilotEnd.stdout.trim(), '{}');
    assert.match(copilotEnd.stderr, new RegExp(`the worker \\(pid ${again.pid}\\) ended`));
    assert.equal(alive(again.pid), false);

    const long = workerPlace(path.join(os.tmpdir(), 'x'.repeat(120)), 'linux');
    assert.ok(Buffer.byteLength(long.socket) <= 100, long.socket);
    assert.equal(path.dirname(long.socket), path.join(os.tmpdir(), `fug-${process.getuid!()}`));
    assert.equal(long.dir, path.join(os.tmpdir(), 'x'.repeat(120), 'worker'));
  });
});

// `fix-until-green hook` answers within the host's timeout whatever the host or a killed hook left
// behind (issue 36), and never lets an edit through silently when its original cannot be saved:
// real processes of the built CLI, a real fixture project, real FIFOs, devices, dead and live lock
// holders, stdin left open, a storage under a regular file.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hookRunId } from '../../../src/core/gate/hookSession';
import { processStartTime } from '../../../src/core/liveness';
import { CLI, runCli } from '../../support/cli';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

interface Answer {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: Record<string, unknown>;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the hook as a host does; `keepOpen` leaves stdin open after the document. Killed after `killAfterMs`. */
function hook(args: string[], input: unknown, o: { keepOpen?: boolean; killAfterMs?: number } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, 'hook', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), o.killAfterMs ?? 60_000);
    child.stdin.write(JSON.stringify(input));
    if (!o.keepOpen) child.stdin.end();
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      child.stdin.destroy();
      let out: Record<string, unknown> = {};
      try {
        out = stdout.trim() === '' ? {} : (JSON.parse(stdout) as Record<string, unknown>);
      } catch {
        out = { unparsed: stdout };
      }
      resolve({ code, signal, out, stdout, stderr, ms: Date.now() - started });
    });
  });
}

function deniedReason(a: Answer): string {
  return String((a.out.hookSpecificOutput as { permissionDecisionReason?: string } | undefined)?.permissionDecisionReason ?? '');
}

/** A process that really ran and is gone: its pid and start time, as a killed hook's lock would name it. */
async function deadProcess(): Promise<{ pid: number; startTime: string | null }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 200));
  const pid = child.pid!;
  const startTime = processStartTime(pid) ?? null;
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGKILL');
  await exited;
  return { pid, startTime };
}

describe('cli hook: an answer within the host\'s timeout, and never a silent unrevertable edit', function () {
  this.timeout(120_000);
  let s: Scratch;
  let storage: string;
  beforeEach(() => {
    s = copyFixture('hooks/cart');
    storage = path.join(s.dir, 'store');
  });
  afterEach(() => s.cleanup());

  const stopInput = (transcript: string, session = 't-1'): Record<string, unknown> => ({ session_id: session, transcript_path: transcript, cwd: s.project, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done.' });
  const editInput = (file: string, session = 't-1'): Record<string, unknown> => ({ session_id: session, cwd: s.project, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: path.join(s.project, file), old_string: 'acc + l.price', new_string: 'acc + l.price * l.quantity' } });
  const lockDir = (session = 't-1'): string => path.join(storage, 'runs', `${hookRunId('claude', session)}.lock`);

  it('a transcript_path naming a FIFO or a device is not read: the stop is answered in time, and the user told why', async () => {
    const fifo = path.join(s.dir, 'transcript.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const transcript of [fifo, '/dev/zero']) {
      const a = await hook(['--host', 'claude', '--storage', storage, '--timeout', '20'], stopInput(transcript), { killAfterMs: 30_000 });
      assert.equal(a.signal, null, `answered and ended by itself (killed after ${a.ms} ms); stderr: ${a.stderr}`);
      assert.equal(a.code, 0, a.stderr);
      assert.ok(a.ms < 20_000, `within the host's 20 s: ${a.ms} ms`);
      assert.equal(a.out.decision, 'block', 'the failing cart test still sends the agent back');
      assert.match(a.stderr, transcript === fifo ? /transcript .*transcript\.fifo is a FIFO \(named pipe\); it is not read/ : /transcript \/dev\/zero is a character device; it is not read/);
    }
  });

  it('a session lock left by a killed hook (pid and start time of a dead process) is taken over at once: the edit is checkpointed', async () => {
    const dead = await deadProcess();
    mkdirSync(lockDir(), { recursive: true });
    writeFileSync(path.join(lockDir(), 'owner.json'), JSON.stringify({ ...dead, hostname: os.hostname() }));
    const a = await hook(['--host', 'claude', '--storage', storage, '--timeout', '30'], editInput('src/cart.js'), { killAfterMs: 40_000 });
    assert.equal(a.code, 0, a.stderr);
    assert.ok(a.ms < 10_000, `not a 30 s wait: ${a.ms} ms`);
    assert.deepEqual(a.out, {}, 'checkpointed: a plain allow');
    assert.equal(existsSync(lockDir()), false, 'the lock is released after the call');
    const r = runCli(['revert', '--cwd', s.project, '--storage', storage, '--session', 't-1', '--json']);
    assert.equal(r.code, 0, r.stderr);
  });

  it('a lock a live process holds past the call\'s deadline never disarms the guards: a test edit is denied, an edit is said unrevertable, a stop is judged', async () => {
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 200));
      mkdirSync(lockDir(), { recursive: true });
      writeFileSync(path.join(lockDir(), 'owner.json'), JSON.stringify({ pid: holder.pid, startTime: processStartTime(holder.pid!) ?? null, hostname: os.hostname() }));
      const test = await hook(['--host', 'claude', '--storage', storage, '--timeout', '6'], { ...editInput('test/cart.test.js'), tool_input: { file_path: path.join(s.project, 'test', 'cart.test.js'), old_string: '40', new_string: '15' } });
      assert.ok(test.ms < 6000, `within the host's 6 s: ${test.ms} ms`);
      assert.match(deniedReason(test), /test\/cart\.test\.js is protected/);
      const edit = await hook(['--host', 'claude', '--storage', storage, '--timeout', '6'], editInput('src/cart.js'));
      assert.ok(edit.ms < 6000, `within the host's 6 s: ${edit.ms} ms`);
      assert.match(String(edit.out.systemMessage), /original of src\/cart\.js could not be saved \(the session's record is locked .*pid \d+.*\); this edit cannot be reverted/);
      const stop = await hook(['--host', 'claude', '--storage', storage, '--timeout', '20'], stopInput(path.join(s.dir, 'none.jsonl')));
      assert.ok(stop.ms < 20_000, `within the host's 20 s: ${stop.ms} ms`);
      assert.equal(stop.out.decision, 'block', 'judged by the gate\'s rules');
      assert.match(String(stop.out.systemMessage), /The session's count could not be updated \(the session's record is locked/);
      assert.equal(existsSync(lockDir()), true, 'a live holder\'s lock is left to it');
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it("the host's SIGTERM ends the hook soon, with an answer, and leaves no session lock behind", async () => {
    const t = path.join(s.dir, 'hang');
    mkdirSync(t);
    writeFileSync(path.join(t, 'package.json'), '{ "name": "hang", "private": true, "scripts": { "test": "node hang-forever.cjs" } }\n');
    writeFileSync(path.join(t, 'hang-forever.cjs'), 'setInterval(() => {}, 1000);\n');
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, 'hook', '--host', 'claude', '--storage', storage, '--timeout', '60'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stdin.end(JSON.stringify({ session_id: 't-9', transcript_path: null, cwd: t, hook_event_name: 'Stop', stop_hook_active: false }));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    // Once the checks run (the session's record exists), the host gives up on the hook.
    const record = path.join(storage, 'runs', hookRunId('claude', 't-9'), 'hook-session.json');
    while (!existsSync(record) && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    const termAt = Date.now();
    child.kill('SIGTERM');
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('exit', (c, sg) => r([c, sg])));
    clearTimeout(killer);
    assert.equal(signal, null, 'ended by itself after the SIGTERM, not killed');
    assert.equal(code, 0);
    assert.ok(Date.now() - termAt < 5000, `ended ${Date.now() - termAt} ms after the SIGTERM`);
    assert.match(stdout, /systemMessage/);
    assert.equal(existsSync(lockDir('t-9')), false, 'no session lock left');
  });

  it('stdin left open after a whole JSON document: the answer comes without waiting for EOF', async () => {
    const a = await hook(['--host', 'claude', '--storage', storage, '--timeout', '30'], editInput('test/cart.test.js'), { keepOpen: true, killAfterMs: 40_000 });
    assert.equal(a.signal, null, `ended by itself (killed after ${a.ms} ms)`);
    assert.ok(a.ms < 10_000, `answered on the document, not at the deadline: ${a.ms} ms`);
    assert.match(deniedReason(a), /test\/cart\.test\.js is protected/);
    // A document that never completes is answered at the deadline, saying what came.
    const partial = await new Promise<Answer>((resolve) => {
      const started = Date.now();
      const child = spawn(process.execPath, [CLI, 'hook', '--host', 'claude', '--timeout', '4'], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stdin.write('{"session_id": "t-2", "hook_event_name": "Sto');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.on('exit', (code, signal) => {
        clearTimeout(killer);
        child.stdin.destroy();
        resolve({ code, signal, out: JSON.parse(stdout || '{}') as Record<string, unknown>, stdout, stderr: '', ms: Date.now() - started });
      });
    });
    assert.equal(partial.signal, null);
    assert.ok(partial.ms < 4000, `within the host's 4 s: ${partial.ms} ms`);
    assert.match(String(partial.out.systemMessage), /not JSON|no input/);
  });

  it('a storage that cannot be written: the edit is let through saying it cannot be reverted, or denied when fixUntilGreen.denyUnrevertableEdits asks; a test edit is still denied', async () => {
    const file = path.join(s.dir, 'a-file');
    writeFileSync(file, 'not a folder\n');
    const unwritable = path.join(file, 'storage');
    const edit = await hook(['--host', 'claude', '--storage', unwritable, '--timeout', '20'], editInput('src/cart.js'));
    assert.equal(edit.code, 0, edit.stderr);
    assert.match(String(edit.out.systemMessage), /original of src\/cart\.js could not be saved \(the storage .*a-file\/storage cannot be written: .*ENOTDIR.*\); this edit cannot be reverted/);
    const test = await hook(['--host', 'claude', '--storage', unwritable, '--timeout', '20'], { ...editInput('test/cart.test.js'), tool_input: { file_path: path.join(s.project, 'test', 'cart.test.js'), old_string: '40', new_string: '15' } });
    assert.match(deniedReason(test), /test\/cart\.test\.js is protected/, 'the guards stay armed');
    mkdirSync(path.join(s.project, '.vscode'), { recursive: true });
    writeFileSync(path.join(s.project, '.vscode', 'settings.json'), JSON.stringify({ 'fixUntilGreen.denyUnrevertableEdits': true }));
    const denied = await hook(['--host', 'claude', '--storage', unwritable, '--timeout', '20'], editInput('src/cart.js'));
    assert.match(deniedReason(denied), /original of src\/cart\.js cannot be saved .*it is refused because fixUntilGreen\.denyUnrevertableEdits is on/);
    assert.equal(readFileSync(file, 'utf8'), 'not a folder\n');
  });

  it('revert --session over a checkpoint edited to name ../victim.txt, ../emptydir and an absolute path: refused and named, nothing outside touched, the agent\'s edit still put back', async () => {
    const cart = path.join(s.project, 'src', 'cart.js');
    const original = readFileSync(cart, 'utf8');
    assert.deepEqual((await hook(['--host', 'claude', '--storage', storage], editInput('src/cart.js', 'r-1'))).out, {});
    writeFileSync(cart, 'agent\n');
    await hook(['--host', 'claude', '--storage', storage], { session_id: 'r-1', cwd: s.project, hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: cart }, tool_response: {} });
    const victim = path.join(s.dir, 'victim.txt');
    writeFileSync(victim, 'victim\n');
    mkdirSync(path.join(s.dir, 'emptydir'));
    const manifest = path.join(storage, 'runs', hookRunId('claude', 'r-1'), 'checkpoint', 'checkpoint.json');
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as { entries: unknown[]; createdDirs?: string[] };
    const sha = execFileSync('sha256sum', [victim], { encoding: 'utf8' }).split(' ')[0];
    m.entries.push({ path: '../victim.txt', existed: false, last: sha }, { path: victim, existed: false, last: sha });
    m.createdDirs = ['../emptydir'];
    writeFileSync(manifest, JSON.stringify(m));
    const r = runCli(['revert', '--cwd', s.project, '--storage', storage, '--session', 'r-1']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(readFileSync(victim, 'utf8'), 'victim\n');
    assert.equal(existsSync(path.join(s.dir, 'emptydir')), true);
    assert.equal(readFileSync(cart, 'utf8'), original, "the agent's edit is still put back");
    assert.match(r.stdout, /\.\.\/victim\.txt: NOT restored: stored path "\.\.\/victim\.txt" leaves the workspace folder/);
    assert.match(r.stdout, /victim\.txt: NOT restored: stored path ".*victim\.txt" is absolute/);
    assert.match(r.stdout, /\.\.\/emptydir: NOT restored: folder stored path "\.\.\/emptydir" leaves the workspace folder/);
  });
});

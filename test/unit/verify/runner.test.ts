// Running checks for real: process groups killed to the last PID, floods capped in bounded memory,
// bytes no decoder likes, and the rules for what a check's exit code means.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CappedOutput, runCommand } from '../../../src/core/verify/runner';
import { Verifier } from '../../../src/core/verify/verifier';
import { copyFixture } from '../../support/fixtures';
import { alive, PROCS } from '../../support/procs';

/** Live processes whose working directory is inside `dir`. */
function processesIn(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES' || code === 'ESRCH') continue;
      throw e;
    }
    if ((cwd === dir || cwd.startsWith(dir + '/')) && alive(Number(name))) out.push(Number(name));
  }
  return out;
}

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

describe('runner', function () {
  this.timeout(120000);
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'fug-runner-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('on timeout kills the whole tree: a check ignoring SIGTERM, its grandchild ignoring it too, and one that left the group', async function () {
    if (process.platform !== 'linux') this.skip();
    const pidFile = path.join(tmp, 'pids');
    const started = Date.now();
    const r = await runCommand({ command: `node ${path.join(PROCS, 'stubborn.mjs')} ${pidFile}`, cwd: tmp, timeoutMs: 1500, outputLimitBytes: 65536, killGraceMs: 300 });
    const pids = readPids(pidFile);
    assert.equal(pids.length, 3, 'the check reported its three processes');
    assert.ok(r.timedOut);
    assert.equal(r.exitCode, null);
    assert.match(r.output, /^started \d+ \d+ \d+/);
    assert.ok(Date.now() - started < 60000);
    // Every PID, including the one in its own session, is gone (or a zombie awaiting init). Checked at
    // once, with no polling: runCommand returns only when what it SIGKILLed is gone (this raced while
    // it returned right after the signal; see containment.test.ts for a stray slow to die).
    for (const pid of pids) assert.ok(!alive(pid), `pid ${pid} still alive`);
  });

  it('on cancel (AbortSignal) kills the whole tree the same way', async function () {
    if (process.platform !== 'linux') this.skip();
    const pidFile = path.join(tmp, 'pids');
    const controller = new AbortController();
    const running = runCommand({ command: `node ${path.join(PROCS, 'stubborn.mjs')} ${pidFile}`, cwd: tmp, timeoutMs: 60000, outputLimitBytes: 65536, killGraceMs: 300, signal: controller.signal });
    assert.ok(await waitFor(() => readPids(pidFile).length === 3, 20000), 'the check started its processes');
    controller.abort();
    const r = await running;
    assert.ok(r.cancelled);
    assert.ok(!r.timedOut);
    for (const pid of readPids(pidFile)) assert.ok(!alive(pid), `pid ${pid} still alive`);
  });

  it('kills processes a check leaves behind when it exits normally, and says which', async function () {
    if (process.platform !== 'linux') this.skip();
    const pidFile = path.join(tmp, 'pids');
    const script = `const {spawn}=require('node:child_process');const fs=require('node:fs');const c=spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{stdio:'ignore',detached:true});fs.writeFileSync(${JSON.stringify(pidFile)},String(c.pid));process.exit(0)`;
    const r = await runCommand({ command: 'node', argv: ['node', '-e', script], cwd: tmp, timeoutMs: 30000, outputLimitBytes: 65536 });
    const [stray] = readPids(pidFile);
    assert.equal(r.exitCode, 0);
    assert.ok(stray !== undefined);
    assert.ok(r.strays.includes(stray), `strays ${r.strays.join(',')} include ${stray}`);
    // At once, no polling: the stray was SIGKILLed, and runCommand waited until it was gone.
    assert.ok(!alive(stray));
  });

  it('caps a 200 MB flood at the output limit, head and tail kept and the cut marked, in bounded memory', async () => {
    const limit = 256 * 1024;
    const base = process.memoryUsage();
    let peakRss = 0;
    let peakHeap = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss - base.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed - base.heapUsed);
    }, 20);
    let r;
    try {
      r = await runCommand({ command: `node ${path.join(PROCS, 'flood.mjs')} 200`, cwd: tmp, timeoutMs: 110000, outputLimitBytes: limit });
    } finally {
      clearInterval(sampler);
    }
    assert.equal(r.exitCode, 1);
    assert.ok(r.truncated);
    assert.ok(r.output.length <= limit + 200, `kept ${r.output.length} chars`);
    assert.ok(r.output.startsWith('FIRST LINE OF THE FLOOD\n'));
    assert.ok(r.output.endsWith('LAST LINE OF THE FLOOD\n'));
    const cut = /\[\.\.\. (\d+) bytes of output cut by fix-until-green \.\.\.\]/.exec(r.output);
    assert.ok(cut, 'the cut is marked');
    assert.ok(Number(cut[1]) > 200 * 1024 * 1024 - limit);
    // 200 MB went through; holding it (let alone decoding it to a string) would take far more than this.
    assert.ok(peakRss < 120 * 1024 * 1024, `rss grew by ${Math.round(peakRss / 1048576)} MB`);
    assert.ok(peakHeap < 48 * 1024 * 1024, `heap grew by ${Math.round(peakHeap / 1048576)} MB`);
  });

  it('decodes as UTF-8 with replacement, joins a character split across writes, turns CRLF and lone CR into LF', async () => {
    const r = await runCommand({ command: `node ${path.join(PROCS, 'bytes.mjs')} 0`, cwd: tmp, timeoutMs: 30000, outputLimitBytes: 65536 });
    assert.equal(r.output, 'bad: \uFFFD\uFFFD\nsplit: é\ncrlf line\nprogress 10%\nprogress 100%\n');
  });

  it('never splits a character or leaves a stray U+FFFD at the cut', () => {
    const c = new CappedOutput(1024);
    for (let i = 0; i < 2000; i++) c.push(Buffer.from('é€𝄞'));
    const { text, truncated } = c.finish();
    assert.ok(truncated);
    assert.ok(!text.includes('\uFFFD'));
    assert.match(text, /^(é€𝄞)+é?€?\n\[\.\.\. \d+ bytes of output cut by fix-until-green \.\.\.\]\n/);
  });

  it('reports a missing executable as a spawn error, and preflight names it before anything runs', async () => {
    const r = await runCommand({ command: 'fug-no-such-tool --check', cwd: tmp, timeoutMs: 10000, outputLimitBytes: 4096 });
    assert.match(r.spawnError ?? '', /ENOENT/);
    const v = new Verifier({ root: tmp, checks: [{ name: 'lint', command: 'fug-no-such-tool --check' }, { name: 'ok', command: 'node -e 0' }], parallel: true, outputLimitKb: 64 });
    assert.deepEqual(v.preflight(), ['check "lint": executable "fug-no-such-tool" not found (not in node_modules/.bin or on PATH)']);
  });

  it('runs a command that needs a shell through one, and one that does not without', async () => {
    const r = await runCommand({ command: 'echo one && echo two | tr a-z A-Z', cwd: tmp, timeoutMs: 10000, outputLimitBytes: 4096 });
    assert.equal(r.output, 'one\nTWO\n');
    const env = await runCommand({ command: 'node -p process.env.CI+process.env.NO_COLOR+process.env.FORCE_COLOR', cwd: tmp, timeoutMs: 10000, outputLimitBytes: 4096 });
    assert.equal(env.output, 'trueundefinedundefined\n');
  });
});

describe('verifier: running checks', function () {
  this.timeout(180000);

  it('exit code rules: a generic check exiting 0 is green whatever it prints; tsc errors count even behind `|| true`', async () => {
    const s = copyFixture('verify/tsc');
    try {
      const v = new Verifier({
        root: s.project,
        checks: [
          { name: 'noisy-but-ok', command: 'echo "error: this is only a log line"; echo "FAILED: nothing"; exit 0' },
          { name: 'types', command: 'tsc --noEmit -p . || true' },
        ],
        parallel: true,
        outputLimitKb: 64,
        flakyReruns: 0,
      });
      const r = await v.verify();
      const ok = r.checks.find((c) => c.name === 'noisy-but-ok')!;
      const types = r.checks.find((c) => c.name === 'types')!;
      assert.deepEqual(ok.failures, []);
      assert.equal(ok.exitCode, 0);
      assert.equal(types.exitCode, 0);
      assert.equal(types.parser, 'tsc');
      assert.deepEqual(types.failures.map((f) => f.id), ['TS2345', 'TS2322', 'TS2322']);
      assert.equal(r.green, false, 'failures found by the tsc parser make the state red despite exit 0');
    } finally {
      s.cleanup();
    }
  });

  it('a hanging test is stopped at the check timeout, reported as the test that never finished, and nothing of it remains', async function () {
    if (process.platform !== 'linux') this.skip();
    const s = copyFixture('verify/hang');
    try {
      const v = new Verifier({ root: s.project, checks: [{ name: 'test', command: 'node --test', timeoutSeconds: 3 }], parallel: false, outputLimitKb: 64, killGraceMs: 500 });
      const r = await v.verify();
      const c = r.checks[0]!;
      assert.ok(c.timedOut);
      assert.equal(c.runs, 1, 'a timeout is not re-run');
      // The output names no test; the only test file's first unfinished test is the one that hung.
      assert.deepEqual(r.failures, [{ check: 'test', file: 'test/hang.test.js', line: 4, column: 1, id: 'waits forever', message: 'test did not finish within its 3 s timeout and was stopped; this test never finished' }]);
      assert.deepEqual(processesIn(s.project), []);
    } finally {
      s.cleanup();
    }
  });

  it('a test printing 100k lines: output capped and marked, its failure still read from the tail', async () => {
    const s = copyFixture('verify/noisy');
    try {
      const v = new Verifier({ root: s.project, checks: [{ name: 'test', command: 'node --test' }], parallel: false, outputLimitKb: 64, flakyReruns: 0 });
      const r = await v.verify();
      const c = r.checks[0]!;
      assert.ok(c.truncated);
      assert.ok(c.output.length < 70 * 1024);
      assert.match(c.output, /bytes of output cut by fix-until-green/);
      assert.deepEqual(r.failures.map((f) => [f.file, f.id]), [['test/noisy.test.js', 'logs a lot and then fails']]);
      assert.match(r.failures[0]!.message, /\+ 'done'\n- 'finished'/);
    } finally {
      s.cleanup();
    }
  });

  it('runs independent checks in parallel when asked (each waits for the other to start)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-par-'));
    try {
      // Each check marks that it started, then waits up to 20 s for the other's mark: only concurrent runs both pass.
      const wait = (me: string, other: string): string =>
        `node -e "const fs=require('fs');fs.writeFileSync('${me}','');const end=Date.now()+20000;(function w(){if(fs.existsSync('${other}'))process.exit(0);if(Date.now()>end){console.error('${other} never started');process.exit(1)}setTimeout(w,20)})()"`;
      const checks = [
        { name: 'a', command: wait('a.started', 'b.started') },
        { name: 'b', command: wait('b.started', 'a.started') },
      ];
      const r = await new Verifier({ root: dir, checks, parallel: true, outputLimitKb: 64, flakyReruns: 0 }).verify();
      assert.ok(r.green, JSON.stringify(r.failures));
      rmSync(path.join(dir, 'a.started'));
      rmSync(path.join(dir, 'b.started'));
      const serial = await new Verifier({ root: dir, checks: [{ ...checks[0]!, timeoutSeconds: 2 }, checks[1]!], parallel: false, outputLimitKb: 64, flakyReruns: 0 }).verify();
      assert.ok(!serial.green, 'run one after the other, the first cannot see the second start');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cancelling verify() stops every running check and leaves no process', async function () {
    if (process.platform !== 'linux') this.skip();
    const s = copyFixture('verify/hang');
    try {
      const v = new Verifier({ root: s.project, checks: [{ name: 'a', command: 'node --test' }, { name: 'b', command: 'node --test' }], parallel: true, outputLimitKb: 64, killGraceMs: 500 });
      const controller = new AbortController();
      const running = v.verify(controller.signal);
      assert.ok(await waitFor(() => processesIn(s.project).length >= 4, 20000), 'both checks and their test processes started');
      controller.abort();
      const r = await running;
      assert.ok(r.checks.every((c) => c.cancelled));
      assert.deepEqual(r.failures, [], 'a cancelled check reports nothing it did not see');
      assert.deepEqual(processesIn(s.project), []);
    } finally {
      s.cleanup();
    }
  });
});

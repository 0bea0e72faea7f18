// Every refusal of the CLI is one line on stderr, a JSON answer where JSON is read, and an exit code
// from the README's list; never Node's stack trace. Real processes of the built CLI.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { describeCliError, EXIT, UsageError } from '../../../src/cli/errors';
import { reportFailure } from '../../../src/cli/main';
import { RUN_LOCK_DIR_ENV } from '../../../src/core/edit/runLock';
import { CLI, ensureBuilt } from '../../support/cli';
import { copyFixture, REPO, treeHash } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const TEST = 'test=node --import tsx --test test/calc.test.ts';
const DOCUMENTED = new Set([0, 1, 2, 3]);

interface Answer {
  code: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, unknown> | undefined;
}

function assertClean(r: Answer, code: number): void {
  assert.equal(r.code, code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.ok(DOCUMENTED.has(r.code!));
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
}

describe('CLI refusals: one line, JSON, a documented exit code', function () {
  this.timeout(120_000);
  let s: Scratch;
  let env: Record<string, string>;
  const children: ChildProcess[] = [];
  before(() => ensureBuilt());
  beforeEach(() => {
    s = copyFixture('loop/calc');
    env = { [RUN_LOCK_DIR_ENV]: path.join(s.dir, 'locks') };
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    s.cleanup();
  });

  function cli(args: string[], input = ''): Answer {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, input, encoding: 'utf8', env: { ...process.env, OPENAI_API_KEY: '', ...env }, timeout: 100_000 });
    let json: Record<string, unknown> | undefined;
    if (r.stdout.trim().startsWith('{')) json = JSON.parse(r.stdout) as Record<string, unknown>;
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, json };
  }

  function replayFile(): string {
    const file = path.join(s.dir, 'replay.json');
    writeFileSync(file, JSON.stringify({ responses: [{ text: 'STATUS: in_progress\nCONFIDENCE: 0.5\nPOSTMORTEM: none\n', usage: { input: 10, output: 10 } }] }));
    return file;
  }

  it('an unwritable --storage (a file in its path) is a preflight error: exit 2, nothing written', () => {
    const file = path.join(s.dir, 'a-file');
    writeFileSync(file, 'x');
    const hash = treeHash(s.project);
    const storage = path.join(file, 'storage');
    for (const json of [true, false]) {
      const r = cli(['run', '--cwd', s.project, '--check', TEST, '--model', `replay:${replayFile()}`, '--storage', storage, ...(json ? ['--json'] : [])]);
      assertClean(r, 2);
      assert.match(r.stderr, /^fix-until-green run: --storage .*a-file\/storage cannot be written \(ENOTDIR/);
      if (json) {
        assert.equal(r.json?.kind, 'preflight');
        assert.equal(r.json?.exitCode, 2);
        assert.equal(r.json?.errno, 'ENOTDIR');
        assert.match(String(r.json?.error), /cannot be written/);
      } else {
        assert.equal(r.stdout, '');
      }
    }
    assert.equal(treeHash(s.project), hash);
  });

  it('a directory where an edit needs a file: apply answers JSON with the OS error, no stack', () => {
    // src/calc.ts is a file: a reply creating src/calc.ts/x.ts cannot be written.
    const reply = 'src/calc.ts/x.ts\n<<<<<<< SEARCH\n=======\nexport const x = 1;\n>>>>>>> REPLACE\n';
    const r = cli(['apply', '--cwd', s.project, '--storage', path.join(s.dir, 'storage')], reply);
    assert.ok(r.code === EXIT.notGreen || r.code === EXIT.fault, `exit ${r.code}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
    assert.ok(r.json, `JSON on stdout: ${r.stdout}`);
    assert.equal(r.json.applied, false);
    assert.match(JSON.stringify(r.json.errors), /ENOTDIR|not a directory|is a file/i);
  });

  it('unknown flags and commands are usage errors, as JSON under --json', () => {
    const r = cli(['run', '--cwd', s.project, '--bogus', '--json']);
    assertClean(r, 2);
    assert.equal(r.json?.kind, 'usage');
    assert.match(String(r.json?.error), /--bogus/);
    const u = cli(['frobnicate', '--json']);
    assertClean(u, 2);
    assert.equal(u.json?.kind, 'usage');
  });

  describe('while a live run holds the folder', () => {
    async function holder(): Promise<ChildProcess> {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'test', 'support', 'runLockHolder.ts'), s.project], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      const rl = createInterface({ input: child.stdout! });
      const line = await new Promise<string>((resolve) => rl.once('line', resolve));
      rl.close();
      assert.equal((JSON.parse(line) as { ok: boolean }).ok, true);
      return child;
    }

    it('revert refuses (exit 2, kind busy, the holder named) and leaves the files; after the holder is gone it reverts', async () => {
      const child = await holder();
      const storage = path.join(s.dir, 'storage');
      const calc = path.join(s.project, 'src', 'calc.ts');
      const original = readFileSync(calc, 'utf8');
      // A run's edit, checkpointed by `apply`, that a revert would put back.
      const edited = original.replace('export function add(a: number, b: number): number {\n  return a + b;', 'export function add(a: number, b: number): number {\n  return a - b;');
      assert.notEqual(edited, original);
      const reply = 'src/calc.ts\n<<<<<<< SEARCH\nexport function add(a: number, b: number): number {\n  return a + b;\n=======\nexport function add(a: number, b: number): number {\n  return a - b;\n>>>>>>> REPLACE\n';
      const applied = cli(['apply', '--cwd', s.project, '--storage', storage], reply);
      assert.equal(applied.code, 0, applied.stdout + applied.stderr);
      const runId = String(applied.json?.runId);

      const r = cli(['revert', '--cwd', s.project, '--storage', storage, '--run', runId, '--json']);
      assertClean(r, 2);
      assert.equal(r.json?.kind, 'busy');
      assert.equal((r.json?.holder as { pid: number }).pid, child.pid);
      assert.match(r.stderr, new RegExp(`cannot revert: run holder-${child.pid} \\(test, pid ${child.pid}`));
      assert.equal(readFileSync(calc, 'utf8'), edited, 'nothing was put back under the live run');

      const plain = cli(['revert', '--cwd', s.project, '--storage', storage, '--run', runId]);
      assertClean(plain, 2);
      assert.equal(plain.stdout, '');

      const gone = new Promise((res) => child.once('exit', res));
      child.kill('SIGKILL');
      await gone;
      const ok = cli(['revert', '--cwd', s.project, '--storage', storage, '--run', runId, '--json']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(readFileSync(calc, 'utf8'), original);
    });

    it('run refuses (exit 2, kind busy) before it writes anything', async () => {
      const child = await holder();
      const hash = treeHash(s.project);
      const r = cli(['run', '--cwd', s.project, '--check', TEST, '--model', `replay:${replayFile()}`, '--storage', path.join(s.dir, 'storage'), '--json']);
      assertClean(r, 2);
      assert.equal(r.json?.kind, 'busy');
      assert.equal((r.json?.holder as { pid: number }).pid, child.pid);
      assert.equal(treeHash(s.project), hash);
    });
  });

  it('a full disk under --storage: a one-line answer with a documented code, never a stack', function () {
    const mnt = path.join(s.dir, 'small');
    mkdirSync(mnt);
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { encoding: 'utf8' });
    // Mounting needs privileges a test machine may not grant; the in-process cases below still run.
    if (m.status !== 0) this.skip();
    try {
      for (const fillKb of [0, 40, 64]) {
        if (fillKb > 0) spawnSync('sh', ['-c', `head -c ${fillKb}k /dev/zero > ${JSON.stringify(path.join(mnt, 'fill'))}`]);
        const storage = path.join(mnt, `s${fillKb}`);
        const r = cli(['run', '--cwd', s.project, '--check', TEST, '--model', `replay:${replayFile()}`, '--storage', storage, '--max-steps', '1', '--json']);
        assert.ok(r.code !== null && DOCUMENTED.has(r.code), `exit ${r.code}`);
        assert.doesNotMatch(r.stderr, /^\s+at /m, `no stack trace: ${r.stderr}`);
        assert.ok(r.json, `JSON on stdout (fill ${fillKb}k): ${r.stdout} ${r.stderr}`);
        if (r.code === 2 || r.code === 3) {
          assert.match(String(r.json.error), /ENOSPC/);
          assert.equal(r.stderr.trim().split('\n').length, 1);
        }
        if (fillKb === 64) assert.equal(r.code, 2, 'a full disk is found before anything is written');
      }
    } finally {
      spawnSync('umount', [mnt]);
    }
  });

  it('errors at the boundary are classified: usage 2, file system 3, anything else 3, each one line', () => {
    const lines: string[] = [];
    const io = { stdout: (x: string): void => void lines.push(`out ${x}`), stderr: (x: string): void => void lines.push(`err ${x}`) };
    assert.equal(reportFailure('check', ['--json'], new UsageError('--cwd: /nope is not a directory'), io), 2);
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write', errno: -28 });
    assert.deepEqual(describeCliError(enospc), { kind: 'io', exitCode: 3, message: 'cannot write: ENOSPC (no space left on the device)', details: { errno: 'ENOSPC' } });
    const internal = new Error('boom\n    at somewhere (file.ts:1:1)');
    assert.equal(reportFailure('eval', [], internal, io), 3);
    assert.deepEqual(lines.filter((l) => l.startsWith('err')), ['err fix-until-green check: --cwd: /nope is not a directory', 'err fix-until-green eval: internal error: boom; at somewhere (file.ts:1:1)']);
    assert.deepEqual(JSON.parse(lines.find((l) => l.startsWith('out'))!.slice(4)), { error: '--cwd: /nope is not a directory', kind: 'usage', exitCode: 2 });
  });
});

// No stray writer, no blocking open (issue 29): a step-0 check's background child is ended with the
// check, like any later check's; a FIFO at the folder's lock path, at a checkpoint's manifest or at
// .vscode/settings.json is a clear error at once, never a run that hangs past its time limit.
// Real CLI processes, real FIFOs (mkfifo), real files.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runLockPath } from '../../../src/core/edit/runLock';
import { CLI, ensureBuilt } from '../../support/cli';
import { tempTree } from '../../support/fixtures';

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the CLI; a process still running after `killAfterMs` is killed (and says so by code null). */
function cli(args: string[], env: Record<string, string>, killAfterMs: number, nodeArgs: string[] = []): Promise<Ended> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    }),
  );
}

const NOTHING = 'STATUS: in_progress\nCONFIDENCE: 0.5\nPOSTMORTEM: x\n\nno edit this time\n';

describe('no stray writer, no blocking open (CLI, real processes)', function () {
  this.timeout(120_000);
  before(() => ensureBuilt());
  let t: { dir: string; cleanup(): void };
  let project: string;
  let replay: string;
  let env: Record<string, string>;
  beforeEach(() => {
    t = tempTree({ 'project/src/a.js': 'module.exports = 1;\n' }, 'fug-stray-');
    project = path.join(t.dir, 'project');
    replay = path.join(t.dir, 'replay.json');
    writeFileSync(replay, JSON.stringify({ responses: [1, 2, 3].map(() => ({ text: NOTHING, usage: { input: 10, output: 1 } })) }));
    env = { FIX_UNTIL_GREEN_LOCK_DIR: path.join(t.dir, 'locks') };
    mkdirSync(env.FIX_UNTIL_GREEN_LOCK_DIR!, { recursive: true });
  });
  afterEach(() => t.cleanup());

  const run = (extra: string[] = [], nodeArgs: string[] = []): Promise<Ended> =>
    cli(['run', '--cwd', project, '--model', `replay:${replay}`, '--check', 'c=node c.cjs', '--storage', path.join(t.dir, 'storage'), '--max-steps', '3', '--time-limit', '10', '--json', ...extra], env, 40_000, nodeArgs);

  it('a background child of the step-0 check is ended with it: it never writes into the workspace mid-run', async () => {
    // Step 0 starts a detached writer that, 2 s later, makes the check pass; later passes start none.
    const started = path.join(t.dir, 'started');
    writeFileSync(
      path.join(project, 'c.cjs'),
      [
        "const fs = require('fs'); const { spawn } = require('child_process');",
        `if (!fs.existsSync(${JSON.stringify(started)})) {`,
        `  fs.writeFileSync(${JSON.stringify(started)}, '');`,
        "  spawn('sh', ['-c', 'sleep 2; echo \"module.exports = 3;\" > src/a.js'], { stdio: 'ignore', detached: true }).unref();",
        '}',
        "if (fs.readFileSync('src/a.js', 'utf8').includes('3')) process.exit(0);",
        "console.log('a is 1, want 3'); process.exit(1);",
      ].join('\n'),
    );
    // Each model step takes a moment: the stray has time to write before the run ends.
    const r = await run(['--stall-threshold', '5']);
    await new Promise((res) => setTimeout(res, 3000));
    assert.equal(readFileSync(path.join(project, 'src/a.js'), 'utf8'), 'module.exports = 1;\n', 'the stray never wrote');
    const out = JSON.parse(r.stdout) as { stopReason: string };
    assert.notEqual(out.stopReason, 'green');
  });

  it('nothing that holds the run\'s thread (the tokenizer\'s load) runs while a check does: its end, and its strays\' killing, are seen at once', async () => {
    // The class behind the stray above: a check's strays are killed when this thread sees the check
    // end, so a synchronous block while a check runs is time a background child has to write. The
    // tokenizer (a chunk's load and its tables, seconds on a busy machine) was warmed during step 0.
    const times = path.join(t.dir, 'times');
    writeFileSync(
      path.join(project, 'c.cjs'),
      [
        "const fs = require('fs');",
        `const f = ${JSON.stringify(times)};`,
        "if (!fs.existsSync(f)) { fs.writeFileSync(f, `${Date.now()}`); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500); fs.appendFileSync(f, ` ${Date.now()}`); }",
        "console.log('a is 1, want 3'); process.exit(1);",
      ].join('\n'),
    );
    const loadedAt = path.join(t.dir, 'tokenizer-at');
    const hook = path.join(t.dir, 'hook.cjs');
    // Notes when this process (the CLI, not a check) first loads the tokenizer's chunk: from, to.
    writeFileSync(
      hook,
      [
        "const Module = require('module'); const load = Module._load; let at;",
        "Module._load = function (req, ...rest) {",
        "  if (at !== undefined || !/tokenizer\\.js$/.test(req)) return load.call(this, req, ...rest);",
        "  const from = Date.now(); try { return load.call(this, req, ...rest); } finally { at = `${from} ${Date.now()}`; }",
        "};",
        `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(loadedAt)}, at ?? ''));`,
      ].join('\n'),
    );
    const r = await run([], ['-r', hook]);
    assert.notEqual(r.code, null, r.stderr);
    const [start, end] = readFileSync(times, 'utf8').split(' ').map(Number);
    const at = readFileSync(loadedAt, 'utf8');
    assert.notEqual(at, '', `the run loaded the tokenizer (${r.stdout}${r.stderr})`);
    const [from, to] = at.split(' ').map(Number);
    assert.ok(to! < start! || from! > end!, `the tokenizer was loaded from ${from} to ${to}, while step 0's check ran (${start}..${end})`);
  });

  it('a FIFO at the folder\'s lock path: run ends at once with a clear error naming it', async () => {
    writeFileSync(path.join(project, 'c.cjs'), "console.log('a is 1, want 3'); process.exit(1);");
    execFileSync('mkfifo', [runLockPath(project, env)]);
    const r = await run();
    assert.notEqual(r.code, null, `the run did not hang (killed after ${r.ms} ms)`);
    assert.ok(r.ms < 10_000, `ended in ${r.ms} ms, before its time limit`);
    // A file-system fault (README "Exit codes"), not an internal error.
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.doesNotMatch(r.stderr, /internal error/);
    assert.match(r.stderr + r.stdout, /lock\.json is a FIFO \(named pipe\), not a regular file/);
  });

  it('a FIFO at .vscode/settings.json: run ends at once with a clear error naming it', async () => {
    writeFileSync(path.join(project, 'c.cjs'), "console.log('a is 1, want 3'); process.exit(1);");
    mkdirSync(path.join(project, '.vscode'));
    execFileSync('mkfifo', [path.join(project, '.vscode', 'settings.json')]);
    const r = await run();
    assert.notEqual(r.code, null, `the run did not hang (killed after ${r.ms} ms)`);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /settings\.json is a FIFO \(named pipe\), not a regular file/);
  });

  it('a FIFO as a stored checkpoint\'s manifest: run goes on without it; revert skips it, naming it', async () => {
    writeFileSync(path.join(project, 'c.cjs'), "console.log('a is 1, want 3'); process.exit(1);");
    const cpDir = path.join(t.dir, 'storage', 'runs', 'r1', 'checkpoint');
    mkdirSync(cpDir, { recursive: true });
    execFileSync('mkfifo', [path.join(cpDir, 'checkpoint.json')]);
    const r = await run();
    assert.notEqual(r.code, null, `the run did not hang (killed after ${r.ms} ms)`);
    const v = await cli(['revert', '--cwd', project, '--storage', path.join(t.dir, 'storage')], env, 20_000);
    assert.notEqual(v.code, null, 'revert did not hang');
    assert.match(v.stderr + v.stdout, /checkpoint\.json is a FIFO \(named pipe\)/);
  });
});

// Crash safety of a multi-file apply: `fix-until-green apply` runs as a real child process, is
// stopped at an exact point of its writes (a test-only hook announces the point on stderr and waits)
// and killed with SIGKILL; `fix-until-green revert` (in-process) then restores every file byte for byte.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PAUSE_ENV } from '../../../src/cli/applyCommand';
import { main } from '../../../src/cli/main';
import { REPO } from '../../support/fixtures';
import { fullTreeHash } from './support/tree';

const CLI = path.join(REPO, 'dist', 'cli.js');

interface Ws {
  dir: string;
  project: string;
  storage: string;
}

const FILES: Record<string, Buffer> = {
  'src/a.ts': Buffer.from('export const a = 1;\nexport const keep = true;\n'),
  'src/b.ts': Buffer.from('export function b(): number {\r\n  return 2;\r\n}\r\n'),
  'src/c.ts': Buffer.from('\uFEFFexport const c = "three";\nexport const d = 4;', 'utf8'),
  'bin/run.sh': Buffer.from('#!/bin/sh\necho run\n'),
  // Big enough that its write is visibly torn when the process dies after truncating it.
  'src/big.ts': Buffer.from(Array.from({ length: 4000 }, (_, i) => `export const v${i} = ${i};\n`).join('')),
};

// The order of the changes in the batch is the order of the edits in the reply.
const REPLY = [
  'STATUS: in_progress',
  'CONFIDENCE: 0.8',
  'POSTMORTEM: first attempt',
  '',
  'src/a.ts',
  '<<<<<<< SEARCH',
  'export const a = 1;',
  '=======',
  'export const a = 10;',
  '>>>>>>> REPLACE',
  '',
  '```diff',
  '--- a/src/big.ts',
  '+++ b/src/big.ts',
  '@@ -1,2 +1,2 @@',
  '-export const v0 = 0;',
  '+export const v0 = -1;',
  ' export const v1 = 1;',
  '--- a/src/b.ts',
  '+++ b/src/b.ts',
  '@@ -1,3 +1,3 @@',
  ' export function b(): number {',
  '-  return 2;',
  '+  return 20;',
  ' }',
  '--- a/bin/run.sh',
  '+++ /dev/null',
  '--- /dev/null',
  '+++ b/src/e.ts',
  '@@ -0,0 +1 @@',
  '+export const e = 5;',
  '```',
  '',
  'src/c.ts',
  '<<<<<<< SEARCH',
  'export const d = 4;',
  '=======',
  'export const d = 40;',
  '>>>>>>> REPLACE',
  '',
].join('\n');

const ORDER = ['src/a.ts', 'src/big.ts', 'src/b.ts', 'bin/run.sh', 'src/e.ts', 'src/c.ts'];

function workspace(): Ws {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-crash-'));
  const project = path.join(dir, 'project');
  for (const [rel, bytes] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
    writeFileSync(path.join(project, rel), bytes);
  }
  chmodSync(path.join(project, 'bin/run.sh'), 0o755);
  chmodSync(path.join(project, 'src/c.ts'), 0o600);
  return { dir, project, storage: path.join(dir, 'storage') };
}

/** Runs `apply` until it announces `point`, then SIGKILLs it. Resolves once the process is gone. */
function applyAndKillAt(ws: Ws, point: string): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'apply', '--cwd', ws.project, '--storage', ws.storage], {
      env: { ...process.env, [PAUSE_ENV]: point },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes(`paused at ${point}`)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`apply was not killed at ${point}: exit ${code}; stderr: ${stderr}; stdout: ${stdout}`));
      else resolve({ signal, stdout });
    });
    child.stdin.end(REPLY);
  });
}

/** `fix-until-green revert` in this process: the command's own code; the crash it repairs is a real process's. */
async function revert(ws: Ws, ...extra: string[]): Promise<{ status: number | null; out: { runs: { runId: string; actions: { path: string; action: string }[]; conflicts: { path: string }[] }[] } }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await main(['revert', '--cwd', ws.project, '--storage', ws.storage, '--json', ...extra], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
  assert.ok(out.length > 0, `revert printed JSON; stderr: ${err.join('\n')}`);
  return { status, out: JSON.parse(out.join('\n')) };
}

const read = (ws: Ws, rel: string): Buffer | undefined => (existsSync(path.join(ws.project, rel)) ? readFileSync(path.join(ws.project, rel)) : undefined);

describe('edit/crash: SIGKILL mid-apply, then revert', function () {
  this.timeout(120_000);
  before(() => assert.ok(existsSync(CLI), 'dist/cli.js is built (npm run build)'));

  it('applies the whole reply when not interrupted (the batch order the kill points rely on)', () => {
    const ws = workspace();
    try {
      const p = spawnSync(process.execPath, [CLI, 'apply', '--cwd', ws.project, '--storage', ws.storage], { input: REPLY, encoding: 'utf8' });
      assert.equal(p.status, 0, p.stdout + p.stderr);
      assert.deepEqual((JSON.parse(p.stdout) as { files: { path: string }[] }).files.map((f) => f.path), ORDER);
      assert.equal(read(ws, 'src/b.ts')!.toString(), 'export function b(): number {\r\n  return 20;\r\n}\r\n');
      assert.equal(read(ws, 'src/c.ts')!.toString('utf8'), '\uFEFFexport const c = "three";\nexport const d = 40;\n'); // the REPLACE's last line ends with a newline, so the file gets one (issue 28)
      assert.equal(statSync(path.join(ws.project, 'src/c.ts')).mode & 0o777, 0o600);
    } finally {
      rmSync(ws.dir, { recursive: true, force: true });
    }
  });

  const points: string[] = [];
  ORDER.forEach((rel, i) => {
    points.push(`write:${i}:before`);
    // A delete has no truncated state.
    if (rel !== 'bin/run.sh') points.push(`write:${i}:truncated`);
    points.push(`write:${i}:after`);
  });

  for (const point of points) {
    it(`restores every file byte for byte after a kill at ${point}`, async () => {
      const ws = workspace();
      try {
        const original = fullTreeHash(ws.project);
        await applyAndKillAt(ws, point);
        const [, index, at] = point.split(':');
        const i = Number(index);
        // The kill really landed mid-apply: files before the point are written, later ones are not.
        for (let k = 0; k < ORDER.length; k++) {
          const rel = ORDER[k]!;
          const written = k < i || (k === i && at === 'after');
          const now = read(ws, rel);
          if (k === i && at === 'truncated') assert.equal(now?.length, 0, `${rel} is torn (truncated) at the kill`);
          else if (written) assert.notDeepEqual(now, FILES[rel], `${rel} was written before the kill`);
          else assert.deepEqual(now, FILES[rel], `${rel} was not yet written at the kill`);
        }
        const r = await revert(ws);
        assert.equal(r.status, 0, JSON.stringify(r.out));
        assert.equal(r.out.runs.length, 1, 'the interrupted apply is found');
        assert.equal(fullTreeHash(ws.project), original, 'the tree is byte-identical to before the apply, modes included');
        // Once reverted, the run is no longer offered.
        assert.equal((await revert(ws)).out.runs.length, 0);
      } finally {
        rmSync(ws.dir, { recursive: true, force: true });
      }
    });
  }

  it('leaves a file the user changed after the crash alone, and restores the rest', async () => {
    const ws = workspace();
    try {
      await applyAndKillAt(ws, 'write:3:before');
      writeFileSync(path.join(ws.project, 'src/a.ts'), 'export const a = "mine";\n');
      const r = await revert(ws);
      assert.equal(r.status, 1, 'a conflict is reported with exit 1');
      assert.deepEqual(r.out.runs[0]!.conflicts.map((c) => c.path), ['src/a.ts']);
      assert.equal(read(ws, 'src/a.ts')!.toString(), 'export const a = "mine";\n');
      for (const rel of ['src/big.ts', 'src/b.ts', 'bin/run.sh', 'src/c.ts']) assert.deepEqual(read(ws, rel), FILES[rel], rel);
      assert.equal(read(ws, 'src/e.ts'), undefined);
      // Still offered (not everything went back), and a second revert changes nothing more.
      const again = await revert(ws);
      assert.equal(again.out.runs.length, 1);
      assert.deepEqual(again.out.runs[0]!.actions, []);
    } finally {
      rmSync(ws.dir, { recursive: true, force: true });
    }
  });
});

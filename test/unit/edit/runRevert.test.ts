// The loop on a real project (real node:test check, replayed model): revert after a run that
// created, modified and deleted files, and a file changed by the user in the middle of a run.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Checkpoint } from '../../../src/core/edit/checkpoint';
import { revertRun } from '../../../src/core/edit/restore';
import { findInterruptedRuns } from '../../../src/core/edit/storedRuns';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { Run } from '../../../src/core/loop/run';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import type { Settings } from '../../../src/core/settings';
import type { TimedEvent } from '../../../src/core/trace/events';
import type { CheckSpec } from '../../../src/core/types';
import { Verifier } from '../../../src/core/verify/verifier';
import { REPO } from '../../support/fixtures';
import { fullTreeHash, REPLIES } from './support/tree';

const CHECKS: CheckSpec[] = ['a', 'e', 'legacy', 'b', 'never'].map((n) => ({ name: n, command: `node checks/check.mjs ${n}`, parser: 'generic' }));
const HEAD = 'STATUS: in_progress\nCONFIDENCE: 0.7\nPOSTMORTEM: first attempt\n\n';

const STEP1 = `${HEAD}src/a.ts
<<<<<<< SEARCH
export const a = 1;
=======
export const a = 10;
>>>>>>> REPLACE

\`\`\`diff
--- /dev/null
+++ b/src/e.ts
@@ -0,0 +1 @@
+export const e = 5;
\`\`\`
`;

const STEP2 = `${HEAD}\`\`\`diff
--- a/bin/run.sh
+++ /dev/null
@@ -1,2 +0,0 @@
-#!/bin/sh
-echo legacy
--- a/src/b.ts
+++ b/src/b.ts
@@ -1,3 +1,3 @@
 export function b(): number {
-  return 2;
+  return 20;
 }
\`\`\`

src/c.ts
<<<<<<< SEARCH
export const d = 4;
=======
export const d = 40;
>>>>>>> REPLACE
`;

interface Ws {
  dir: string;
  project: string;
  storage: string;
}

function workspace(): Ws {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-runrevert-'));
  const project = path.join(dir, 'project');
  cpSync(path.join(REPLIES, 'run-project'), project, { recursive: true });
  chmodSync(path.join(project, 'bin/run.sh'), 0o755);
  chmodSync(path.join(project, 'src/c.ts'), 0o600);
  return { dir, project, storage: path.join(dir, 'storage') };
}

function run(ws: Ws, texts: string[], over: Partial<Settings> = {}, onEvent?: (e: TimedEvent) => void): Run {
  const settings: Settings = { ...defaultSettings(), checks: CHECKS, maxSteps: texts.length, ...over };
  return new Run({
    workspace: new FsWorkspace(ws.project),
    verifier: new Verifier({ root: ws.project, checks: settings.checks, parallel: true, outputLimitKb: settings.outputLimitKb }),
    provider: new ReplayProvider({ responses: texts.map((text) => ({ text, usage: { input: 100, output: 50 } })) }),
    settings,
    storageDir: ws.storage,
    ...(onEvent ? { onEvent } : {}),
  });
}

const text = (ws: Ws, rel: string): string => readFileSync(path.join(ws.project, rel), 'utf8');

describe('edit/revert after a real run', function () {
  this.timeout(180_000);
  let ws: Ws;
  beforeEach(() => {
    ws = workspace();
  });
  afterEach(() => rmSync(ws.dir, { recursive: true, force: true }));

  it('restores the exact original tree (CRLF, BOM, no final newline, modes) after a run that created, modified and deleted files', async () => {
    const original = fullTreeHash(ws.project);
    const r = await run(ws, [STEP1, STEP2]).start();
    assert.equal(r.stopReason, 'step-cap', r.detail);
    assert.equal(r.outcome, 'partial');
    assert.deepEqual(r.steps.map((s) => s.applied), [true, true]);
    // The run's edits are in place (keep-best), with each file's own conventions.
    assert.equal(text(ws, 'src/b.ts'), 'export function b(): number {\r\n  return 20;\r\n}\r\n');
    assert.equal(text(ws, 'src/c.ts'), '\uFEFFexport const c = "three";\nexport const d = 40;\n'); // the REPLACE's last line ends with a newline, so the file gets one (issue 28)
    assert.equal(statSync(path.join(ws.project, 'src/c.ts')).mode & 0o777, 0o600);
    assert.equal(existsSync(path.join(ws.project, 'bin/run.sh')), false);
    assert.equal(text(ws, 'src/e.ts'), 'export const e = 5;\n');
    assert.deepEqual(await findInterruptedRuns(ws.storage), [], 'a finished run is not offered as interrupted');

    const cli = spawnSync(process.execPath, [path.join(REPO, 'dist', 'cli.js'), 'revert', '--cwd', ws.project, '--storage', ws.storage, '--run', r.runId, '--json'], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stdout + cli.stderr);
    const out = JSON.parse(cli.stdout) as { runs: { actions: { path: string; action: string }[] }[] };
    assert.deepEqual(
      out.runs[0]!.actions.map((a) => `${a.path}:${a.action}`).sort(),
      ['bin/run.sh:recreated', 'src/a.ts:restored', 'src/b.ts:restored', 'src/c.ts:restored', 'src/e.ts:removed'],
    );
    assert.equal(fullTreeHash(ws.project), original, 'byte-identical tree, modes included');
    assert.equal(statSync(path.join(ws.project, 'bin/run.sh')).mode & 0o777, 0o755);
  });

  it('is found as interrupted when the run never finished, and revertRun restores it in-process', async () => {
    const original = fullTreeHash(ws.project);
    // Simulate the process dying after step 1: the checkpoint is never marked finished.
    const r = run(ws, [STEP1, STEP2], { maxSteps: 2 });
    await r.start();
    const dir = path.join(ws.storage, 'runs', r.runId, 'checkpoint');
    const manifest = JSON.parse(readFileSync(path.join(dir, 'checkpoint.json'), 'utf8')) as { finished: boolean };
    manifest.finished = false;
    writeFileSync(path.join(dir, 'checkpoint.json'), JSON.stringify(manifest));
    const found = await findInterruptedRuns(ws.storage);
    assert.deepEqual(found.map((f) => f.runId), [r.runId]);
    assert.deepEqual([...found[0]!.touched].sort(), ['bin/run.sh', 'src/a.ts', 'src/b.ts', 'src/c.ts', 'src/e.ts']);
    const cp = await Checkpoint.load(found[0]!.dir);
    const report = await revertRun({ workspace: new FsWorkspace(ws.project), checkpoint: cp! });
    assert.deepEqual(report.conflicts, []);
    assert.equal(fullTreeHash(ws.project), original);
    assert.deepEqual(await findInterruptedRuns(ws.storage), []);
  });

  it('stops with error naming the file when the user changes it during the run, and keeps the user\'s bytes', async () => {
    const mine = 'export const a = 1; // the user is editing this\nexport const keep = true;\n';
    const step2 = `${HEAD}src/a.ts\n<<<<<<< SEARCH\nexport const keep = true;\n=======\nexport const keep = false;\n>>>>>>> REPLACE\n`;
    const r = await run(ws, [STEP1, step2], { maxSteps: 3 }, (e) => {
      // After step 2's model call, before its edit: a real write to the file on disk.
      if (e.type === 'model-call' && e.step === 2) writeFileSync(path.join(ws.project, 'src/a.ts'), mine);
    }).start();
    assert.equal(r.stopReason, 'error', r.detail);
    assert.match(r.detail, /src\/a\.ts was changed outside the run/);
    assert.equal(text(ws, 'src/a.ts'), mine, 'the user\'s edit survives the stop');
    // The run's other file is still the run's; reverting it later does not touch the user's file.
    const cp = await Checkpoint.load(path.join(ws.storage, 'runs', r.runId, 'checkpoint'));
    const report = await revertRun({ workspace: new FsWorkspace(ws.project), checkpoint: cp! });
    assert.deepEqual(report.conflicts.map((c) => c.path), ['src/a.ts']);
    assert.deepEqual(report.actions.map((a) => `${a.path}:${a.action}`), ['src/e.ts:removed']);
    assert.equal(text(ws, 'src/a.ts'), mine);
  });
});

// What Revert run and Revert to best write, computed from a real run's checkpoint and snapshots.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { Run } from '../../../src/core/loop/run';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import { RunController } from '../../../src/vscode/controller';
import { bestContents, originalContents, pendingChanges, snapshotFile } from '../../../src/vscode/runFiles';
import { copyFixture, treeHash } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';
import { CALC, ScriptedVerifier } from './scriptedVerifier';

const EXTRA = 'src/extra.ts';
const CREATE = `--- /dev/null\n+++ b/${EXTRA}\n@@ -0,0 +1 @@\n+export const extra = 1;\n`;
const DELETE = `--- a/${EXTRA}\n+++ /dev/null\n@@ -1 +0,0 @@\n-export const extra = 1;\n`;

describe('revert targets of a finished run', () => {
  let s: Scratch;
  let original: string;
  beforeEach(() => {
    s = copyFixture('loop/calc');
    original = readFileSync(path.join(s.project, CALC), 'utf8');
  });
  afterEach(() => s.cleanup());
  const edit = (body: string, from = original): string => from.replace(/(mul\(a: number, b: number\): number \{\n {2}return ).*;/, `$1${body};`);
  const text = (c: { content: Uint8Array | null } | undefined): string | null | undefined => (c === undefined ? undefined : c.content === null ? null : Buffer.from(c.content).toString('utf8'));

  it('gives the originals, and the state of any step, including created and deleted files', async () => {
    const before = treeHash(s.project);
    const w1 = edit('a * b + 1');
    const w2 = edit('a * b + 2', w1);
    const c = new RunController(s.project, 'calc', { maxSteps: 2, tokenCeiling: 200000, timeLimitSeconds: 1800 });
    const report = await c.start((w) =>
      new Run({
        workspace: new FsWorkspace(s.project),
        verifier: new ScriptedVerifier(s.project),
        provider: new ReplayProvider({ responses: [{ text: reply([diffOf(CALC, original, w1), CREATE]) }, { text: reply([diffOf(CALC, w1, w2), DELETE]) }] }),
        settings: { ...defaultSettings(), maxSteps: 2 },
        storageDir: s.storage,
        signal: w.signal,
        onEvent: w.onEvent,
      }),
    );
    assert.equal(report.stopReason, 'step-cap');
    const st = c.state;
    assert.deepEqual(st.steps.map((x) => x.files.map((f) => `${f.kind} ${f.path}`)), [['modify src/calc.ts', 'create src/extra.ts'], ['modify src/calc.ts', 'delete src/extra.ts']]);
    assert.equal(readFileSync(snapshotFile(st.steps[0]!.snapshotDir!, 'after', CALC), 'utf8'), w1);

    const originals = await originalContents(st.runDir!);
    assert.equal(text(originals.find((x) => x.path === CALC)), original);
    assert.equal(text(originals.find((x) => x.path === EXTRA)), null, 'a created file goes away');

    const at = async (best: number): Promise<Record<string, string | null | undefined>> => {
      const cs = await bestContents(st.runDir!, st.steps, best);
      return { calc: text(cs.find((x) => x.path === CALC)), extra: text(cs.find((x) => x.path === EXTRA)) };
    };
    assert.deepEqual(await at(0), { calc: original, extra: null });
    assert.deepEqual(await at(1), { calc: w1, extra: 'export const extra = 1;\n' });
    assert.deepEqual(await at(2), { calc: w2, extra: null });

    // Nothing improved, so the engine already put the originals back (a punt).
    const ws = new FsWorkspace(s.project);
    assert.equal(report.outcome, 'punt');
    assert.equal(treeHash(s.project), before);
    assert.deepEqual(await pendingChanges(originals, (rel) => ws.read(rel)), [], 'nothing to revert');
    // Revert to step 1 writes both files; Revert run then writes only what differs and leaves the
    // tree byte-identical to before the run.
    const toStep1 = await pendingChanges(await bestContents(st.runDir!, st.steps, 1), (rel) => ws.read(rel));
    assert.deepEqual(toStep1.map((x) => x.path).sort(), [CALC, EXTRA]);
    await ws.apply(toStep1);
    assert.equal(readFileSync(path.join(s.project, CALC), 'utf8'), w1);
    assert.equal(readFileSync(path.join(s.project, EXTRA), 'utf8'), 'export const extra = 1;\n');
    const back = await pendingChanges(originals, (rel) => ws.read(rel));
    assert.deepEqual(back.map((x) => x.path).sort(), [CALC, EXTRA]);
    await ws.apply(back);
    assert.equal(treeHash(s.project), before);
  });

  it('says so when the checkpoint is gone', async () => {
    await assert.rejects(originalContents(path.join(s.storage, 'runs', 'nope')), /checkpoint is missing/);
  });
});

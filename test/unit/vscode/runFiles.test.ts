// What Revert run and Revert to best write, computed from a real run's checkpoint and snapshots.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Checkpoint } from '../../../src/core/edit/checkpoint';
import { restoreState, revertRun } from '../../../src/core/edit/restore';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { Run } from '../../../src/core/loop/run';
import { ReplayProvider } from '../../../src/core/model/replay';
import { defaultSettings } from '../../../src/core/settings';
import { RunController } from '../../../src/vscode/controller';
import { bestContents, loadCheckpoint, originalContents, snapshotFile } from '../../../src/vscode/runFiles';
import type { StepView } from '../../../src/vscode/common/runState';
import { copyFixture, treeHash } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';
import { CALC, calcVerifier } from './calcVerifier';

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
        verifier: calcVerifier(s.project, s.storage),
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

    const at = async (best: number, steps = st.steps): Promise<Record<string, string | null | undefined>> => {
      const m = await bestContents(st.runDir!, steps, best);
      return { calc: text(m.has(CALC) ? { content: m.get(CALC)! } : undefined), extra: text(m.has(EXTRA) ? { content: m.get(EXTRA)! } : undefined) };
    };
    assert.deepEqual(await at(0), { calc: original, extra: null });
    assert.deepEqual(await at(1), { calc: w1, extra: 'export const extra = 1;\n' });
    assert.deepEqual(await at(2), { calc: w2, extra: null });
    // A step a critic rolled back leaves the state before it, or the state it restored.
    const rolled = (index: number, rolledBack: 'previous' | 'best', restoredToStep: number | null): StepView => ({ ...st.steps[1]!, index, applied: false, rolledBack, restoredToStep });
    assert.deepEqual(await at(3, [...st.steps, rolled(3, 'previous', 2)]), { calc: w2, extra: null });
    assert.deepEqual(await at(3, [...st.steps, rolled(3, 'best', 1)]), { calc: w1, extra: 'export const extra = 1;\n' });

    // Nothing improved, so the engine already put the originals back (a punt).
    assert.equal(report.outcome, 'punt');
    assert.equal(treeHash(s.project), before);
    const ws = new FsWorkspace(s.project);
    const checkpoint = async (): Promise<Checkpoint> => loadCheckpoint(st.runDir!);
    // Revert to step 1 writes both files; Revert run then takes the tree back byte for byte.
    const toStep1 = await restoreState(await bestContents(st.runDir!, st.steps, 1), { workspace: ws, checkpoint: await checkpoint() });
    assert.deepEqual(toStep1.actions.map((x) => `${x.action} ${x.path}`).sort(), [`recreated ${EXTRA}`, `restored ${CALC}`]);
    assert.equal(readFileSync(path.join(s.project, CALC), 'utf8'), w1);
    assert.equal(readFileSync(path.join(s.project, EXTRA), 'utf8'), 'export const extra = 1;\n');
    const back = await revertRun({ workspace: ws, checkpoint: await checkpoint() });
    assert.deepEqual(back.conflicts, []);
    assert.equal(treeHash(s.project), before);
  });

  it('leaves a file the user changed after the run alone, and says so', async () => {
    const c = new RunController(s.project, 'calc', { maxSteps: 1, tokenCeiling: 200000, timeLimitSeconds: 1800 });
    const fixed = edit('a * b');
    await c.start((w) =>
      new Run({ workspace: new FsWorkspace(s.project), verifier: calcVerifier(s.project, s.storage), provider: new ReplayProvider({ responses: [{ text: reply([diffOf(CALC, original, fixed)]) }] }), settings: { ...defaultSettings(), maxSteps: 1 }, storageDir: s.storage, signal: w.signal, onEvent: w.onEvent }),
    );
    assert.equal(c.state.stopReason, 'green');
    const mine = fixed + '// my own note\n';
    writeFileSync(path.join(s.project, CALC), mine);
    const r = await revertRun({ workspace: new FsWorkspace(s.project), checkpoint: await loadCheckpoint(c.state.runDir!) });
    assert.equal(r.actions.length, 0);
    assert.match(r.conflicts[0]!.reason, /src\/calc\.ts was changed after the run last wrote it/);
    assert.equal(readFileSync(path.join(s.project, CALC), 'utf8'), mine);
  });

  it('says so when the checkpoint is gone', async () => {
    await assert.rejects(originalContents(path.join(s.storage, 'runs', 'nope')), /checkpoint is missing/);
  });
});

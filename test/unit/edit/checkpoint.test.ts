import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyEdits } from '../../../src/core/edit/apply';
import { Checkpoint } from '../../../src/core/edit/checkpoint';
import { parseReply } from '../../../src/core/edit/parse';
import { restoreState, revertRun } from '../../../src/core/edit/restore';
import { findInterruptedRuns, listCheckpoints } from '../../../src/core/edit/storedRuns';
import { FileTracker } from '../../../src/core/edit/tracker';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import type { FileChange } from '../../../src/core/edit/workspace';
import { fullTreeHash } from './support/tree';

/** A real file-system workspace whose editor holds unsaved changes to some files. */
class DirtyWorkspace extends FsWorkspace {
  constructor(root: string, private readonly dirty: Set<string>) {
    super(root);
  }

  async hasUnsavedChanges(rel: string): Promise<boolean> {
    return this.dirty.has(rel);
  }
}

describe('edit/checkpoint, restore and tracker', () => {
  let dir: string;
  let root: string;
  let storage: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-cp-'));
    root = path.join(dir, 'ws');
    storage = path.join(dir, 'storage');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1;\r\n');
    writeFileSync(path.join(root, 'src/b.ts'), 'export const b = 2;');
    chmodSync(path.join(root, 'src/b.ts'), 0o640);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const cpDir = (id: string): string => path.join(storage, 'runs', id, 'checkpoint');
  const ws = (): FsWorkspace => new FsWorkspace(root);
  const text = (rel: string): string => readFileSync(path.join(root, rel), 'utf8');

  it('saves originals (and absence) before the first write only, and reverts byte for byte', async () => {
    const original = fullTreeHash(root);
    const cp = await Checkpoint.create(cpDir('r1'), 'r1', root);
    const w = ws();
    const changes1: FileChange[] = [
      { path: 'src/a.ts', content: Buffer.from('export const a = 10;\r\n') },
      { path: 'src/new.ts', content: Buffer.from('x\n') },
    ];
    await cp.beginWrite(w, changes1);
    await w.apply(changes1);
    await cp.endWrite(true);
    const changes2: FileChange[] = [
      { path: 'src/a.ts', content: Buffer.from('export const a = 100;\r\n') },
      { path: 'src/b.ts', content: null },
    ];
    await cp.beginWrite(w, changes2);
    await w.apply(changes2);
    await cp.endWrite(true);
    assert.deepEqual(cp.touched, ['src/a.ts', 'src/new.ts', 'src/b.ts']);
    assert.equal((await cp.original('src/a.ts'))!.toString(), 'export const a = 1;\r\n', 'the first original is kept, not the step-1 content');
    assert.equal(await cp.original('src/new.ts'), null);

    const again = await Checkpoint.load(cpDir('r1'));
    const r = await revertRun({ workspace: w, checkpoint: again! });
    assert.deepEqual(r.actions.map((a) => `${a.path}:${a.action}`), ['src/a.ts:restored', 'src/new.ts:removed', 'src/b.ts:recreated']);
    assert.equal(fullTreeHash(root), original);
    assert.equal(statSync(path.join(root, 'src/b.ts')).mode & 0o777, 0o640);
  });

  it('recognizes a torn write (a prefix of the intended content) after a crash and restores it', async () => {
    const cp = await Checkpoint.create(cpDir('r2'), 'r2', root);
    const w = ws();
    const next = Buffer.from('export const a = "a much longer replacement value";\r\n');
    await cp.beginWrite(w, [{ path: 'src/a.ts', content: next }]);
    // The process died halfway through writing: half the new bytes on disk, the batch never ended.
    writeFileSync(path.join(root, 'src/a.ts'), next.subarray(0, 17));
    const loaded = (await Checkpoint.load(cpDir('r2')))!;
    assert.equal(loaded.interruptedWrite, true);
    assert.deepEqual((await findInterruptedRuns(storage)).map((r) => r.runId), ['r2']);
    const r = await revertRun({ workspace: w, checkpoint: loaded });
    assert.deepEqual(r.conflicts, []);
    assert.equal(text('src/a.ts'), 'export const a = 1;\r\n');
  });

  it('leaves a file someone else changed after the run wrote it, and keeps its original in storage', async () => {
    const cp = await Checkpoint.create(cpDir('r3'), 'r3', root);
    const w = ws();
    const c = [{ path: 'src/a.ts', content: Buffer.from('run\n') }];
    await cp.beginWrite(w, c);
    await w.apply(c);
    await cp.endWrite(true);
    writeFileSync(path.join(root, 'src/a.ts'), 'user\n');
    const r = await revertRun({ workspace: w, checkpoint: cp });
    assert.equal(r.conflicts.length, 1);
    assert.equal(text('src/a.ts'), 'user\n');
    assert.equal(readFileSync(r.conflicts[0]!.originalAt!, 'utf8'), 'export const a = 1;\r\n');
    assert.equal(cp.reverted, false, 'not marked reverted while a file is left');
  });

  it('lists runs newest first and loads version-1 manifests', async () => {
    await Checkpoint.create(cpDir('old'), 'old', root);
    await new Promise((r) => setTimeout(r, 5));
    await Checkpoint.create(cpDir('new'), 'new', root);
    mkdirSync(cpDir('v1'), { recursive: true });
    writeFileSync(path.join(cpDir('v1'), 'checkpoint.json'), JSON.stringify({ version: 1, runId: 'v1', root, finished: false, entries: [{ path: 'src/a.ts', existed: false }] }));
    const { runs } = await listCheckpoints(storage);
    assert.deepEqual(runs.map((r) => r.runId), ['new', 'old', 'v1']);
    assert.deepEqual((await findInterruptedRuns(storage)).map((r) => r.runId), ['v1'], 'only runs that touched files are offered');
    mkdirSync(cpDir('bad'), { recursive: true });
    writeFileSync(path.join(cpDir('bad'), 'checkpoint.json'), '{ not json');
    const withBad = await listCheckpoints(storage);
    assert.equal(withBad.runs.length, 3, 'a corrupt checkpoint does not hide the others');
    assert.match(withBad.unreadable[0]!.reason, /is not valid JSON/);
  });

  it('restoreState brings touched files to a target state and skips files changed outside the run', async () => {
    const w = ws();
    const cp = await Checkpoint.create(cpDir('r4'), 'r4', root);
    const tracker = new FileTracker(w);
    const apply = async (reply: string): Promise<void> => {
      const r = await applyEdits(parseReply(reply).edits, { workspace: w, policy: { root }, checkpoint: cp, tracker });
      assert.deepEqual(r.errors, []);
    };
    await apply('src/a.ts\n<<<<<<< SEARCH\nexport const a = 1;\n=======\nexport const a = 2;\n>>>>>>> REPLACE\n');
    const best = new Map<string, Uint8Array | null>([['src/a.ts', readFileSync(path.join(root, 'src/a.ts'))]]);
    await apply('src/a.ts\n<<<<<<< SEARCH\nexport const a = 2;\n=======\nexport const a = 3;\n>>>>>>> REPLACE\n\nsrc/c.ts\n<<<<<<< SEARCH\n=======\nc\n>>>>>>> REPLACE\n');
    const r = await restoreState(best, { workspace: w, checkpoint: cp, tracker });
    assert.deepEqual(r.actions.map((a) => `${a.path}:${a.action}`), ['src/a.ts:restored', 'src/c.ts:removed']);
    assert.equal(text('src/a.ts'), 'export const a = 2;\r\n');
    assert.equal(existsSync(path.join(root, 'src/c.ts')), false);

    writeFileSync(path.join(root, 'src/a.ts'), 'mine\n');
    const r2 = await restoreState(new Map(), { workspace: w, checkpoint: cp, tracker });
    assert.deepEqual(r2.conflicts.map((c) => c.path), ['src/a.ts']);
    assert.equal(text('src/a.ts'), 'mine\n');
  });

  it('never writes a file with unsaved editor changes (apply, restore and revert)', async () => {
    const w = new DirtyWorkspace(root, new Set(['src/a.ts']));
    const tracker = new FileTracker(w);
    const r = await applyEdits(parseReply('src/a.ts\n<<<<<<< SEARCH\nexport const a = 1;\n=======\nexport const a = 2;\n>>>>>>> REPLACE\n').edits, { workspace: w, policy: { root }, tracker });
    assert.equal(r.applied, false);
    assert.deepEqual(r.conflicts, ['src/a.ts']);
    assert.match(r.errors[0]!, /unsaved changes in an editor/);
    const cp = await Checkpoint.create(cpDir('r5'), 'r5', root);
    const plain = ws();
    const c = [{ path: 'src/a.ts', content: Buffer.from('run\n') }];
    await cp.beginWrite(plain, c);
    await plain.apply(c);
    await cp.endWrite(true);
    const rv = await revertRun({ workspace: w, checkpoint: cp });
    assert.match(rv.conflicts[0]!.reason, /unsaved changes/);
    assert.equal(text('src/a.ts'), 'run\n');
  });

  it('FsWorkspace.apply puts back what it wrote when a later write fails', async () => {
    mkdirSync(path.join(root, 'src/dir.ts'));
    const before = fullTreeHash(root);
    const w = ws();
    await assert.rejects(
      w.apply([
        { path: 'src/a.ts', content: Buffer.from('changed\n') },
        { path: 'src/b.ts', content: null },
        { path: 'src/dir.ts', content: Buffer.from('cannot write over a folder\n') },
      ]),
      /EISDIR/,
    );
    assert.equal(fullTreeHash(root), before, 'a.ts rewritten, b.ts recreated with its mode');
  });

  it('the tracker catches a change between the run\'s read and its write', async () => {
    const w = ws();
    const tracker = new FileTracker(w);
    tracker.noteRead('src/a.ts', readFileSync(path.join(root, 'src/a.ts')));
    tracker.noteRead('src/gone.ts', undefined);
    assert.deepEqual(await tracker.changedSince(['src/a.ts', 'src/gone.ts']), []);
    writeFileSync(path.join(root, 'src/a.ts'), 'user\n');
    writeFileSync(path.join(root, 'src/gone.ts'), 'user\n');
    const c = await tracker.changedSince(['src/a.ts', 'src/gone.ts', 'src/b.ts']);
    assert.deepEqual(c.map((x) => x.path), ['src/a.ts', 'src/gone.ts']);
    assert.match(c[1]!.message, /created outside the run/);
  });
});

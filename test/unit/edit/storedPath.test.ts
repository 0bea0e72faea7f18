// Paths read back from the storage stay inside the workspace folder (issue 36): a checkpoint edited
// after we wrote it (`../victim.txt`, an absolute path, a folder now a link to outside, a created
// folder `../emptydir`, a blob named `../..`) never makes a revert or a run's restore delete or write
// outside the folder; the refusal is reported and every other entry is still restored.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Checkpoint } from '../../../src/core/edit/checkpoint';
import { restoreState, revertRun } from '../../../src/core/edit/restore';
import { checkStoredPath } from '../../../src/core/edit/storedPath';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { HookSession } from '../../../src/core/gate/hookSession';
import type { StepView } from '../../../src/vscode/common/runState';
import { bestContents } from '../../../src/vscode/runFiles';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('edit/storedPath: paths from the storage stay inside the folder', () => {
  let dir: string;
  let root: string;
  let outside: string;
  let cpDir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-stored-'));
    root = path.join(dir, 'ws');
    outside = path.join(dir, 'outside');
    cpDir = path.join(dir, 'storage', 'runs', 'r1', 'checkpoint');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(root, 'src', 'a.ts'), 'original\n');
    writeFileSync(path.join(dir, 'victim.txt'), 'victim\n');
    writeFileSync(path.join(outside, 'x.txt'), 'outside\n');
    mkdirSync(path.join(dir, 'emptydir'));
    symlinkSync(outside, path.join(root, 'src', 'link'), 'dir');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A real checkpoint of a run that wrote src/a.ts, then entries planted in its manifest. */
  async function tampered(): Promise<Checkpoint> {
    const ws = new FsWorkspace(root);
    const cp = await Checkpoint.create(cpDir, 'r1', root);
    await cp.saveBeforeWriteBy(ws, ['src/a.ts']);
    writeFileSync(path.join(root, 'src', 'a.ts'), 'agent\n');
    await cp.recordWrittenBy(ws, ['src/a.ts']);
    const file = path.join(cpDir, 'checkpoint.json');
    const m = JSON.parse(readFileSync(file, 'utf8')) as { entries: unknown[]; createdDirs?: string[] };
    // Each as the run would have created it: a revert "removes" it when its bytes are the run's.
    m.entries.push(
      { path: '../victim.txt', existed: false, last: sha('victim\n') },
      { path: path.join(dir, 'victim.txt'), existed: false, last: sha('victim\n') },
      { path: 'src/link/x.txt', existed: false, last: sha('outside\n') },
      { path: 'src/b.ts', existed: true, blob: '../../../../victim.txt' },
    );
    m.createdDirs = ['../emptydir', 'src/link'];
    writeFileSync(file, JSON.stringify(m));
    return (await Checkpoint.load(cpDir))!;
  }

  function outsideIntact(): void {
    assert.equal(readFileSync(path.join(dir, 'victim.txt'), 'utf8'), 'victim\n');
    assert.equal(readFileSync(path.join(outside, 'x.txt'), 'utf8'), 'outside\n');
    assert.equal(existsSync(path.join(dir, 'emptydir')), true, 'a created folder ../emptydir is not removed');
    assert.equal(existsSync(path.join(root, 'src', 'b.ts')), false, 'a blob outside the checkpoint is never read into the folder');
  }

  it('checkStoredPath refuses .., absolute, backslash and link-escaping paths and accepts the folder\'s own', () => {
    assert.equal(checkStoredPath(root, 'src/a.ts').ok, true);
    assert.equal(checkStoredPath(root, 'src/new/deep/file.ts').ok, true, 'a path not yet existing, under a real folder');
    for (const bad of ['../victim.txt', 'src/../../victim.txt', '/etc/passwd', 'C:/x', '..\\x', '', 'src//a.ts', './a', 'src/link/x.txt', 'src/link/new.txt', 42]) {
      const c = checkStoredPath(root, bad);
      assert.equal(c.ok, false, `refused: ${JSON.stringify(bad)}`);
    }
    symlinkSync(path.join(dir, 'nowhere'), path.join(root, 'dangling'));
    assert.match((checkStoredPath(root, 'dangling/x') as { reason: string }).reason, /broken symbolic link/);
  });

  it('revertRun (revert --run / --session) refuses every planted entry and folder, and still restores src/a.ts', async () => {
    const cp = await tampered();
    const r = await revertRun({ workspace: new FsWorkspace(root), checkpoint: cp });
    outsideIntact();
    assert.equal(readFileSync(path.join(root, 'src', 'a.ts'), 'utf8'), 'original\n', 'the genuine entry is restored');
    assert.deepEqual(r.actions, [{ path: 'src/a.ts', action: 'restored' }]);
    const reasons = r.conflicts.map((c) => `${c.path}: ${c.reason}`).join('\n');
    assert.match(reasons, /\.\.\/victim\.txt: stored path "\.\.\/victim\.txt" leaves the workspace folder/);
    assert.match(reasons, /victim\.txt" is absolute/);
    assert.match(reasons, /src\/link\/x\.txt: stored path "src\/link\/x\.txt" resolves through a symbolic link to .*outside/);
    assert.match(reasons, /src\/b\.ts: .*names a blob that is not a content hash/);
    assert.match(reasons, /\.\.\/emptydir: folder stored path "\.\.\/emptydir" leaves the workspace folder/);
    assert.match(reasons, /src\/link: folder stored path "src\/link" resolves through a symbolic link/);
    assert.equal(cp.reverted, false, 'a revert with refusals is not marked done');
  });

  it("a run's own restore (restoreState) refuses the planted paths too, and restores the rest", async () => {
    const cp = await tampered();
    const target = new Map<string, Uint8Array | null>([['../victim.txt', null]]);
    const r = await restoreState(target, { workspace: new FsWorkspace(root), checkpoint: cp });
    outsideIntact();
    assert.equal(readFileSync(path.join(root, 'src', 'a.ts'), 'utf8'), 'original\n');
    assert.ok(r.conflicts.some((c) => c.path === '../victim.txt' && /leaves the workspace folder/.test(c.reason)), JSON.stringify(r.conflicts));
    assert.ok(r.conflicts.some((c) => c.path === 'src/link/x.txt'), JSON.stringify(r.conflicts));
  });

  it('a hook session record read back drops the paths not of our form, and says so', () => {
    const storageDir = path.join(dir, 'storage');
    const open = (warn?: (l: string) => void): HookSession =>
      HookSession.open({ storageDir, host: 'claude', sessionId: 's1', root, now: new Date(), ...(warn ? { warn } : {}), start: () => ({ model: 'claude', instruction: null, checks: [], limits: { maxSteps: 8, tokenCeiling: 0, timeLimitSeconds: 60 }, settings: {} as never }), verifier: () => ({ commands: [], files: new Map() }) });
    const s = open();
    s.state.touched.push('src/a.ts', '../victim.txt');
    s.state.changedSinceStop.push('src/../../x.txt', 'src/a.ts', 'src/link/x.txt');
    // Folder stamps (`node_modules/`, `node_modules/dep/`) are ours too: kept, never warned about.
    s.state.verifier!.files.push(['/etc/passwd', null], ['package.json', null], ['node_modules/', 'x'], ['node_modules/@s/dep/', 'y'], ['../up/', null]);
    s.save();
    const warned: string[] = [];
    const again = open((l) => warned.push(l));
    assert.deepEqual(again.state.touched, ['src/a.ts']);
    assert.deepEqual(again.state.changedSinceStop, ['src/a.ts', 'src/link/x.txt'], 'read only: a path through a link is kept (a revert resolves its own)');
    assert.deepEqual(again.state.verifier!.files, [['package.json', null], ['node_modules/', 'x'], ['node_modules/@s/dep/', 'y']]);
    assert.equal(warned.length, 4, warned.join('\n'));
    assert.match(warned.join('\n'), /"\.\.\/victim\.txt" leaves the workspace folder/);
  });

  it("Revert to best refuses a run's step snapshot that names a path outside the folder or a snapshot outside the run", async () => {
    await tampered();
    const runDir = path.dirname(cpDir);
    const snap = path.join(runDir, 'steps', '1');
    mkdirSync(path.join(snap, 'after', 'src'), { recursive: true });
    writeFileSync(path.join(snap, 'after', 'src', 'a.ts'), 'step 1\n');
    const step = (files: { path: string; kind: string }[], snapshotDir: string): StepView => ({ index: 1, applied: true, files, snapshotDir, rolledBack: null, restoredToStep: null }) as unknown as StepView;
    const best = await bestContents(runDir, [step([{ path: 'src/a.ts', kind: 'modify' }], snap)], 1);
    assert.equal(Buffer.from(best.get('src/a.ts')!).toString(), 'step 1\n', 'a genuine snapshot is read');
    await assert.rejects(bestContents(runDir, [step([{ path: '../victim.txt', kind: 'modify' }], snap)], 1), /stored path "\.\.\/victim\.txt" leaves the workspace folder/);
    await assert.rejects(bestContents(runDir, [step([{ path: 'src/a.ts', kind: 'modify' }], outside)], 1), /is not inside the run's folder/);
  });
});

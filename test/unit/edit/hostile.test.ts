// Issue 11, edit layer: a write that fails mid-batch, non-regular files, a file where a folder should
// be, folders the run created, and files the user changed after the run wrote them. Real files,
// real FIFOs, a real full file system (tmpfs) and a really unwritable file where the host allows.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApplyResult } from '../../../src/core/edit/apply';
import { applyEdits } from '../../../src/core/edit/apply';
import { Checkpoint } from '../../../src/core/edit/checkpoint';
import { parseReply } from '../../../src/core/edit/parse';
import { restoreState, revertRun } from '../../../src/core/edit/restore';
import { FileTracker } from '../../../src/core/edit/tracker';
import type { FileChange, FsWorkspaceOptions } from '../../../src/core/edit/workspace';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { buildStepContext } from '../../../src/core/model/context';
import { defaultSettings } from '../../../src/core/settings';
import type { Failure } from '../../../src/core/types';
import { REPO } from '../../support/fixtures';
import { fullTreeHash } from './support/tree';

const CLI = path.join(REPO, 'dist', 'cli.js');
const posix = process.platform !== 'win32';

/** Makes a file unwritable for this process: chattr +i as root (root ignores modes), else chmod. */
function lockFile(file: string): boolean {
  try {
    if (process.getuid?.() === 0) execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
    else chmodSync(file, 0o444);
  } catch {
    return false;
  }
  try {
    writeFileSync(file, readFileSync(file), { flag: 'r+' });
    unlockFile(file);
    return false;
  } catch {
    return true;
  }
}

function unlockFile(file: string): void {
  try {
    if (process.getuid?.() === 0) execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
    else chmodSync(file, 0o644);
  } catch {
    // Already gone or never locked.
  }
}

const sr = (file: string, from: string, to: string): string => `${file}\n<<<<<<< SEARCH\n${from}\n=======\n${to}\n>>>>>>> REPLACE\n\n`;

describe('edit/hostile: writes that fail, non-regular files, user edits', function () {
  this.timeout(60_000);
  let dir: string;
  let root: string;
  const locked: string[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-hostile-'));
    root = path.join(dir, 'ws');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(root, 'src/b.ts'), 'export const b = 2;\n');
    writeFileSync(path.join(root, 'src/c.ts'), 'export const c = 3;\n');
  });
  afterEach(() => {
    for (const f of locked.splice(0)) unlockFile(f);
    rmSync(dir, { recursive: true, force: true });
  });

  const text = (rel: string): string => readFileSync(path.join(root, rel), 'utf8');
  const apply = async (reply: string, ws = new FsWorkspace(root), extra: { checkpoint?: Checkpoint; tracker?: FileTracker } = {}): Promise<ApplyResult> => {
    const parsed = parseReply(reply);
    assert.deepEqual(parsed.errors, []);
    return applyEdits(parsed.edits, { workspace: ws, policy: { root }, ...extra });
  };
  // A create in a new folder first, then two modifies: the batch order follows the reply.
  const THREE = sr('lib/new/made.ts', '', 'export const made = true;') + sr('src/a.ts', 'export const a = 1;', 'export const a = 10;') + sr('src/b.ts', 'export const b = 2;', 'export const b = 20;');

  describe('a write that fails part way leaves the tree as it was', () => {
    it('disk full at the third file: the others are put back, new folders removed, {applied:false} with the OS error', async () => {
      const before = fullTreeHash(root);
      const full: FsWorkspaceOptions = {
        onWrite: async (_rel, index, point) => {
          if (index === 2 && point === 'truncated') throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC' });
        },
      };
      const r = await apply(THREE, new FsWorkspace(root, full));
      assert.equal(r.applied, false);
      assert.equal(r.errors.length, 1);
      assert.match(r.errors[0]!, /^the edit was not applied: could not write src\/b\.ts: ENOSPC: no space left on device, write; the 2 file\(s\) already written were put back$/);
      assert.equal(fullTreeHash(root), before, 'a.ts and b.ts as before, lib/new/made.ts and its folders gone');
    });

    it('a really full file system (tmpfs): the first file is put back', async function () {
      if (!posix || process.getuid?.() !== 0) this.skip();
      const mnt = path.join(dir, 'small');
      mkdirSync(mnt);
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { stdio: 'ignore' });
      } catch {
        this.skip();
      }
      try {
        writeFileSync(path.join(mnt, 'a.ts'), 'export const a = 1;\n');
        writeFileSync(path.join(mnt, 'big.ts'), 'export const big = 0;\n');
        const before = fullTreeHash(mnt);
        const huge = Array.from({ length: 20000 }, (_, i) => `export const v${i} = ${i};`).join('\n');
        const parsed = parseReply(sr('a.ts', 'export const a = 1;', 'export const a = 10;') + sr('big.ts', 'export const big = 0;', huge));
        const r = await applyEdits(parsed.edits, { workspace: new FsWorkspace(mnt), policy: { root: mnt } });
        assert.equal(r.applied, false);
        assert.match(r.errors[0]!, /could not write big\.ts: ENOSPC/);
        assert.equal(fullTreeHash(mnt), before);
      } finally {
        execFileSync('umount', [mnt]);
      }
    });

    it('an unwritable second file: the first is put back and the OS error is reported', async function () {
      if (!posix || !lockFile(path.join(root, 'src/b.ts'))) this.skip();
      locked.push(path.join(root, 'src/b.ts'));
      const before = fullTreeHash(root);
      const r = await apply(sr('src/a.ts', 'export const a = 1;', 'export const a = 10;') + sr('src/b.ts', 'export const b = 2;', 'export const b = 20;'));
      assert.equal(r.applied, false);
      assert.match(r.errors[0]!, /could not write src\/b\.ts: (EPERM|EACCES)/);
      assert.equal(fullTreeHash(root), before);
    });

    it('rollback keeps going past a file it cannot put back, names it, and the checkpoint owns what was left', async function () {
      if (!posix) this.skip();
      const b = path.join(root, 'src/b.ts');
      const hook: FsWorkspaceOptions = {
        onWrite: async (_rel, index, point) => {
          if (index !== 3 || point !== 'before') return;
          // b.ts was written; now it cannot be written again, and the third write fails.
          if (!lockFile(b)) throw Object.assign(new Error('SKIP'), { code: 'SKIP' });
          locked.push(b);
          throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
        },
      };
      const storage = path.join(dir, 'storage');
      const cp = await Checkpoint.create(path.join(storage, 'cp'), 'r1', root);
      const r = await apply(THREE + sr('src/c.ts', 'export const c = 3;', 'export const c = 30;'), new FsWorkspace(root, hook), { checkpoint: cp });
      if (r.errors[0]?.includes('SKIP')) this.skip();
      assert.equal(r.applied, false);
      assert.match(r.errors[0]!, /could not write src\/c\.ts: EIO: i\/o error, write; 1 file\(s\) already written could NOT be put back: src\/b\.ts \((EPERM|EACCES)/);
      assert.deepEqual(r.unrestored?.map((u) => u.path), ['src/b.ts']);
      assert.equal(text('src/a.ts'), 'export const a = 1;\n', 'a.ts was still put back');
      assert.equal(existsSync(path.join(root, 'lib')), false, 'the created file and folders are gone');
      assert.equal(text('src/b.ts'), 'export const b = 20;\n');
      unlockFile(b);
      // What the failed batch left is the run's: a revert restores it.
      const rv = await revertRun({ workspace: new FsWorkspace(root), checkpoint: (await Checkpoint.load(path.join(storage, 'cp')))! });
      assert.deepEqual(rv.conflicts, []);
      assert.equal(text('src/b.ts'), 'export const b = 2;\n');
    });
  });

  describe('non-regular files and folders in the way', () => {
    it('`apply` on a reply naming a FIFO returns at once with a JSON error', function () {
      if (!posix) this.skip();
      execFileSync('mkfifo', [path.join(root, 'src/pipe.ts')]);
      const p = spawnSync(process.execPath, [CLI, 'apply', '--cwd', root, '--storage', path.join(dir, 'storage')], {
        input: sr('src/pipe.ts', 'x', 'y'),
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(p.signal, null, 'it did not hang');
      assert.equal(p.status, 1, p.stderr);
      const out = JSON.parse(p.stdout) as { applied: boolean; files: unknown[]; errors: string[] };
      assert.equal(out.applied, false);
      assert.match(out.errors.join('\n'), /src\/pipe\.ts is a FIFO \(named pipe\), not a regular file/);
      assert.equal(out.errors.length, 1);
    });

    it('`apply` refuses a path through a file and a path that is a folder, as JSON, exit 1, no stack', () => {
      const before = fullTreeHash(root);
      for (const [reply, re] of [
        [sr('src/a.ts/b.ts', '', 'x'), /src\/a\.ts\/b\.ts cannot be created: src\/a\.ts is a file, not a folder/],
        [`--- /dev/null\n+++ b/src/a.ts/deep/c.ts\n@@ -0,0 +1 @@\n+x\n`, /src\/a\.ts\/deep\/c\.ts cannot be created: src\/a\.ts is a file/],
        [`--- a/src\n+++ b/src\n@@ -1 +1 @@\n-a\n+b\n`, /src is a directory, not a regular file/],
      ] as const) {
        const p = spawnSync(process.execPath, [CLI, 'apply', '--cwd', root, '--storage', path.join(dir, 'storage')], { input: reply, encoding: 'utf8', timeout: 20_000 });
        assert.equal(p.status, 1, `${reply}\n${p.stderr}`);
        const out = JSON.parse(p.stdout) as { applied: boolean; errors: string[] };
        assert.equal(out.applied, false);
        assert.match(out.errors[0]!, re);
        assert.doesNotMatch(p.stdout + p.stderr, /\n\s+at /, 'no stack trace');
      }
      assert.equal(fullTreeHash(root), before);
    });

    it('the step prompt, read through Workspace.read, leaves a FIFO out instead of waiting on it', async function () {
      if (!posix) this.skip();
      execFileSync('mkfifo', [path.join(root, 'src/pipe.ts')]);
      const ws = new FsWorkspace(root);
      const warnings: string[] = [];
      const failure = (file: string): Failure => ({ check: 'test', file, line: 1, id: file, message: `failed at ${file}` });
      const ctx = await buildStepContext({
        step: 1,
        settings: defaultSettings(),
        failures: [failure('src/pipe.ts'), failure('src/a.ts')],
        editedFiles: [],
        postMortems: [],
        readText: async (rel) => {
          const b = await ws.read(rel);
          return b === undefined ? undefined : Buffer.from(b).toString('utf8');
        },
        logger: { info: () => undefined, warn: (m) => warnings.push(m), error: () => undefined, debug: () => undefined },
      });
      assert.ok(ctx.files.includes('src/a.ts'));
      assert.ok(!ctx.files.includes('src/pipe.ts'));
      assert.match(warnings.join('\n'), /src\/pipe\.ts cannot be read \(src\/pipe\.ts is a FIFO/);
    });

    it('a hard-linked file is refused before anything is written', async () => {
      writeFileSync(path.join(dir, 'outside.ts'), 'export const a = 1;\n');
      rmSync(path.join(root, 'src/a.ts'));
      linkSync(path.join(dir, 'outside.ts'), path.join(root, 'src/a.ts'));
      const r = await apply(sr('src/b.ts', 'export const b = 2;', 'export const b = 20;') + sr('src/a.ts', 'export const a = 1;', 'export const a = 10;'));
      assert.equal(r.applied, false);
      assert.match(r.errors[0]!, /src\/a\.ts has 2 hard links; writing it in place would change the same file under its other names/);
      assert.equal(readFileSync(path.join(dir, 'outside.ts'), 'utf8'), 'export const a = 1;\n');
      assert.equal(text('src/b.ts'), 'export const b = 2;\n');
    });
  });

  describe('revert and punt leave the tree exactly as before', () => {
    it('removes only the empty folders the run created, and a rename keeps the mode', async () => {
      writeFileSync(path.join(root, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
      chmodSync(path.join(root, 'run.sh'), 0o755);
      mkdirSync(path.join(root, 'empty-before'));
      const before = fullTreeHash(root);
      const storage = path.join(dir, 'storage');
      const cp = await Checkpoint.create(path.join(storage, 'cp'), 'r1', root);
      const ws = new FsWorkspace(root);
      const r = await apply(
        sr('lib/a/b/new.ts', '', 'export {};') + sr('empty-before/x.ts', '', 'x') + 'diff --git a/run.sh b/tools/run.sh\nsimilarity index 100%\nrename from run.sh\nrename to tools/run.sh\n',
        ws,
        { checkpoint: cp },
      );
      assert.deepEqual(r.errors, []);
      assert.equal(statSync(path.join(root, 'tools/run.sh')).mode & 0o777, 0o755, 'the renamed file keeps its mode');
      // Punt: every touched file back to its original.
      const back = await restoreState(new Map(), { workspace: ws, checkpoint: cp });
      assert.deepEqual(back.conflicts, []);
      assert.equal(fullTreeHash(root), before, 'lib/, lib/a/, lib/a/b/ and tools/ gone; empty-before/ kept');
    });

    it('revert restores every file it can when one cannot be written, and reports that one', async function () {
      if (!posix) this.skip();
      const storage = path.join(dir, 'storage');
      const cp = await Checkpoint.create(path.join(storage, 'cp'), 'r1', root);
      const ws = new FsWorkspace(root);
      const r = await apply(sr('src/a.ts', 'export const a = 1;', 'export const a = 10;') + sr('src/b.ts', 'export const b = 2;', 'export const b = 20;') + sr('src/c.ts', 'export const c = 3;', 'export const c = 30;'), ws, { checkpoint: cp });
      assert.deepEqual(r.errors, []);
      if (!lockFile(path.join(root, 'src/b.ts'))) this.skip();
      locked.push(path.join(root, 'src/b.ts'));
      const rv = await revertRun({ workspace: ws, checkpoint: cp });
      assert.deepEqual(rv.conflicts.map((c) => c.path), ['src/b.ts']);
      assert.match(rv.conflicts[0]!.reason, /src\/b\.ts could not be restored: could not write src\/b\.ts: (EPERM|EACCES)/);
      assert.ok(readFileSync(rv.conflicts[0]!.runVersionAt!, 'utf8').includes('b = 20'));
      assert.deepEqual(rv.actions.map((a) => a.path), ['src/a.ts', 'src/c.ts']);
      assert.equal(text('src/a.ts'), 'export const a = 1;\n');
      assert.equal(text('src/c.ts'), 'export const c = 3;\n');
      assert.equal(cp.reverted, false);
    });

    it('revert keeps a created folder that now holds the user\'s file', async () => {
      const storage = path.join(dir, 'storage');
      const cp = await Checkpoint.create(path.join(storage, 'cp'), 'r1', root);
      const ws = new FsWorkspace(root);
      assert.deepEqual((await apply(sr('lib/a/new.ts', '', 'export {};'), ws, { checkpoint: cp })).errors, []);
      writeFileSync(path.join(root, 'lib/mine.ts'), 'mine\n');
      const rv = await revertRun({ workspace: ws, checkpoint: cp });
      assert.deepEqual(rv.conflicts, []);
      assert.equal(existsSync(path.join(root, 'lib/a')), false);
      assert.equal(text('lib/mine.ts'), 'mine\n');
    });
  });

  describe('a file the user changed after the run wrote it is never overwritten', () => {
    const setup = async (): Promise<{ ws: FsWorkspace; cp: Checkpoint; tracker: FileTracker; runBytes: Buffer }> => {
      const ws = new FsWorkspace(root);
      const cp = await Checkpoint.create(path.join(dir, 'storage', 'cp'), 'r1', root);
      const tracker = new FileTracker(ws);
      const r = await apply(sr('src/a.ts', 'export const a = 1;', 'export const a = 10;'), ws, { checkpoint: cp, tracker });
      assert.deepEqual(r.errors, []);
      return { ws, cp, tracker, runBytes: readFileSync(path.join(root, 'src/a.ts')) };
    };

    it('punt/rollback/keep-best: even when the run read the user\'s text since, the user\'s bytes stay and the run\'s version is kept', async () => {
      const { ws, cp, tracker, runBytes } = await setup();
      writeFileSync(path.join(root, 'src/a.ts'), 'user\n');
      // The next prompt shows the model the user's text: that is no licence to overwrite it.
      tracker.noteRead('src/a.ts', readFileSync(path.join(root, 'src/a.ts')));
      for (const target of [new Map<string, Uint8Array | null>(), new Map<string, Uint8Array | null>([['src/a.ts', Buffer.from('best\n')]])]) {
        const r = await restoreState(target, { workspace: ws, checkpoint: cp, tracker });
        assert.deepEqual(r.actions, []);
        assert.deepEqual(r.conflicts.map((c) => c.path), ['src/a.ts']);
        assert.equal(text('src/a.ts'), 'user\n');
        const c = r.conflicts[0]!;
        assert.ok(c.runVersionAt && c.runVersionAt.startsWith(cp.dir), String(c.runVersionAt));
        assert.ok(readFileSync(c.runVersionAt).equals(runBytes), 'the run\'s version is kept');
        assert.equal(readFileSync(c.originalAt!, 'utf8'), 'export const a = 1;\n');
      }
    });

    it('revert: the conflict names where the run\'s version is kept', async () => {
      const { ws, cp, runBytes } = await setup();
      writeFileSync(path.join(root, 'src/a.ts'), 'user\n');
      const r = await revertRun({ workspace: ws, checkpoint: cp });
      assert.equal(text('src/a.ts'), 'user\n');
      assert.equal(r.conflicts.length, 1);
      assert.ok(readFileSync(r.conflicts[0]!.runVersionAt!).equals(runBytes));
    });

    it('an edit: a save between computing it and writing it is kept, and nothing is written', async () => {
      class SavesFirst extends FsWorkspace {
        override async apply(changes: readonly FileChange[]): Promise<void> {
          writeFileSync(path.join(root, 'src/b.ts'), 'saved meanwhile\n');
          return super.apply(changes);
        }
      }
      const r = await apply(sr('src/a.ts', 'export const a = 1;', 'export const a = 10;') + sr('src/b.ts', 'export const b = 2;', 'export const b = 20;'), new SavesFirst(root));
      assert.equal(r.applied, false);
      assert.match(r.errors[0]!, /src\/b\.ts changed on disk since it was checked; it was not overwritten; the 1 file\(s\) already written were put back/);
      assert.equal(text('src/b.ts'), 'saved meanwhile\n');
      assert.equal(text('src/a.ts'), 'export const a = 1;\n');
    });

    it('a save between the check and the write is not overwritten (restore and revert)', async () => {
      const { cp, tracker } = await setup();
      /** The user saves a.ts right after the restore checked it and before the write. */
      class SavesFirst extends FsWorkspace {
        override async apply(changes: readonly FileChange[]): Promise<void> {
          if (changes.some((c) => c.path === 'src/a.ts')) writeFileSync(path.join(root, 'src/a.ts'), 'saved meanwhile\n');
          return super.apply(changes);
        }
      }
      const ws = new SavesFirst(root);
      const r = await restoreState(new Map(), { workspace: ws, checkpoint: cp, tracker });
      assert.equal(text('src/a.ts'), 'saved meanwhile\n');
      assert.deepEqual(r.actions, []);
      assert.match(r.conflicts[0]!.reason, /src\/a\.ts changed on disk while it was being restored/);
      assert.ok(r.conflicts[0]!.runVersionAt);

      writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 10;\n');
      const rv = await revertRun({ workspace: ws, checkpoint: cp });
      assert.equal(text('src/a.ts'), 'saved meanwhile\n');
      assert.equal(rv.conflicts.length, 1);
      assert.equal(cp.reverted, false);
    });
  });
});

// Every file we write whole goes through one primitive (issue 36): never through a link planted at
// the target's or a temporary name, the target's mode kept, a read-only file refused. The writers of
// the storage (a checkpoint's manifest and blobs, a hook session's record, the trace, the run lock)
// use it, so a link planted in the storage is never written through either.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendFileNoFollow, ReadOnlyFile, writeFileAtomic } from '../../../src/core/atomicWrite';
import { Checkpoint } from '../../../src/core/edit/checkpoint';
import { acquireRunLock } from '../../../src/core/edit/runLock';
import { contentHash } from '../../../src/core/edit/tracker';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { NotRegularFile } from '../../../src/core/fileText';
import { HookSession } from '../../../src/core/gate/hookSession';
import { TraceWriter } from '../../../src/core/trace/trace';

describe('atomicWrite and the writers that use it', () => {
  let dir: string;
  let outside: string;
  const PRECIOUS = "the user's own file\n";
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-aw-'));
    outside = path.join(dir, 'outside.txt');
    writeFileSync(outside, PRECIOUS);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces a link at the target instead of writing through it, and leaves no temporary file', () => {
    const file = path.join(dir, 'record.json');
    symlinkSync(outside, file);
    writeFileAtomic(file, '{"ok":true}');
    assert.ok(lstatSync(file).isFile());
    assert.equal(readFileSync(file, 'utf8'), '{"ok":true}');
    assert.equal(readFileSync(outside, 'utf8'), PRECIOUS);
    assert.deepEqual(readdirSync(dir).sort(), ['outside.txt', 'record.json']);
  });

  it("keeps an existing file's mode, refuses a read-only one (never replaced), and a FIFO is an error, not a hang", () => {
    const file = path.join(dir, 'settings.json');
    writeFileSync(file, 'a');
    chmodSync(file, 0o600);
    writeFileAtomic(file, 'b');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    chmodSync(file, 0o444);
    const ino = statSync(file).ino;
    assert.throws(() => writeFileAtomic(file, 'c'), ReadOnlyFile);
    assert.equal(readFileSync(file, 'utf8'), 'b');
    assert.equal(statSync(file).ino, ino);
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    assert.throws(() => writeFileAtomic(fifo, 'x'), NotRegularFile);
    assert.throws(() => appendFileNoFollow(fifo, 'x'), NotRegularFile);
    const link = path.join(dir, 'trace.jsonl');
    symlinkSync(outside, link);
    assert.throws(() => appendFileNoFollow(link, 'x'), NotRegularFile);
    assert.equal(readFileSync(outside, 'utf8'), PRECIOUS);
  });

  it("a checkpoint's manifest and blobs, a hook session's record, the trace and the run lock never write through a planted link", async () => {
    const root = path.join(dir, 'ws');
    mkdirSync(root);
    writeFileSync(path.join(root, 'a.ts'), 'export const a = 1;\n');
    const cpDir = path.join(dir, 'storage', 'runs', 'r1', 'checkpoint');
    mkdirSync(path.join(cpDir, 'blobs'), { recursive: true });
    // The names a writer could be expected to use: the old fixed temporary names, the blob's hash.
    symlinkSync(outside, path.join(cpDir, 'checkpoint.json.tmp'));
    symlinkSync(outside, path.join(cpDir, 'checkpoint.json'));
    symlinkSync(outside, path.join(cpDir, 'blobs', contentHash(Buffer.from('export const a = 1;\n'))!));
    const cp = await Checkpoint.create(cpDir, 'r1', root);
    await cp.saveBeforeWriteBy(new FsWorkspace(root), ['a.ts']);
    await cp.markFinished();
    assert.equal(readFileSync(outside, 'utf8'), PRECIOUS, 'checkpoint');
    assert.equal(Buffer.from((await cp.original('a.ts'))!).toString(), 'export const a = 1;\n');

    const storageDir = path.join(dir, 'storage2');
    const runDir = path.join(storageDir, 'runs');
    mkdirSync(runDir, { recursive: true });
    const open = (): HookSession =>
      HookSession.open({
        storageDir,
        host: 'claude',
        sessionId: 's1',
        root,
        now: new Date(0),
        start: () => ({ instruction: 'x', checks: [], settings: {} }) as never,
        verifier: () => ({ commands: [], files: new Map() }),
      });
    // Find the session's folder, then plant links at the names its writers use.
    const first = open();
    rmSync(first.dir, { recursive: true, force: true });
    mkdirSync(first.dir, { recursive: true });
    symlinkSync(outside, path.join(first.dir, `hook-session.json.${process.pid}.tmp`));
    symlinkSync(outside, path.join(first.dir, 'trace.jsonl'));
    assert.throws(() => open(), NotRegularFile, 'the trace is never appended through a link');
    assert.equal(readFileSync(outside, 'utf8'), PRECIOUS, 'session');
    rmSync(path.join(first.dir, 'trace.jsonl'));
    const s = open();
    s.save();
    assert.ok(lstatSync(path.join(first.dir, 'hook-session.json')).isFile());
    assert.equal(readFileSync(outside, 'utf8'), PRECIOUS, 'session');

    const trace = path.join(dir, 'trace', 'run.jsonl');
    const tw = new TraceWriter(trace);
    symlinkSync(outside, trace);
    assert.throws(() => tw.write({ type: 'run-end' } as never, new Date(0)), NotRegularFile);
    assert.equal(readFileSync(outside, 'utf8'), PRECIOUS, 'trace');

    const lockEnv = { ...process.env, HOME: path.join(dir, 'home'), XDG_CACHE_HOME: path.join(dir, 'cache') };
    const got = acquireRunLock(root, { runId: 'r1', frontEnd: 'cli' } as never, lockEnv);
    assert.ok(got.ok, 'the run lock is taken');
    if (got.ok) {
      const lockFile = got.lock.path;
      rmSync(lockFile);
      symlinkSync(outside, lockFile);
      got.lock.update({ runId: 'r2' } as never);
      assert.ok(lstatSync(lockFile).isFile());
      got.lock.release();
    }
    assert.equal(readFileSync(outside, 'utf8'), PRECIOUS, 'run lock');
  });
});

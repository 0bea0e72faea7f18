// The file-system Workspace: small files are read and written at once, anything else as before.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsWorkspace } from '../../../src/core/edit/workspace';

describe('edit/workspace (file system)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fug-ws-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads small and large files byte for byte, and a missing one as undefined', async () => {
    const ws = new FsWorkspace(root);
    const small = Buffer.from('export const a = 1;\r\n\uFEFF✓\n');
    const large = Buffer.alloc(3 * 1024 * 1024 + 7, 'x');
    large.write('head', 0);
    large.write('tail', large.length - 4);
    writeFileSync(path.join(root, 'small.ts'), small);
    writeFileSync(path.join(root, 'large.txt'), large);
    writeFileSync(path.join(root, 'empty.ts'), '');
    assert.ok(Buffer.from((await ws.read('small.ts'))!).equals(small));
    assert.ok(Buffer.from((await ws.read('large.txt'))!).equals(large));
    assert.equal((await ws.read('empty.ts'))!.length, 0);
    assert.equal(await ws.read('missing.ts'), undefined);
    await assert.rejects(ws.read('.'), /EISDIR/);
  });

  it('refuses a FIFO, a socket, a device and a folder at once, for reading and writing, never opening them', async function () {
    if (process.platform === 'win32') this.skip();
    execFileSync('mkfifo', [path.join(root, 'pipe.ts')]);
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(path.join(root, 'sock.ts'), r));
    mkdirSync(path.join(root, 'dir.ts'));
    symlinkSync('/dev/zero', path.join(root, 'zero.ts'));
    const ws = new FsWorkspace(root);
    const started = Date.now();
    try {
      await assert.rejects(ws.read('pipe.ts'), /pipe\.ts is a FIFO \(named pipe\), not a regular file/);
      await assert.rejects(ws.read('sock.ts'), /sock\.ts is a socket/);
      await assert.rejects(ws.read('zero.ts'), /zero\.ts is a character device/);
      await assert.rejects(ws.read('dir.ts'), /dir\.ts is a directory.*EISDIR/);
      for (const rel of ['pipe.ts', 'sock.ts', 'dir.ts']) {
        await assert.rejects(ws.apply([{ path: rel, content: Buffer.from('x') }]), new RegExp(`could not write ${rel.replace('.', '\\.')}: ${rel.replace('.', '\\.')} is a`));
      }
      assert.match((await ws.whyNotWritable('pipe.ts'))!, /FIFO/);
    } finally {
      server.close();
    }
    assert.ok(Date.now() - started < 5000, 'nothing blocked');
    assert.equal(lstatSync(path.join(root, 'pipe.ts')).isFIFO(), true, 'the FIFO is left as it was');
  });

  it('reads a file below a file as absent, and refuses to create it with a clear reason', async () => {
    writeFileSync(path.join(root, 'a.ts'), 'x');
    const ws = new FsWorkspace(root);
    assert.equal(await ws.read('a.ts/b.ts'), undefined);
    assert.match((await ws.whyNotWritable('a.ts/b.ts'))!, /a\.ts\/b\.ts cannot be created: a\.ts is a file, not a folder/);
    await assert.rejects(ws.apply([{ path: 'a.ts/b.ts', content: Buffer.from('y') }]), /could not write a\.ts\/b\.ts: a\.ts\/b\.ts cannot be created/);
  });

  it('never writes a file that has other hard links', async () => {
    writeFileSync(path.join(root, 'outside.ts'), 'original\n');
    linkSync(path.join(root, 'outside.ts'), path.join(root, 'linked.ts'));
    const ws = new FsWorkspace(root);
    assert.match((await ws.whyNotWritable('linked.ts'))!, /linked\.ts has 2 hard links/);
    await assert.rejects(ws.apply([{ path: 'linked.ts', content: Buffer.from('changed\n') }]), /hard links/);
    assert.equal(readFileSync(path.join(root, 'outside.ts'), 'utf8'), 'original\n');
  });

  it('writes, creates folders, keeps or sets the mode, and deletes, as one batch', async () => {
    const ws = new FsWorkspace(root);
    writeFileSync(path.join(root, 'run.sh'), 'echo old\n', { mode: 0o755 });
    writeFileSync(path.join(root, 'gone.ts'), 'x');
    await ws.apply([
      { path: 'run.sh', content: Buffer.from('echo new\n') },
      { path: 'deep/new/file.ts', content: Buffer.from('export {};\n'), mode: 0o600 },
      { path: 'gone.ts', content: null },
    ]);
    assert.equal(readFileSync(path.join(root, 'run.sh'), 'utf8'), 'echo new\n');
    assert.equal(statSync(path.join(root, 'run.sh')).mode & 0o777, 0o755, 'an edit keeps the mode');
    assert.equal(readFileSync(path.join(root, 'deep/new/file.ts'), 'utf8'), 'export {};\n');
    assert.equal(statSync(path.join(root, 'deep/new/file.ts')).mode & 0o777, 0o600);
    assert.equal(existsSync(path.join(root, 'gone.ts')), false);
  });
});

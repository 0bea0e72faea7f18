// The file-system Workspace: small files are read and written at once, anything else as before.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

  it('does not block on a FIFO that has no writer', async function () {
    if (process.platform === 'win32') this.skip();
    execFileSync('mkfifo', [path.join(root, 'pipe.ts')]);
    const ws = new FsWorkspace(root);
    const read = ws.read('pipe.ts');
    // The event loop stays free: a timer fires while the read waits for a writer.
    const ticked = await Promise.race([new Promise((r) => setTimeout(() => r('ticked'), 50)), read.then(() => 'read')]);
    assert.equal(ticked, 'ticked');
    // Let the pending read finish, so the test leaves nothing behind.
    writeFileSync(path.join(root, 'pipe.ts'), 'x');
    await read;
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

// The step diff reads its sides through our own URI scheme; the URI round-trips to the snapshot
// file and refuses to name anything outside the snapshot.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSnapshotUri, SNAPSHOT_SCHEME, snapshotRefFile, snapshotUriParts } from '../../../src/vscode/snapshotRef';

describe('step snapshot URIs', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-snap-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is not the file scheme a language server checks', () => {
    assert.notEqual(SNAPSHOT_SCHEME, 'file');
    assert.match(SNAPSHOT_SCHEME, /^[a-z][a-z0-9+.-]*$/);
  });

  it('round-trips to the snapshot file, keeping the file name and extension in the path', () => {
    const snap = path.join(dir, 'step-2 (x)&y=1');
    mkdirSync(path.join(snap, 'after', 'src'), { recursive: true });
    writeFileSync(path.join(snap, 'after', 'src', 'cart.ts'), 'export const x = 1;\n');
    const parts = snapshotUriParts({ dir: snap, side: 'after', rel: 'src/cart.ts' });
    assert.equal(parts.path, '/src/cart.ts');
    const back = parseSnapshotUri(parts.path, parts.query);
    assert.deepEqual(back, { dir: snap, side: 'after', rel: 'src/cart.ts' });
    assert.equal(readFileSync(snapshotRefFile(back!), 'utf8'), 'export const x = 1;\n');
  });

  it('refuses a URI that leaves the snapshot or names no side', () => {
    const q = (side: string, d = dir): string => new URLSearchParams({ dir: d, side }).toString();
    assert.equal(parseSnapshotUri('/../../etc/passwd', q('before')), undefined);
    assert.equal(parseSnapshotUri('/src/./a.ts', q('before')), undefined);
    assert.equal(parseSnapshotUri('/src/a.ts', q('middle')), undefined);
    assert.equal(parseSnapshotUri('/src/a.ts', q('after', 'relative/dir')), undefined);
    assert.equal(parseSnapshotUri('/', q('after')), undefined);
  });
});

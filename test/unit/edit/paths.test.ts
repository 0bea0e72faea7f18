import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveEditPath } from '../../../src/core/edit/paths';

describe('edit/paths', () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-paths-'));
    root = path.join(dir, 'ws');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    mkdirSync(path.join(dir, 'outside'));
    writeFileSync(path.join(root, 'src', 'a.ts'), '');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const check = (p: string, forbiddenDirs?: string[]): string => {
    const r = resolveEditPath(p, { root, ...(forbiddenDirs ? { forbiddenDirs } : {}) });
    return r.ok ? `ok:${r.rel}` : r.reason;
  };

  it('accepts workspace-relative paths, normalizing separators', () => {
    assert.equal(check('src/a.ts'), 'ok:src/a.ts');
    assert.equal(check('./src/../src/new.ts'), 'ok:src/new.ts');
    assert.equal(check('src\\a.ts'), 'ok:src/a.ts');
    assert.equal(check('"src/a.ts"'), 'ok:src/a.ts');
  });

  it('refuses absolute, escaping and home-relative paths with the reason', () => {
    assert.match(check('/etc/passwd'), /absolute path/);
    assert.match(check('C:\\Windows\\x.ts'), /absolute path/);
    assert.match(check('~/x.ts'), /absolute path/);
    assert.match(check('../outside/x.ts'), /escapes the workspace/);
    assert.match(check('src/../../x.ts'), /escapes the workspace/);
    assert.match(check('.'), /escapes the workspace/);
  });

  it('refuses .git, node_modules and the run storage, also reached through symlinks', () => {
    assert.match(check('.git/HEAD'), /inside \.git/);
    assert.match(check('pkg/node_modules/x/index.js'), /inside node_modules/);
    const storage = path.join(root, '.store');
    assert.match(check('.store/runs/x.json', [storage]), /run's storage/);
    symlinkSync(storage, path.join(root, 'st'));
    mkdirSync(storage);
    assert.match(check('st/runs/x.json', [storage]), /run's storage/);
    mkdirSync(path.join(root, '.git'));
    symlinkSync('.git', path.join(root, 'gitlink'));
    assert.match(check('gitlink/config'), /into \.git\//);
  });

  it('refuses symlinks out of the workspace, broken ones, and symlinked files', () => {
    symlinkSync(path.join(dir, 'outside'), path.join(root, 'out'));
    assert.match(check('out/x.ts'), /resolves through a symlink to outside the workspace/);
    symlinkSync('../nowhere', path.join(root, 'broken'));
    assert.match(check('broken/x.ts'), /broken symbolic link \(broken -> \.\.\/nowhere\)/);
    symlinkSync('a.ts', path.join(root, 'src', 'alias.ts'));
    assert.match(check('src/alias.ts'), /is a symbolic link; edit the file it points to \(src\/a\.ts\)/);
    symlinkSync(path.join(root, 'src'), path.join(root, 'srclink'));
    // A folder symlink that stays inside is fine: the file is named by where the write lands, and the written name is kept for the rules.
    assert.equal(check('srclink/a.ts'), 'ok:src/a.ts');
    assert.deepEqual(resolveEditPath('srclink/a.ts', { root }), { ok: true, rel: 'src/a.ts', asWritten: 'srclink/a.ts' });
  });

  it('names the file where the write lands: a folder link, a file not yet made under it, `..` taken from the link\'s target', () => {
    mkdirSync(path.join(root, 'test'));
    writeFileSync(path.join(root, 'test', 'a.test.ts'), '');
    symlinkSync('../test', path.join(root, 'src', 'specs'));
    assert.deepEqual(resolveEditPath('src/specs/a.test.ts', { root }), { ok: true, rel: 'test/a.test.ts', asWritten: 'src/specs/a.test.ts' });
    assert.deepEqual(resolveEditPath('./src/specs/new.test.ts', { root }), { ok: true, rel: 'test/new.test.ts', asWritten: 'src/specs/new.test.ts' });
    // The OS resolves `specs/..` from the link's target (the folder holding test/), not lexically (src/).
    writeFileSync(path.join(root, 'b.ts'), '');
    assert.deepEqual(resolveEditPath('src/specs/../b.ts', { root }), { ok: true, rel: 'b.ts', asWritten: 'src/b.ts' });
    // A link deeper in, whose `..` climbs out of the workspace, is refused though the written path stays inside.
    mkdirSync(path.join(dir, 'outside', 'deep'), { recursive: true });
    symlinkSync(path.join(dir, 'outside', 'deep'), path.join(root, 'src', 'deep'));
    assert.match(check('src/deep/../x.ts'), /resolves through a symlink to outside the workspace/);
    // A link loop is refused with the reason, never followed forever.
    symlinkSync('loop2', path.join(root, 'loop1'));
    symlinkSync('loop1', path.join(root, 'loop2'));
    assert.match(check('loop1/x.ts'), /symbolic link|cannot be resolved/);
  });
});

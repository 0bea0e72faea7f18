import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyEdits, writeComputed } from '../../../src/core/edit/apply';
import { FileTracker } from '../../../src/core/edit/tracker';
import type { ApplyResult } from '../../../src/core/edit/apply';
import { parseReply } from '../../../src/core/edit/parse';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { treeHash } from '../../support/fixtures';

describe('edit/apply', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fug-apply-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const put = (rel: string, content: string | Buffer): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  };
  const get = (rel: string): string => readFileSync(path.join(root, rel), 'utf8');
  const run = async (reply: string, dryRun = false): Promise<ApplyResult> => {
    const parsed = parseReply(reply);
    assert.deepEqual(parsed.errors, []);
    return applyEdits(parsed.edits, { workspace: new FsWorkspace(root), policy: { root }, dryRun });
  };

  const FN = ['function a() {', '  return 1;', '}', '', 'function b() {', '  return 2;', '}', ''].join('\n');

  it('applies a hunk whose line numbers are stale', async () => {
    put('x.ts', '// header\n// more\n\n' + FN);
    const r = await run('--- a/x.ts\n+++ b/x.ts\n@@ -5,3 +5,3 @@\n function b() {\n-  return 2;\n+  return 3;\n }\n');
    assert.deepEqual(r.errors, []);
    assert.equal(get('x.ts'), '// header\n// more\n\n' + FN.replace('return 2', 'return 3'));
    assert.deepEqual(r.files, [{ path: 'x.ts', kind: 'modify', added: 1, removed: 1 }]);
  });

  it('keeps CRLF endings, the BOM and a missing final newline', async () => {
    const crlf = '\uFEFF' + FN.replace(/\n/g, '\r\n').replace(/\r\n$/, '');
    put('x.ts', crlf);
    const r = await run('x.ts\n<<<<<<< SEARCH\n  return 1;\n}\n=======\n  return 1 + 0;\n}\n>>>>>>> REPLACE\n');
    assert.deepEqual(r.errors, []);
    assert.equal(get('x.ts'), crlf.replace('return 1;', 'return 1 + 0;'));
  });

  it('lets the new text decide the final newline where an edit reaches the end of the file', async () => {
    const noEol = FN.replace(/\n$/, '');
    put('x.ts', noEol);
    await run('x.ts\n<<<<<<< SEARCH\n  return 2;\n}\n=======\n  return 3;\n}\n>>>>>>> REPLACE\n');
    assert.equal(get('x.ts'), FN.replace('return 2', 'return 3'), 'a REPLACE ends with a newline: the file gets one');
    put('y.ts', noEol);
    await run('--- a/y.ts\n+++ b/y.ts\n@@ -6,2 +6,2 @@\n-  return 2;\n+  return 3;\n }\n\\ No newline at end of file\n');
    assert.equal(get('y.ts'), noEol.replace('return 2', 'return 3'), 'a diff that says so keeps none');
    put('z.ts', FN);
    await run('--- a/z.ts\n+++ b/z.ts\n@@ -6,2 +6,2 @@\n-  return 2;\n+  return 3;\n }\n\\ No newline at end of file\n');
    assert.equal(get('z.ts'), noEol.replace('return 2', 'return 3'), 'and drops one the file had');
  });

  it('never duplicates the BOM a model copied into its edit, and keeps the file\'s own', async () => {
    put('b.ts', '\uFEFFexport const A = 1;\nexport const B = 2;\n');
    await run('b.ts\n<<<<<<< SEARCH\n\uFEFFexport const A = 1;\n=======\n\uFEFFexport const A = 10;\n>>>>>>> REPLACE\n');
    assert.equal(readFileSync(path.join(root, 'b.ts')).toString('hex').match(/efbbbf/g)?.length, 1);
    assert.equal(get('b.ts'), '\uFEFFexport const A = 10;\nexport const B = 2;\n');
    await run('--- a/b.ts\n+++ b/b.ts\n@@ -1,2 +1,2 @@\n-\uFEFFexport const A = 10;\n+\uFEFFexport const A = 11;\n export const B = 2;\n');
    assert.equal(get('b.ts'), '\uFEFFexport const A = 11;\nexport const B = 2;\n');
    // A model that leaves the BOM out of its edit still leaves it in the file.
    await run('b.ts\n<<<<<<< SEARCH\nexport const A = 11;\n=======\nexport const A = 12;\n>>>>>>> REPLACE\n');
    assert.equal(get('b.ts'), '\uFEFFexport const A = 12;\nexport const B = 2;\n');
  });

  it('appends an empty SEARCH\'s REPLACE to an existing file, unless it repeats the file', async () => {
    put('a.ts', 'export const A = 1;');
    const r = await run('a.ts\n<<<<<<< SEARCH\n=======\nexport const B = 2;\n>>>>>>> REPLACE\n');
    assert.deepEqual(r.files, [{ path: 'a.ts', kind: 'modify', added: 1, removed: 0 }]);
    assert.equal(get('a.ts'), 'export const A = 1;\nexport const B = 2;\n');
    const before = treeHash(root);
    const parsed = parseReply('a.ts\n<<<<<<< SEARCH\n=======\nexport const A = 1;\nexport const B = 2;\nexport const C = 3;\n>>>>>>> REPLACE\n');
    const again = await applyEdits(parsed.edits, { workspace: new FsWorkspace(root), policy: { root } });
    assert.equal(again.applied, false);
    assert.match(again.errors[0]!, /a\.ts: the search\/replace block at reply line 1 has an empty SEARCH, which appends its REPLACE to the end of the file, but the REPLACE repeats 2 of the file's 2 lines \(the first: `export const A = 1;`\): adding them again would duplicate them/);
    assert.equal(treeHash(root), before, 'refused: byte-identical');
  });

  it('places an insertion with no context after the line its `-N,0` header names, and refuses one without', async () => {
    put('i.ts', 'a\nb\nc\n');
    await run('--- a/i.ts\n+++ b/i.ts\n@@ -2,0 +3,2 @@\n+x\n+y\n@@ -3,0 +6 @@\n+z\n');
    assert.equal(get('i.ts'), 'a\nb\nx\ny\nc\nz\n');
    await run('--- a/i.ts\n+++ b/i.ts\n@@ -0,0 +1 @@\n+// top\n');
    assert.equal(get('i.ts'), '// top\na\nb\nx\ny\nc\nz\n');
    const before = treeHash(root);
    for (const [hunk, why] of [
      ['@@ -3,2 +3,3 @@\n+w\n', /has no context or removed lines, and its header gives no `-N,0` line to insert after/],
      ['@@ -40,0 +41 @@\n+w\n', /inserts after line 40 \(its header `@@ -40,0 \+41 @@`\), but the file has only 7 lines/],
    ] as const) {
      const parsed = parseReply(`--- a/i.ts\n+++ b/i.ts\n${hunk}`);
      const r = await applyEdits(parsed.edits, { workspace: new FsWorkspace(root), policy: { root } });
      assert.equal(r.applied, false);
      assert.match(r.errors[0]!, why);
    }
    assert.equal(treeHash(root), before);
  });

  it('appends an Aider `@@ ... @@` hunk of added lines only, unless the file already holds them', async () => {
    put('i.ts', 'a();\nb();\n');
    const r = await run('--- a/i.ts\n+++ b/i.ts\n@@ ... @@\n+c();\n+d();\n');
    assert.deepEqual(r.errors, []);
    assert.equal(get('i.ts'), 'a();\nb();\nc();\nd();\n');
    const before = treeHash(root);
    for (const header of ['@@ ... @@', '@@ -3,0 +4,2 @@']) {
      const parsed = parseReply(`--- a/i.ts\n+++ b/i.ts\n${header}\n+b();\n+ c();\n`);
      const again = await applyEdits(parsed.edits, { workspace: new FsWorkspace(root), policy: { root } });
      assert.equal(again.applied, false, header);
      assert.match(again.errors[0]!, /has no context lines, and what it adds (?:repeats 2 of the file's 4 lines|holds lines the file already has, in this order) \(the first: `b\(\);`\): adding them again would duplicate them/);
    }
    // An empty SEARCH appends the same way, and is refused the same way.
    const sr = parseReply('i.ts\n<<<<<<< SEARCH\n=======\nc();\n>>>>>>> REPLACE\n');
    const dup = await applyEdits(sr.edits, { workspace: new FsWorkspace(root), policy: { root } });
    assert.match(dup.errors[0]!, /has an empty SEARCH, which appends its REPLACE to the end of the file, but the REPLACE holds lines the file already has, in this order \(the first: `c\(\);`\)/);
    assert.equal(treeHash(root), before);
    // A lone brace is no evidence of a duplicate.
    assert.deepEqual((await run('--- a/i.ts\n+++ b/i.ts\n@@ ... @@\n+}\n')).errors, []);
  });

  it('re-indents added lines relative to the nearest quoted line, in the file\'s unit, when no single rule maps the indentation', async () => {
    // A tab-indented file; the hunk quotes it with 4-space levels and adds a level none of its lines has.
    put('t.ts', 'export class T {\n\trun(): void {\n\t\tthis.step();\n\t}\n}\n');
    const r = await run('--- a/t.ts\n+++ b/t.ts\n@@ ... @@\n     run(): void {\n         this.step();\n+        if (this.done) {\n+            return;\n+        }\n     }\n');
    assert.deepEqual(r.errors, []);
    assert.equal(get('t.ts'), 'export class T {\n\trun(): void {\n\t\tthis.step();\n\t\tif (this.done) {\n\t\t\treturn;\n\t\t}\n\t}\n}\n');
    // Added lines above every quoted line take their depth from the first one below.
    put('u.ts', 'class U {\n\tm() {\n\t\treturn 1;\n\t}\n}\n');
    const top = await run('u.ts\n<<<<<<< SEARCH\n  m() {\n    return 1;\n  }\n=======\n  // m is one\n  m() {\n    if (!this) {\n      return 0;\n    }\n    return 1;\n  }\n>>>>>>> REPLACE\n');
    assert.deepEqual(top.errors, []);
    assert.equal(get('u.ts'), 'class U {\n\t// m is one\n\tm() {\n\t\tif (!this) {\n\t\t\treturn 0;\n\t\t}\n\t\treturn 1;\n\t}\n}\n');
  });

  it('creates a file a diff names on both sides with one `@@ -0,0` hunk of added lines', async () => {
    const r = await run('--- a/src/new.ts\n+++ b/src/new.ts\n@@ -0,0 +1,2 @@\n+export const N = 1;\n+export const M = 2;\n');
    assert.deepEqual(r.files, [{ path: 'src/new.ts', kind: 'create', added: 2, removed: 0 }]);
    assert.equal(get('src/new.ts'), 'export const N = 1;\nexport const M = 2;\n');
  });

  it('matches despite whitespace differences and re-indents the added lines', async () => {
    put('x.ts', 'class C {\n    m() {\n        return 1;\n    }\n}\n');
    const r = await run('x.ts\n<<<<<<< SEARCH\nm() {\n    return 1;\n}\n=======\nm() {\n    const v = 1;\n    return v;\n}\n>>>>>>> REPLACE\n');
    assert.deepEqual(r.errors, []);
    assert.equal(get('x.ts'), 'class C {\n    m() {\n        const v = 1;\n        return v;\n    }\n}\n');
  });

  it('tolerates an altered context line within the fuzz bound, keeping the file\'s line', async () => {
    put('x.ts', FN);
    const r = await run('--- a/x.ts\n+++ b/x.ts\n@@ -4,4 +4,4 @@\n \n function b() { // second\n-  return 2;\n+  return 3;\n }\n');
    assert.deepEqual(r.errors, []);
    assert.equal(get('x.ts'), FN.replace('return 2', 'return 3'));
  });

  it('refuses two equally good places and writes nothing', async () => {
    put('x.ts', 'if (a) {\n  go();\n}\nif (b) {\n  go();\n}\n');
    const before = treeHash(root);
    const r = await run('x.ts\n<<<<<<< SEARCH\n  go();\n=======\n  stop();\n>>>>>>> REPLACE\n');
    assert.equal(r.applied, false);
    assert.match(r.errors[0]!, /matches 2 places equally well \(lines 2, 5\)/);
    assert.equal(treeHash(root), before);
  });

  it('refuses "..." elisions in the search text with a clear message', async () => {
    put('x.ts', FN);
    const r = await run('x.ts\n<<<<<<< SEARCH\nfunction a() {\n  // ...\n}\n=======\nfunction a() {\n  return 0;\n}\n>>>>>>> REPLACE\n');
    assert.equal(r.applied, false);
    assert.match(r.errors[0]!, /elision/);
  });

  it('names the closest region and why it was rejected', async () => {
    put('x.ts', FN);
    const r = await run('--- a/x.ts\n+++ b/x.ts\n@@ -1,3 +1,3 @@\n function a() {\n-  return 10;\n+  return 11;\n }\n');
    assert.equal(r.applied, false);
    assert.match(r.errors[0]!, /x\.ts: hunk 1 of 1/);
    assert.match(r.errors[0]!, /Closest region: lines 1-3/);
    assert.match(r.errors[0]!, /removes `return 10;` but line 2 there is `return 1;`/);
  });

  it('creates, deletes and renames files, atomically with a failing edit', async () => {
    put('old.ts', 'export const o = 1;\n');
    put('gone.ts', 'x\n');
    put('keep.ts', FN);
    const good = '--- /dev/null\n+++ b/new.ts\n@@ -0,0 +1 @@\n+export const n = 1;\n--- a/gone.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n--- a/old.ts\n+++ b/moved.ts\n@@ -1 +1 @@\n-export const o = 1;\n+export const o = 2;\n';
    const bad = '--- a/keep.ts\n+++ b/keep.ts\n@@ -1,2 +1,2 @@\n-function zzz() {\n+function yyy() {\n   return 1;\n';
    const before = treeHash(root);
    const refused = await run(good + bad);
    assert.equal(refused.applied, false);
    assert.equal(treeHash(root), before);
    const r = await run(good);
    assert.deepEqual(r.errors, []);
    assert.equal(get('new.ts'), 'export const n = 1;\n');
    assert.equal(existsSync(path.join(root, 'gone.ts')), false);
    assert.equal(existsSync(path.join(root, 'old.ts')), false);
    assert.equal(get('moved.ts'), 'export const o = 2;\n');
    assert.deepEqual(r.files.map((f) => [f.path, f.kind]).sort(), [['gone.ts', 'delete'], ['moved.ts', 'create'], ['new.ts', 'create'], ['old.ts', 'delete']]);
  });

  it('refuses binary files', async () => {
    put('img.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    const r = await run('img.bin\n<<<<<<< SEARCH\nPNG\n=======\nJPG\n>>>>>>> REPLACE\n');
    assert.match(r.errors[0]!, /binary/);
  });

  it('applies search/replace blocks in order, each on the result of the one before', async () => {
    put('x.ts', FN);
    const r = await run('x.ts\n<<<<<<< SEARCH\n  return 1;\n=======\n  return 10;\n>>>>>>> REPLACE\n\nx.ts\n<<<<<<< SEARCH\n  return 10;\n}\n\nfunction b() {\n=======\n  return 10;\n}\n\nexport function b() {\n>>>>>>> REPLACE\n');
    assert.deepEqual(r.errors, []);
    assert.equal(get('x.ts'), FN.replace('return 1;', 'return 10;').replace('function b', 'export function b'));
  });

  it('dry-run computes the result and writes nothing', async () => {
    put('x.ts', FN);
    const before = treeHash(root);
    const r = await run('x.ts\n<<<<<<< SEARCH\n  return 1;\n=======\n  return 10;\n>>>>>>> REPLACE\n', true);
    assert.equal(r.applied, false);
    assert.deepEqual(r.errors, []);
    assert.equal(r.files.length, 1);
    assert.equal(treeHash(root), before);
  });

  it('keeps each line\'s own ending in a mixed-ending file; new lines take the majority ending', async () => {
    put('x.ts', 'a\r\nb\nc\r\nd\r\n');
    const r = await run('x.ts\n<<<<<<< SEARCH\nc\n=======\nc\nc2\n>>>>>>> REPLACE\n');
    assert.deepEqual(r.errors, []);
    assert.equal(get('x.ts'), 'a\r\nb\nc\r\nc2\r\nd\r\n');
  });

  it('creates a file without a final newline when the diff says so', async () => {
    const r = await run('--- /dev/null\n+++ b/n.ts\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n');
    assert.deepEqual(r.errors, []);
    assert.equal(get('n.ts'), 'one\ntwo');
  });
  describe('writing what a dry run computed', () => {
    const REPLY = '--- a/x.ts\n+++ b/x.ts\n@@ -5,3 +5,3 @@\n function b() {\n-  return 2;\n+  return 3;\n }\n';
    const opts = (): Parameters<typeof writeComputed>[1] => {
      const workspace = new FsWorkspace(root);
      return { workspace, policy: { root }, tracker: new FileTracker(workspace) };
    };

    it('writes the dry run\'s changes without computing them again', async () => {
      put('x.ts', FN);
      const o = opts();
      const dry = await applyEdits(parseReply(REPLY).edits, { ...o, dryRun: true });
      assert.equal(get('x.ts'), FN, 'a dry run writes nothing');
      const r = await writeComputed(dry, o);
      assert.equal(r.applied, true);
      assert.equal(get('x.ts'), FN.replace('return 2', 'return 3'));
      await assert.rejects(writeComputed(r, o), /already written/);
    });

    it('refuses, writing nothing, when the file changed after the dry run read it', async () => {
      put('x.ts', FN);
      const o = opts();
      const dry = await applyEdits(parseReply(REPLY).edits, { ...o, dryRun: true });
      put('x.ts', FN + '// typed by the user meanwhile\n');
      const r = await writeComputed(dry, o);
      assert.equal(r.applied, false);
      assert.deepEqual(r.conflicts, ['x.ts']);
      assert.match(r.errors[0]!, /x\.ts changed on disk while the edit was being prepared; it was not overwritten/);
      assert.equal(get('x.ts'), FN + '// typed by the user meanwhile\n');
    });
  });
});

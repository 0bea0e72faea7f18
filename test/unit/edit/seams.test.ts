// Blank lines at an edit's edges: the file's blank-line structure at each seam is kept, in every
// edit format; blank lines an edit means (inside it, or where the file had none) are written.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyEdits } from '../../../src/core/edit/apply';
import { parseReply } from '../../../src/core/edit/parse';
import { FsWorkspace } from '../../../src/core/edit/workspace';

describe('edit/seams: blank lines where an edit meets the file', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fug-seams-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** Applies `reply` to a file `f.ts` holding `before`; returns the file's text after. */
  const after = async (before: string | null, reply: string): Promise<string> => {
    mkdirSync(root, { recursive: true });
    if (before !== null) writeFileSync(path.join(root, 'f.ts'), before);
    const parsed = parseReply(reply);
    assert.deepEqual(parsed.errors, []);
    const r = await applyEdits(parsed.edits, { workspace: new FsWorkspace(root), policy: { root } });
    assert.deepEqual(r.errors, []);
    return readFileSync(path.join(root, 'f.ts'), 'utf8');
  };
  const sr = (search: string, replace: string): string => `f.ts\n<<<<<<< SEARCH\n${search}\n=======\n${replace === '' ? '' : `${replace}\n`}>>>>>>> REPLACE\n`;
  const FILE = 'a();\n\nb();\n\nc();\n';

  it('search/replace: adds no blank line to a seam the file already separates, at its start or its end', async () => {
    assert.equal(await after(FILE, sr('b();', 'b2();\n')), 'a();\n\nb2();\n\nc();\n', 'bottom');
    assert.equal(await after(FILE, sr('b();', '\nb2();')), 'a();\n\nb2();\n\nc();\n', 'top');
    assert.equal(await after(FILE, sr('c();', 'c2();\nd();\n')), 'a();\n\nb();\n\nc2();\nd();\n', 'the end of the file');
    assert.equal(await after(FILE, sr('a();', '\na2();')), 'a2();\n\nb();\n\nc();\n', 'the start of the file');
  });

  it('search/replace: never glues its text to the next or previous line the file kept apart', async () => {
    assert.equal(await after(FILE, sr('b();\n', 'b2();')), 'a();\n\nb2();\n\nc();\n', 'bottom');
    assert.equal(await after(FILE, sr('\nb();', 'b2();')), 'a();\n\nb2();\n\nc();\n', 'top');
  });

  it('search/replace: writes the blank lines it means', async () => {
    assert.equal(await after('a();\nb();\n', sr('a();', 'a();\n')), 'a();\n\nb();\n', 'a separation the file lacked');
    assert.equal(await after('a();\n\n\nb();\n', sr('a();\n', 'a();')), 'a();\n\nb();\n', 'one of two blank lines removed');
    assert.equal(await after(FILE, sr('b();\n', '')), 'a();\n\nc();\n', 'a deletion with its blank line');
    assert.equal(await after(FILE, sr('b();', 'b();\n\nb2();')), 'a();\n\nb();\n\nb2();\n\nc();\n', 'blank lines inside the edit');
  });

  it('unified diff: the same rule at a hunk edge with no context', async () => {
    const diff = (body: string): string => `--- a/f.ts\n+++ b/f.ts\n@@ -3 +3,3 @@\n${body}\n`;
    assert.equal(await after(FILE, diff('-b();\n+b2();\n+')), 'a();\n\nb2();\n\nc();\n');
    assert.equal(await after(FILE, diff(' b();\n+b2();')), 'a();\n\nb();\nb2();\n\nc();\n', 'explicit lines are written as given');
  });

  it('whole file: blank lines at the fence edges are the fence\'s; the file keeps its final newline or its lack', async () => {
    assert.equal(await after(FILE, 'f.ts\n```ts\n\na();\n\nb2();\n\nc();\n\n```\n'), 'a();\n\nb2();\n\nc();\n');
    assert.equal(await after(null, 'f.ts\n```ts\nn();\n\n```\n'), 'n();\n', 'a new file');
    assert.equal(await after('\n// lead\nx();\n\n', 'f.ts\n```ts\n\n// lead\nx2();\n\n```\n'), '\n// lead\nx2();\n\n', 'the file\'s own edge blank lines');
    assert.equal(await after('x();', 'f.ts\n```ts\nx2();\n```\n'), 'x2();', 'no final newline');
  });
});

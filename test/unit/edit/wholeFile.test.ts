import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyEdits } from '../../../src/core/edit/apply';
import { parseReply } from '../../../src/core/edit/parse';
import { proseLeadPath, strictPathLine } from '../../../src/core/edit/pathLines';
import { elidesCode } from '../../../src/core/edit/wholeFile';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { treeHash } from '../../support/fixtures';

describe('edit/wholeFile', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fug-whole-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const put = (rel: string, content: string): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  };
  const apply = async (reply: string): Promise<{ applied: boolean; errors: string[] }> => {
    const parsed = parseReply(reply);
    if (parsed.errors.length > 0) return { applied: false, errors: parsed.errors };
    return applyEdits(parsed.edits, { workspace: new FsWorkspace(root), policy: { root } });
  };

  it('takes a path line only when it names one file and says nothing else', () => {
    for (const [line, want] of [
      ['src/a.ts', 'src/a.ts'],
      ['**src/a.ts**', 'src/a.ts'],
      ['### `src/a.ts`', 'src/a.ts'],
      ['- `src/a.ts`:', 'src/a.ts'],
      ['File: src/a.ts', 'src/a.ts'],
      ['Here is the updated `src/a.ts`:', 'src/a.ts'],
      ['README.md:', 'README.md'],
      ['<summary>File: src/a.ts</summary>', 'src/a.ts'],
      ['In `src/a.ts`, `add` is wrong:', null],
      ['Run `npm test`:', null],
      ['Then run `node scripts/b.mjs`:', null],
      ['python', null],
      ['```python', null],
      ['Version 1.2.3', null],
      ['See https://example.com/a.ts', null],
    ] as const) {
      assert.equal(strictPathLine(line), want, line);
    }
  });

  it('knows a comment standing in for code, with or without dots, and leaves real comments alone', () => {
    for (const l of ['// ... existing code ...', '/* rest unchanged */', '// rest of the file unchanged', '# existing imports', '// (unchanged)', '{/* other components */}', '<!-- rest of the file -->']) {
      assert.equal(elidesCode(l), true, l);
    }
    for (const l of ['// rest of the array is copied', '// existing users are migrated below', '// Remaining items are processed in batches', 'const rest = others;', '...rest,']) {
      assert.equal(elidesCode(l), false, l);
    }
  });

  it('reads whole files only from a reply with no other edit, and never a path-less fence', () => {
    const whole = 'src/a.ts\n```ts\nexport const A = 2;\n```\n';
    assert.deepEqual(parseReply(whole).edits.map((e) => e.kind), ['whole-file']);
    const withSr = `${whole}\nsrc/b.ts\n<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n`;
    assert.deepEqual(parseReply(withSr).edits.map((e) => e.kind), ['search-replace']);
    assert.deepEqual(parseReply('Like this:\n\n```ts\nexport const A = 2;\n```\n').edits, []);
    assert.deepEqual(parseReply('Run `npm test`:\n```sh\nnpm test\n```\n').edits, []);
  });

  it('writes a Markdown file whose code samples hold elision-looking comments; refuses its own `<!-- rest -->`', async () => {
    const doc = '# Use\n\n```ts\n// ... existing code ...\nrun();\n```\n';
    const ok = await apply(`README.md\n\`\`\`\`markdown\n${doc}\`\`\`\`\n`);
    assert.deepEqual(ok.errors, []);
    assert.equal(readFileSync(path.join(root, 'README.md'), 'utf8'), doc);
    const elided = await apply('README.md\n````markdown\n# Use\n\n<!-- rest of the file -->\n````\n');
    assert.match(elided.errors[0]!, /README\.md: the whole-file block for README\.md at reply line 1 elides code with `<!-- rest of the file -->`/);
    const code = await apply('src/a.ts\n```ts\n// ... existing code ...\nrun();\n```\n');
    assert.match(code.errors[0]!, /elides code with `\/\/ \.\.\. existing code \.\.\.`/);
  });

  it('takes the path a sentence before the fence ends with, only when it names one file whole', () => {
    for (const [line, want] of [
      ['The fixed component, in `client/src/App.js`:', 'client/src/App.js'],
      ['in `client/src/App.js`:', 'client/src/App.js'],
      ['Here is the updated src/x.ts:', 'src/x.ts'],
      ['Everything together, **`src/App.tsx`**:', 'src/App.tsx'],
      ['In `src/a.ts`, `add` is wrong:', null],
      ['Add this to `src/a.ts`:', null],
      ['Change the function in `src/a.ts`:', null],
      ['Update `src/a.ts` and `src/b.ts`:', null],
      ['Then run node scripts/b.mjs:', null],
      ['Run `npm test`:', null],
      ['Version 1.2.3:', null],
    ] as const) {
      assert.equal(proseLeadPath(line), want, line);
    }
    const r = parseReply('The whole module, in `src/a.ts`:\n\n```ts\nexport const A = 2;\n```\n');
    assert.deepEqual(r.edits.map((e) => [e.kind, e.newPath]), [['whole-file', 'src/a.ts']]);
  });

  it('refuses a sentence-named block that holds less than half the file, however small the file', async () => {
    put('src/a.ts', 'export const A = 1;\nexport const B = 2;\nexport const C = 3;\n');
    const r = await apply('The module, in `src/a.ts`:\n```ts\nexport const A = 2;\n```\n');
    assert.equal(r.applied, false);
    assert.match(r.errors[0]!, /holds 1 non-blank lines where the file has 3: it looks like a fragment/);
    assert.equal(readFileSync(path.join(root, 'src/a.ts'), 'utf8'), 'export const A = 1;\nexport const B = 2;\nexport const C = 3;\n');
  });

  it('finds a file named by its basename alone when exactly one file has it, and refuses naming the candidates when several do', async () => {
    put('client/src/App.js', 'export const app = 1;\n');
    put('server/index.js', 'export const server = 1;\n');
    put('client/index.js', 'export const client = 1;\n');
    const one = await apply('./App.js\n```js\nexport const app = 2;\n```\n');
    assert.deepEqual(one.errors, []);
    assert.equal(readFileSync(path.join(root, 'client/src/App.js'), 'utf8'), 'export const app = 2;\n');
    const before = treeHash(root);
    const two = await apply('index.js\n```js\nexport const x = 2;\n```\n');
    assert.equal(two.applied, false);
    assert.match(two.errors[0]!, /index\.js: the whole-file block at reply line 1 names the file by its basename alone, and 2 files have that name \(client\/index\.js, server\/index\.js\)/);
    assert.equal(treeHash(root), before);
    // The same lookup serves a search/replace block and a diff, which can only mean an existing file.
    const sr = await apply('App.js\n<<<<<<< SEARCH\nexport const app = 2;\n=======\nexport const app = 3;\n>>>>>>> REPLACE\n');
    assert.deepEqual(sr.errors, []);
    const diff = await apply('--- a/App.js\n+++ b/App.js\n@@ -1 +1 @@\n-export const app = 3;\n+export const app = 4;\n');
    assert.deepEqual(diff.errors, []);
    assert.equal(readFileSync(path.join(root, 'client/src/App.js'), 'utf8'), 'export const app = 4;\n');
    // No file of that name: a whole file creates it where it says.
    assert.deepEqual((await apply('util.js\n```js\nexport const u = 1;\n```\n')).errors, []);
    assert.equal(readFileSync(path.join(root, 'util.js'), 'utf8'), 'export const u = 1;\n');
  });

  it('keeps a README\'s own fenced examples inside it, and takes the later of two blocks for one file', () => {
    const r = parseReply('README.md\n````markdown\n# Demo\n\n### `scripts/setup.sh`\n\n```sh\nnpm ci\n```\n````\n');
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.edits.map((e) => e.newPath), ['README.md']);
    const twice = parseReply('src/a.ts\n```ts\nA\n```\n\nsrc/b.ts\n```ts\nC\n```\n\nActually:\n\nsrc/a.ts\n```ts\nB\n```\n');
    assert.deepEqual(twice.errors, []);
    assert.deepEqual(twice.edits.map((e) => [e.newPath, e.kind === 'whole-file' ? e.content : []]), [['src/b.ts', ['C']], ['src/a.ts', ['B']]]);
    const part = parseReply('src/a.ts\n```ts\nA\nB\nC\n```\n\nThe key line:\n\nsrc/a.ts\n```ts\nB\n```\n');
    assert.deepEqual(part.edits, []);
    assert.match(part.errors[0]!, /two blocks for src\/a\.ts \(reply lines 1 and 10\), the later holding 1 of the earlier's 3 lines: it looks like a part shown again/);
    const cut = parseReply('src/a.ts\n```ts\nexport const A = 2;\nexport fun');
    assert.match(cut.errors[0]!, /the whole-file block for src\/a\.ts at reply line 1 runs to the end of the reply in a fence that is never closed/);
  });

  it('writes the file exactly, keeping its BOM and line endings; refusals leave every byte', async () => {
    put('src/a.ts', '\uFEFFexport const A = 1;\r\nexport const B = 2;\r\n');
    const r = await apply('`src/a.ts`\n```ts\n\uFEFFexport const A = 1;\nexport const B = 3;\n```\n');
    assert.deepEqual(r.errors, []);
    assert.equal(readFileSync(path.join(root, 'src/a.ts'), 'utf8'), '\uFEFFexport const A = 1;\r\nexport const B = 3;\r\n');
    put('src/big.ts', Array.from({ length: 20 }, (_, i) => `export const V${i} = ${i};\n`).join(''));
    const before = treeHash(root);
    const frag = await apply('src/big.ts\n```ts\nexport const V3 = 30;\n```\n');
    assert.equal(frag.applied, false);
    assert.match(frag.errors[0]!, /holds 1 non-blank lines where the file has 20: it looks like a fragment/);
    const elided = await apply('src/big.ts\n```ts\nexport const V0 = 0;\n// ... existing code ...\nexport const V19 = 190;\n```\n');
    assert.equal(elided.applied, false);
    assert.equal(treeHash(root), before);
  });
});

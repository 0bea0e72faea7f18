import * as assert from 'node:assert/strict';
import { parseReply } from '../../../src/core/edit/parse';
import { cleanPathLine, fenceInfoPath } from '../../../src/core/edit/pathLines';
import type { FilePatch, SearchReplaceEdit } from '../../../src/core/edit/parse';

describe('edit/parse', () => {
  it('finds a fenced unified diff and strips a/ b/ prefixes', () => {
    const r = parseReply(['STATUS: in_progress', 'Here is the fix:', '```diff', '--- a/src/x.ts', '+++ b/src/x.ts', '@@ -1,2 +1,2 @@', ' a', '-b', '+c', '```', 'Done.'].join('\n'));
    assert.deepEqual(r.errors, []);
    assert.equal(r.edits.length, 1);
    const e = r.edits[0] as FilePatch;
    assert.equal(e.kind, 'diff');
    assert.equal(e.oldPath, 'src/x.ts');
    assert.equal(e.newPath, 'src/x.ts');
    assert.deepEqual(e.hunks[0]!.lines, [{ op: ' ', text: 'a' }, { op: '-', text: 'b' }, { op: '+', text: 'c' }]);
    assert.equal(e.hunks[0]!.oldStart, 1);
  });

  it('reads a bare diff with miscounted headers and several files', () => {
    const r = parseReply(['--- x.ts', '+++ x.ts', '@@ -10,9 +10,3 @@', ' a', '-b', '+c', '--- /dev/null', '+++ b/new.ts', '@@ -0,0 +1 @@', '+hello', '--- a/old.ts', '+++ /dev/null', 'Prose after.'].join('\n'));
    assert.deepEqual(r.errors, []);
    assert.deepEqual(
      r.edits.map((e) => [e.oldPath, e.newPath]),
      [['x.ts', 'x.ts'], [null, 'new.ts'], ['old.ts', null]],
    );
  });

  it('treats unmarked lines inside a fenced hunk as context whose space got lost', () => {
    const r = parseReply(['```diff', '--- a/x.ts', '+++ b/x.ts', '@@ -1,3 +1,3 @@', 'function f() {', '-  return 1;', '+  return 2;', '}', '```'].join('\n'));
    const e = r.edits[0] as FilePatch;
    assert.deepEqual(e.hunks[0]!.lines.map((l) => l.op), [' ', '-', '+', ' ']);
  });

  it('keeps blank context lines inside a hunk but not the blank line before prose', () => {
    const r = parseReply(['--- a/x.ts', '+++ b/x.ts', '@@ -1,4 +1,4 @@', ' a', '', '-b', '+c', '', 'That is all.'].join('\n'));
    const e = r.edits[0] as FilePatch;
    assert.deepEqual(e.hunks[0]!.lines, [{ op: ' ', text: 'a' }, { op: ' ', text: '' }, { op: '-', text: 'b' }, { op: '+', text: 'c' }]);
  });

  it('parses search/replace blocks with decorated path lines, fenced or not', () => {
    const reply = [
      'STATUS: in_progress',
      '**src/a.ts**',
      '```ts',
      '<<<<<<< SEARCH',
      'const a = 1;',
      '=======',
      'const a = 2;',
      '>>>>>>> REPLACE',
      '```',
      '',
      'src/b.ts:',
      '<<<<<<< SEARCH',
      '=======',
      'export const b = 1;',
      '>>>>>>> REPLACE',
    ].join('\r\n');
    const r = parseReply(reply);
    assert.deepEqual(r.errors, []);
    const [a, b] = r.edits as SearchReplaceEdit[];
    assert.equal(a!.newPath, 'src/a.ts');
    assert.deepEqual(a!.search, ['const a = 1;']);
    assert.deepEqual(a!.replace, ['const a = 2;']);
    assert.equal(b!.newPath, 'src/b.ts');
    assert.deepEqual(b!.search, []);
  });

  it('reports a hunk with no file header and an unterminated block', () => {
    assert.match(parseReply('@@ -1 +1 @@\n-a\n+b\n').errors[0]!, /no `--- a\/path`/);
    assert.match(parseReply('x.ts\n<<<<<<< SEARCH\na\n=======\nb\n').errors[0]!, /not terminated/);
  });

  it('ignores prose-only and empty replies', () => {
    assert.deepEqual(parseReply(''), { edits: [], errors: [] });
    assert.deepEqual(parseReply('STATUS: blocked\nI cannot fix this --- sorry.\n'), { edits: [], errors: [] });
  });

  it('honours editFormat', () => {
    const sr = 'a.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n';
    const diff = '--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-a\n+b\n';
    assert.match(parseReply(sr, 'diff').errors[0]!, /editFormat is "diff"/);
    assert.match(parseReply(diff, 'search-replace').errors[0]!, /editFormat is "search-replace"/);
    assert.equal(parseReply(sr + '\n' + diff, 'auto').edits.length, 2);
  });

  it('reads git headers: new, deleted and renamed files', () => {
    const r = parseReply(
      [
        'diff --git a/gone.ts b/gone.ts',
        'deleted file mode 100644',
        'index 123..000',
        'diff --git a/from.ts b/to.ts',
        'similarity index 100%',
        'rename from from.ts',
        'rename to to.ts',
        'diff --git a/empty.ts b/empty.ts',
        'new file mode 100644',
      ].join('\n'),
    );
    assert.deepEqual(r.errors, []);
    assert.deepEqual(
      r.edits.map((e) => [e.oldPath, e.newPath]),
      [['gone.ts', null], ['from.ts', 'to.ts'], [null, 'empty.ts']],
    );
  });

  it('cleans decorated path lines down to the path', () => {
    for (const [line, want] of [
      ['**src/a.ts**', 'src/a.ts'],
      ['### `src/a.ts`', 'src/a.ts'],
      ['File: src/a.ts', 'src/a.ts'],
      ['src/a.ts:', 'src/a.ts'],
      ['Update `src/my file.ts`:', 'src/my file.ts'],
      ['In src/a.ts, change the helper:', 'src/a.ts'],
      ['// src/a.ts', 'src/a.ts'],
    ] as const) {
      assert.equal(cleanPathLine(line), want, line);
    }
    assert.equal(cleanPathLine('Here is the change'), null);
  });

  it('refuses a hunk the reply ends inside of (cut off by the output limit), naming file, hunk and counts', () => {
    const cut = '```diff\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n x\n-a\n+b\n--- a/src/b.ts\n+++ b/src/b.ts\n@@ -10,6 +10,6 @@\n one\n-two\n';
    const r = parseReply(cut);
    assert.deepEqual(r.errors, [
      'src/b.ts: hunk 1 (reply line 10, `@@ -10,6 +10,6 @@`) promises 6 old and 6 new line(s), but the reply ends after 2 old and 1 new: it looks cut off, so nothing was applied. Send the complete edit (smaller hunks if the reply is long)',
    ]);
    assert.deepEqual(r.edits.map((e) => e.newPath), ['src/a.ts'], 'only the cut-off patch is refused; the reply is refused by its error');
    // Miscounted headers in a complete reply stay tolerated, and so do blank context lines the end trimmed.
    assert.deepEqual(parseReply('```diff\n--- a/a.ts\n+++ b/a.ts\n@@ -1,9 +1,9 @@\n x\n-a\n+b\n```\n').errors, []);
    assert.deepEqual(parseReply('--- a/a.ts\n+++ b/a.ts\n@@ -1,4 +1,4 @@\n x\n-a\n+b\n y\n\n').errors, []);
    assert.deepEqual(parseReply('--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n x\n-a\n+b\n y\n\nDone.\n').errors, []);
  });

  it('does not take a diff shown in a fence of another language for an edit', () => {
    const diff = '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n x\n-a\n+b\n y\n';
    for (const lang of ['ts', 'js', 'typescript', 'python']) {
      const r = parseReply(`Like this:\n\n\`\`\`${lang}\n${diff}\`\`\`\n`);
      assert.deepEqual(r.edits, [], lang);
      assert.deepEqual(r.errors, [`the diff for src/a.ts at reply line 4 is inside a \`\`\`${lang} fence, so it is shown as ${lang} code, not proposed as an edit; nothing was applied. Put a diff meant to be applied in a \`\`\`diff fence (or none)`]);
    }
    for (const lang of ['diff', 'patch', '', 'DIFF']) assert.deepEqual(parseReply(`\`\`\`${lang}\n${diff}\`\`\`\n`).errors, [], lang);
    // A search/replace block in a language fence is still an edit.
    assert.equal(parseReply('```ts\nsrc/a.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n').edits.length, 1);
  });
  it('never takes a fence\'s language for a path; takes a path from a fence\'s info string', () => {
    const sr = '<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n';
    for (const lead of ['**src/App.jsx**\n```jsx\nsrc/App.jsx\n```jsx\n', '```jsx\nsrc/App.jsx\n```\n```jsx\n', 'src/App.jsx\n```jsx\n', '```jsx src/App.jsx\n', '```typescript:src/App.jsx\n']) {
      const r = parseReply(lead + sr);
      assert.deepEqual(r.errors, [], lead);
      assert.deepEqual(r.edits.map((e) => e.newPath), ['src/App.jsx'], lead);
    }
    for (const lang of ['python', 'jsx', 'css', 'c++', 'objective-c', '']) assert.equal(fenceInfoPath(lang), null, lang);
    assert.equal(fenceInfoPath('ts title="src/a.ts"'), 'src/a.ts');
    assert.equal(fenceInfoPath('Makefile.am'), 'Makefile.am');
  });

  it('reads a ```diff fence nested in a ```markdown fence as an edit, and nothing in a diff body as a fence', () => {
    const diff = '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n x\n-a\n+b\n y\n';
    for (const outer of ['```markdown', '````markdown', '```md']) {
      const close = outer.startsWith('````') ? '````' : '```';
      const r = parseReply(`${outer}\n# Fix\n\n\`\`\`diff\n${diff}\`\`\`\n${close}\n`);
      assert.deepEqual(r.errors, [], outer);
      assert.equal(r.edits.length, 1, outer);
    }
    // A context line that is a fence in the edited markdown file stays a context line.
    const md = parseReply('```diff\n--- a/README.md\n+++ b/README.md\n@@ -1,4 +1,4 @@\n ```ts\n-a\n+b\n ```\n```\n');
    assert.deepEqual(md.errors, []);
    assert.deepEqual((md.edits[0] as FilePatch).hunks[0]!.lines.map((l) => l.op + l.text), [' ```ts', '-a', '+b', ' ```']);
  });

  it('refuses a reply the provider cut off (its stop reason), whatever its edits look like', () => {
    const whole = '```diff\n--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n x\n-a\n+b\n y\n```\n';
    for (const stopReason of ['length', 'max_tokens', 'model_context_window_exceeded']) {
      const r = parseReply(whole, 'auto', { stopReason });
      assert.deepEqual(r.edits, [], stopReason);
      assert.match(r.errors[0]!, new RegExp(`cut off: the provider stopped it at the output limit \\(stop reason \`${stopReason}\`\\)`));
    }
    for (const stopReason of ['stop', 'end_turn', undefined]) assert.deepEqual(parseReply(whole, 'auto', { stopReason }).errors, [], String(stopReason));
  });

  it('takes an unclosed fence at the end as a cut-off, counts alone never', () => {
    // Counts met, fence never closed: cut off (the last line may be cut mid-line).
    const r = parseReply('```diff\n--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n x\n-a\n+b(');
    assert.match(r.errors[0]!, /a\.ts: hunk 1 \(reply line 4, `@@ -1,2 \+1,2 @@`\) runs to the end of the reply inside the fence opened at reply line 1, which is never closed/);
    // Counts short, no fence: a model's miscount, applied by content.
    assert.deepEqual(parseReply('--- a/a.ts\n+++ b/a.ts\n@@ -1,12 +1,14 @@\n x\n-a\n+b\n').errors, []);
    // A terminated search/replace block in a fence left open is complete.
    assert.deepEqual(parseReply('```ts\na.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n').errors, []);
  });
});

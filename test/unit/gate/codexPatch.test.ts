// Codex's apply_patch read as Codex reads it (issue 36): every form Codex applies names its files
// to the guard; reading more than Codex (a malformed header it would refuse) only denies more.
import assert from 'node:assert/strict';
import { codexPatchWrites, patchWritesIn } from '../../../src/core/gate/codexPatch';
import { toolWrites } from '../../../src/core/gate/hookHosts';

const wrap = (body: string): string => `*** Begin Patch\n${body}\n*** End Patch\n`;
const paths = (ws: readonly { path: string; deletes?: boolean }[] | null): string[] => (ws ?? []).map((w) => `${w.deletes ? '-' : ''}${w.path}`);

describe('Codex apply_patch, as Codex parses it', () => {
  it('headers with leading or trailing spaces and tabs (Codex trims them) name their files', () => {
    assert.deepEqual(paths(codexPatchWrites(wrap('  *** Update File: test/a.test.js  \n@@\n-a\n+b\n\t*** Delete File:\ttest/b.js\n*** Add File: src/c.js\t\n+c'))), ['test/a.test.js', '-test/b.js', 'src/c.js']);
  });

  it('a move deletes the old name and writes the new one, whichever is protected', () => {
    assert.deepEqual(paths(codexPatchWrites(wrap('*** Update File: test/a.js\n   *** Move to: src/a.js\n@@\n-a\n+b'))), ['-test/a.js', 'src/a.js']);
  });

  it('the added lines follow the file they are added to', () => {
    const [w] = codexPatchWrites(wrap('*** Update File: src/a.ts\n@@\n-old\n+// @ts-ignore\n+new'));
    assert.deepEqual(w!.addedLines, ['// @ts-ignore', 'new']);
  });

  it('`cd DIR && apply_patch <<\'EOF\'` resolves the paths against DIR; the tool\'s own workdir too', () => {
    assert.deepEqual(paths(codexPatchWrites(`cd test && apply_patch <<'EOF'\n${wrap('*** Update File: a.js\n@@\n-a\n+b')}EOF`)), ['test/a.js']);
    assert.deepEqual(paths(codexPatchWrites(`cd 'my dir' && apply_patch <<EOF\n${wrap('*** Add File: x.js\n+x')}EOF`)), ['my dir/x.js']);
    assert.deepEqual(paths(patchWritesIn({ command: ['apply_patch', wrap('*** Add File: x.js\n+x')], workdir: 'test' })), ['test/x.js']);
  });

  it('finds a patch in any string of the input: the JSON-array command, bash -lc, a raw string, a JSON-string argument', () => {
    assert.deepEqual(paths(toolWrites('shell', { command: ['bash', '-lc', `apply_patch <<'EOF'\n${wrap('*** Add File: test/x.js\n+x')}EOF\n`] })), ['test/x.js']);
    assert.deepEqual(paths(toolWrites('apply_patch', wrap('*** Delete File: test/y.js'))), ['-test/y.js']);
    assert.deepEqual(paths(toolWrites('local_shell', JSON.stringify({ command: ['applypatch', wrap('*** Add File: test/z.js\n+z')] }))), ['test/z.js']);
    assert.deepEqual(paths(toolWrites('exec_command', { cmd: `<<"EOF"\n${wrap('*** Add File: test/w.js\n+w')}EOF` })), ['test/w.js']);
  });

  it('a tool that names its file writes that file: a patch in its content is text', () => {
    assert.deepEqual(toolWrites('Write', { file_path: 'docs/patches.md', content: wrap('*** Update File: test/a.js\n@@\n-a\n+b') }), [{ path: 'docs/patches.md', content: wrap('*** Update File: test/a.js\n@@\n-a\n+b') }]);
  });

  it('a shell command without a patch envelope writes nothing the guard reads', () => {
    assert.equal(patchWritesIn({ command: 'echo "*** Update File: test/a.js" > notes.txt' }), null);
  });
});

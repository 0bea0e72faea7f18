// The loop's rules judge what a write really touches (issue 36): an edit named through a link is
// judged by its written name AND the file it lands on. Real files, real links, the real planner and
// critics; the model's reply is the only thing made up.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyEdits } from '../../../src/core/edit/apply';
import { parseReply } from '../../../src/core/edit/parse';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { proposedFiles } from '../../../src/core/loop/editTurn';
import type { CriticState } from '../../../src/core/policy/critics';
import { protectedPathsCritic } from '../../../src/core/policy/critics';
import { recordVerifier, verifierIntegrityCritic } from '../../../src/core/policy/integrity';
import { defaultSettings } from '../../../src/core/settings';

const none = { step: 0, green: false, failures: [] };
const state: CriticState = { step: 1, settings: defaultSettings(), initial: none, best: none, previous: none };

describe('the loop judges the path an edit lands on', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fug-landing-'));
    mkdirSync(path.join(root, 'src'));
    mkdirSync(path.join(root, 'test'));
    mkdirSync(path.join(root, 'scripts'));
    writeFileSync(path.join(root, 'src', 'a.js'), 'module.exports = 1;\n');
    writeFileSync(path.join(root, 'test', 'a.test.js'), 'assert(a === 1);\n');
    writeFileSync(path.join(root, 'test', 'util.js'), 'assert(a === 1);\n');
    writeFileSync(path.join(root, 'scripts', 'check.sh'), 'node test/a.test.js\n');
    symlinkSync('../test', path.join(root, 'src', 'specs'));
    symlinkSync('scripts/check.sh', path.join(root, 'check.sh'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const verdict = async (file: string, create = false): Promise<{ protectedPaths: string; integrity: string; reason: string }> => {
    const diff = create ? `--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+x\n` : `--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${file.endsWith('check.sh') ? 'node test/a.test.js' : 'assert(a === 1);'}\n+true\n`;
    const parsed = parseReply('```diff\n' + diff + '```\n');
    assert.deepEqual(parsed.errors, []);
    const r = await applyEdits(parsed.edits, { workspace: new FsWorkspace(root), policy: { root }, dryRun: true });
    assert.deepEqual(r.errors, []);
    const proposal = { step: 1, reply: '', files: proposedFiles(r) };
    const p = (await protectedPathsCritic(defaultSettings().protectedPaths).reviewProposal!(proposal, state)) as { verdict: string; reason: string };
    const record = recordVerifier(root, [{ name: 'c', command: './check.sh' }]);
    const i = (await verifierIntegrityCritic(root, () => record).reviewProposal!(proposal, state)) as { verdict: string; reason: string };
    return { protectedPaths: p.verdict, integrity: i.verdict, reason: `${p.reason} | ${i.reason}` };
  };

  it('a file of test/ reached through a folder link (src/specs -> ../test) is protected; the reason names both names', async () => {
    const v = await verdict('src/specs/util.js');
    assert.equal(v.protectedPaths, 'retry', v.reason);
    assert.match(v.reason, /test\/util\.js \(written as src\/specs\/util\.js\)/);
  });

  it('a file not yet made under a linked folder lands in test/: protected', async () => {
    const v = await verdict('src/specs/helper.js', true);
    assert.equal(v.protectedPaths, 'retry', v.reason);
  });

  it('the script a check runs through a link (check.sh -> scripts/check.sh) is the verifier under its real name too', async () => {
    const v = await verdict('scripts/check.sh');
    assert.equal(v.integrity, 'retry', v.reason);
    assert.match(v.reason, /scripts\/check\.sh .*the checks read it/);
  });

  it('code under test reached plainly is not protected', async () => {
    const parsed = parseReply('```diff\n--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-module.exports = 1;\n+module.exports = 2;\n```\n');
    const r = await applyEdits(parsed.edits, { workspace: new FsWorkspace(root), policy: { root }, dryRun: true });
    const p = (await protectedPathsCritic(defaultSettings().protectedPaths).reviewProposal!({ step: 1, reply: '', files: proposedFiles(r) }, state)) as { verdict: string };
    assert.equal(p.verdict, 'continue');
  });
});

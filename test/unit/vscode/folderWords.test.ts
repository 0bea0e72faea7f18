// Issue 40 walk of a multi-root workspace: the folder pick said "Which workspace folder?" and not why
// it asked, under the title "Fix Until Green: Fix Until Green". The rule: the question says why, and
// the title names the command once.
import assert from 'node:assert/strict';
import { folderQuestion } from '../../../src/vscode/common/folderWords';

describe('the folder question of a multi-root workspace', () => {
  it('says why it asks: no open editor names a folder, or several folders hold a run', () => {
    assert.deepEqual(folderQuestion('Fix Until Green', 2, 'no-editor'), { title: 'Fix Until Green', placeHolder: 'Which workspace folder? (this workspace has 2 folders and no open editor says which)' });
    assert.deepEqual(folderQuestion('Stop', 3, 'several-runs'), { title: 'Fix Until Green: Stop', placeHolder: 'Which workspace folder? (3 folders have a run this applies to)' });
    for (const p of ['Fix Until Green', 'Gate Agent Mode', 'Run Checks']) {
      const q = folderQuestion(p, 2, 'no-editor');
      assert.doesNotMatch(q.title, /Fix Until Green: Fix Until Green/);
      assert.match(q.placeHolder, /\(.+\)$/, 'a reason follows the question');
    }
  });
});

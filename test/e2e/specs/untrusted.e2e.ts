// In Restricted Mode nothing of Fix Until Green runs, and VS Code tells the user why with the
// reason the manifest gives (capabilities.untrustedWorkspaces.description).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

// One sentence: why it is off, and the way out by the name VS Code gives it (issue 40 walk).
const REASON = "Fix Until Green runs this workspace's own type checker, linter and tests and writes model-proposed edits to its files, so it needs a trusted workspace: trust this folder with Manage Workspace Trust.";

describe('Fix Until Green in VS Code: an untrusted workspace', function () {
  let vs: VsCode;
  let ws: string;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);

  before(async function () {
    model = await startFakeOpenAI({ replies: demoReplies() });
    ws = workspaceFrom(DEMO, 'untrusted', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
    });
    vs = await VsCode.launch({ name: 'untrusted', workspace: ws, trusted: false });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('offers no command, runs nothing, and says why', async () => {
    const before = readFileSync(path.join(ws, 'src', 'cart.ts'));
    await vs.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 60000 });
    // The workbench registers the commands of every enabled extension together, once the extension
    // host has read them: when a built-in extension allowed in Restricted Mode (JSON language
    // features) shows its command, ours would show too had it been enabled.
    await until('the enabled extensions\' commands in the palette', async () => {
      const found = (await vs.paletteRows('>JSON: Clear Schema Cache')).some((t) => t.includes('JSON: Clear Schema Cache'));
      await vs.page.keyboard.press('Escape');
      return found ? true : undefined;
    }, 90000, 500);
    const rows = await vs.paletteRows('>Fix Until Green');
    log('palette:', rows);
    assert.deepEqual(rows, ['No matching commands']);
    await vs.screenshot('untrusted-palette');
    await vs.page.keyboard.press('Escape');
    assert.equal(await vs.meter().count(), 0, 'no budget meter: the extension is not active');

    await vs.runCommand('Extensions: Show Installed Extensions');
    await vs.page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'Fix Until Green' }).first().click();
    const editor = vs.page.locator('.extension-editor');
    await editor.locator(`text=${REASON}`).waitFor({ timeout: 30000 });
    await vs.screenshot('untrusted-reason');
    // The way out the sentence names is there, by that name: the palette's Manage Workspace Trust.
    const manage = await vs.paletteRows('>Manage Workspace Trust');
    await vs.page.keyboard.press('Escape');
    assert.ok(manage.some((t) => t.includes('Manage Workspace Trust')), `the way out the reason names: ${manage.join(' | ')}`);

    assert.equal(model.requests.length, 0, 'no model call');
    assert.ok(readFileSync(path.join(ws, 'src', 'cart.ts')).equals(before), 'no file changed');
  });
});

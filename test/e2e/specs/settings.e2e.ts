// Settings as a user changes them: the settings UI sets maxSteps, the next run stops at that cap and
// Continue resumes it; an invalid value names the setting and nothing runs.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';

describe('Fix Until Green in VS Code: settings', function () {
  let vs: VsCode;
  let ws: string;
  let model: FakeOpenAI;
  const settingsFile = (): string => path.join(ws, '.vscode', 'settings.json');
  const workspaceSettings = (): Record<string, unknown> => parseJsonc(readFileSync(settingsFile(), 'utf8')) as Record<string, unknown>;

  screenshotFailures(() => vs);

  before(async function () {
    model = await startFakeOpenAI({ replies: demoReplies() });
    ws = workspaceFrom(DEMO, 'settings', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
    });
    vs = await VsCode.launch({ name: 'settings', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('sets maxSteps in the settings UI; the run stops at step-cap and Continue takes it to green', async () => {
    await vs.runCommand('Preferences: Open Workspace Settings');
    await vs.page.locator('.settings-editor').waitFor({ timeout: 30000 });
    await vs.page.keyboard.type('fixUntilGreen.maxSteps');
    const input = vs.page.locator('.settings-editor input[aria-label="fixUntilGreen.maxSteps"]');
    await input.waitFor({ timeout: 30000 });
    await input.fill('1');
    await input.press('Tab');
    await until('maxSteps 1 in the workspace settings file', () => (workspaceSettings()['fixUntilGreen.maxSteps'] === 1 ? true : undefined), 30000);
    // VS Code tells the extension about the change a moment after the file is written.
    await until('the extension to see maxSteps 1', () => (/settings of settings: maxSteps 1,/.test(vs.extensionLog()) ? true : undefined), 30000);
    await vs.screenshot('settings-maxsteps');
    // The settings editor may open as a modal over the panel: close it, as a user would.
    const modal = vs.page.locator('.monaco-modal-editor-block');
    if (await modal.count()) await modal.locator('.codicon-close').first().click();
    else await vs.page.keyboard.press('Escape');
    await vs.page.locator('.monaco-modal-editor-block').waitFor({ state: 'detached', timeout: 30000 });

    // Stop and Continue are offered only while they mean something.
    assert.ok(!(await vs.paletteRows('>Fix Until Green: Continue')).some((t) => t.includes('Continue With More Budget')), 'no Continue before a run');
    await vs.page.keyboard.press('Escape');
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    const reason = await until('a stop reason', () => vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined), 240000, 300);
    assert.equal(reason, 'step-cap');
    assert.equal(await vs.panel().locator('[data-testid="outcome"]').innerText(), 'partial');
    assert.match(await vs.meterText(), /^Fix Until Green: steps used up · 1\/1 steps · /);
    assert.match(readFileSync(path.join(ws, CART), 'utf8'), /return \(total \* percent\) \/ 100;/, 'the best step (1) is kept');
    await vs.screenshot('settings-step-cap');
    assert.ok((await vs.paletteRows('>Fix Until Green: Continue')).some((t) => t.includes('Continue With More Budget')));
    assert.ok(!(await vs.paletteRows('>Fix Until Green: Stop')).some((t) => t.startsWith('Fix Until Green: Stop')), 'no Stop when nothing runs');
    await vs.page.keyboard.press('Escape');

    await vs.panel().locator('button[data-action="continue"]').click();
    await until('green after Continue', async () => ((await vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined)) === 'green' ? true : undefined), 240000, 300);
    assert.equal(await vs.panel().locator('[data-testid="step-row"]').count(), 2);
    assert.match(await vs.meterText(), /^Fix Until Green: green · 2\/2 steps · /);
    assert.match(readFileSync(path.join(ws, CART), 'utf8'), /return total - \(total \* percent\) \/ 100;/);
  });

  it('never overwrites an editor with unsaved changes: the run stops and names the file', async () => {
    // The file holds the fixed code from the run above; break it again on disk and leave an editor
    // with unsaved changes to it.
    const cart = path.join(ws, CART);
    writeFileSync(cart, readFileSync(cart, 'utf8').replace('return total - (total * percent) / 100;', 'return total - percent;'));
    await vs.openFile(CART);
    await vs.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await vs.page.keyboard.press('Control+End');
    await vs.page.keyboard.type('// my unsaved note');
    await vs.page.locator('.tabs-container .tab.dirty', { hasText: 'cart.ts' }).waitFor({ timeout: 15000 });
    const onDisk = readFileSync(cart);
    const text = onDisk.toString('utf8');
    model.push({ content: `STATUS: in_progress\nCONFIDENCE: 0.8\nPOSTMORTEM: subtract the percentage of the total.\n\n\`\`\`diff\n--- a/src/cart.ts\n+++ b/src/cart.ts\n@@ -12,3 +12,3 @@\n export function applyDiscount(total: number, percent: number): number {\n-  return total - percent;\n+  return total - (total * percent) / 100;\n }\n\`\`\`\n` });
    assert.match(text, /return total - percent;/);
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await until('a new run to stop', async () => ((await vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined)) === 'error' ? true : undefined), 240000, 300);
    // What the user reads: the stop's sentence, and the technical detail folded under it.
    const detail = `${await vs.panel().locator('[data-testid="stop-sentence"]').innerText()}\n${await vs.panel().locator('[data-testid="detail"]').textContent()}`;
    log('detail:', detail);
    assert.match(detail, /src\/cart\.ts has unsaved changes in an editor/);
    assert.ok(readFileSync(cart).equals(onDisk), 'the file on disk is as it was');
    assert.equal(await vs.page.locator('.tabs-container .tab.dirty', { hasText: 'cart.ts' }).count(), 1, "the user's unsaved edit is still there");
    await vs.screenshot('settings-dirty-editor');
    // Leave the editor as the user would: discard the note.
    await vs.page.locator('.tabs-container .tab', { hasText: 'cart.ts' }).first().click();
    await vs.runCommand('File: Revert File');
    await vs.page.locator('.tabs-container .tab.dirty').waitFor({ state: 'detached', timeout: 15000 });
  });

  it('refuses to start with an invalid setting, naming it, and changes nothing', async () => {
    const before = readFileSync(path.join(ws, CART));
    const calls = model.requests.length;
    writeFileSync(settingsFile(), JSON.stringify({ ...workspaceSettings(), 'fixUntilGreen.maxSteps': -1 }, null, 2));
    // VS Code picks the file change up on its own (the extension logs what it sees); the run reads
    // settings when it starts.
    await until('the extension to see maxSteps -1', () => (/settings of settings: .*fixUntilGreen\.maxSteps must be an integer from 1 to 100; got -1/.test(vs.extensionLog()) ? true : undefined), 30000);
    await vs.runCommand('Fix Until Green');
    const note = await vs.waitForNotification(/fixUntilGreen\.maxSteps/, 60000);
    const text = await note.innerText();
    log('notification:', text.split('\n')[0]);
    assert.match(text, /the run did not start: fixUntilGreen\.maxSteps must be an integer from 1 to 100; got -1/);
    await vs.screenshot('settings-invalid');
    assert.equal(model.requests.length, calls, 'no model call');
    assert.ok(readFileSync(path.join(ws, CART)).equals(before), 'no file changed');
    // The command palette that ran the command fades out; an instruction box would stay open.
    const box = vs.page.locator('.quick-input-widget input');
    const gone = await box.waitFor({ state: 'hidden', timeout: 10000 }).then(
      () => true,
      () => false,
    );
    assert.equal(gone, true, 'no instruction box: the run never started');
  });
});

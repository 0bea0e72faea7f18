// The window reloads mid-run (its extension host goes away with the run in it, as in a crash): the next activation finds the run's
// checkpoint and offers Revert or Keep; Revert puts the original bytes back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';

describe('Fix Until Green in VS Code: recovery of an interrupted run', function () {
  let vs: VsCode;
  let ws: string;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);

  before(async function () {
    const [first, second] = demoReplies();
    // The second answer takes long enough for the test to reload the window under the run.
    model = await startFakeOpenAI({ script: [{ content: first! }, { content: second!, delayMs: 120000 }] });
    ws = workspaceFrom(DEMO, 'recovery', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
    });
    vs = await VsCode.launch({ name: 'recovery', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('offers Revert after a reload mid-run, and Revert restores the original bytes', async () => {
    const original = readFileSync(path.join(ws, CART));
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await vs.panel().locator('[data-testid="step-row"]').first().waitFor({ timeout: 240000 });
    // Step 1 is done; step 2's call is now held by the server (it logs a request once answered).
    await until("step 2's model request to reach the server", () => (model.received() >= 2 ? true : undefined), 120000, 100);
    assert.equal(model.requests.filter((r) => r.index >= 0).length, 1, 'only step 1 has been answered');
    assert.ok(!readFileSync(path.join(ws, CART)).equals(original), 'step 1 changed the file');
    log('reloading the window mid-run');
    await vs.runCommand('Developer: Reload Window');
    await vs.page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
    const note = await vs.waitForNotification(/was interrupted/, 120000);
    log('notification:', (await note.innerText()).split('\n')[0]);
    await vs.screenshot('recovery-offer');
    await note.locator('a.monaco-button, .monaco-button', { hasText: /^Revert$/ }).first().click();
    await until('the original bytes', () => (readFileSync(path.join(ws, CART)).equals(original) ? true : undefined), 60000);
    // The file named, its number agreeing (issue 40 walk: "restored 1 file … to their original bytes" before).
    await vs.waitForNotification(/in recovery, restored src\/cart\.ts to what it was before the run/, 30000);
    // The panel came back with the window and shows the interrupted run, now reverted.
    await vs.panel().locator('[data-testid="reverted"]').waitFor({ timeout: 30000 });
    assert.equal(await vs.panel().locator('[data-testid="stop-reason"]').innerText(), 'error');
    // The stop's sentence leads the panel (the technical detail is folded under it).
    assert.match(await vs.panel().locator('[data-testid="stop-sentence"]').innerText(), /window closed while the run was in progress/);
    assert.equal(await vs.panel().locator('[data-testid="step-row"]').count(), 1);
    assert.match(await vs.meterText(), /^Fix Until Green: error · 1\/5 steps · .* tokens · reverted$/);
    await vs.screenshot('recovery-reverted');
  });
});

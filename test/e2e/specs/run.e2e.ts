// A user runs Fix Until Green on the demo project against an OpenAI-compatible endpoint (the local
// scripted server), watches it, opens a step's diff, and reverts the run.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';

describe('Fix Until Green in VS Code: a green run through an OpenAI-compatible endpoint, then Revert Run', function () {
  let vs: VsCode;
  let ws: string;
  let original: Buffer;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);

  before(async function () {
    model = await startFakeOpenAI({ replies: demoReplies() });
    ws = workspaceFrom(DEMO, 'green', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
    });
    original = readFileSync(path.join(ws, CART));
    vs = await VsCode.launch({ name: 'green', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('runs from the command palette, shows the budget while running, and stops green', async () => {
    await vs.openFile(CART);
    assert.match(await vs.editorText(), /return total - percent;/);
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    const seen = new Set<string>();
    const progress = new Set<string>();
    await until('the stop reason in the panel', async () => {
      seen.add(await vs.meterText().catch(() => ''));
      for (const t of await vs.page.locator('.notification-toast').allInnerTexts().catch(() => [])) progress.add(t.replace(/\s+/g, ' '));
      const t = await vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined);
      return t === 'green' ? t : undefined;
    }, 240000, 200);
    log('meter texts seen:', [...seen]);
    log('notifications seen:', [...progress]);
    assert.ok([...progress].some((t) => /Fix Until Green \(green\).*step \d\/5/.test(t)), 'a progress notification showed the step');
    assert.ok([...seen].some((t) => /^Fix Until Green: \d\/5 steps · [\d.]+k?\/200k tokens$/.test(t)), `the meter showed the budget while running; saw ${[...seen].join(' | ')}`);
    assert.equal(model.requests.filter((r) => r.index >= 0).length, 2, 'two model calls went to the endpoint');
    assert.equal(await vs.panel().locator('[data-testid="outcome"]').innerText(), 'fixed');
    assert.equal(await vs.panel().locator('[data-testid="step-row"]').count(), 2);
    assert.match(await vs.panel().locator('[data-testid="budget-steps"]').innerText(), /2 \/ 5/);
    assert.match(await vs.panel().locator('[data-testid="budget-tokens"]').innerText(), /[\d.]+k \/ 200k/);
    assert.match(await vs.meterText(), /^Fix Until Green: green · 2\/5 steps · [\d.]+k\/200k tokens$/);
    // Green with the changed files waiting for Keep or Undo: the notification offers the review first.
    const green = await vs.waitForNotification(/Fix Until Green: green in green after 2 steps/, 30000);
    await vs.notificationButton(green, 'Show Panel');
    const buttons = await green.locator('.monaco-button').allInnerTexts();
    log('green notification buttons:', buttons);
    assert.deepEqual(buttons.map((b) => b.trim()).filter((b) => b === 'Review Changes' || b === 'Show Panel'), ['Review Changes', 'Show Panel']);
    await vs.screenshot('green-panel');
    await vs.screenshot('green-statusbar', vs.page.locator('.part.statusbar'));

    const fixed = readFileSync(path.join(ws, CART), 'utf8');
    assert.match(fixed, /return total - \(total \* percent\) \/ 100;/);
    assert.match(fixed, /return Number\(text\.trim\(\)\.replace\('\$', ''\)\);/);
    // The open editor shows what is on disk: the edit went through VS Code, not behind its back.
    await vs.page.locator('.tabs-container .tab', { hasText: 'cart.ts' }).first().click();
    await until('the editor to show the fix', async () => (/return total - \(total \* percent\) \/ 100;/.test(await vs.editorText()) ? true : undefined), 30000);
    assert.equal(await vs.page.locator('.tabs-container .tab.dirty').count(), 0, 'no editor is left dirty');
  });

  it("clicking a step row opens that step's diff", async () => {
    await vs.runCommand('Fix Until Green: Show Panel');
    await vs.panel().locator('[data-testid="step-row"][data-step="2"]').click();
    const tab = vs.page.locator('.tabs-container .tab', { hasText: /Step 2: src\/cart\.ts/ }).first();
    await tab.waitFor({ timeout: 30000 });
    await vs.page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30000 });
    await vs.screenshot('green-step-diff');
  });

  it("Export trace saves the run's JSONL trace where the user says", async () => {
    await vs.runCommand('Fix Until Green: Show Panel');
    await vs.panel().locator('button[data-action="exportTrace"]').click();
    // VS Code's own save dialog (in the browser, a path box) proposes a name in the folder.
    const input = vs.quickInput();
    await input.waitFor({ state: 'visible', timeout: 30000 });
    // The dialog fills its path box in a moment after it opens.
    const proposed = await until('the proposed file name', async () => {
      const v = await input.inputValue();
      return /fix-until-green-.+\.jsonl$/.test(v) ? v : undefined;
    }, 30000);
    log('save dialog proposes', proposed);
    assert.equal(path.dirname(proposed), ws, 'proposed in the workspace folder');
    await vs.page.keyboard.press('Enter');
    const file = path.join(ws, path.basename(proposed));
    const lines = await until('the exported trace', () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : undefined), 30000);
    const events = lines.map((l) => JSON.parse(l) as { type: string });
    assert.equal(events[0]!.type, 'run-start');
    assert.equal(events.at(-1)!.type, 'run-end');
    assert.ok(events.some((e) => e.type === 'model-call') && events.some((e) => e.type === 'verify'));
  });

  it('Revert Run puts the original bytes back', async () => {
    const asked = await vs.revertRun();
    log('Revert Run asked:', asked ?? 'nothing');
    // Revert Run always asks first, naming the files and the one still waiting for Keep or Undo.
    assert.match(asked ?? '', /Revert the run\? The file it wrote \(src\/cart\.ts\) goes back to what it was before the run, and the fix goes with it\./);
    assert.match(asked ?? '', /1 file still waits for Keep or Undo \(src\/cart\.ts\)/);
    await until('the original bytes', () => (readFileSync(path.join(ws, CART)).equals(original) ? true : undefined), 30000);
    await vs.runCommand('Fix Until Green: Show Panel');
    await vs.panel().locator('[data-testid="reverted"]').waitFor({ timeout: 15000 });
    assert.match(await vs.meterText(), /reverted/);
  });
});

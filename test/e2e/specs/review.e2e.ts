// After a non-green stop the user is told what the workspace holds ("Kept step 1 (best: 1 failure
// left); step 2 undone") and reviews the run's changes like in Copilot agent mode: each changed file
// with its diff, Keep and Undo, and both for all. Undo never overwrites a file the user changed
// since the run wrote it: it stops for that file and names it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { diffOf, reply } from '../../support/replies';
import { DEMO, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';
const MONEY = 'src/money.ts';
const MONEY_TEXT = '/** Dollars as a number: "$4.50" -> 4.5. */\nexport function dollars(text: string): number {\n  return Number(text.trim().replace(\'$\', \'\'));\n}\n';

/** A diff that creates `file` with `text`. */
function newFile(file: string, text: string): string {
  const lines = text.replace(/\n$/, '').split('\n');
  return ['--- /dev/null', `+++ b/${file}`, `@@ -0,0 +1,${lines.length} @@`, ...lines.map((l) => `+${l}`), ''].join('\n');
}

/** Step 1 fixes the type error (a new helper file and cart.ts); step 2 rewrites applyDiscount without fixing it. */
function replies(original: string): string[] {
  const step1 = original.replace("return text.trim().replace('$', '');", 'return dollars(text);').replace('export interface Item {', "import { dollars } from './money';\n\nexport interface Item {");
  const step2 = step1.replace('return total - percent;', 'return total - percent * 1;');
  return [
    reply([newFile(MONEY, MONEY_TEXT), diffOf(CART, original, step1)], { postMortem: 'parsePrice returned a string.', confidence: 0.7 }),
    reply([diffOf(CART, step1, step2)], { postMortem: 'Maybe an explicit factor.', confidence: 0.3 }),
  ];
}

describe('Fix Until Green in VS Code: after a stop, what the workspace holds and a review with Keep / Undo', function () {
  let vs: VsCode;
  let ws: string;
  let original: Buffer;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);
  const panel = (): ReturnType<VsCode['panel']> => vs.panel();
  const fileRow = (rel: string): ReturnType<ReturnType<VsCode['panel']>['locator']> => panel().locator(`[data-testid="review-file"][data-path="${rel}"]`);

  before(async function () {
    const text = readFileSync(path.join(DEMO, CART), 'utf8');
    model = await startFakeOpenAI({ replies: replies(text) });
    ws = workspaceFrom(DEMO, 'review', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
      'fixUntilGreen.maxSteps': 2,
      'fixUntilGreen.flakyReruns': 0,
    });
    original = readFileSync(path.join(ws, CART));
    vs = await VsCode.launch({ name: 'review', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('before any run the palette offers no command that needs one, and reads "Fix Until Green" once', async () => {
    await until('the commands registered', async () => {
      const rows = await vs.paletteRows('>Fix Until Green');
      await vs.page.keyboard.press('Escape');
      return rows.some((r) => /Run Checks/.test(r)) ? rows : undefined;
    }, 90000, 1000).then((rows) => {
      log('palette before a run:', rows);
      assert.ok(rows.some((r) => /^Fix Until Green(\n|$)/.test(r)), 'the main command reads "Fix Until Green"');
      assert.ok(!rows.some((r) => /Fix Until Green: Fix Until Green/.test(r)), 'not "Fix Until Green: Fix Until Green"');
      for (const hidden of ['Revert Run', 'Revert to Best Step', 'Export Trace', 'Review Changes', 'Continue With More Budget', 'Stop']) {
        assert.ok(!rows.some((r) => r.includes(`Fix Until Green: ${hidden}`)), `${hidden} is hidden until a run exists`);
      }
    });
    await vs.paletteRows('>Fix Until Green');
    await vs.screenshot('review-palette-before-run');
    await vs.page.keyboard.press('Escape');
  });

  it('says which step the files hold and which was undone, with Review Changes and Continue buttons', async () => {
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    const note = await vs.waitForNotification(/Kept step 1/, 240000);
    const text = (await note.innerText()).replace(/\s+/g, ' ');
    log('stop notification:', text);
    assert.match(text, /Stopped: all 2 steps used; 1 failure left \(.*190 !== 180\)\. Continue resumes from step 1 with more steps\. Kept step 1 \(best: 1 failure left\); step 2 undone\./);
    for (const b of ['Review Changes', 'Continue', 'Show Panel']) assert.ok(await (await vs.notificationButton(note, b)).isVisible(), `a ${b} button`);
    await vs.screenshot('review-stop-notification');

    assert.equal(await panel().locator('[data-testid="stop-reason"]').innerText(), 'step-cap');
    assert.match(await panel().locator('[data-testid="held"]').innerText(), /Kept step 1 \(best: 1 failure left\); step 2 undone\./);
    assert.match(await panel().locator('[data-testid="stop-sentence"]').innerText(), /Continue resumes from step 1/);
    // The files hold step 1: the helper exists, applyDiscount is as it was (step 2 undone).
    assert.ok(existsSync(path.join(ws, MONEY)), 'step 1 created the helper');
    const cart = readFileSync(path.join(ws, CART), 'utf8');
    assert.match(cart, /return dollars\(text\);/, 'step 1 is kept');
    assert.match(cart, /return total - percent;/, 'step 2 was undone');
    // The headline of the remaining failure shows the values, not "Expected values to be strictly equal:".
    const headline = await panel().locator('[data-testid="failure-headline"]').first().innerText();
    log('failure headline:', headline);
    assert.match(headline, /190 !== 180/);
  });

  it("the failing test is in VS Code's Testing view, marked failed", async () => {
    await vs.runCommand('Testing: Focus on Test Explorer View');
    const tree = vs.page.locator('.test-explorer');
    await tree.waitFor({ timeout: 30000 });
    const root = tree.locator('.monaco-list-row', { hasText: /^review/ }).first();
    await root.waitFor({ timeout: 30000 });
    const row = tree.locator('.monaco-list-row', { hasText: 'applyDiscount takes a percentage off' }).first();
    if (!(await row.isVisible())) {
      await root.click();
      await vs.page.keyboard.press('ArrowRight');
    }
    await row.waitFor({ timeout: 30000 });
    assert.ok((await row.locator('.codicon-testing-failed-icon').count()) > 0, 'the test is marked failed');
    await vs.screenshot('review-testing-view');
    // Back to the Explorer; the panel stays where it was.
    await vs.runCommand('View: Show Explorer');
  });

  it('lists the changed files with Keep and Undo; a file opens its diff (original ↔ now)', async () => {
    await panel().locator('[data-testid="review"]').waitFor({ timeout: 30000 });
    const rows = await panel().locator('[data-testid="review-file"]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-path')}:${e.getAttribute('data-decision')}`));
    assert.deepEqual(rows, [`${CART}:pending`, `${MONEY}:pending`]);
    await vs.screenshot('review-panel');
    await vs.screenshot('review-section', panel().locator('[data-testid="review"]'));
    await fileRow(CART).locator('.review-name').click();
    const tab = vs.page.locator('.tabs-container .tab', { hasText: /cart\.ts \(original ↔ now\)/ }).first();
    await tab.waitFor({ timeout: 30000 });
    // The diff beside the panel (Keep and Undo stay in view), once its lines are drawn.
    await vs.page.locator('.monaco-diff-editor .view-line', { hasText: /dollars/ }).first().waitFor({ timeout: 30000 });
    assert.ok(await panel().locator('[data-testid="review"]').isVisible(), 'the review stays in view beside the diff');
    await vs.screenshot('review-diff');
  });

  it('Undo stops for a file the user changed since and names it; the user keeps their edit', async () => {
    const mine = `${MONEY_TEXT}// my own note\n`;
    writeFileSync(path.join(ws, MONEY), mine);
    await new Promise((r) => setTimeout(r, 1500));
    await fileRow(MONEY).locator('[data-testid="review-undo"]').click();
    const note = await vs.waitForNotification(/not undone: src\/money\.ts/, 30000);
    log('conflict:', (await note.innerText()).replace(/\s+/g, ' '));
    assert.equal(readFileSync(path.join(ws, MONEY), 'utf8'), mine, "the user's edit is intact");
    assert.equal(await fileRow(MONEY).getAttribute('data-decision'), 'pending');
    await vs.screenshot('review-undo-conflict');
  });

  it('Undo puts a file back to its original bytes; Keep all keeps the rest', async () => {
    await fileRow(CART).locator('[data-testid="review-undo"]').click();
    await until('cart.ts undone', async () => ((await fileRow(CART).getAttribute('data-decision')) === 'undone' ? true : undefined), 30000, 300);
    assert.ok(readFileSync(path.join(ws, CART)).equals(original), 'cart.ts holds its original bytes');
    await panel().locator('[data-testid="review-keep-all"]').click();
    await until('money.ts kept', async () => ((await fileRow(MONEY).getAttribute('data-decision')) === 'kept' ? true : undefined), 30000, 300);
    assert.ok(existsSync(path.join(ws, MONEY)), 'a kept file stays');
    assert.match(await panel().locator('[data-testid="review"] h2').innerText(), /changes reviewed \(2 files\)/i);
    await vs.screenshot('review-done');
  });
});

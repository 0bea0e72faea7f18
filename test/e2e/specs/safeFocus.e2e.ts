// Issue 40, item 1: the keyboard never lands on a destructive button. After a green run, Show Panel
// puts the keyboard on the review's first pending file, and once every file is kept on the stop
// sentence: Enter there reverts nothing. Revert run asks every time, even with nothing left to review.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';

describe('Fix Until Green in VS Code: after a green run, Show Panel then Enter reverts nothing', function () {
  let vs: VsCode;
  let ws: string;
  let original: Buffer;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);
  const panel = (): ReturnType<VsCode['panel']> => vs.panel();
  const cart = (): Buffer => readFileSync(path.join(ws, CART));

  /** The panel's focused element, once its own document holds the keyboard on one. */
  const focused = (what: string): Promise<{ tag: string; testid: string | null; action: string | null; cls: string; text: string }> =>
    until(what, async () => {
      const f = panel().locator(':focus');
      if ((await f.count()) !== 1) return undefined;
      return f.evaluate((el) => ({ tag: el.tagName, testid: el.getAttribute('data-testid'), action: el.getAttribute('data-action'), cls: el.getAttribute('class') ?? '', text: (el.textContent ?? '').trim().slice(0, 80) }));
    }, 15000, 200);

  /** The keyboard in the editor, then Show Panel from the palette, as a user does. */
  const showPanelFromEditor = async (): Promise<void> => {
    await vs.openFile(CART);
    await vs.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await vs.runCommand('Fix Until Green: Show Panel');
  };

  before(async function () {
    model = await startFakeOpenAI({ replies: demoReplies() });
    ws = workspaceFrom(DEMO, 'safe-focus', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
    });
    original = cart();
    vs = await VsCode.launch({ name: 'safe-focus', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('Show Panel after a green run focuses the first file to review; Enter opens its diff and writes nothing', async () => {
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await until('green', () => panel().locator('[data-testid="stop-reason"]').textContent({ timeout: 500 }).then((t) => (t === 'green' ? t : undefined)).catch(() => undefined), 240000, 300);
    const fixed = cart();
    assert.ok(!fixed.equals(original), 'the run wrote cart.ts');
    await showPanelFromEditor();
    const first = await focused('a control of the green panel');
    log('focus after Show Panel (files to review):', first);
    assert.match(first.cls, /review-name/, `the review's first pending file, not ${JSON.stringify(first)}`);
    assert.match(first.text, /src\/cart\.ts/);
    await vs.screenshot('safe-focus-review-file');
    await vs.page.keyboard.press('Enter');
    await until('the diff of cart.ts', async () => ((await vs.page.locator('.tabs-container .tab', { hasText: /cart\.ts/ }).count()) >= 1 ? true : undefined), 15000);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await vs.page.locator('.monaco-dialog-box').count(), 0, 'no question: nothing destructive was pressed');
    assert.ok(cart().equals(fixed), 'cart.ts still holds the fix');
    assert.equal(await panel().locator('[data-testid="reverted"]').count(), 0);
  });

  it('with every file kept, Show Panel focuses the stop sentence; Enter there reverts nothing, and Revert run asks', async () => {
    const fixed = cart();
    await vs.runCommand('Fix Until Green: Show Panel');
    await panel().locator('[data-testid="review-keep-all"]').click();
    await until('every file kept', async () => ((await panel().locator('[data-testid="review-file"][data-decision="pending"]').count()) === 0 ? true : undefined), 15000);
    await showPanelFromEditor();
    const target = await focused('the stop sentence');
    log('focus after Show Panel (all kept):', target);
    assert.equal(target.testid, 'stop-sentence', `the stop sentence, not ${JSON.stringify(target)}`);
    assert.equal(target.action, null, 'no button');
    await vs.screenshot('safe-focus-stop-sentence');
    await vs.page.keyboard.press('Enter');
    await vs.page.keyboard.press('Space');
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(await vs.page.locator('.monaco-dialog-box').count(), 0, 'no question: Enter on the sentence does nothing');
    assert.ok(cart().equals(fixed), 'cart.ts still holds the fix');
    assert.equal(await panel().locator('[data-testid="reverted"]').count(), 0);
    // Revert run, pressed on purpose, asks first even with nothing left to review; Cancel keeps the fix.
    await panel().locator('button[data-action="revertRun"]').click();
    const dialog = vs.page.locator('.monaco-dialog-box', { hasText: /Revert the run\?/ });
    await dialog.waitFor({ timeout: 15000 });
    const text = (await dialog.innerText()).replace(/\s+/g, ' ');
    log('Revert run asked:', text);
    assert.match(text, /The file it wrote \(src\/cart\.ts\) goes back to what it was before the run, and the fix goes with it\./);
    await vs.screenshot('safe-focus-revert-asks');
    await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).first().click();
    await dialog.waitFor({ state: 'detached', timeout: 10000 });
    await new Promise((r) => setTimeout(r, 1000));
    assert.ok(cart().equals(fixed), 'Cancel kept the fix');
  });
});

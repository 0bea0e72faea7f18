// While a run streams its steps into the panel, the user's place in the panel stays put: a step row
// they focused keeps keyboard focus and a "Remaining failures" section they opened stays open. The
// panel patches its DOM by key; a redraw of the whole panel would lose both on the next update.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { diffOf, reply } from '../../support/replies';
import { DEMO, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';
const STEPS = 6;

/** The little of the webview's DOM the checks read (this tsconfig has no DOM types). */
interface Marked {
  e2eMark?: string;
}
interface Details extends Marked {
  open: boolean;
}
interface WebviewGlobal {
  document: { activeElement: { tagName: string; getAttribute(name: string): string | null } | null };
}

/** Step k rewrites applyDiscount into another equally wrong body: every step ends with failures. */
function wrongReplies(original: string, n: number): string[] {
  const out: string[] = [];
  let before = original;
  for (let k = 1; k <= n; k++) {
    const after = before.replace(/return total - percent( \* 1)*;/, `return total - percent${' * 1'.repeat(k)};`);
    out.push(reply([diffOf(CART, before, after)], { postMortem: `Attempt ${k}: maybe the discount needs an explicit factor.`, confidence: 0.4 }));
    before = after;
  }
  return out;
}

describe('Fix Until Green in VS Code: the panel keeps focus and open sections while a run updates it', function () {
  let vs: VsCode;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);

  before(async function () {
    const text = readFileSync(path.join(DEMO, CART), 'utf8');
    // Each reply takes a moment, so the run is visibly in progress for a while; the call after the
    // last one never answers, so the run is surely in flight when the panel's Stop is pressed.
    model = await startFakeOpenAI({ script: [...wrongReplies(text, STEPS).map((content) => ({ content, delayMs: 1500 })), { fault: 'slow' as const }] });
    const ws = workspaceFrom(DEMO, 'panel-updates', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
      'fixUntilGreen.maxSteps': STEPS + 2,
      // The same failures every step must not stop the run early: it should keep updating the panel.
      'fixUntilGreen.stallThreshold': 20,
    });
    vs = await VsCode.launch({ name: 'panel-updates', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('a focused step row and an opened "Remaining failures" survive the updates of a running run', async () => {
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    const panel = vs.panel();
    await panel.locator('[data-testid="run-status"]').waitFor({ timeout: 90000 });
    const row1 = panel.locator('[data-testid="step-row"][data-step="1"]');
    await row1.waitFor({ timeout: 120000 });
    assert.equal(await panel.locator('[data-testid="run-status"]').count(), 1, 'still running when the first row shows');

    const focused = (): Promise<string | null> =>
      panel.locator('body').evaluate(() => {
        const active = (globalThis as unknown as WebviewGlobal).document.activeElement;
        return active?.getAttribute('data-step') ?? active?.tagName ?? null;
      });
    // The user opens the failures (a click on its summary), then walks back with Shift+Tab to step 1.
    const details = panel.locator('section.remaining details');
    assert.equal(await details.evaluate((d) => (d as unknown as Details).open), false, 'closed while running, as drawn');
    await details.locator('summary').click();
    assert.equal(await details.evaluate((d) => (d as unknown as Details).open), true);
    await until('keyboard focus on step row 1', async () => {
      if ((await focused()) === '1') return true;
      await vs.page.keyboard.press('Shift+Tab');
      return undefined;
    }, 30000, 100);
    // Marks the very elements, to tell a patched element from a redrawn copy.
    await row1.evaluate((el) => ((el as unknown as Marked).e2eMark = 'row-1'));
    await details.evaluate((el) => ((el as unknown as Marked).e2eMark = 'details'));

    // Several updates: at least two more step rows, each preceded by the phases of a step.
    const phases = new Set<string>();
    const rowsAtFocus = await panel.locator('[data-testid="step-row"]').count();
    const rows = await until('two more steps drawn while the row keeps focus', async () => {
      phases.add(await panel.locator('[data-testid="phase"]').innerText({ timeout: 500 }).catch(() => ''));
      const n = await panel.locator('[data-testid="step-row"]').count();
      return n >= rowsAtFocus + 2 ? n : undefined;
    }, 180000, 200);
    log(`step rows ${rowsAtFocus} → ${rows}; phases seen:`, [...phases].filter(Boolean));
    assert.ok([...phases].filter(Boolean).length >= 3, `the phase changed several times; saw ${[...phases].join(' | ')}`);
    assert.equal(await panel.locator('[data-testid="run-status"]').count(), 1, 'the run is still in progress');

    assert.equal(await focused(), '1', 'step row 1 still has keyboard focus');
    assert.equal(await row1.evaluate((el) => (el as unknown as Marked).e2eMark ?? null), 'row-1', 'row 1 is the same element, patched');
    assert.equal(await details.evaluate((d) => (d as unknown as Details).open), true, '"Remaining failures" is still open');
    assert.equal(await details.evaluate((el) => (el as unknown as Marked).e2eMark ?? null), 'details', 'the same <details>, patched');
    await vs.screenshot('panel-updates-running');
    await vs.screenshot('panel-updates-running-panel', vs.page.locator('iframe.webview.ready'));

    // Keyboard still works on the focused row: Enter opens its diff.
    await vs.page.keyboard.press('Enter');
    await vs.page.locator('.tabs-container .tab', { hasText: /Step 1: src\/cart\.ts/ }).first().waitFor({ timeout: 30000 });
    // The diff opened in the panel's editor group; bring the panel back to watch the run end.
    await vs.runCommand('Fix Until Green: Show Panel');

    // The panel's Stop runs the registered Stop command with the panel's folder: the run ends cancelled.
    await until(`step ${STEPS} drawn, the next call in flight`, async () => ((await panel.locator('[data-testid="step-row"]').count()) === STEPS && (await panel.locator('[data-testid="run-status"]').count()) === 1 ? true : undefined), 240000, 300);
    await panel.locator('button[data-action="stop"]').click();
    const reason = await until('the run to stop', () => panel.locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined), 60000, 300);
    assert.equal(reason, 'cancelled');
    assert.equal(await panel.locator('[data-testid="step-row"]').count(), STEPS);
    await vs.screenshot('panel-updates-stopped', vs.page.locator('iframe.webview.ready'));
  });
});

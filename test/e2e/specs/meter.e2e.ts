// What a newcomer reads on the status item and the panel's tab before a run, and the money after
// one (issue 32): before any run the status item is the same named item as in a run ("Fix Until
// Green: no run yet", no icon of its own) and the panel's tab shows a neutral ring, never the green
// check; a run with a price set (`model.pricing`, `costCeiling`) that stops at its step cap shows its
// money with its unit ("$0.005 of $0.50") in the status item, its tooltip and the Cost bar, and each
// step row its cost beside its tokens and its model.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { diffOf, reply } from '../../support/replies';
import { DEMO, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';
const MODEL = 'gpt-4o-mini';

/** A reply that changes a comment only: the failures stay, and the run stops at its step cap. */
function harmless(): string {
  const before = readFileSync(path.join(DEMO, CART), 'utf8');
  const after = before.replace('/** Reads a price such as "$4.50". */', '/** Reads a price such as "$4.50" (a string with a dollar sign). */');
  return reply([diffOf(CART, before, after)], { postMortem: 'Only a comment this time.', confidence: 0.3 });
}

describe('Fix Until Green in VS Code: the idle status item and tab icon, then money with its unit', function () {
  let vs: VsCode;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);

  const panelTab = (): Locator => vs.page.locator('.tabs-container .tab', { hasText: 'Fix Until Green' }).first();
  /** The tab's icon as the workbench draws it: the background image of its label's ::before (WebviewPanel.iconPath). */
  const tabIcon = (): Promise<string> =>
    panelTab().evaluate((tab) => {
      for (const el of [tab, ...Array.from(tab.querySelectorAll('*'))]) {
        for (const pseudo of ['::before', '::after', null]) {
          const bg = getComputedStyle(el, pseudo).backgroundImage;
          if (bg && bg !== 'none' && /url\(/.test(bg)) return bg;
        }
      }
      return '';
    });
  const panelGroup = (): Locator => vs.page.locator('.editor-group-container', { has: panelTab() }).first();

  before(async function () {
    model = await startFakeOpenAI({ replies: [harmless()], models: [MODEL], whenExhausted: 'repeat-last' });
    const ws = workspaceFrom(DEMO, 'meter', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': MODEL,
      'fixUntilGreen.model.baseUrl': model.url,
      'fixUntilGreen.model.pricing': { [MODEL]: { input: 1, output: 4 } },
      'fixUntilGreen.costCeiling': 0.5,
      'fixUntilGreen.maxSteps': 2,
      'fixUntilGreen.stallThreshold': 5,
    });
    vs = await VsCode.launch({ name: 'meter', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('before any run: the status item is the same named item, and the panel tab is not the green check', async () => {
    await vs.meter().waitFor({ timeout: 90000 });
    const idle = await until('the idle status item', async () => {
      const t = await vs.meterText().catch(() => '');
      return /no run yet/.test(t) ? t : undefined;
    }, 60000);
    log('idle item:', idle);
    assert.equal(idle, 'Fix Until Green: no run yet');
    // The empty ring where a run's icon goes: not the beaker it had of its own, not a check.
    assert.equal(await vs.meter().locator('.codicon-circle-large-outline').count(), 1, 'the idle ring');
    assert.equal(await vs.meter().locator('.codicon-beaker, .codicon-check-all, .codicon-pass, .codicon-error, .codicon-warning').count(), 0);
    await vs.screenshot('status-idle', vs.page.locator('.part.statusbar'));

    await vs.runCommand('Fix Until Green: Show Panel');
    await vs.panel().locator('.badge.idle', { hasText: 'no run yet' }).waitFor({ timeout: 60000 });
    const icon = await until('the panel tab icon', async () => ((await tabIcon().catch(() => '')) || undefined), 30000);
    log('tab icon before a run:', icon);
    assert.match(icon, /status-idle\.svg/, 'the neutral ring');
    assert.doesNotMatch(icon, /status-green\.svg|icon\.png/, 'no green check over "no run yet"');
    await vs.screenshot('panel-tab-no-run', panelGroup());
  });

  it('a priced run that stops at its step cap shows $ amounts against the ceiling, and each step its cost and model', async () => {
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    const meters = new Set<string>();
    const icons = new Set<string>();
    const reason = await until('the stop reason', async () => {
      meters.add(await vs.meterText().catch(() => ''));
      icons.add(((await tabIcon().catch(() => '')).match(/(status-[a-z]+\.svg|icon\.png)/) ?? [''])[0]);
      return vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined);
    }, 240000, 300);
    log('meter texts seen:', [...meters]);
    log('tab icons seen:', [...icons]);
    assert.equal(reason, 'step-cap');
    assert.equal(model.requests.filter((r) => r.index >= 0).length, 2, 'two priced calls');

    // The status item: the money with its unit, against the ceiling in dollars and cents.
    const meter = await vs.meterText();
    log('meter:', meter);
    assert.match(meter, /^Fix Until Green: steps used up · 2\/2 steps · [\d.]+k?\/200k tokens · \$0\.00[1-9] of \$0\.50$/);
    assert.doesNotMatch(meter, /cost 0\.|\/0\.5\b/, 'not the old unitless figure');
    const spent = /(\$0\.00[1-9]) of/.exec(meter)![1]!;

    // The Cost bar says the same.
    const bar = (await vs.panel().locator('[data-testid="budget-cost"]').innerText()).replace(/\s+/g, ' ').trim();
    log('cost bar:', bar);
    assert.equal(bar, `Cost ${spent} of $0.50`);

    // Each step row: its tokens, its cost and its model, on the row itself (not only in a title).
    const rows = vs.panel().locator('[data-testid="step-row"]');
    assert.equal(await rows.count(), 2);
    for (const step of [1, 2]) {
      const row = vs.panel().locator(`[data-testid="step-row"][data-step="${step}"]`);
      const tokens = (await row.locator('.tokens').innerText()).trim();
      const cost = (await row.locator('[data-testid="step-cost"]').innerText()).trim();
      const who = (await row.locator('[data-testid="step-model"]').innerText()).trim();
      log(`step ${step}:`, tokens, '|', who);
      assert.match(tokens, /^[\d.]+k? tok · \$0\.00[1-9]\d*$/, 'tokens, then the cost');
      assert.match(cost, /^· \$0\.00[1-9]\d*$/);
      assert.equal(who, MODEL, 'the model that spent it, on the same row');
      assert.ok(await row.locator('[data-testid="step-cost"]').isVisible(), 'the cost is on screen');
    }

    // The tab shows the stop, not green; it went through running on the way.
    const stopped = await tabIcon();
    assert.match(stopped, /status-stopped\.svg/);
    assert.ok(!icons.has('status-green.svg') && !icons.has('icon.png'), `no green icon on a run that never went green: ${[...icons].join(', ')}`);
    await vs.screenshot('panel-step-cost', panelGroup());

    // The tooltip's Cost row, in dollars.
    await vs.meter().hover();
    const hover = vs.page.locator('.monaco-hover, .workbench-hover').first();
    await hover.waitFor({ timeout: 15000 });
    const tip = await hover.innerText();
    log('tooltip:', tip);
    assert.match(tip, new RegExp(`Cost\\s+\\${spent.replace('.', '\\.')}\\s+\\$0\\.50`));
    await vs.screenshot('meter-cost');
  });
});

// A cheap model stalls and a stronger one finishes the same run (the escalation ladder), over the
// local OpenAI-compatible server serving two model ids, with the user's prices: the panel shows
// which model made each step, and the status bar and the panel show the money spent.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { diffOf, reply } from '../../support/replies';
import { DEMO, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';

/** The cheap model rewrites applyDiscount's body into equivalent wrong ones; the strong one fixes both bugs. */
function replies(original: string): string[] {
  const out: string[] = [];
  let before = original;
  for (let k = 1; k <= 2; k++) {
    const after = before.replace(/return total - percent( \* 1)*;/, `return total - percent${' * 1'.repeat(k)};`);
    out.push(reply([diffOf(CART, before, after)], { postMortem: `Attempt ${k}: maybe the discount needs an explicit factor.`, confidence: 0.4 }));
    before = after;
  }
  const fixed = before.replace(/return total - percent( \* 1)*;/, 'return total - (total * percent) / 100;')
    // A function, not a string: `$'` in a replacement string is a pattern.
    .replace("return text.trim().replace('$', '');", () => "return Number(text.trim().replace('$', ''));");
  out.push(reply([diffOf(CART, before, fixed)], { postMortem: 'The factor was never the problem: a percentage is total * percent / 100, and parsePrice must return a number.', confidence: 0.9 }));
  return out;
}

describe('Fix Until Green in VS Code: a stalled cheap model escalates to a stronger one', function () {
  let vs: VsCode;
  let ws: string;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);

  before(async function () {
    const text = readFileSync(path.join(DEMO, CART), 'utf8');
    model = await startFakeOpenAI({ replies: replies(text), models: ['fake-cheap', 'fake-strong'] });
    ws = workspaceFrom(DEMO, 'escalate', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-cheap',
      'fixUntilGreen.model.baseUrl': model.url,
      'fixUntilGreen.model.escalation': [{ provider: 'openai-compatible', id: 'fake-strong', baseUrl: model.url }],
      'fixUntilGreen.model.pricing': { 'fake-cheap': { input: 0.5, output: 1.5 }, 'fake-strong': { input: 15, output: 75 } },
      'fixUntilGreen.costCeiling': 1,
    });
    vs = await VsCode.launch({ name: 'escalate', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('goes on with the second model after the first stalls, shows each step\'s model, and the money spent', async () => {
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    const seen = new Set<string>();
    const reason = await until('a stop reason', async () => {
      seen.add(await vs.meterText().catch(() => ''));
      return vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined);
    }, 240000, 300);
    log('meter texts seen:', [...seen]);
    assert.equal(reason, 'green');
    assert.deepEqual(model.requests.filter((r) => r.index >= 0).map((r) => r.model), ['fake-cheap', 'fake-cheap', 'fake-strong'], 'the server saw both models, in order');
    assert.equal(await vs.panel().locator('[data-testid="step-row"]').count(), 3);
    assert.deepEqual(await vs.panel().locator('[data-testid="step-model"]').allInnerTexts().then((t) => t.map((x) => x.trim())), ['fake-cheap', 'fake-cheap', 'fake-strong']);
    const handover = vs.panel().locator('[data-testid="step-row"][data-step="3"] [data-testid="step-model"]');
    assert.match((await handover.getAttribute('class')) ?? '', /escalated/);
    // Models named as a person names them (issue 40): their ids, not the settings' `openai-compatible:…`.
    assert.match((await handover.getAttribute('title')) ?? '', /^Escalated to fake-strong after step 2: fake-cheap made no progress\.$/);
    assert.match((await vs.panel().locator('[data-testid="stop-sentence"]').innerText()).trim(), /^Green: every check passes after step 3\. fake-strong finished it after taking over\.$/);
    assert.equal((await vs.panel().locator('[data-testid="model"]').innerText()).trim(), '· fake-strong');
    assert.match(await vs.panel().locator('[data-testid="budget-cost"]').innerText(), /Cost\s+\$0\.\d+ of \$1\.00/);
    assert.match(await vs.meterText(), /^Fix Until Green: green · 3\/5 steps · [\d.]+k\/200k tokens · \$0\.\d+ of \$1\.00$/);
    assert.ok([...seen].some((t) => /^Fix Until Green: \d\/5 steps · [\d.]+k?\/200k tokens · \$[\d.]+ of \$1\.00$/.test(t)), `the meter showed the money while running; saw ${[...seen].join(' | ')}`);
    // Each step's cost, in dollars, beside its tokens; the strong model's step costs more than a cheap one's.
    const costs = await vs.panel().locator('[data-testid="step-cost"]').allInnerTexts();
    assert.equal(costs.length, 3, `a cost on every step row: ${costs.join(' | ')}`);
    for (const c of costs) assert.match(c.trim(), /^· \$0\.\d+$/);
    assert.match(readFileSync(path.join(ws, CART), 'utf8'), /return total - \(total \* percent\) \/ 100;/);
    await vs.screenshot('escalate-panel');
    await vs.screenshot('escalate-statusbar', vs.page.locator('.part.statusbar'));
    await vs.meter().hover();
    await vs.page.locator('.monaco-hover, .workbench-hover').first().waitFor({ timeout: 15000 });
    const hover = await vs.page.locator('.monaco-hover, .workbench-hover').first().innerText();
    log('meter tooltip:', hover);
    assert.match(hover, /Cost\s+\$0\.\d+\s+\$1\.00/);
    await vs.screenshot('escalate-meter-tooltip');
  });
});

// A user runs Fix Until Green on the demo project in real VS Code and reverts it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { log, REPO, until, VsCode, workspaceFrom } from '../harness';

const DEMO = path.join(REPO, 'examples', 'demo');
const CART = 'src/cart.ts';

describe('Fix Until Green in VS Code: a green run, then Revert Run', function () {
  let vs: VsCode;
  let ws: string;
  let original: Buffer;

  before(async function () {
    ws = workspaceFrom(DEMO, 'green', {
      'fixUntilGreen.model.provider': 'replay',
      'fixUntilGreen.model.id': path.join(DEMO, 'replay.json'),
    });
    original = readFileSync(path.join(ws, CART));
    vs = await VsCode.launch({ name: 'green', workspace: ws, trusted: true });
  });
  after(async () => vs?.close());

  it('runs from the command palette, shows the budget while running, and stops green', async () => {
    await vs.runCommand('Fix Until Green: Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    const seen = new Set<string>();
    await until('the stop reason in the panel', async () => {
      seen.add(await vs.meterText().catch(() => ''));
      const t = await vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined);
      return t === 'green' ? t : undefined;
    }, 240000, 200);
    log('meter texts seen:', [...seen]);
    assert.ok([...seen].some((t) => /^\d\/5 · [\d.]+k?\/200k$/.test(t)), `the meter showed the budget while running; saw ${[...seen].join(' | ')}`);
    assert.equal(await vs.panel().locator('[data-testid="outcome"]').innerText(), 'fixed');
    assert.equal(await vs.panel().locator('[data-testid="step-row"]').count(), 2);
    const meter = await vs.meterText();
    assert.match(meter, /^green 2\/5 · [\d.]+k\/200k$/);
    await vs.screenshot('green-panel');
    await vs.screenshot('green-statusbar', vs.page.locator('.part.statusbar'));
    const fixed = readFileSync(path.join(ws, CART), 'utf8');
    assert.match(fixed, /return total - \(total \* percent\) \/ 100;/);
    assert.match(fixed, /return Number\(text\.trim\(\)\.replace\('\$', ''\)\);/);
  });

  it('Revert Run puts the original bytes back', async () => {
    await vs.runCommand('Fix Until Green: Revert Run');
    await until('the original bytes', () => (readFileSync(path.join(ws, CART)).equals(original) ? true : undefined), 30000);
    await vs.panel().locator('[data-testid="reverted"]').waitFor({ timeout: 15000 });
  });
});

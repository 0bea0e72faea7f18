// The vscode-lm provider for real: a test extension installed beside ours registers a language-model
// chat provider with scripted replies through VS Code's own API; a run with
// `model.provider: vscode-lm` reaches it through vscode.lm and goes green.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CACHE, DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

describe('Fix Until Green in VS Code: the vscode-lm provider', function () {
  let vs: VsCode;
  let ws: string;
  const script = path.join(CACHE, 'lm-script.json');
  const requests = `${script}.requests.jsonl`;

  screenshotFailures(() => vs);

  before(async function () {
    writeFileSync(script, JSON.stringify({ responses: demoReplies().map((text) => ({ text })) }));
    writeFileSync(requests, '');
    ws = workspaceFrom(DEMO, 'lm', { 'fixUntilGreen.model.provider': 'vscode-lm', 'fixUntilGreen.model.id': 'fug-scripted-model' });
    vs = await VsCode.launch({ name: 'lm', workspace: ws, trusted: true, withLmExtension: true, env: { FUG_LM_SCRIPT: script } });
  });
  after(async () => vs?.close());

  it('goes green with a chat model registered through the Language Model API', async () => {
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    const reason = await until('a stop reason', async () => {
      // VS Code may ask once whether this extension may use another extension's models: allow, as a user would.
      const allow = vs.page.locator('.monaco-dialog-box button', { hasText: /^Allow/ });
      if (await allow.count()) {
        log('language model access dialog: allowing');
        await vs.screenshot('lm-consent');
        await allow.first().click();
      }
      return vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined);
    }, 240000, 300);
    const detail = await vs.panel().locator('[data-testid="detail"]').innerText().catch(() => '');
    assert.equal(reason, 'green', `stop detail: ${detail}`);
    // The chat model by the name VS Code gives it (issue 40); its setting's label in the tooltip.
    assert.match(await vs.panel().locator('.meta').innerText(), /· Scripted Test Model/);
    assert.doesNotMatch(await vs.panel().locator('.meta').innerText(), /vscode-lm:/);
    assert.equal(await vs.panel().locator('[data-testid="model"]').getAttribute('title'), 'vscode-lm:fug-scripted-model');
    assert.ok(existsSync(requests));
    const asked = readFileSync(requests, 'utf8').trim().split('\n').filter(Boolean);
    assert.equal(asked.length, 2, 'two requests reached the registered chat provider');
    assert.match(readFileSync(path.join(ws, 'src', 'cart.ts'), 'utf8'), /return total - \(total \* percent\) \/ 100;/);
    await vs.screenshot('lm-green');
  });
});

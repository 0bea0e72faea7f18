// An endpoint that wants a key: the run stops saying how to give one; the user gives it with
// "Set API Key" (a password box, into VS Code's secret storage); the next run sends it and goes
// green; the Anthropic provider set up through Choose Model… with its own key goes green too; and neither key is anywhere in
// what VS Code and the extension wrote, but the secret store.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';
const KEY = 'sk-e2e-5ecret-7f3a9c1d4b8e';
const ANTHROPIC_KEY = 'sk-ant-e2e-9d2c7b1a6f0e';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) out.push(...filesUnder(p));
    else if (st.isFile()) out.push(p);
  }
  return out;
}

describe('Fix Until Green in VS Code: an API key through Set API Key', function () {
  let vs: VsCode;
  let ws: string;
  let model: FakeOpenAI;
  let anthropic: FakeOpenAI;
  let original: Buffer;

  screenshotFailures(() => vs);

  before(async function () {
    model = await startFakeOpenAI({ replies: demoReplies(), apiKey: KEY });
    anthropic = await startFakeOpenAI({ replies: demoReplies(), apiKey: ANTHROPIC_KEY, models: ['claude-fake', 'claude-other'] });
    ws = workspaceFrom(DEMO, 'secrets', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
    });
    original = readFileSync(path.join(ws, CART));
    vs = await VsCode.launch({ name: 'secrets', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
    await anthropic?.close();
  });

  const stopReason = (): Promise<string | undefined> => vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined);

  it('without a key, the run stops with error and says to run Set API Key', async () => {
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await until('the error stop', async () => ((await stopReason()) === 'error' ? true : undefined), 180000, 300);
    // What the user reads: the stop's sentence, and the technical detail folded under it.
    const detail = `${await vs.panel().locator('[data-testid="stop-sentence"]').innerText()}\n${await vs.panel().locator('[data-testid="detail"]').textContent()}`;
    log('detail:', detail);
    assert.match(detail, /Set API Key/);
    assert.equal(model.requests.filter((r) => r.outcome === 'status 401').length, 1, 'one refused call, no retry of a 401');
    await vs.screenshot('secrets-no-key');
  });

  it('Set API Key takes the key in a password box; the next run sends it and goes green', async () => {
    await setKey('openai-compatible', KEY, { firstOffered: true });

    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await until('green', async () => ((await stopReason()) === 'green' ? true : undefined), 240000, 300);
    assert.match(readFileSync(path.join(ws, CART), 'utf8'), /return total - \(total \* percent\) \/ 100;/);
    assert.equal(model.requests.filter((r) => r.outcome === 'reply').length, 2);
    await vs.screenshot('secrets-green');
  });

  /** Set API Key as a user does it: the provider from the pick, then the key in the password box. */
  async function setKey(provider: string, key: string, o: { firstOffered?: boolean } = {}): Promise<void> {
    await vs.runCommand('Fix Until Green: Set API Key');
    const filter = vs.page.locator('.quick-input-widget input[placeholder="Which provider is the key for?"]');
    await filter.waitFor({ timeout: 30000 });
    const row = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: provider }).first();
    await row.waitFor({ timeout: 30000 });
    if (o.firstOffered) {
      const rows = await vs.page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
      assert.match(rows[0] ?? '', new RegExp(provider), `the provider the settings name comes first; saw ${rows.join(' | ')}`);
    }
    await row.click();
    const box = vs.page.locator('.quick-input-widget input[type="password"]');
    await box.waitFor({ timeout: 30000 });
    await box.fill(key);
    await vs.page.keyboard.press('Enter');
    await vs.waitForNotification(new RegExp(`stored the ${provider} API key`), 30000);
  }

  it('the Anthropic provider, set up through Choose Model… (provider, base URL, key in a password box, model), goes green through the Messages API', async () => {
    const asked = await vs.revertRun();
    log('Revert Run asked:', asked ?? 'nothing');
    await until('the original bytes', () => (readFileSync(path.join(ws, CART)).equals(original) ? true : undefined), 30000);
    // The user switches provider as the palette offers it (issue 40 walk): Choose Model…, not settings JSON.
    await vs.runCommand('Fix Until Green: Choose Model…');
    const row = (text: string): Locator => vs.page.locator('.quick-input-list .monaco-list-row:visible', { hasText: text }).first();
    await row('Claude models with an API key').click();
    await vs.answerInput(anthropic.url, /base URL/);
    // A server on this machine is asked no key first; its /v1/models answers 401, so the password box opens, saying why.
    const box = vs.page.locator('.quick-input-widget input[type="password"]');
    await box.waitFor({ timeout: 30000 });
    const why = (await vs.page.locator('.quick-input-widget').innerText()).replace(/\s+/g, ' ');
    log('key box:', why);
    assert.match(why, /Asked because 127\.0\.0\.1:\d+\/v1\/models answered 401: it needs an API key\. The key is stored in VS Code's secret storage, never in settings\./);
    await vs.screenshot('secrets-anthropic-key-box');
    await box.fill(ANTHROPIC_KEY);
    await vs.page.keyboard.press('Enter');
    // The model from the server's own list, picked: no id typed.
    await row('claude-other').waitFor({ timeout: 30000 });
    await vs.screenshot('secrets-anthropic-models');
    await row('claude-fake').click();
    const saved = await vs.waitForNotification(/runs with claude-fake/, 30000);
    log('saved:', (await saved.innerText()).replace(/\s+/g, ' '));
    const settings = JSON.parse(readFileSync(path.join(ws, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(settings['fixUntilGreen.model.provider'], 'anthropic');
    assert.equal(settings['fixUntilGreen.model.id'], 'claude-fake');
    assert.equal(settings['fixUntilGreen.model.baseUrl'], anthropic.url);
    assert.ok(anthropic.requests.some((r) => r.outcome === 'models'), 'the list came from the server, with the key');
    await vs.screenshot('secrets-anthropic-saved');
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await until('green through anthropic', async () => (anthropic.requests.filter((r) => r.outcome === 'reply').length >= 2 && (await stopReason()) === 'green' ? true : undefined), 240000, 300);
    assert.match(readFileSync(path.join(ws, CART), 'utf8'), /return total - \(total \* percent\) \/ 100;/);
    const calls = anthropic.requests.filter((r) => r.index >= 0);
    assert.ok(calls.every((r) => r.api === 'anthropic' && r.path.endsWith('/messages')), `Messages API calls; saw ${calls.map((r) => r.path).join(', ')}`);
    assert.equal(model.requests.filter((r) => r.outcome === 'reply').length, 2, 'the OpenAI-compatible endpoint was not called again');
    await vs.screenshot('secrets-anthropic-green');
  });

  it('the keys are in no file VS Code or the extension wrote, except the secret store', () => {
    const places = [ws, vs.root];
    const leaks: string[] = [];
    let read = 0;
    for (const dir of places) {
      for (const f of filesUnder(dir)) {
        if (f.includes(`${path.sep}node_modules${path.sep}`)) continue;
        // VS Code keeps secrets in its state database: that is where the key belongs.
        if (/state\.vscdb(\.backup)?$/.test(f)) continue;
        read++;
        const bytes = readFileSync(f);
        if (bytes.includes(KEY) || bytes.includes(ANTHROPIC_KEY)) leaks.push(f);
      }
    }
    log(`searched ${read} files for the key`);
    assert.ok(read > 20, 'the search saw the settings, logs, traces and storage');
    assert.deepEqual(leaks, []);
  });
});

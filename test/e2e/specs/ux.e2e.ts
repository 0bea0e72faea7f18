// What a newcomer sees off the happy path (issue 19): a run that cannot start says so before the
// instruction box, with the fix as buttons; a 401 offers Set API Key; a stall is told in a sentence
// that names the failure; an edit that was not applied says why; the status item is named; and a
// step's diff adds nothing to the Problems panel.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { diffOf, reply } from '../../support/replies';
import { DEMO, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';
const KEY = 'sk-e2e-ux-3c9a1f7e';

/** Step 1 quotes a body the file does not have (not applied); then the same wrong rewrite forever. */
function replies(original: string): string[] {
  const stale = original.replace(/return total - percent;/, 'return total - percent / 2;');
  const notApplied = reply([diffOf(CART, stale, stale.replace('percent / 2', 'percent / 3'))], { postMortem: 'Attempt 1.', confidence: 0.4 });
  const out = [notApplied];
  let before = original;
  for (let k = 1; k <= 5; k++) {
    const after = before.replace(/return total - percent( \* 1)*;/, `return total - percent${' * 1'.repeat(k)};`);
    out.push(reply([diffOf(CART, before, after)], { postMortem: `Attempt ${k + 1}: maybe an explicit factor.`, confidence: 0.4 }));
    before = after;
  }
  return out;
}

describe('Fix Until Green in VS Code: a newcomer knows what happened and what to do next', function () {
  let vs: VsCode;
  let ws: string;
  let keyed: FakeOpenAI;
  let stuck: FakeOpenAI;

  screenshotFailures(() => vs);

  /** The folder's settings as a user edits them; VS Code reads the file again. */
  function setSettings(settings: Record<string, unknown>): void {
    const file = path.join(ws, '.vscode', 'settings.json');
    const base = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...base, ...settings }, null, 2));
  }
  const stopReason = (): Promise<string | undefined> => vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined);

  before(async function () {
    const text = readFileSync(path.join(DEMO, CART), 'utf8');
    keyed = await startFakeOpenAI({ replies: replies(text), apiKey: KEY });
    stuck = await startFakeOpenAI({ replies: replies(text) });
    // The default provider (vscode-lm) and no chat model installed: a first-time user's state.
    ws = workspaceFrom(DEMO, 'ux', {});
    vs = await VsCode.launch({ name: 'ux', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await keyed?.close();
    await stuck?.close();
  });

  it('with no chat model, says so before the instruction box and offers Choose Model… and Open Settings', async () => {
    await vs.runCommand('Fix Until Green');
    const note = await vs.waitForNotification(/No chat model is available in VS Code/, 60000);
    assert.ok(await (await vs.notificationButton(note, 'Choose Model…')).isVisible(), 'a Choose Model… button');
    assert.ok(await (await vs.notificationButton(note, 'Open Settings')).isVisible(), 'an Open Settings button');
    assert.equal(await note.locator('.codicon-error').count(), 1, 'the error icon');
    assert.equal(await vs.page.locator('.quick-input-widget', { hasText: /Optional instruction/ }).isVisible(), false, 'no instruction box for a run that cannot start');
    await vs.screenshot('ux-no-model');
    await (await vs.notificationButton(note, 'Open Settings')).click();
    const row = vs.page.locator('.settings-editor .setting-item-contents', { hasText: /Provider/ }).first();
    await row.waitFor({ timeout: 30000 });
    const shown = await vs.page.locator('.settings-editor .setting-item-contents').allInnerTexts();
    log('settings shown:', shown.map((t) => t.split('\n')[0]));
    assert.equal(shown.length, 1, 'Open Settings shows the one setting that fixes it');
    assert.match(shown[0]!, /Model: Provider|model\.provider/i);
    await vs.screenshot('ux-no-model-settings');
    await vs.page.keyboard.press('Control+W');
  });

  it('a 401 from a server sent no key stops with an error that says it needs one, whose Set API Key button opens the key prompt', async () => {
    setSettings({ 'fixUntilGreen.model.provider': 'openai-compatible', 'fixUntilGreen.model.id': 'fake-coder', 'fixUntilGreen.model.baseUrl': keyed.url });
    await new Promise((r) => setTimeout(r, 3000));
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    const note = await vs.waitForNotification(/needs an API key/, 180000);
    const text = (await note.innerText()).replace(/\s+/g, ' ');
    log('401 notification:', text);
    assert.equal(text.split('fake-coder').length - 1, 1, `the model is named once: ${text}`);
    assert.doesNotMatch(text, /Fix: run the command/, 'the fix is a button, not prose');
    assert.equal(await note.locator('.codicon-error').count(), 1, 'the error icon');
    assert.equal(await stopReason(), 'error');
    await vs.screenshot('ux-401');
    await (await vs.notificationButton(note, 'Set API Key')).click();
    // The error named the provider: the key box opens for it at once, no "Which provider?" (issue 40).
    await vs.page.locator('.quick-input-widget input[type="password"]').waitFor({ timeout: 30000 });
    assert.equal(await vs.page.locator('.quick-input-widget input[placeholder="Which provider is the key for?"]').count(), 0, 'no provider question');
    await vs.screenshot('ux-401-set-api-key');
    await vs.page.keyboard.press('Escape');
  });

  it('a stall leads with a sentence naming the failure; a not-applied edit says why; the status item is named', async () => {
    setSettings({ 'fixUntilGreen.model.baseUrl': stuck.url });
    await new Promise((r) => setTimeout(r, 3000));
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await until('the stalled stop', async () => ((await stopReason()) === 'stalled' ? true : undefined), 240000, 300);
    const sentence = await vs.panel().locator('[data-testid="stop-sentence"]').innerText();
    log('sentence:', sentence);
    assert.match(sentence, /Stopped: no progress — the same (\d+ )?failures? \(.+\) came back \d+ times\./);
    assert.doesNotMatch(sentence, /[0-9a-f]{8}|stallThreshold|identity/);
    assert.equal(await vs.panel().locator('.step .hash').count(), 0, 'no hash that looks like a commit on the rows');
    // innerText keeps the row's layout (the label and the reason on lines of their own): one line to match.
    const why = (await vs.panel().locator('[data-testid="not-applied"]').first().innerText()).replace(/\s+/g, ' ').trim();
    log('not applied:', why);
    assert.match(why, /^edit not applied: src\/cart\.ts: hunk 1 of 1 \(reply line \d+\) did not match the file/);
    await vs.screenshot('ux-stalled-panel');

    const meter = await vs.meterText();
    assert.match(meter, /^Fix Until Green: no progress · \d\/5 steps · [\d.]+k?\/200k tokens$/);
    assert.equal(await vs.meter().locator('.codicon-error, .codicon-warning').count(), 0, "not Problems' icons");
    await vs.screenshot('ux-statusbar', vs.page.locator('.part.statusbar'));
  });

  it("a step's diff shows read-only snapshots that put nothing in the Problems panel", async () => {
    const applied = vs.panel().locator('[data-testid="step-row"].applied').first();
    await applied.click();
    const tab = vs.page.locator('.tabs-container .tab', { hasText: /cart\.ts/ }).first();
    await tab.waitFor({ timeout: 30000 });
    // The diff's sides are our scheme's documents; TypeScript would have reported the storage copy's errors within seconds.
    await new Promise((r) => setTimeout(r, 15000));
    const rows = await vs.problems();
    log('problems:', rows);
    assert.equal(rows.filter((t) => /workspaceStorage|[/\\](before|after)([/\\]|$)|fix-until-green-snapshot/.test(t)).length, 0, `no problem from a snapshot; got ${rows.join(' | ')}`);
    await vs.screenshot('ux-diff-no-problems');
  });
});

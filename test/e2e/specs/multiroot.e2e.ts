// A multi-root workspace: with no editor open, Fix Until Green asks which folder and runs there
// only; with an editor open, it runs in that editor's folder without asking.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';

describe('Fix Until Green in VS Code: a multi-root workspace', function () {
  let vs: VsCode;
  const folders: Record<'alpha' | 'beta', { dir: string; original: Buffer; model: FakeOpenAI }> = {} as never;

  screenshotFailures(() => vs);

  before(async function () {
    for (const name of ['alpha', 'beta'] as const) {
      // Each folder has its own endpoint (folder settings): the requests show which folder ran.
      const model = await startFakeOpenAI({ replies: demoReplies() });
      const dir = workspaceFrom(DEMO, `multi-${name}`, {
        'fixUntilGreen.model.provider': 'openai-compatible',
        'fixUntilGreen.model.id': 'fake-coder',
        'fixUntilGreen.model.baseUrl': model.url,
      });
      folders[name] = { dir, original: readFileSync(path.join(dir, CART)), model };
    }
    const file = path.join(path.dirname(folders.alpha.dir), 'multi.code-workspace');
    writeFileSync(file, JSON.stringify({ folders: [{ path: folders.alpha.dir, name: 'alpha' }, { path: folders.beta.dir, name: 'beta' }] }, null, 2));
    vs = await VsCode.launch({ name: 'multiroot', workspace: file, trusted: true });
  });
  after(async () => {
    await vs?.close();
    for (const f of Object.values(folders)) await f.model?.close();
  });

  const calls = (name: 'alpha' | 'beta'): number => folders[name].model.requests.filter((r) => r.index >= 0).length;
  const stopReason = (): Promise<string | undefined> => vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined);

  it('with no editor open, asks which folder, and runs only in the one picked', async () => {
    await vs.runCommand('Fix Until Green');
    // The folder pick: its question, and why it asks (issue 40 walk), is the input's placeholder.
    await vs.page.locator('.quick-input-widget input[placeholder="Which workspace folder? (this workspace has 2 folders and no open editor says which)"]').waitFor({ timeout: 30000 });
    assert.equal((await vs.page.locator('.quick-input-widget .quick-input-title').innerText()).trim(), 'Fix Until Green', 'the command named once');
    await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'beta' }).waitFor({ timeout: 30000 });
    await vs.screenshot('multiroot-folder-pick');
    const rows = await vs.page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    log('folder picker rows:', rows);
    assert.ok(rows.some((r) => r.includes('alpha')) && rows.some((r) => r.includes('beta')), `both folders offered; saw ${rows.join(' | ')}`);
    await vs.quickInput().fill('beta');
    await vs.page.keyboard.press('Enter');
    await vs.answerInput('', /Optional instruction/);
    await until('green in beta', async () => ((await stopReason()) === 'green' ? true : undefined), 240000, 300);
    assert.equal(await vs.panel().locator('[data-testid="folder"]').innerText(), 'beta', 'the panel shows the folder that ran');
    await vs.screenshot('multiroot-beta-green');
    assert.match(readFileSync(path.join(folders.beta.dir, CART), 'utf8'), /return total - \(total \* percent\) \/ 100;/);
    assert.ok(readFileSync(path.join(folders.alpha.dir, CART)).equals(folders.alpha.original), "alpha's files are untouched");
    assert.equal(calls('beta'), 2);
    assert.equal(calls('alpha'), 0);
  });

  it("with an editor open, runs in that editor's folder without asking", async () => {
    // Quick Open takes an absolute path: alpha's cart.ts, not beta's.
    await vs.openFile(path.join(folders.alpha.dir, CART));
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await until('green in alpha', async () => (calls('alpha') >= 2 && readFileSync(path.join(folders.alpha.dir, CART), 'utf8').includes('(total * percent) / 100') ? true : undefined), 240000, 300);
    await until("the panel shows alpha's green run", async () => ((await vs.panel().locator('[data-testid="folder"]').innerText({ timeout: 500 }).catch(() => '')) === 'alpha' && (await stopReason()) === 'green' ? true : undefined), 60000, 300);
    assert.equal(calls('beta'), 2, 'beta was not asked again');
    await vs.screenshot('multiroot-alpha-green');
  });
});

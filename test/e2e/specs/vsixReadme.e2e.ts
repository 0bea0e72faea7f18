// The extension's page in the Extensions view shows the .vsix's own README (README.vsix.md): what
// a user does in VS Code, with the screenshots the e2e suite took (packaged with it).
import assert from 'node:assert/strict';
import { DEMO, screenshotFailures, VsCode, workspaceFrom } from '../harness';

describe("Fix Until Green in VS Code: the extension's page", function () {
  let vs: VsCode;

  screenshotFailures(() => vs);

  before(async function () {
    vs = await VsCode.launch({ name: 'vsix-readme', workspace: workspaceFrom(DEMO, 'vsix-readme', {}), trusted: true });
  });
  after(async () => {
    await vs?.close();
  });

  it('starts with what the user does in VS Code and shows the screenshots', async () => {
    await vs.runCommand('Extensions: Show Installed Extensions');
    const item = vs.page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'Fix Until Green' }).first();
    await item.waitFor({ timeout: 60000 });
    await item.click();
    const readme = vs.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await readme.locator('h1', { hasText: 'Fix Until Green' }).waitFor({ timeout: 60000 });
    const text = await readme.locator('body').innerText();
    assert.match(text, /Press F1 and run Fix Until Green/);
    assert.doesNotMatch(text, /npm install|npm run demo/, "not the repository's build lines");
    // The screenshots are packaged and linked relative to the package (the Marketplace rewrites such
    // links); code-server 4.139's page for a local .vsix draws no README image, so only the links are counted.
    assert.ok((await readme.locator('img').count()) >= 3, 'the README shows the screenshots');
    await vs.screenshot('vsix-readme');
  });
});

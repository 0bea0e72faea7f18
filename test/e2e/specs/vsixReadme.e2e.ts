// The extension's page in the Extensions view shows the .vsix's own README (README.vsix.md): what
// a user does in VS Code, with its pictures drawn. VS Code's page draws a README's pictures only from
// https addresses, so the package points them under the base a release names (scripts/package.mjs,
// readmePictures.mjs); here run.mjs packaged them against a local https server of this repository
// (FUG_README_BASE_URL), started below with a self-signed certificate the browser is told to accept.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO, log, REPO, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

/** Serves the repository's media/ over https on `port` and records each path asked for. */
function serveMedia(port: number, asked: string[]): Promise<{ server: Server; dir: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-readme-tls-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const url = decodeURIComponent(new URL(req.url ?? '/', 'https://127.0.0.1').pathname);
    asked.push(url);
    const file = path.join(REPO, path.normalize(url));
    if (!url.startsWith('/media/screenshots/') || !file.startsWith(path.join(REPO, 'media', 'screenshots'))) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': body.length }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ server, dir }));
  });
}

describe("Fix Until Green in VS Code: the extension's page", function () {
  let vs: VsCode;
  let tls: { server: Server; dir: string } | undefined;
  const asked: string[] = [];

  screenshotFailures(() => vs);

  before(async function () {
    const port = Number(process.env.FUG_E2E_README_PORT);
    assert.ok(port > 0, 'FUG_E2E_README_PORT is set by test/e2e/run.mjs, which packaged the README against it');
    tls = await serveMedia(port, asked);
    vs = await VsCode.launch({ name: 'vsix-readme', workspace: workspaceFrom(DEMO, 'vsix-readme', {}), trusted: true, ignoreHttpsErrors: true });
  });
  after(async () => {
    await vs?.close();
    tls?.server.close();
    if (tls) rmSync(tls.dir, { recursive: true, force: true });
  });

  it('starts with what the user does in VS Code and draws its pictures', async () => {
    await vs.runCommand('Extensions: Show Installed Extensions');
    const item = vs.page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'Fix Until Green' }).first();
    await item.waitFor({ timeout: 60000 });
    await item.click();
    const readme = vs.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await readme.locator('h1', { hasText: 'Fix Until Green' }).waitFor({ timeout: 60000 });
    const text = await readme.locator('body').innerText();
    assert.match(text, /Press F1 and run Fix Until Green/);
    assert.doesNotMatch(text, /npm install|npm run/, "not the repository's build lines");
    // Every picture is an https address, fetched and drawn (its natural size is the screenshot's).
    const images = readme.locator('img');
    await until(
      'the pictures drawn',
      async () => {
        const sizes = await images.evaluateAll((els) => els.map((e) => ({ src: (e as HTMLImageElement).src, w: (e as HTMLImageElement).naturalWidth })));
        return sizes.length >= 3 && sizes.every((s) => s.w > 0) ? sizes : undefined;
      },
      60000,
      500,
    ).then((sizes) => {
      log('pictures:', JSON.stringify(sizes));
      for (const s of sizes) assert.match(s.src, /^https:\/\/127\.0\.0\.1:\d+\/media\/screenshots\/[\w-]+\.png$/);
    });
    assert.ok(asked.filter((p) => p.startsWith('/media/screenshots/')).length >= 3, `the pictures came from the server: ${asked.join(', ')}`);
    await readme.locator('img').first().scrollIntoViewIfNeeded();
    await vs.screenshot('vsix-readme');
  });
});

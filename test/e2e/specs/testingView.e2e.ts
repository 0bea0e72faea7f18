// VS Code's Testing view after a run (issue 32, item 9; issue 40, items 4 and 9), at 1000×700: the
// run's failing test is listed and marked failed, the test it fixed stays listed and passed, the test
// that passed all along is listed too; Test Results shows what the checks printed; the failure's peek shows the values
// (`190 !== 180`, expected 180 / actual 190) without the runner's caret lines or stack; a reload keeps
// the last run's failing test for the Testing view (opening it loads the engine); the Testing
// view's own Run button (our Run Checks profile) runs the folder's checks again after the user's fix,
// and the test turns passed.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { diffOf, reply } from '../../support/replies';
import { DEMO, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';
const MONEY = 'src/money.ts';
const MONEY_TEXT = '/** Dollars as a number: "$4.50" -> 4.5. */\nexport function dollars(text: string): number {\n  return Number(text.trim().replace(\'$\', \'\'));\n}\n';
const DISCOUNT = 'applyDiscount takes a percentage off';
const PRICE = 'parsePrice reads dollars';
const SUBTOTAL = 'subtotal adds price times quantity';

/** A diff that creates `file` with `text`. */
function newFile(file: string, text: string): string {
  const lines = text.replace(/\n$/, '').split('\n');
  return ['--- /dev/null', `+++ b/${file}`, `@@ -0,0 +1,${lines.length} @@`, ...lines.map((l) => `+${l}`), ''].join('\n');
}

describe("Fix Until Green in VS Code: the Testing view lists the run's tests, shows the values and re-runs them", function () {
  let vs: VsCode;
  let ws: string;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);
  const tree = (): Locator => vs.page.locator('.test-explorer');
  const testRow = (label: string | RegExp): Locator => tree().locator('.monaco-list-row', { hasText: label }).first();
  const rootRow = (): Locator => tree().locator('.monaco-list-row', { hasText: /^testing-view/ }).first();
  /** How many extension hosts have logged (a reload starts another). */
  const extensionLogs = (): number => readdirSync(path.join(vs.root, 'data', 'logs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('Fix Until Green.log')).length;
  const marked = async (label: string, state: 'passed' | 'failed'): Promise<boolean> => (await testRow(label).locator(`.codicon-testing-${state}-icon`).count()) > 0;

  before(async function () {
    // One step that fixes the type error in parsePrice (a helper file), and with it its test; applyDiscount still takes 10, not 10 %.
    const text = readFileSync(path.join(DEMO, CART), 'utf8');
    const fixed = text.replace("return text.trim().replace('$', '');", 'return dollars(text);').replace('export interface Item {', "import { dollars } from './money';\n\nexport interface Item {");
    model = await startFakeOpenAI({ replies: [reply([newFile(MONEY, MONEY_TEXT), diffOf(CART, text, fixed)], { postMortem: 'parsePrice returned a string.', confidence: 0.7 })] });
    ws = workspaceFrom(DEMO, 'testing-view', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
      'fixUntilGreen.maxSteps': 1,
      'fixUntilGreen.flakyReruns': 0,
    });
    vs = await VsCode.launch({ name: 'testing-view', workspace: ws, trusted: true, viewport: { width: 1000, height: 700 },
      // The terminal's DOM renderer: its rows are text the spec can read.
      userSettings: { 'terminal.integrated.gpuAcceleration': 'off' },
    });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('after the run stops, the failing test is listed failed and the test the run fixed stays listed, passed', async () => {
    await vs.runCommand('Fix Until Green');
    await vs.answerInput('', /Optional instruction/);
    await vs.waitForNotification(/Stopped/, 240000);
    await vs.runCommand('Testing: Focus on Test Explorer View');
    await tree().waitFor({ timeout: 30000 });
    await rootRow().waitFor({ timeout: 30000 });
    if (!(await testRow(DISCOUNT).isVisible())) {
      await rootRow().click();
      await vs.page.keyboard.press('ArrowRight');
    }
    await testRow(DISCOUNT).waitFor({ timeout: 30000 });
    await testRow(PRICE).waitFor({ timeout: 30000 });
    log('testing view rows:', await tree().locator('.monaco-list-row').allInnerTexts());
    assert.ok(await marked(DISCOUNT, 'failed'), `${DISCOUNT} is marked failed`);
    assert.ok(await marked(PRICE, 'passed'), `${PRICE} (fixed by the run) is listed and marked passed`);
    // Every test the runner reported, the passing ones too, as a check pass lists them (issue 40, item 9).
    await until(`${SUBTOTAL} listed, passed`, async () => ((await marked(SUBTOTAL, 'passed')) ? true : undefined), 30000, 500);
    await vs.screenshot('testing-view-failed');
  });

  it("Test Results shows what the checks printed, not \"did not record any output\"", async () => {
    await vs.runCommand('Test: Show Output');
    const term = vs.page.locator('.xterm').first();
    await term.waitFor({ timeout: 30000 });
    // The terminal draws only the rows in view: scroll up through the output, reading each screen.
    const seen: string[] = [];
    const output = await until('the run output in Test Results', async () => {
      for (const row of await vs.page.locator('.xterm-rows > div').allInnerTexts()) if (!seen.includes(row)) seen.push(row);
      const t = seen.join('\n');
      if (/── test: node --import tsx --test/.test(t) && /── typecheck: /.test(t) && /not ok \d+ - applyDiscount/.test(t)) return t;
      await term.hover();
      await vs.page.mouse.wheel(0, -120);
      return undefined;
    }, 60000, 300);
    log('test results output:', output.slice(0, 800));
    assert.doesNotMatch(await vs.page.locator('.monaco-workbench').innerText(), /did not record any output/);
    assert.match(output, /not ok \d+ - applyDiscount takes a percentage off/, "the runner's own lines");
    assert.match(output, /── typecheck: tsc --noEmit -p \. \(exit code 0\) ──/, 'each check under its command');
    await vs.screenshot('testing-view-output');
    await vs.page.keyboard.press('Escape');
  });

  it('after a reload, opening the Testing view lists the last run\'s failing test again (the engine loads then, not at startup)', async () => {
    const before = extensionLogs();
    await vs.runCommand('Developer: Reload Window');
    await vs.page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
    // The reloaded window's extension host writes a log of its own.
    await until('the shell activated again', () => (extensionLogs() > before && /activated in/.test(vs.extensionLog()) ? true : undefined), 90000, 500);
    assert.doesNotMatch(vs.extensionLog(), /engine loaded in/, 'the reloaded window has not loaded the engine at startup');
    await vs.runCommand('Testing: Focus on Test Explorer View');
    await rootRow().waitFor({ timeout: 60000 });
    if (!(await testRow(DISCOUNT).isVisible())) {
      await rootRow().click();
      await vs.page.keyboard.press('ArrowRight');
    }
    await testRow(DISCOUNT).waitFor({ timeout: 30000 });
    log('testing view rows after the reload:', await tree().locator('.monaco-list-row').allInnerTexts());
    assert.ok(await marked(DISCOUNT, 'failed'), `${DISCOUNT} is marked failed again`);
    assert.match(vs.extensionLog(), /engine loaded in/, 'the Testing view loaded the engine');
  });

  it("the failure's peek shows the values' headline and the diff, without caret lines or the stack in the message", async () => {
    await vs.openFile('test/cart.test.ts');
    await vs.page.keyboard.press('Control+G');
    await vs.page.keyboard.type('10');
    await vs.page.keyboard.press('Enter');
    await vs.runCommand('Test: Peek Output');
    const peek = vs.page.locator('.test-output-peek').first();
    await peek.waitFor({ timeout: 30000 });
    // The peek's diff editor: expected 180 on one side, actual 190 on the other.
    await until('the diff of the values', async () => {
      const t = await peek.innerText();
      return /180/.test(t) && /190/.test(t) ? t : undefined;
    }, 30000, 500);
    const text = await peek.innerText();
    log('peek text:', text.slice(0, 600));
    assert.match(text, /190 !== 180/, "the values' headline");
    assert.doesNotMatch(text, /Expected values to be strictly equal/, "not the runner's message");
    assert.doesNotMatch(text, /at TestContext|node:internal|at Test\.run/, 'no stack in the message text');
    assert.doesNotMatch(text, /^\s*\^+\s*$/m, 'no caret line');
    await vs.screenshot('testing-view-diff');
    await vs.page.keyboard.press('Escape');
  });

  it("after the user's fix, the Testing view's Run button runs the checks again: the test is marked passed, and the passing ones are listed", async () => {
    const file = path.join(ws, CART);
    writeFileSync(file, readFileSync(file, 'utf8').replace('return total - percent;', 'return total - (total * percent) / 100;'));
    await vs.runCommand('Testing: Focus on Test Explorer View');
    await rootRow().hover();
    await rootRow().locator('.action-label.codicon-testing-run-icon').first().click();
    await until(`${DISCOUNT} marked passed`, async () => ((await marked(DISCOUNT, 'passed')) ? true : undefined), 180000, 500);
    assert.equal(await tree().locator('.codicon-testing-failed-icon').count(), 0, 'nothing is marked failed');
    // The check pass lists every test its runner named as passing, not only the one seen failing.
    for (const t of [PRICE, SUBTOTAL]) await until(`${t} listed, passed`, async () => ((await marked(t, 'passed')) ? true : undefined), 30000, 500);
    log('testing view rows after the re-run:', await tree().locator('.monaco-list-row').allInnerTexts());
    await vs.page.mouse.move(900, 700);
    await vs.screenshot('testing-view-passed');
  });
});

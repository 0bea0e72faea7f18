// A fresh window with the extension installed and no run history activates the shell alone: the
// engine bundle is not loaded until the user runs Fix Until Green, which loads it and goes green.
import assert from 'node:assert/strict';
import type { FakeOpenAI } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

/** The log line's time, from the LogOutputChannel's "YYYY-MM-DD HH:MM:SS.mmm [level] text" format. */
function lineTime(logText: string, re: RegExp): number | undefined {
  const line = logText.split('\n').find((l) => re.test(l));
  const m = line && /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(line);
  return m ? Date.parse(`${m[1]}T${m[2]}`) : undefined;
}

describe('Fix Until Green in VS Code: the shell activates without the engine; Run loads it', function () {
  let vs: VsCode;
  let model: FakeOpenAI;

  screenshotFailures(() => vs);

  before(async function () {
    model = await startFakeOpenAI({ replies: demoReplies() });
    const ws = workspaceFrom(DEMO, 'shell', {
      'fixUntilGreen.model.provider': 'openai-compatible',
      'fixUntilGreen.model.id': 'fake-coder',
      'fixUntilGreen.model.baseUrl': model.url,
    });
    vs = await VsCode.launch({ name: 'shell', workspace: ws, trusted: true });
  });
  after(async () => {
    await vs?.close();
    await model?.close();
  });

  it('a fresh window has activated the shell but not loaded the engine', async () => {
    const activated = await until('the extension to activate', () => (/activated in [\d.]+ ms/.test(vs.extensionLog()) ? vs.extensionLog() : undefined), 120000);
    log('activation:', /activated in [\d.]+ ms/.exec(activated)![0]);
    // The status bar item is the shell's: it shows while the engine stays unloaded.
    await vs.meter().waitFor({ timeout: 60000 });
    // Startup's work (recovery's look at the storage, the settings watcher) is over by now.
    await vs.page.waitForTimeout(3000);
    assert.doesNotMatch(vs.extensionLog(), /engine loaded in/, 'the engine was not loaded at startup');
    await vs.screenshot('shell-fresh-window');
  });

  it('Run loads the engine and goes green', async () => {
    await vs.runCommand('Fix Until Green');
    const asked = Date.now();
    await vs.answerInput('', /Optional instruction/);
    await until('the stop reason in the panel', async () => {
      const t = await vs.panel().locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => undefined);
      return t === 'green' ? t : undefined;
    }, 240000, 200);
    const text = vs.extensionLog();
    const loadedLine = /engine loaded in ([\d.]+) ms/.exec(text);
    assert.ok(loadedLine, 'the Run loaded the engine');
    assert.equal(text.match(/engine loaded in/g)!.length, 1, 'once');
    // From the engine's load to the run's start (its checks resolved), from the log's own clock.
    const loadedAt = lineTime(text, /engine loaded in/);
    const startedAt = lineTime(text, /run \S+ started in/);
    const firstVerify = lineTime(text, /step 0: /);
    log(`engine loaded in ${loadedLine[1]} ms; run-start ${startedAt !== undefined && loadedAt !== undefined ? startedAt - loadedAt : '?'} ms after it; first check result ${firstVerify !== undefined && loadedAt !== undefined ? firstVerify - loadedAt : '?'} ms after it; palette answered at ${new Date(asked).toISOString()}`);
    assert.ok(loadedAt !== undefined && startedAt !== undefined && loadedAt <= startedAt, 'the engine loaded before the run started');
    assert.equal(await vs.panel().locator('[data-testid="outcome"]').innerText(), 'fixed');
    await vs.screenshot('shell-run-green');
  });
});

// The gate for other agents in real VS Code (issue 17): the test model extension calls our
// Language Model Tools through `vscode.lm.invokeTool` from inside the extension host, as an agent
// does: runChecks twice on the unchanged failing demo (seen twice, "not making progress"), the fix
// tool (confirmed in VS Code's own dialog) to green with the scripted chat model, runChecks green.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CACHE, DEMO, demoReplies, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

interface Answers {
  listed: { name: string; description: string }[];
  answers: { tool: string; text?: string; error?: string; ms: number }[];
  done: boolean;
}

describe('Fix Until Green in VS Code: the Language Model Tools', function () {
  let vs: VsCode;
  let ws: string;
  const script = path.join(CACHE, 'gate-lm-script.json');
  const plan = path.join(CACHE, 'gate-tools-plan.json');
  const results = `${plan}.results.json`;

  screenshotFailures(() => vs);

  before(async function () {
    writeFileSync(script, JSON.stringify({ responses: demoReplies().map((text) => ({ text })) }));
    writeFileSync(`${script}.requests.jsonl`, '');
    rmSync(results, { force: true });
    writeFileSync(
      plan,
      JSON.stringify({
        calls: [
          { tool: 'fixUntilGreen_runChecks', input: {} },
          { tool: 'fixUntilGreen_runChecks', input: {} },
          { tool: 'fixUntilGreen_fix', input: { instruction: 'make the tests pass', maxSteps: 4 } },
          { tool: 'fixUntilGreen_runChecks', input: {} },
        ],
      }),
    );
    ws = workspaceFrom(DEMO, 'gate', { 'fixUntilGreen.model.provider': 'vscode-lm', 'fixUntilGreen.model.id': 'fug-scripted-model' });
    vs = await VsCode.launch({ name: 'gate', workspace: ws, trusted: true, withLmExtension: true, env: { FUG_LM_SCRIPT: script, FUG_TOOLS_PLAN: plan } });
  });
  after(async () => vs?.close());

  it('answers runChecks with the identity and seen count, and fix with a green stop', async () => {
    await vs.runCommand('FUG Tests: Invoke Tools');
    const read = (): Answers | undefined => (existsSync(results) ? (JSON.parse(readFileSync(results, 'utf8')) as Answers) : undefined);
    let shotConfirm = false;
    const done = await until('the four tool calls', async () => {
      // The fix tool asks for confirmation (prepareInvocation); VS Code shows it as a dialog outside a chat.
      const dialog = vs.page.locator('.monaco-dialog-box');
      if (await dialog.count()) {
        const text = await dialog.first().innerText();
        if (/Run Fix Until Green\?/.test(text)) {
          if (!shotConfirm) await vs.screenshot('gate-fix-confirmation');
          shotConfirm = true;
          log('confirming the fix tool');
        } else log(`dialog: ${text.replace(/\s+/g, ' ').slice(0, 120)}`);
        // "Allow" for the language-model access, the confirming button ("Yes") for the tool.
        await dialog.first().locator('.dialog-buttons .monaco-button', { hasText: /^(Yes|Allow|Continue)/ }).first().click();
      }
      const r = read();
      return r?.done ? r : undefined;
    }, 300000, 500);
    log(JSON.stringify(done.answers.map((a) => ({ tool: a.tool, ms: a.ms, error: a.error, head: a.text?.split('\n').slice(0, 3) })), null, 1));
    assert.deepEqual(done.listed.map((t) => t.name).sort(), ['fixUntilGreen_fix', 'fixUntilGreen_runChecks']);
    assert.match(done.listed.find((t) => t.name === 'fixUntilGreen_runChecks')!.description, /Call it after every change you make/);
    const [first, second, fix, last] = done.answers;
    for (const a of done.answers) assert.equal(a.error, undefined, `${a.tool}: ${a.error}`);
    assert.match(first!.text!, /: NOT GREEN, \d+ failures?$/m);
    const identity = /^Failure identity: ([0-9a-f]{12}) \(seen 1 time in this session; check pass 1\)$/m.exec(first!.text!);
    assert.ok(identity, first!.text);
    assert.match(second!.text!, new RegExp(`^Failure identity: ${identity[1]} \\(seen 2 times in this session; check pass 2\\)$`, 'm'));
    assert.match(second!.text!, /^Verdict: same failures as the previous attempt \(this identity seen 2 times in this session\): you are not making progress; stop or change approach$/m);
    assert.match(fix!.text!, /stopped with green \(outcome: fixed\)/);
    const trace = /^Trace: (.+\.jsonl)$/m.exec(fix!.text!);
    assert.ok(trace && existsSync(trace[1]!), `the trace exists: ${fix!.text}`);
    assert.match(last!.text!, /: GREEN$/m);
    assert.match(last!.text!, /^Verdict: green: every check passes \(the previous attempt had \d+ failures?\); the task is done, stop here$/m);
    assert.match(readFileSync(path.join(ws, 'src', 'cart.ts'), 'utf8'), /return total - \(total \* percent\) \/ 100;/);
    // The run went through the folder's controller: the panel and the status bar know it.
    assert.match(vs.extensionLog(), /checks for an agent in gate: \d+ failure\(s\), identity [0-9a-f]{12} seen 2 time\(s\)/);
    await vs.screenshot('gate-tools-green');
  });

  it('explores the Chat view', async () => {
    await vs.runCommand('Chat: Open Chat', 20000).catch((e: unknown) => log('no Chat: Open Chat command', (e as Error).message));
    await new Promise((r) => setTimeout(r, 3000));
    const input = vs.page.locator('.interactive-input-part .monaco-editor textarea, .chat-input-container .monaco-editor textarea').first();
    await input.click();
    await vs.page.keyboard.type('@fix /checks');
    await new Promise((r) => setTimeout(r, 1500));
    await vs.screenshot('gate-chat-typed');
    await vs.page.keyboard.press('Enter');
    await new Promise((r) => setTimeout(r, 20000));
    await vs.screenshot('gate-chat-view');
    log(await vs.page.locator('.interactive-session').first().innerText().catch(() => 'no session text'));
  });
});

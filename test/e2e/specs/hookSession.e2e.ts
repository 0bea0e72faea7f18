// Gate Agent Mode… in real VS Code (issue 30), and the panel following the agent's session: the
// command writes the hook files of the hosts the project shows (VS Code's agent mode always; Claude
// Code here, the folder has `.claude/`); then the installed commands run exactly as the host would
// run them (the Stop hook's JSON on stdin): a stop blocked on the failing demo, the agent's edit
// checkpointed by PreToolUse, a second stop let through green. The panel and the status bar follow
// the session as it happens, say it is Claude Code's session, and Revert session puts the bytes back.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { DEMO, log, screenshotFailures, until, VsCode, workspaceFrom } from '../harness';

const CART = 'src/cart.ts';

interface ClaudeHooks {
  hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout: number }[] }[]>;
}

/** Runs an installed hook command as the host does: through a shell, the hook's JSON on stdin. */
function runHook(command: string, input: unknown, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('/bin/sh', ['-c', command], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(JSON.stringify(input));
  });
}

describe('Fix Until Green in VS Code: Gate Agent Mode, and an agent hook session followed by the panel', function () {
  let vs: VsCode;
  let ws: string;
  let original: string;
  let hooks: ClaudeHooks;
  const session = 'e2e-claude-session-1';

  screenshotFailures(() => vs);

  before(async function () {
    ws = workspaceFrom(DEMO, 'hook-session');
    // A project that uses Claude Code: Gate Agent Mode… offers (and pre-picks) it beside VS Code's agent mode.
    mkdirSync(path.join(ws, '.claude'), { recursive: true });
    original = readFileSync(path.join(ws, CART), 'utf8');
    vs = await VsCode.launch({ name: 'hook-session', workspace: ws, trusted: true });
  });
  after(async () => vs?.close());

  const stopInput = (last: string, active: boolean): unknown => ({ session_id: session, transcript_path: null, cwd: ws, hook_event_name: 'Stop', stop_hook_active: active, last_assistant_message: last });
  const command = (event: string): string => hooks.hooks[event]![0]!.hooks[0]!.command;

  it('Gate Agent Mode… installs the hooks of the hosts picked, each with its command and this folder\'s storage', async () => {
    await vs.runCommand('Fix Until Green: Gate Agent Mode…');
    const rows = await until('the hosts offered', async () => {
      const r = await vs.page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
      return r.some((t) => /Claude Code/.test(t)) ? r : undefined;
    }, 30000);
    log('hosts offered:', rows.map((r) => r.replace(/\s+/g, ' ')));
    assert.ok(rows.some((r) => /VS Code agent mode \(Copilot\)/.test(r)));
    await vs.screenshot('hook-session-pick-hosts');
    const checked = await vs.page.locator('.quick-input-list .monaco-list-row[aria-checked="true"]').allInnerTexts();
    assert.ok(checked.some((t) => /Claude Code/.test(t)) && checked.some((t) => /VS Code agent mode/.test(t)), `both hosts are picked: ${checked.join(' | ')}`);
    await vs.page.keyboard.press('Enter');
    await vs.waitForNotification(/Fix Until Green gates VS Code agent mode \(Copilot\), Claude Code/);

    const claudeFile = path.join(ws, '.claude', 'settings.json');
    const vscodeFile = path.join(ws, '.github', 'hooks', 'fix-until-green.vscode.json');
    hooks = await until('the hook files', () => (existsSync(claudeFile) && existsSync(vscodeFile) ? (parseJsonc(readFileSync(claudeFile, 'utf8')) as ClaudeHooks) : undefined), 15000);
    const stop = hooks.hooks.Stop![0]!.hooks[0]!;
    log('installed Stop command:', stop.command);
    const m = /^ELECTRON_RUN_AS_NODE=1 "([^"]+)" "([^"]+)" hook --host claude --event stop --timeout 300 --storage "([^"]+)"$/.exec(stop.command);
    assert.ok(m, stop.command);
    const [, node, cli, storage] = m;
    assert.ok(path.isAbsolute(node!));
    assert.ok(cli!.startsWith(path.join(vs.root, 'exts')) && cli!.endsWith(path.join('dist', 'cli.js')), `the installed extension's CLI: ${cli}`);
    assert.ok(storage!.startsWith(path.join(vs.root, 'data', 'User', 'workspaceStorage')) && path.basename(storage!).startsWith('hook-session-'), `this folder's extension storage: ${storage}`);
    assert.equal(stop.type, 'command');
    assert.equal(stop.timeout, 300);
    assert.equal(command('PreToolUse'), stop.command.replace('--event stop', '--event pre-tool'));
    const vsHooks = parseJsonc(readFileSync(vscodeFile, 'utf8')) as { hooks: Record<string, { type: string; command: string; timeout: number }[]> };
    assert.equal(vsHooks.hooks.Stop![0]!.command, stop.command.replace('--host claude', '--host vscode'));
    assert.equal(vsHooks.hooks.Stop![0]!.timeout, 300);
  });

  it("the panel follows the session: the stop sent back with the failures, the edit checkpointed, the stop let through green, and Revert session", async () => {
    await vs.runCommand('Fix Until Green: Show Panel');
    const first = await runHook(command('Stop'), stopInput('Done, all tests pass.', false), ws);
    log('first stop:', first.code, first.stdout.slice(0, 200));
    assert.equal(first.code, 0, first.stderr);
    const blocked = JSON.parse(first.stdout) as { decision?: string; reason?: string };
    assert.equal(blocked.decision, 'block');
    assert.match(blocked.reason!, /"Done, all tests pass\.", but the checks disagree/);

    const panel = vs.panel();
    await until("the session's first stop in the panel", async () => ((await panel.locator('[data-testid="session-stop"][data-answer="block"]').count()) === 1 ? true : undefined), 60000, 300);
    assert.equal((await panel.locator('[data-testid="session-host"]').innerText()).trim(), "Claude Code's session, gated by Fix Until Green");
    // What the agent did and why it was answered no, in plain words (issue 40 walk).
    assert.match((await panel.locator('[data-testid="session-sentence"]').innerText()).trim(), /^Claude Code tried to stop while your checks fail \(3 failures\), so it was sent back to work\.$/);
    assert.equal(await panel.locator('[data-testid="run-status"]').count(), 1, 'the session is live');
    assert.match(await panel.locator('[data-testid="session-verdict"]').innerText(), /first seen in this session/);
    assert.ok((await panel.locator('[data-testid="session-stop"] [data-testid="failure-headline"]').count()) > 0, 'the failures are on the row');
    // Not our run: nothing to stop or continue.
    for (const a of ['stop', 'continue', 'revertToBest']) assert.equal(await panel.locator(`button[data-action="${a}"]`).count(), 0, `no ${a} button`);
    const live = await until('the meter to follow the session', async () => {
      const t = await vs.meterText();
      return /Claude Code · 1\/5 stops sent back/.test(t) ? t : undefined;
    }, 15000);
    log('meter while live:', live);
    await vs.screenshot('hook-session-blocked');

    // The agent edits the file as Claude Code's Write tool does: PreToolUse checkpoints it first, PostToolUse records what it wrote.
    const fixed = original.replace('return total - percent;', 'return total - (total * percent) / 100;').replace("return text.trim().replace('$', '');", () => "return Number(text.trim().replace('$', ''));");
    assert.notEqual(fixed, original);
    const write = { session_id: session, transcript_path: null, cwd: ws, tool_name: 'Write', tool_input: { file_path: path.join(ws, CART), content: fixed } };
    const pre = await runHook(command('PreToolUse'), { ...write, hook_event_name: 'PreToolUse' }, ws);
    assert.equal(pre.code, 0, pre.stderr);
    writeFileSync(path.join(ws, CART), fixed);
    const post = await runHook(command('PostToolUse'), { ...write, hook_event_name: 'PostToolUse', tool_response: { filePath: path.join(ws, CART), success: true } }, ws);
    assert.equal(post.code, 0, post.stderr);

    const second = await runHook(command('Stop'), stopInput('Fixed the discount and the price parsing.', true), ws);
    log('second stop:', second.code, second.stdout.slice(0, 200));
    assert.equal(second.code, 0, second.stderr);
    const allowed = JSON.parse(second.stdout) as { decision?: string; systemMessage?: string };
    assert.equal(allowed.decision, undefined);
    assert.match(allowed.systemMessage!, /every check passes \(typecheck, test\)/);

    await until('the stop let through in the panel', async () => ((await panel.locator('[data-testid="stop-reason"]').innerText({ timeout: 500 }).catch(() => '')) === 'green' ? true : undefined), 60000, 300);
    assert.equal(await panel.locator('[data-testid="session-stop"]').count(), 2);
    assert.equal(await panel.locator('[data-testid="session-stop"][data-answer="allow"]').count(), 1);
    // Why the stop was let through, in words: no reason id, no "step" the session never had.
    assert.equal((await panel.locator('[data-testid="session-decision"]').innerText()).trim(), 'Every check passes, so the agent was let stop.');
    assert.equal((await panel.locator('[data-testid="session-sentence"]').innerText()).trim(), 'Claude Code stopped with every check passing (after being sent back once).');
    assert.match(await panel.locator('[data-testid="session-touched"]').innerText(), /src\/cart\.ts/);
    const meter = await until('the meter to show the stop', async () => {
      const t = await vs.meterText();
      return /^Fix Until Green: green · Claude Code$/.test(t) ? t : undefined;
    }, 15000);
    log('meter after the stop:', meter);
    await vs.screenshot('hook-session-green');
    await vs.screenshot('hook-session-statusbar', vs.page.locator('.part.statusbar'));

    // Revert session: the bytes before the agent's Write, through the extension's own Revert.
    const revert = panel.locator('button[data-action="revertRun"]');
    assert.equal(await revert.isEnabled(), true);
    await revert.click();
    // Every revert asks first (issue 40), naming the file it writes back.
    const question = vs.page.locator('.monaco-dialog-box', { hasText: /Revert the session\?/ });
    await question.waitFor({ timeout: 15000 });
    assert.match((await question.innerText()).replace(/\s+/g, ' '), /src\/cart\.ts/);
    await question.locator('.monaco-button', { hasText: /^Revert Session$/ }).first().click();
    await until('the original bytes', () => (readFileSync(path.join(ws, CART), 'utf8') === original ? true : undefined), 30000);
    await until('Revert session to be done', async () => ((await revert.isDisabled()) ? true : undefined), 15000);
    // The notification names the file and the session, its number agreeing ("1 file to their original bytes" before).
    const restored = await vs.waitForNotification(/Fix Until Green: restored src\/cart\.ts to what it was before the session\./, 15000);
    // Drawn whole, not cut at the toast's width with an ellipsis.
    const cut = await restored.locator('.notification-list-item-message').first().evaluate((el) => el.scrollWidth > el.clientWidth + 1);
    assert.equal(cut, false, 'the restore sentence is drawn whole');
    await vs.screenshot('hook-session-reverted');
    await vs.screenshot('hook-session-restored-notice', restored);
  });
});

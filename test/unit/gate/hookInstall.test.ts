// `hooks install|uninstall`: merged into the host's own file, every other byte kept, idempotent.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { agentHostsFound, applyHooksFile, HookConfigError, hookConfigFile, installHooksText, uninstallHooksText } from '../../../src/core/gate/hookInstall';
import { tempTree } from '../../support/fixtures';

const opts = { cli: '"/usr/bin/node" "/opt/fug/dist/cli.js"', timeoutSeconds: 120 };

const CLAUDE_SETTINGS = `{
  // the user's own settings
  "model": "claude-sonnet-4",
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "Stop": [
      { "hooks": [ { "type": "command", "command": "./notify.sh" } ] }
    ],
    "SessionStart": [
      { "hooks": [ { "type": "command", "command": "echo hi" } ] }
    ]
  }
}
`;

describe('hooks install / uninstall', () => {
  it("merges into Claude Code's settings: the user's hooks and settings keep their bytes; twice changes nothing; uninstall gives the file back", () => {
    const file = '/p/.claude/settings.json';
    const after = installHooksText('claude', file, CLAUDE_SETTINGS, opts);
    const j = parse(after) as { hooks: Record<string, { matcher?: string; hooks: { command: string; timeout: number }[] }[]> };
    assert.equal(j.hooks.Stop!.length, 2);
    assert.equal(j.hooks.Stop![0]!.hooks[0]!.command, './notify.sh');
    assert.equal(j.hooks.Stop![1]!.hooks[0]!.command, '"/usr/bin/node" "/opt/fug/dist/cli.js" hook --host claude --event stop --timeout 120');
    assert.equal(j.hooks.Stop![1]!.hooks[0]!.timeout, 120);
    assert.equal(j.hooks.PreToolUse![0]!.matcher, 'Write|Edit|MultiEdit|NotebookEdit');
    assert.match(j.hooks.PostToolUse![0]!.hooks[0]!.command, /--event post-tool/);
    assert.deepEqual(j.hooks.SessionEnd, [{ hooks: [{ type: 'command', command: '"/usr/bin/node" "/opt/fug/dist/cli.js" hook --host claude --event session-end --timeout 120', timeout: 120 }] }]);
    for (const line of ['  // the user\'s own settings', '  "model": "claude-sonnet-4",', '  "permissions": { "allow": ["Bash(npm test)"] },', '      { "hooks": [ { "type": "command", "command": "./notify.sh" } ] },', '      { "hooks": [ { "type": "command", "command": "echo hi" } ] }']) {
      assert.ok(after.split('\n').includes(line), `kept byte for byte (the Stop entry gains the comma before ours): ${line}`);
    }
    assert.equal(installHooksText('claude', file, after, opts), after, 'a second install changes no byte');
    const newer = installHooksText('claude', file, after, { ...opts, timeoutSeconds: 300 });
    assert.match(newer, /--timeout 300/);
    assert.doesNotMatch(newer, /--timeout 120/);
    assert.equal(uninstallHooksText('claude', file, after), CLAUDE_SETTINGS, 'install then uninstall gives back every byte');
    assert.equal(uninstallHooksText('claude', file, CLAUDE_SETTINGS), CLAUDE_SETTINGS, 'nothing of ours: nothing changes');
  });

  it('creates a file that did not exist and removes it again when it held only our hooks', () => {
    const file = '/p/.github/hooks/fix-until-green.json';
    const text = installHooksText('copilot-cli', file, null, opts);
    const j = parse(text) as { version: number; hooks: Record<string, { type: string; bash: string; timeoutSec: number }[]> };
    assert.equal(j.version, 1);
    assert.deepEqual(Object.keys(j.hooks), ['agentStop', 'preToolUse', 'postToolUse', 'sessionEnd']);
    // The session's end stops the folder's worker; Copilot CLI's payload names no event, so the install does.
    assert.match(j.hooks.sessionEnd![0]!.bash, /hook --host copilot-cli --event session-end --timeout 120$/);
    assert.equal(j.hooks.agentStop![0]!.timeoutSec, 120);
    assert.match(j.hooks.agentStop![0]!.bash, /hook --host copilot-cli --event stop/);
    assert.equal(uninstallHooksText('copilot-cli', file, text), null);
  });

  it('uninstall removes the folders install made when they are left empty, and no folder that holds anything else', () => {
    const t = tempTree({ 'package.json': '{}', 'home/.gemini/oauth.json': '{}' });
    try {
      const root = t.dir;
      const home = path.join(t.dir, 'home');
      for (const [host, scope] of [['gemini', 'project'], ['copilot-cli', 'project'], ['gemini', 'user']] as const) {
        assert.equal(applyHooksFile('install', host, scope, root, home, opts).changed, true);
        assert.equal(applyHooksFile('uninstall', host, scope, root, home, opts).removed, true);
      }
      assert.deepEqual(readdirSync(root).sort(), ['home', 'package.json']);
      assert.deepEqual(readdirSync(path.join(home, '.gemini')), ['oauth.json']);
      // `.github/` held a workflow before: only `hooks/` goes.
      mkdirSync(path.join(root, '.github', 'workflows'), { recursive: true });
      writeFileSync(path.join(root, '.github', 'workflows', 'ci.yml'), 'on: push\n');
      applyHooksFile('install', 'copilot-cli', 'project', root, home, opts);
      applyHooksFile('uninstall', 'copilot-cli', 'project', root, home, opts);
      assert.deepEqual(readdirSync(path.join(root, '.github')), ['workflows']);
    } finally {
      t.cleanup();
    }
  });

  it("writes each host's own shape: Gemini's timeout in ms, Cursor's loop_limit, Codex's apply_patch matcher", () => {
    const gemini = parse(installHooksText('gemini', '/p/.gemini/settings.json', '{ "theme": "dark" }\n', opts)) as { theme: string; hooks: Record<string, { matcher?: string; hooks: { timeout: number; name: string }[] }[]> };
    assert.equal(gemini.theme, 'dark');
    assert.equal(gemini.hooks.AfterAgent![0]!.hooks[0]!.timeout, 120_000);
    assert.equal(gemini.hooks.BeforeTool![0]!.matcher, 'write_file|replace');
    const cursor = parse(installHooksText('cursor', '/p/.cursor/hooks.json', null, { ...opts, loopLimit: 10 })) as { version: number; hooks: { stop: { loop_limit: number; command: string }[] } };
    assert.equal(cursor.version, 1);
    assert.equal(cursor.hooks.stop[0]!.loop_limit, 10);
    const codex = parse(installHooksText('codex', '/p/.codex/hooks.json', null, opts)) as { hooks: Record<string, { matcher?: string }[]> };
    assert.deepEqual(Object.keys(codex), ['hooks'], "Codex refuses a hooks.json with any root key but description and hooks");
    assert.deepEqual(Object.keys(codex.hooks), ['Stop', 'PreToolUse', 'PostToolUse']);
    assert.equal(codex.hooks.Stop![0]!.matcher, undefined);
    assert.equal(codex.hooks.PreToolUse![0]!.matcher, 'apply_patch', 'Codex names its edit tool apply_patch; its shell is "Bash"');
  });

  it('refuses a file it cannot read as a JSON object, leaving it alone', () => {
    assert.throws(() => installHooksText('claude', '/p/.claude/settings.json', '{ "hooks": [ }', opts), HookConfigError);
    assert.throws(() => installHooksText('claude', '/p/.claude/settings.json', '{ "hooks": [] }', opts), /"hooks" is not an object/);
  });

  it('names the config file of each host and scope', () => {
    assert.equal(hookConfigFile('claude', 'project', '/p', '/h'), '/p/.claude/settings.json');
    assert.equal(hookConfigFile('claude', 'user', '/p', '/h'), '/h/.claude/settings.json');
    assert.equal(hookConfigFile('codex', 'project', '/p', '/h'), '/p/.codex/hooks.json');
    assert.equal(hookConfigFile('gemini', 'user', '/p', '/h'), '/h/.gemini/settings.json');
    assert.equal(hookConfigFile('cursor', 'project', '/p', '/h'), '/p/.cursor/hooks.json');
    assert.equal(hookConfigFile('copilot-cli', 'user', '/p', '/h'), '/h/.copilot/hooks/fix-until-green.json');
    assert.equal(hookConfigFile('vscode', 'project', '/p', '/h'), '/p/.github/hooks/fix-until-green.vscode.json');
  });
});

describe('agent hosts a project shows', () => {
  it("offers VS Code's agent mode always, and each other host whose folder is in the project or the home", () => {
    const present = new Set(['/p/.claude', '/h/.codex', '/p/.github/hooks']);
    const found = agentHostsFound('/p', '/h', (p) => present.has(p));
    assert.deepEqual(
      found.map((f) => [f.host, f.found]),
      [
        ['vscode', 'VS Code'],
        ['claude', '/p/.claude'],
        ['codex', '/h/.codex'],
        ['gemini', null],
        ['cursor', null],
        ['copilot-cli', '/p/.github/hooks'],
      ],
    );
  });

  it('passes extra hook flags (the extension\'s storage) after the event', () => {
    const text = installHooksText('vscode', '/p/.github/hooks/fix-until-green.vscode.json', null, { ...opts, args: '--storage "/s/p-1"' });
    const j = parse(text) as { hooks: { Stop: { command: string; timeout: number }[] } };
    assert.equal(j.hooks.Stop[0]!.command, '"/usr/bin/node" "/opt/fug/dist/cli.js" hook --host vscode --event stop --timeout 120 --storage "/s/p-1"');
    assert.equal(j.hooks.Stop[0]!.timeout, 120);
  });
});

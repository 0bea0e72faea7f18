// The hook's guards judge what a write really touches (issue 36), as each host sends it: a real
// CLI process per call, a real fixture project, real links. The path as written and the file the
// write lands on are both judged; a Codex patch is read as Codex reads it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../support/cli';
import { copyFixture } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

function call(host: string, input: Record<string, unknown>, s: Scratch, extra: string[] = [], env: Record<string, string> = {}): Record<string, unknown> {
  // The hosts' project-dir variables are the test's to set: one inherited from the shell running the tests would place the call.
  const r = runCli(['hook', '--host', host, ...extra], { input: JSON.stringify(input), env: { FIX_UNTIL_GREEN_STORAGE: s.storage, CLAUDE_PROJECT_DIR: '', GEMINI_PROJECT_DIR: '', CURSOR_PROJECT_DIR: '', ...env } });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim() === '' ? {} : (JSON.parse(r.stdout) as Record<string, unknown>);
}

/** The deny reason in any host's form, or '' when the call was allowed. */
function denied(o: Record<string, unknown>): string {
  const h = o.hookSpecificOutput as { permissionDecision?: string; permissionDecisionReason?: string } | undefined;
  if (h?.permissionDecision === 'deny') return String(h.permissionDecisionReason);
  if (o.decision === 'deny' || o.permissionDecision === 'deny' || o.permission === 'deny') return String(o.reason ?? o.permissionDecisionReason ?? o.agent_message);
  return '';
}

describe('hook guards judge the path a write lands on (CLI, real links)', function () {
  this.timeout(120_000);
  let s: Scratch;
  let outside: string;
  beforeEach(() => {
    s = copyFixture('hooks/cart');
    outside = mkdtempSync(path.join(os.tmpdir(), 'fug-outside-'));
    writeFileSync(path.join(s.project, 'test', 'helpers.js'), 'export const h = 1;\n');
    symlinkSync('../test/helpers.js', path.join(s.project, 'src', 'helper.js'));
    symlinkSync('../test', path.join(s.project, 'src', 'specs'));
    mkdirSync(path.join(s.project, 'test', 'deep'));
    symlinkSync('../test/deep', path.join(s.project, 'src', 'deep'));
    symlinkSync(outside, path.join(s.project, 'src', 'out'));
  });
  afterEach(() => {
    s.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  const claudePre = (tool: string, input: Record<string, unknown>, cwd = s.project): Record<string, unknown> => call('claude', { session_id: 'l-1', cwd, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input }, s);

  it('Claude Edit/Write/MultiEdit/NotebookEdit: a file link, a folder link, a file not yet made under it, `..` after a link, `./` spellings', () => {
    assert.match(denied(claudePre('Edit', { file_path: path.join(s.project, 'src', 'helper.js'), old_string: '1', new_string: '2' })), /src\/helper\.js \(test\/helpers\.js\) is protected/);
    assert.match(denied(claudePre('Write', { file_path: 'src/specs/new-helper.js', content: 'x' })), /src\/specs\/new-helper\.js \(test\/new-helper\.js\) is protected/);
    assert.match(denied(claudePre('MultiEdit', { file_path: './src/./specs/helpers.js', edits: [{ old_string: '1', new_string: '2' }] })), /is protected/);
    // `src/deep/..` is test/ to the OS (the link's parent), though it reads as src/.
    assert.match(denied(claudePre('Write', { file_path: 'src/deep/../made.js', content: 'x' })), /src\/made\.js \(test\/made\.js\) is protected/);
    assert.match(denied(claudePre('NotebookEdit', { notebook_path: 'specs/nb.ipynb', new_source: 'x' }, path.join(s.project, 'src'))), /test\/nb\.ipynb\) is protected/);
    // Written inside, landing outside the project: refused, never an unguarded write elsewhere.
    assert.match(denied(claudePre('Write', { file_path: 'src/out/x.js', content: 'x' })), /resolves through a symbolic link to .*outside the workspace/);
    // The code under test, named plainly, is still the agent's to edit.
    assert.deepEqual(claudePre('Edit', { file_path: 'src/cart.js', old_string: 'acc + l.price', new_string: 'acc + l.price * l.quantity' }), {});
  });

  it("every host's tool shape is judged the same way: Gemini write_file/replace, Copilot CLI's JSON-string toolArgs, VS Code's createFile", () => {
    const gemini = call('gemini', { session_id: 'g', cwd: s.project, hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: { file_path: 'src/specs/x.js', content: 'x' } }, s);
    assert.match(denied(gemini), /test\/x\.js\) is protected/);
    const replace = call('gemini', { session_id: 'g', cwd: s.project, hook_event_name: 'BeforeTool', tool_name: 'replace', tool_input: { file_path: path.join(s.project, 'src', 'helper.js'), old_string: '1', new_string: '2' } }, s);
    assert.match(denied(replace), /test\/helpers\.js\) is protected/);
    const copilot = call('copilot-cli', { sessionId: 'c', cwd: s.project, toolName: 'edit', toolArgs: JSON.stringify({ path: 'src/helper.js', old_str: '1', new_str: '2' }) }, s, ['--event', 'pre-tool']);
    assert.match(denied(copilot), /test\/helpers\.js\) is protected/);
    const vscode = call('vscode', { sessionId: 'v', cwd: s.project, hookEventName: 'PreToolUse', tool_name: 'createFile', tool_input: { filePath: path.join(s.project, 'src', 'specs', 'y.js'), content: 'x' } }, s);
    assert.match(denied(vscode), /test\/y\.js\) is protected/);
  });

  it("Codex apply_patch as Codex parses it: trimmed and tabbed headers, Move to and from, a heredoc, `bash -lc \"cd test && apply_patch\"`, the JSON-array command", () => {
    const codexPre = (toolName: string, toolInput: unknown): string => denied(call('codex', { session_id: 'x', turn_id: 't', cwd: s.project, model: 'gpt-5', permission_mode: 'default', transcript_path: null, hook_event_name: 'PreToolUse', tool_name: toolName, tool_input: toolInput }, s));
    const patch = (body: string): string => `*** Begin Patch\n${body}\n*** End Patch\n`;
    assert.match(codexPre('apply_patch', { command: patch('   *** Update File: test/helpers.js\n@@\n-export const h = 1;\n+export const h = 2;') }), /test\/helpers\.js is protected/);
    assert.match(codexPre('apply_patch', { command: patch('\t*** Delete File:\ttest/helpers.js ') }), /test\/helpers\.js is protected/);
    assert.match(codexPre('apply_patch', { command: patch('*** Update File: src/cart.js\n*** Move to: test/moved.js\n@@\n-x\n+y') }), /test\/moved\.js is protected/);
    assert.match(codexPre('apply_patch', { command: patch('*** Update File: test/helpers.js\n  *** Move to: src/stolen.js\n@@\n-x\n+y') }), /test\/helpers\.js is protected/);
    assert.match(codexPre('apply_patch', { command: `<<'EOF'\n${patch('*** Add File: src/specs/planted.js\n+x')}EOF\n` }), /test\/planted\.js\) is protected/);
    assert.match(codexPre('apply_patch', { command: ['apply_patch', patch('*** Update File: test/helpers.js\n@@\n-a\n+b')] }), /test\/helpers\.js is protected/);
    assert.match(codexPre('shell', { command: ['bash', '-lc', `cd test && apply_patch <<'EOF'\n${patch('*** Update File: helpers.js\n@@\n-a\n+b')}EOF\n`] }), /test\/helpers\.js is protected/);
    assert.match(codexPre('apply_patch', patch('*** Add File: test/raw.js\n+x')), /test\/raw\.js is protected/);
    assert.match(codexPre('apply_patch', { command: '  *** begin patch  \n*** Add File: test/spaced.js\n+x\n *** End Patch ' }), /test\/spaced\.js is protected/);
    // The code under test, patched plainly, is allowed.
    assert.equal(codexPre('apply_patch', { command: patch('*** Update File: src/cart.js\n@@\n-  const sum = lines.reduce((acc, l) => acc + l.price, 0);\n+  const sum = lines.reduce((acc, l) => acc + l.price * l.quantity, 0);') }), '');
  });
});

describe("the gate's folder is the project, not where the agent cd'ed (CLI, real checks)", function () {
  this.timeout(120_000);
  let s: Scratch;
  beforeEach(() => (s = copyFixture('hooks/cart')));
  afterEach(() => s.cleanup());

  const stop = (cwd: string, env: Record<string, string> = {}): Record<string, unknown> =>
    call('claude', { session_id: 'cd-1', transcript_path: path.join(s.project, 'none.jsonl'), cwd, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'All tests pass.' }, s, [], env);

  it("after `cd src` the Stop is checked in the project: it blocks with the project's failures and the session's counts go on", () => {
    const first = stop(s.project);
    assert.equal(first.decision, 'block');
    assert.match(String(first.reason), /2 failures/);
    const second = stop(path.join(s.project, 'src'));
    assert.equal(second.decision, 'block', JSON.stringify(second));
    assert.match(String(second.reason), /2 failures/);
    assert.match(String(second.reason), /seen 2 times in this session/);
  });

  it('a folder below with its own package.json: the installed hooks mark the project; else the host\'s project-dir variable does', () => {
    mkdirSync(path.join(s.project, 'src', 'sub'));
    writeFileSync(path.join(s.project, 'src', 'package.json'), '{ "name": "inner" }\n');
    // The host's variable, when the cwd lies inside it.
    const byEnv = stop(path.join(s.project, 'src', 'sub'), { CLAUDE_PROJECT_DIR: s.project });
    assert.equal(byEnv.decision, 'block', JSON.stringify(byEnv));
    assert.match(String(byEnv.reason), /2 failures/);
    // A variable naming another folder is not this call's project: the install's marker places it.
    const install = runCli(['hooks', 'install', '--host', 'claude', '--cwd', s.project], { env: { FIX_UNTIL_GREEN_STORAGE: s.storage } });
    assert.equal(install.code, 0, install.stderr);
    mkdirSync(path.join(s.dir, 'elsewhere'));
    const byMarker = stop(path.join(s.project, 'src', 'sub'), { CLAUDE_PROJECT_DIR: path.join(s.dir, 'elsewhere') });
    assert.equal(byMarker.decision, 'block', JSON.stringify(byMarker));
    assert.match(String(byMarker.reason), /seen 2 times in this session/);
  });
});

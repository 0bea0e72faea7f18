// Each host's hook contract: what it sends, read into one call; what it reads back, exactly.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import type { HookAnswer, HookEvent, HookHost } from '../../../src/core/gate/hookHosts';
import { formatHookAnswer, HOOK_HOSTS, patchWrites, readHookInput, toolWrites } from '../../../src/core/gate/hookHosts';
import { REPO } from '../../support/fixtures';
import { installedEvents } from '../../../src/core/gate/hookInstall';

const schemas = path.join(REPO, 'test', 'fixtures', 'hooks', 'codex-schemas');
const ajv = new Ajv({ allErrors: true });
const codexStop = ajv.compile(JSON.parse(readFileSync(path.join(schemas, 'stop.command.output.schema.json'), 'utf8')) as object);
const codexPreTool = ajv.compile(JSON.parse(readFileSync(path.join(schemas, 'pre-tool-use.command.output.schema.json'), 'utf8')) as object);

function out(host: HookHost, event: HookEvent, a: HookAnswer): Record<string, unknown> {
  const o = formatHookAnswer(host, event, a);
  assert.equal(o.exitCode, 0, 'every answer is exit 0 (exit 2 means block to one host and a warning to another)');
  return JSON.parse(o.stdout) as Record<string, unknown>;
}

const block: HookAnswer = { kind: 'block', reason: 'the checks fail: 2 failures', message: 'sent back' };
const allowMsg: HookAnswer = { kind: 'allow', message: 'every check passes' };
const deny: HookAnswer = { kind: 'deny', reason: 'test/a.test.ts is protected' };

describe('hook hosts: answers in each contract', () => {
  it('Claude Code: a block is decision/reason (with systemMessage for the user); a deny is hookSpecificOutput.permissionDecision', () => {
    assert.deepEqual(out('claude', 'stop', block), { decision: 'block', reason: 'the checks fail: 2 failures', systemMessage: 'sent back' });
    assert.deepEqual(out('claude', 'stop', allowMsg), { systemMessage: 'every check passes' });
    assert.deepEqual(out('claude', 'stop', { kind: 'allow' }), {});
    assert.deepEqual(out('claude', 'pre-tool', deny), { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'test/a.test.ts is protected' } });
  });

  it("Codex: every stop and pre-tool answer validates against Codex's published schemas (additionalProperties false)", () => {
    for (const a of [block, allowMsg, { kind: 'allow' } as HookAnswer]) {
      const o = out('codex', 'stop', a);
      assert.ok(codexStop(o), `${JSON.stringify(o)}: ${ajv.errorsText(codexStop.errors)}`);
    }
    for (const a of [deny, { kind: 'allow' } as HookAnswer]) {
      const o = out('codex', 'pre-tool', a);
      assert.ok(codexPreTool(o), `${JSON.stringify(o)}: ${ajv.errorsText(codexPreTool.errors)}`);
    }
    // The validator is not a rubber stamp: a field Codex does not know, or a blank reason, fails.
    assert.equal(codexStop({ decision: 'block', reason: 'x', followup_message: 'x' }), false);
    assert.equal(codexStop({ decision: 'block', reason: '  ' }), false);
  });

  it('VS Code: a Stop block is read only from hookSpecificOutput, so no top-level decision is sent', () => {
    const o = out('vscode', 'stop', block);
    assert.deepEqual(o.hookSpecificOutput, { hookEventName: 'Stop', decision: 'block', reason: 'the checks fail: 2 failures' });
    assert.equal(o.decision, undefined);
    assert.deepEqual(out('vscode', 'pre-tool', deny), { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'test/a.test.ts is protected' } });
  });

  it('Cursor: a block is a followup_message (its next user message); an allow is {}', () => {
    assert.deepEqual(out('cursor', 'stop', block), { followup_message: 'the checks fail: 2 failures' });
    assert.deepEqual(out('cursor', 'stop', allowMsg), {});
  });

  it('Gemini CLI: AfterAgent blocks with decision "deny"; BeforeTool denies the same way', () => {
    assert.deepEqual(out('gemini', 'stop', block), { decision: 'deny', reason: 'the checks fail: 2 failures', systemMessage: 'sent back' });
    assert.deepEqual(out('gemini', 'pre-tool', deny), { decision: 'deny', reason: 'test/a.test.ts is protected' });
  });

  it('Copilot CLI: agentStop blocks with decision/reason; preToolUse denies with a top-level permissionDecision', () => {
    assert.deepEqual(out('copilot-cli', 'stop', block), { decision: 'block', reason: 'the checks fail: 2 failures' });
    assert.deepEqual(out('copilot-cli', 'pre-tool', deny), { permissionDecision: 'deny', permissionDecisionReason: 'test/a.test.ts is protected' });
    assert.deepEqual(out('copilot-cli', 'stop', allowMsg), {});
  });
});

describe('hook hosts: inputs read into one call', () => {
  it("reads Claude Code's Stop input exactly as the real Claude Code 2.1.328 sent it, unknown fields tolerated", () => {
    const r = readHookInput('claude', JSON.stringify({ session_id: 's-1', transcript_path: '/t.jsonl', cwd: '/p', prompt_id: 'x', permission_mode: 'acceptEdits', effort: { level: 'high' }, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done, all tests pass.', background_tasks: [], session_crons: [] }));
    assert.ok(r.ok);
    assert.equal(r.call.event, 'stop');
    assert.equal(r.call.host, 'claude');
    assert.equal(r.call.sessionId, 's-1');
    assert.equal(r.call.lastMessage, 'Done, all tests pass.');
  });

  it("reads Codex's Stop input exactly as the real Codex CLI 0.171.0 sent it", () => {
    const r = readHookInput('codex', JSON.stringify({ session_id: '01a2-s', turn_id: '01a2-t', transcript_path: '/h/sessions/rollout-01a2-s.jsonl', cwd: '/p', hook_event_name: 'Stop', model: 'gpt-5.5', permission_mode: 'bypassPermissions', stop_hook_active: true, last_assistant_message: 'Fixed: the total multiplies price by quantity.' }));
    assert.ok(r.ok);
    assert.equal(r.call.event, 'stop');
    assert.equal(r.call.host, 'codex');
    assert.equal(r.call.sessionId, '01a2-s');
    assert.equal(r.call.transcriptPath, '/h/sessions/rollout-01a2-s.jsonl');
    assert.equal(r.call.stopHookActive, true);
    assert.equal(r.call.lastMessage, 'Fixed: the total multiplies price by quantity.');
  });

  it("reads Codex's apply_patch PreToolUse input exactly as the real Codex CLI 0.171.0 sent it (its shell is tool_name Bash)", () => {
    const patchText = '*** Begin Patch\n*** Update File: src/cart.js\n@@\n-  const a = 1;\n+  const a = 2;\n*** Add File: notes/why.md\n+why\n*** End Patch\n';
    const base = { session_id: '01a2-s', turn_id: '01a2-t', transcript_path: '/h/sessions/rollout-01a2-s.jsonl', cwd: '/p', model: 'gpt-5.5', permission_mode: 'bypassPermissions', tool_use_id: 'call_1' };
    const r = readHookInput('codex', JSON.stringify({ ...base, hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: { command: patchText } }));
    assert.ok(r.ok);
    assert.equal(r.call.event, 'pre-tool');
    assert.deepEqual(r.call.writes, [
      { path: 'src/cart.js', addedLines: ['  const a = 2;'] },
      { path: 'notes/why.md', addedLines: ['why'] },
    ]);
    const post = readHookInput('codex', JSON.stringify({ ...base, hook_event_name: 'PostToolUse', tool_name: 'apply_patch', tool_input: { command: patchText }, tool_response: 'Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/cart.js\n' }));
    assert.ok(post.ok && post.call.event === 'post-tool' && post.call.writes.length === 2);
    const shell = readHookInput('codex', JSON.stringify({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo hi > new.txt' } }));
    assert.ok(shell.ok && shell.call.writes.length === 0);
  });

  it("answers VS Code in its own form when VS Code calls the hook through Claude Code's settings file", () => {
    const r = readHookInput('claude', JSON.stringify({ timestamp: '2026-11-01T00:00:00Z', cwd: '/p', sessionId: 'v-1', hookEventName: 'Stop', transcript_path: '/t', stop_hook_active: false }));
    assert.ok(r.ok);
    assert.equal(r.call.host, 'vscode');
    assert.equal(r.call.sessionId, 'v-1');
  });

  it('reads Codex, Gemini, Cursor and Copilot CLI stop inputs', () => {
    const codex = readHookInput('codex', JSON.stringify({ cwd: '/p', hook_event_name: 'Stop', last_assistant_message: null, model: 'gpt-5', permission_mode: 'default', session_id: 'c', stop_hook_active: true, transcript_path: null, turn_id: 't' }));
    assert.ok(codex.ok && codex.call.event === 'stop' && codex.call.stopHookActive && codex.call.lastMessage === null);
    const gemini = readHookInput('gemini', JSON.stringify({ session_id: 'g', transcript_path: '/t', cwd: '/p', hook_event_name: 'AfterAgent', timestamp: 'x', prompt: 'fix', prompt_response: 'All tests pass', stop_hook_active: false }));
    assert.ok(gemini.ok && gemini.call.event === 'stop' && gemini.call.lastMessage === 'All tests pass');
    const cursor = readHookInput('cursor', JSON.stringify({ conversation_id: 'cu', generation_id: 'g', model: 'm', hook_event_name: 'stop', workspace_roots: ['/w'], transcript_path: null, status: 'completed', loop_count: 2 }));
    assert.ok(cursor.ok && cursor.call.event === 'stop' && cursor.call.cwd === '/w' && cursor.call.loopCount === 2 && cursor.call.sessionId === 'cu');
    const copilot = readHookInput('copilot-cli', JSON.stringify({ sessionId: 'cp', timestamp: 1, cwd: '/p' }), 'stop');
    assert.ok(copilot.ok && copilot.call.event === 'stop' && copilot.call.sessionId === 'cp');
  });

  it('says what is wrong with empty, non-JSON and non-object input instead of guessing', () => {
    for (const text of ['', '  \n', '{"session_id":', '[1,2]', 'null']) {
      const r = readHookInput('claude', text);
      assert.equal(r.ok, false, text);
      assert.match((r as { problem: string }).problem, /claude hook/);
    }
  });

  it("finds the files of each host's edit tools", () => {
    assert.deepEqual(toolWrites('Write', { file_path: '/p/a.ts', content: 'x' }), [{ path: '/p/a.ts', content: 'x' }]);
    assert.deepEqual(toolWrites('MultiEdit', { file_path: 'a.ts', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd', replace_all: true }] }), [
      { path: 'a.ts', edits: [{ oldText: 'a', newText: 'b', all: false }, { oldText: 'c', newText: 'd', all: true }] },
    ]);
    assert.deepEqual(toolWrites('replaceString', { filePath: 'b.ts', oldString: 'x', newString: 'y' }), [{ path: 'b.ts', edits: [{ oldText: 'x', newText: 'y', all: false }] }]);
    assert.deepEqual(toolWrites('edit', JSON.stringify({ path: 'c.ts', old_str: 'q', new_str: 'r' })), [{ path: 'c.ts', edits: [{ oldText: 'q', newText: 'r', all: false }] }]);
    assert.deepEqual(toolWrites('Read', { file_path: 'a.ts' }), []);
    assert.deepEqual(patchWrites('*** Begin Patch\n*** Update File: src/a.ts\n@@\n-old\n+// @ts-ignore\n+new\n*** Delete File: b.ts\n*** End Patch'), [
      { path: 'src/a.ts', addedLines: ['// @ts-ignore', 'new'] },
      { path: 'b.ts', addedLines: [], deletes: true },
    ]);
  });

  it('reads a session end as one, where the host names it or the install passes --event session-end', () => {
    const eventOf = (host: HookHost, payload: object, override?: HookEvent): string | undefined => {
      const r = readHookInput(host, JSON.stringify(payload), override);
      return r.ok ? r.call.event : undefined;
    };
    assert.equal(eventOf('claude', { session_id: 's', transcript_path: null, cwd: '/p', hook_event_name: 'SessionEnd', reason: 'exit' }), 'session-end');
    assert.equal(eventOf('gemini', { session_id: 's', transcript_path: '/t', cwd: '/p', hook_event_name: 'SessionEnd', timestamp: 't', reason: 'exit' }), 'session-end');
    assert.equal(eventOf('copilot-cli', { timestamp: 1, cwd: '/p', reason: 'complete' }, 'session-end'), 'session-end');
    assert.deepEqual(installedEvents('claude').map((e) => e.hostEvent), ['Stop', 'PreToolUse', 'PostToolUse', 'SessionEnd']);
    assert.deepEqual(installedEvents('gemini').map((e) => e.hostEvent), ['AfterAgent', 'BeforeTool', 'AfterTool', 'SessionEnd']);
    // Codex, Cursor and VS Code agent mode send no session end: their worker ends when idle.
    for (const host of ['codex', 'cursor', 'vscode'] as const) assert.ok(!installedEvents(host).some((e) => e.event === 'session-end'), host);
  });

  it('knows every host it answers for', () => {
    assert.deepEqual([...HOOK_HOSTS], ['claude', 'codex', 'gemini', 'cursor', 'copilot-cli', 'vscode']);
  });
});

// `fix-until-green hook` as a host runs it: a real process, real checks on a real fixture project,
// hook JSON on stdin. Each host session becomes a run in the storage; nothing ever blocks the agent
// by our fault, and no byte of the user's is lost.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { CLI, runCli } from '../../support/cli';
import { copyFixture, REPO, tempTree } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';

const ajv = new Ajv();
const codexStop = ajv.compile(JSON.parse(readFileSync(path.join(REPO, 'test', 'fixtures', 'hooks', 'codex-schemas', 'stop.command.output.schema.json'), 'utf8')) as object);

function hook(host: string, input: unknown, s: { storage: string }, extra: string[] = []): { code: number | null; out: Record<string, unknown>; stderr: string } {
  const r = runCli(['hook', '--host', host, ...extra], { input: typeof input === 'string' ? input : JSON.stringify(input), env: { FIX_UNTIL_GREEN_STORAGE: s.storage } });
  return { code: r.code, out: r.stdout.trim() === '' ? {} : (JSON.parse(r.stdout) as Record<string, unknown>), stderr: r.stderr };
}

function claudeStop(cwd: string, session = 'sess-1', last = 'Done, all tests pass.'): Record<string, unknown> {
  return { session_id: session, transcript_path: path.join(cwd, 'no-transcript.jsonl'), cwd, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: last };
}

function traceEvents(storage: string): Record<string, unknown>[] {
  const base = path.join(storage, readdirSync(storage).find((n) => n !== 'processes')!, 'runs');
  const run = readdirSync(base).find((n) => n.startsWith('hook-') && !n.endsWith('.lock'))!;
  return readFileSync(path.join(base, run, 'trace.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('cli hook', function () {
  this.timeout(120_000);
  let s: Scratch;
  beforeEach(() => (s = copyFixture('hooks/cart')));
  afterEach(() => s.cleanup());

  it('an unknown host exits 1 (a non-blocking error in every host) and names the hosts', () => {
    const r = runCli(['hook', '--host', 'windsurf'], { input: '{}' });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /unknown --host "windsurf" \(one of claude, codex, gemini, cursor, copilot-cli, vscode\)/);
    // A flag this CLI does not know (a newer install's) is exit 1 too, never the usage exit 2 that blocks Claude Code's stop.
    const flag = runCli(['hook', '--host', 'claude', '--newer-flag'], { input: '{}' });
    assert.equal(flag.code, 1);
    assert.match(flag.stderr, /the agent was not gated/);
  });

  it('hooks install writes the host file once, a second install changes nothing, uninstall removes a file that held only ours', () => {
    const env = { FIX_UNTIL_GREEN_STORAGE: s.storage };
    const first = runCli(['hooks', 'install', '--host', 'cursor', '--cwd', s.project, '--json'], { env });
    assert.equal(first.code, 0, first.stderr);
    const j = JSON.parse(first.stdout) as { file: string; changed: boolean; events: string[] };
    assert.equal(j.file, path.join(s.project, '.cursor', 'hooks.json'));
    assert.deepEqual([j.changed, j.events], [true, ['stop']]);
    const text = readFileSync(j.file, 'utf8');
    assert.match(text, /"loop_limit": 10/, 'maxSteps 8 + 2: Cursor\'s own bound comes after ours');
    assert.match(runCli(['hooks', 'install', '--host', 'cursor', '--cwd', s.project], { env }).stdout, /already installed for cursor; nothing changed/);
    assert.equal(readFileSync(j.file, 'utf8'), text);
    assert.match(runCli(['hooks', 'uninstall', '--host', 'cursor', '--cwd', s.project], { env }).stdout, /removed \(it held only our hooks\)/);
    // The folder the install created, empty again, goes with the file: the project is as it was.
    assert.equal(existsSync(path.join(s.project, '.cursor')), false);
    const bad = runCli(['hooks', 'install', '--host', 'vscode', '--scope', 'user', '--cwd', s.project], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--host claude --scope user/);
  });

  it('empty or malformed stdin lets the agent go on and says why, in the host\'s own form', () => {
    const empty = hook('claude', '', s);
    assert.equal(empty.code, 0);
    assert.match(String(empty.out.systemMessage), /received no input on stdin/);
    const bad = hook('codex', '{"session_id": ', s);
    assert.equal(bad.code, 0);
    assert.ok(codexStop(bad.out), JSON.stringify(bad.out));
    assert.match(bad.stderr, /not JSON/);
  });

  it('a folder that is not a project lets the agent stop and says no checks can run', () => {
    const t = tempTree({ 'notes.txt': 'hello\n' });
    try {
      const r = hook('claude', claudeStop(t.dir), s);
      assert.equal(r.code, 0);
      assert.equal(r.out.decision, undefined);
      assert.match(String(r.out.systemMessage), /no checks can run in/);
    } finally {
      t.cleanup();
    }
  });

  it('blocks with the failures and the claim, twice, then lets the same failures stop as stalled (Codex: every answer fits its schema)', () => {
    const answers = [1, 2, 3].map(() => {
      const r = hook('codex', { ...claudeStop(s.project, 'codex-1'), model: 'gpt-5', permission_mode: 'default', turn_id: 't', last_assistant_message: 'All tests pass now.' }, s);
      assert.equal(r.code, 0);
      assert.ok(codexStop(r.out), JSON.stringify(r.out));
      return r.out;
    });
    assert.equal(answers[0]!.decision, 'block');
    assert.match(String(answers[0]!.reason), /2 failures/);
    assert.match(String(answers[0]!.reason), /"All tests pass now\.", but the checks disagree/);
    assert.match(String(answers[0]!.reason), /total multiplies price by quantity/);
    assert.match(String(answers[1]!.reason), /seen 2 times in this session/);
    assert.equal(answers[2]!.decision, undefined);
    assert.match(String(answers[2]!.systemMessage), /let the agent stop: stalled/);
    const events = traceEvents(s.storage);
    assert.equal(events[0]!.type, 'run-start');
    assert.equal(events[0]!.frontEnd, 'hook:codex');
    assert.deepEqual(events.filter((e) => e.type === 'hook').map((e) => e.answer), ['block', 'block', 'allow']);
    assert.equal(events.filter((e) => e.type === 'verify').length, 3);
    assert.equal((events.at(-1) as { type: string; reason: string }).reason, 'stalled');
  });

  it('Cursor gets a followup_message; green lets any host stop with what passed', () => {
    const cursorStop = { conversation_id: 'cur-1', generation_id: 'g', model: 'm', hook_event_name: 'stop', workspace_roots: [s.project], transcript_path: null, status: 'completed', loop_count: 0 };
    assert.match(String(hook('cursor', cursorStop, s).out.followup_message), /you may not stop yet/);
    const file = path.join(s.project, 'src', 'cart.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace('acc + l.price', 'acc + l.price * l.quantity'));
    assert.deepEqual(hook('cursor', cursorStop, s).out, {});
    const green = hook('vscode', { timestamp: 'x', cwd: s.project, sessionId: 'v-1', hookEventName: 'Stop', transcript_path: null, stop_hook_active: false }, s);
    assert.equal(green.out.hookSpecificOutput, undefined);
    assert.match(String(green.out.systemMessage), /every check passes \(test\)/);
  });

  it('the budgets let the agent stop in the fixed order: step-cap after maxSteps blocks, token-ceiling from the transcript first', () => {
    mkdirSync(path.join(s.project, '.vscode'), { recursive: true });
    writeFileSync(path.join(s.project, '.vscode', 'settings.json'), JSON.stringify({ 'fixUntilGreen.maxSteps': 1, 'fixUntilGreen.tokenCeiling': 5000 }));
    assert.equal(hook('claude', claudeStop(s.project, 'b-1'), s).out.decision, 'block');
    const capped = hook('claude', claudeStop(s.project, 'b-1'), s).out;
    assert.equal(capped.decision, undefined);
    assert.match(String(capped.systemMessage), /let the agent stop: step-cap — 1 of 1 steps done/);
    // A Claude Code transcript: one line per message part, the usage repeated on each part of one id.
    const transcript = path.join(s.dir, 'transcript.jsonl');
    const line = (id: string, input: number): string => JSON.stringify({ type: 'assistant', message: { id, model: 'claude-x', role: 'assistant', usage: { input_tokens: input, cache_read_input_tokens: 100, output_tokens: 50 } } });
    writeFileSync(transcript, [line('m1', 1000), line('m1', 1000), line('m2', 3800), 'torn {'].join('\n'));
    const spent = hook('claude', { ...claudeStop(s.project, 'b-2'), transcript_path: transcript }, s).out;
    assert.equal(spent.decision, undefined, 'token-ceiling comes before sending the agent back');
    assert.match(String(spent.systemMessage), /token-ceiling — the next call needs at least 3901 tokens .* but only -100 of 5000 remain \(5100 used\)/);
  });

  it('a check that outlives the hook\'s timeout is stopped with the hook, which lets the agent stop and says so', () => {
    const t = tempTree({ 'package.json': '{ "name": "hang", "private": true, "scripts": { "test": "node hang-forever.cjs" } }\n', 'hang-forever.cjs': 'setInterval(() => {}, 1000);\n' });
    try {
      const started = Date.now();
      const r = hook('claude', claudeStop(t.dir), s, ['--timeout', '5']);
      assert.ok(Date.now() - started < 5000, `answered inside the host's 5 s (${Date.now() - started} ms)`);
      assert.equal(r.code, 0);
      assert.equal(r.out.decision, undefined);
      assert.match(String(r.out.systemMessage), /checks did not finish within this hook call's [12] s/);
      const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes('hang-forever.cjs'));
      assert.deepEqual(left, [], 'no check process survives the hook');
    } finally {
      t.cleanup();
    }
  });

  it('a verifier changed by any means (a shell write the edit hooks never saw) blocks even a green stop', () => {
    assert.equal(hook('claude', claudeStop(s.project), s).out.decision, 'block');
    const pkg = path.join(s.project, 'package.json');
    writeFileSync(pkg, readFileSync(pkg, 'utf8').replace('"node --test"', '"node -e 0"'));
    const r = hook('claude', claudeStop(s.project), s);
    assert.equal(r.out.decision, 'block');
    assert.match(String(r.out.reason), /What defines the checks changed since the session began: package\.json/);
  });

  it('guards an edit tool: denies test files, the verifier and suppressions; checkpoints the rest; revert --session restores it and leaves a later user edit alone', () => {
    const pre = (tool: string, input: Record<string, unknown>): Record<string, unknown> => hook('claude', { session_id: 'g-1', cwd: s.project, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input }, s).out;
    const denied = (o: Record<string, unknown>): string => String((o.hookSpecificOutput as { permissionDecisionReason?: string } | undefined)?.permissionDecisionReason ?? '');
    assert.match(denied(pre('Edit', { file_path: path.join(s.project, 'test', 'cart.test.js'), old_string: '40', new_string: '15' })), /test\/cart\.test\.js is protected/);
    assert.match(denied(pre('Edit', { file_path: path.join(s.project, 'package.json'), old_string: '"node --test"', new_string: '"node -e 0"' })), /changes what decides whether the code passes.*"scripts"/);
    assert.match(denied(pre('Edit', { file_path: path.join(s.project, 'src', 'cart.js'), old_string: 'export function', new_string: '// eslint-disable-next-line\nexport function' })), /adds suppression\(s\).*eslint-disable/);
    assert.deepEqual(pre('Write', { file_path: '/etc/outside.txt', content: 'x' }), {}, 'a file outside the folder is not ours to guard');

    const cart = path.join(s.project, 'src', 'cart.js');
    const created = path.join(s.project, 'src', 'new', 'helper.js');
    const original = readFileSync(cart);
    assert.deepEqual(pre('Edit', { file_path: cart, old_string: 'acc + l.price', new_string: 'acc + l.price * l.quantity' }), {});
    assert.deepEqual(pre('Write', { file_path: created, content: 'export const x = 1;\n' }), {});
    // The agent's tools write, then PostToolUse records what they left.
    writeFileSync(cart, original.toString('utf8').replace('acc + l.price', 'acc + l.price * l.quantity'));
    execFileSync('mkdir', ['-p', path.dirname(created)]);
    writeFileSync(created, 'export const x = 1;\n');
    for (const [tool, input] of [['Edit', { file_path: cart }], ['Write', { file_path: created }]] as const) {
      hook('claude', { session_id: 'g-1', cwd: s.project, hook_event_name: 'PostToolUse', tool_name: tool, tool_input: input, tool_response: {} }, s);
    }
    const r = runCli(['revert', '--cwd', s.project, '--session', 'g-1', '--json'], { env: { FIX_UNTIL_GREEN_STORAGE: s.storage } });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readFileSync(cart), original);
    assert.equal(readdirSync(path.join(s.project, 'src')).includes('new'), false, 'the folder the agent created is gone too');

    // A file the user changed after the agent's last write is left as the user has it.
    assert.deepEqual(pre('Edit', { file_path: cart, old_string: 'acc + l.price', new_string: 'acc + 2 * l.price' }), {});
    writeFileSync(cart, 'agent\n');
    hook('claude', { session_id: 'g-1', cwd: s.project, hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: cart }, tool_response: {} }, s);
    writeFileSync(cart, 'user\n');
    const conflict = runCli(['revert', '--cwd', s.project, '--session', 'g-1'], { env: { FIX_UNTIL_GREEN_STORAGE: s.storage } });
    assert.equal(conflict.code, 1);
    assert.equal(readFileSync(cart, 'utf8'), 'user\n');
    assert.match(conflict.stdout, /NOT restored/);
  });

  it('a stop over an edit checked staged (a type checker kept warm) answers and exits: nothing of the checks keeps the host waiting', () => {
    const c = copyFixture('loop/calc');
    try {
      writeFileSync(path.join(c.project, 'package.json'), JSON.stringify({ name: 'calc-fixture', private: true, version: '1.0.0', scripts: { test: 'node --import tsx --test test/calc.test.ts' } }));
      const calc = path.join(c.project, 'src', 'calc.ts');
      // A first stop checks in full; the agent's edit after it, recorded by PostToolUse, makes the next stop's checks staged.
      assert.equal(hook('claude', claudeStop(c.project, 'w-1'), c).out.decision, 'block');
      hook('claude', { session_id: 'w-1', cwd: c.project, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: calc } }, c);
      writeFileSync(calc, readFileSync(calc, 'utf8').replace('return a + b;\n}\n\nexport function mul', 'return a + b;\n}\n\n// edited\nexport function mul'));
      hook('claude', { session_id: 'w-1', cwd: c.project, hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: calc }, tool_response: {} }, c);
      const started = Date.now();
      const r = spawnSync(process.execPath, [CLI, 'hook', '--host', 'claude'], { input: JSON.stringify(claudeStop(c.project, 'w-1')), encoding: 'utf8', env: { ...process.env, FIX_UNTIL_GREEN_STORAGE: c.storage }, timeout: 90_000, killSignal: 'SIGKILL' });
      assert.equal(r.signal, null, `the hook process ended by itself (it was killed after ${Date.now() - started} ms)`);
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { decision?: string; reason?: string };
      assert.equal(out.decision, 'block', 'the failing mul is sent back');
      const staged = traceEvents(c.storage).filter((e) => e.type === 'verify');
      assert.equal(staged.length, 2, 'each stop ran the checks');
      assert.ok(JSON.stringify(staged.at(-1)).includes('"mode":"staged"') || JSON.stringify(staged.at(-1)).includes('warm'), `the second stop ran staged: ${JSON.stringify(staged.at(-1))}`);
    } finally {
      c.cleanup();
    }
  });
});


// The real Codex CLI (from the npm registry, scripts/installCodex.mjs) in `codex exec` mode, offline
// against a scripted OpenAI Responses server, with our Stop and apply_patch hooks installed by
// `hooks install --host codex`. Real host, real hook, real checks (`node --test`), real files; the
// model is the only fake. CODEX_HOME is a scratch folder: nothing of the user's is read or written.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { OutputItem, ScriptedResponses } from '../support/openaiResponsesScripted';
import { startScriptedResponses } from '../support/openaiResponsesScripted';
import { defaultSettings } from '../../src/core/settings';
import { copyFixture, treeHash } from '../support/fixtures';
import type { Scratch } from '../support/fixtures';
import { fug, installHooks, run, stops, traceOf } from './session';

const BEFORE = '  const sum = lines.reduce((acc, l) => acc + l.price, 0);';
// Wrong: the quantity is added, not multiplied.
const WRONG = '  const sum = lines.reduce((acc, l) => acc + l.price + l.quantity, 0);';
const RIGHT = '  const sum = lines.reduce((acc, l) => acc + l.price * l.quantity, 0);';

let codex: string;

interface Session {
  /** `codex exec --json` events. */
  events: Record<string, unknown>[];
  threadId: string;
  server: ScriptedResponses;
}

function patch(file: string, from: string, to: string, add?: { file: string; text: string }): OutputItem {
  const added = add ? `*** Add File: ${add.file}\n+${add.text}\n` : '';
  return { type: 'custom_tool_call', name: 'apply_patch', input: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n${added}*** End Patch\n` };
}

function say(text: string): OutputItem {
  return { type: 'text', text };
}

async function codexSession(s: Scratch, script: (n: number) => OutputItem[]): Promise<Session> {
  const server = await startScriptedResponses(script);
  const home = path.join(s.dir, 'codex-home');
  mkdirSync(home, { recursive: true });
  writeFileSync(
    path.join(home, 'config.toml'),
    [
      'model_provider = "scripted"',
      'check_for_update_on_startup = false',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${server.url}"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_API_KEY"',
      '',
    ].join('\n'),
  );
  try {
    const exec = run(
      codex,
      [
        'exec',
        '--json',
        '--skip-git-repo-check',
        // A slug Codex knows offers its own apply_patch tool; an unknown one falls back to metadata without it.
        '-m',
        'gpt-5.5',
        '-s',
        'workspace-write',
        // Project config (.codex/hooks.json) loads only in a trusted project; --trust records it in CODEX_HOME.
        '--trust',
        // Hooks run only once reviewed, and only the TUI reviews them: an automated run must bypass it.
        '--dangerously-bypass-hook-trust',
        'Fix the failing cart total.',
      ],
      {
        cwd: s.project,
        timeout: 150_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, SCRIPTED_API_KEY: 'sk-offline-test', FIX_UNTIL_GREEN_STORAGE: s.storage },
      },
    );
    // With stdin open, `codex exec` waits to append it to the prompt ("Reading additional input from stdin").
    exec.child.stdin?.end();
    const { stdout } = await exec;
    const events = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const threadId = (events.find((e) => e.type === 'thread.started') as { thread_id?: string } | undefined)?.thread_id;
    assert.ok(threadId, `codex exec --json named its thread: ${stdout.slice(0, 500)}`);
    return { events, threadId, server };
  } finally {
    await server.close();
  }
}

describe('Codex CLI (real, offline) with the Fix Until Green hooks', function () {
  this.timeout(240_000);
  let s: Scratch;
  let pristine: string;

  before(async function () {
    const { ensureCodex } = await import('../../scripts/installCodex.mjs');
    codex = ensureCodex();
  });

  beforeEach(async () => {
    s = copyFixture('hooks/cart');
    pristine = treeHash(s.project);
    const installed = await installHooks(s, 'codex');
    assert.equal(installed.changed, true);
  });

  afterEach(() => s.cleanup());

  it('(1) blocks "all tests pass" over a wrong edit with the failures, then lets the right edit stop green', async () => {
    const file = path.join(s.project, 'src', 'cart.js');
    const session = await codexSession(s, (n) => {
      switch (n) {
        case 0:
          return [patch('src/cart.js', BEFORE, WRONG)];
        case 1:
          return [say('Done, all tests pass.')];
        case 2:
          return [patch('src/cart.js', WRONG, RIGHT)];
        default:
          return [say('Fixed: the total multiplies price by quantity.')];
      }
    });
    assert.ok(readFileSync(file, 'utf8').includes(RIGHT));
    assert.deepEqual(session.server.requests, Array(4).fill('POST /v1/responses'));
    assert.equal(session.server.mainRequests.length, 4);
    // The block's reason reached the model as the next request's last input: a user message that
    // Codex wraps in <hook_prompt>, with the failures and the claim.
    const after = session.server.mainRequests[2]!;
    const last = (after.input as { role?: string; content?: { text?: string }[] }[]).at(-1)!;
    assert.equal(last.role, 'user');
    const text = last.content?.map((c) => c.text).join('\n') ?? '';
    assert.match(text, /^<hook_prompt hook_run_id="stop:[^"]*\.codex\/hooks\.json">Fix Until Green: you may not stop yet/);
    assert.match(text, /"Done, all tests pass\.", but the checks disagree/);
    assert.match(text, /total multiplies price by quantity/);
    const messages = session.events.filter((e) => (e.item as { type?: string } | undefined)?.type === 'agent_message').map((e) => (e.item as { text: string }).text);
    assert.deepEqual(messages, ['Done, all tests pass.', 'Fixed: the total multiplies price by quantity.']);

    const events = traceOf(s, 'codex', session.threadId);
    assert.equal((events[0] as { frontEnd?: string }).frontEnd, 'hook:codex');
    assert.deepEqual(stops(events).map((x) => x.answer), ['block', 'allow']);
    assert.equal((events.find((e) => e.type === 'decision') as { reason: string }).reason, 'green');
  });

  it('(2) the same wrong patch claimed green forever stops as stalled: our bound is the only one, Codex has none', async () => {
    const { stallThreshold } = defaultSettings();
    // Patch, claim; patch (the same wrong line again), claim; … until the gate lets go.
    const session = await codexSession(s, (n) => (n % 2 === 0 ? [patch('src/cart.js', n === 0 ? BEFORE : WRONG, WRONG)] : [say('Done, all tests pass.')]));
    const events = traceOf(s, 'codex', session.threadId);
    assert.deepEqual(stops(events).map((x) => x.answer), [...Array<string>(stallThreshold - 1).fill('block'), 'allow']);
    assert.match(stops(events).at(-1)!.reason, /let the agent stop: stalled/);
    assert.equal((events.find((e) => e.type === 'decision') as { reason: string }).reason, 'stalled');
    // Codex ended its turn on our allow: one patch and one claim per stop, nothing asked after.
    assert.equal(session.server.mainRequests.length, 2 * stallThreshold);
    assert.equal(session.events.at(-1)?.type, 'turn.completed');
  });

  it('(3) a patch to a test file is denied before it is written; the code fix then goes green', async () => {
    const testFile = path.join(s.project, 'test', 'cart.test.js');
    const testBytes = readFileSync(testFile);
    const TEST_LINE = '  assert.equal(total([{ price: 10, quantity: 3 }, { price: 5, quantity: 2 }]), 40);';
    const session = await codexSession(s, (n) => {
      switch (n) {
        case 0:
          return [patch('test/cart.test.js', TEST_LINE, TEST_LINE.replace('), 40);', '), 15);'))];
        case 1:
          return [patch('src/cart.js', BEFORE, RIGHT)];
        default:
          return [say('Done, all tests pass.')];
      }
    });
    assert.deepEqual(readFileSync(testFile), testBytes);
    // Codex hands our deny reason back to the model as the patch's output.
    assert.match(JSON.stringify(session.server.mainRequests[1]!.input), /test\/cart\.test\.js is protected/);
    const events = traceOf(s, 'codex', session.threadId);
    assert.deepEqual(
      events.filter((e) => e.type === 'hook').map((e) => `${String(e.event)} ${String(e.answer)}`),
      ['pre-tool deny', 'pre-tool allow', 'post-tool allow', 'stop allow'],
    );
    assert.equal((events.find((e) => e.type === 'decision') as { reason: string }).reason, 'green');
  });

  it("(4) Codex's apply_patch edits reach our PreToolUse/PostToolUse: revert --session restores every byte, uninstall the config", async () => {
    const session = await codexSession(s, (n) => (n === 0 ? [patch('src/cart.js', BEFORE, RIGHT, { file: 'notes/why.md', text: 'price times quantity' })] : [say('Fixed: the total multiplies price by quantity.')]));
    assert.ok(readFileSync(path.join(s.project, 'src', 'cart.js'), 'utf8').includes(RIGHT));
    assert.equal(readFileSync(path.join(s.project, 'notes', 'why.md'), 'utf8'), 'price times quantity\n');
    const events = traceOf(s, 'codex', session.threadId);
    const tools = events.filter((e) => e.type === 'hook' && e.event !== 'stop');
    assert.deepEqual(tools.map((e) => `${String(e.event)} ${String(e.answer)}`), ['pre-tool allow', 'post-tool allow'], 'one patch: checkpointed first, recorded after');
    assert.deepEqual(stops(events).map((x) => x.answer), ['allow']);

    // Every byte back (the new folder gone too), then the hooks out: the tree is as it was before the install.
    const { stdout } = await fug(['revert', '--cwd', s.project, '--session', session.threadId, '--json'], s);
    const reverted = JSON.parse(stdout) as { runs: { actions: unknown[]; conflicts: unknown[] }[] };
    assert.equal(reverted.runs[0]!.conflicts.length, 0, stdout);
    await fug(['hooks', 'uninstall', '--host', 'codex', '--scope', 'project', '--cwd', s.project], s);
    assert.equal(treeHash(s.project), pristine);
  });
});

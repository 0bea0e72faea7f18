// The real Claude Code (from the npm registry, scripts/installClaudeCode.mjs) in `-p` mode, offline
// against a scripted Anthropic server, with our hooks installed by `hooks install --host claude`.
// Real host, real hooks, real checks (`node --test`), real files; the model is the only fake.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Block, ScriptedServer } from '../support/anthropicScripted';
import { requestTexts, startScriptedAnthropic } from '../support/anthropicScripted';
import { copyFixture, treeHash } from '../support/fixtures';
import type { Scratch } from '../support/fixtures';
import { fug, installHooks, run, stops, traceOf } from './session';

const CORRECT = `// The total of a cart: each line's price times its quantity, less the discount in percent.
export function total(lines, discountPercent = 0) {
  const sum = lines.reduce((acc, l) => acc + l.price * l.quantity, 0);
  return sum - (sum * discountPercent) / 100;
}
`;
// Wrong: the quantity is added, not multiplied.
const WRONG = CORRECT.replace('acc + l.price * l.quantity', 'acc + l.price + l.quantity');

let claude: string;

interface Session {
  result: Record<string, unknown>;
  sessionId: string;
  server: ScriptedServer;
  stderr: string;
}

function tool(name: string, input: Record<string, unknown>): Block {
  return { type: 'tool_use', id: `toolu_${randomUUID().replace(/-/g, '').slice(0, 20)}`, name, input };
}

function say(text: string): Block {
  return { type: 'text', text };
}

async function claudeSession(s: Scratch, script: (n: number) => Block[]): Promise<Session> {
  const server = await startScriptedAnthropic(script);
  const home = path.join(s.dir, 'home');
  mkdirSync(home, { recursive: true });
  const sessionId = randomUUID();
  try {
    const { stdout, stderr } = await run(
      claude,
      ['-p', 'Fix the failing cart total.', '--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', 'Read,Edit,Write', '--session-id', sessionId],
      {
        cwd: s.project,
        timeout: 150_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: 'sk-ant-offline-test',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          FIX_UNTIL_GREEN_STORAGE: s.storage,
        },
      },
    );
    return { result: JSON.parse(stdout) as Record<string, unknown>, sessionId, server, stderr };
  } finally {
    await server.close();
  }
}

describe('Claude Code (real, offline) with the Fix Until Green hooks', function () {
  this.timeout(240_000);
  let s: Scratch;
  let pristine: string;

  before(async function () {
    const { ensureClaudeCode } = await import('../../scripts/installClaudeCode.mjs');
    claude = ensureClaudeCode();
  });

  beforeEach(async () => {
    s = copyFixture('hooks/cart');
    pristine = treeHash(s.project);
    const installed = await installHooks(s, 'claude');
    assert.equal(installed.changed, true);
  });

  afterEach(() => s.cleanup());

  it('(1) blocks "all tests pass" over a wrong edit with the failures, then lets the right edit stop green; (4) revert --session restores every byte', async () => {
    const file = path.join(s.project, 'src', 'cart.js');
    const session = await claudeSession(s, (n) => {
      switch (n) {
        case 0:
          return [tool('Read', { file_path: file })];
        case 1:
          return [tool('Write', { file_path: file, content: WRONG })];
        case 2:
          return [say('Done, all tests pass.')];
        case 3:
          return [tool('Write', { file_path: file, content: CORRECT })];
        default:
          return [say('Fixed: the total multiplies price by quantity.')];
      }
    });
    assert.equal(session.result.is_error, false, JSON.stringify(session.result));
    assert.equal(readFileSync(file, 'utf8'), CORRECT);
    // The block's reason reached the model as its next instruction, with the failures and the claim.
    const after = requestTexts(session.server.mainRequests[3]!).join('\n');
    assert.match(after, /Fix Until Green: you may not stop yet/);
    assert.match(after, /"Done, all tests pass\.", but the checks disagree/);
    assert.match(after, /total multiplies price by quantity/);
    const events = traceOf(s, 'claude', session.sessionId);
    assert.equal((events[0] as { frontEnd?: string }).frontEnd, 'hook:claude');
    assert.deepEqual(stops(events).map((x) => x.answer), ['block', 'allow']);
    const decision = events.find((e) => e.type === 'decision') as { reason: string };
    assert.equal(decision.reason, 'green');
    assert.ok(events.some((e) => e.type === 'hook' && e.event === 'pre-tool' && e.answer === 'allow'), 'the write was checkpointed first');

    // (4) Every byte back, then the hooks out: the tree is as it was before the install.
    const { stdout } = await fug(['revert', '--cwd', s.project, '--session', session.sessionId, '--json'], s);
    const reverted = JSON.parse(stdout) as { runs: { actions: unknown[]; conflicts: unknown[] }[] };
    assert.equal(reverted.runs[0]!.conflicts.length, 0, stdout);
    await fug(['hooks', 'uninstall', '--host', 'claude', '--cwd', s.project], s);
    assert.equal(treeHash(s.project), pristine);
  });

  it('(2) the same wrong edit forever stops as stalled before the host\'s 8-block cap', async () => {
    const file = path.join(s.project, 'src', 'cart.js');
    const session = await claudeSession(s, (n) => {
      if (n === 0) return [tool('Read', { file_path: file })];
      return n % 2 === 1 ? [tool('Write', { file_path: file, content: WRONG })] : [say('Done, all tests pass.')];
    });
    const events = traceOf(s, 'claude', session.sessionId);
    const answers = stops(events).map((x) => x.answer);
    assert.deepEqual(answers, ['block', 'block', 'allow']);
    const decision = events.find((e) => e.type === 'decision') as { reason: string; detail: string };
    assert.equal(decision.reason, 'stalled');
    assert.match(stops(events)[2]!.reason, /let the agent stop: stalled/);
    // Claude Code asked the model 7 times (read, then write + done per stop), never near its cap.
    assert.equal(session.server.mainRequests.length, 7);
  });

  it('(3) an edit to a test file is denied before it is written; the code fix then goes green', async () => {
    const file = path.join(s.project, 'src', 'cart.js');
    const testFile = path.join(s.project, 'test', 'cart.test.js');
    const testBytes = readFileSync(testFile);
    const session = await claudeSession(s, (n) => {
      switch (n) {
        case 0:
          return [tool('Read', { file_path: testFile })];
        case 1:
          return [tool('Edit', { file_path: testFile, old_string: '), 40);', new_string: '), 15);' })];
        case 2:
          return [tool('Read', { file_path: file })];
        case 3:
          return [tool('Write', { file_path: file, content: CORRECT })];
        default:
          return [say('Done, all tests pass.')];
      }
    });
    assert.deepEqual(readFileSync(testFile), testBytes);
    const denied = requestTexts(session.server.mainRequests[2]!).join('\n');
    assert.match(denied, /test\/cart\.test\.js is protected/);
    const events = traceOf(s, 'claude', session.sessionId);
    assert.ok(events.some((e) => e.type === 'hook' && e.event === 'pre-tool' && e.answer === 'deny'));
    assert.deepEqual(stops(events).map((x) => x.answer), ['allow']);
    assert.equal((events.find((e) => e.type === 'decision') as { reason: string }).reason, 'green');
  });
});

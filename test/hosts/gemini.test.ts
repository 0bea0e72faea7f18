// The real Gemini CLI (from the npm registry, scripts/installGemini.mjs) in non-interactive mode
// (`-p`, `--yolo`), offline against a scripted Gemini API server, with our hooks (AfterAgent,
// BeforeTool, AfterTool) installed by `hooks install --host gemini`. Real host, real hook, real
// checks (`node --test`), real files; the model is the only fake. HOME is a scratch folder:
// nothing of the user's is read or written.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Content, Part, ScriptedGemini } from '../support/geminiScripted';
import { startScriptedGemini } from '../support/geminiScripted';
import { defaultSettings } from '../../src/core/settings';
import { copyFixture, treeHash } from '../support/fixtures';
import type { Scratch } from '../support/fixtures';
import { decisionOf, fug, installHooks, run, stops, traceOf } from './session';

const BEFORE = '  const sum = lines.reduce((acc, l) => acc + l.price, 0);';
// Wrong: the quantity is added, not multiplied.
const WRONG = '  const sum = lines.reduce((acc, l) => acc + l.price + l.quantity, 0);';
const RIGHT = '  const sum = lines.reduce((acc, l) => acc + l.price * l.quantity, 0);';

let gemini: string;

interface Session {
  /** `gemini --output-format json`: the session, the final response, the stats. */
  out: { session_id?: string; response?: string; error?: unknown };
  /** Where Gemini CLI prints its warnings and the hooks' `systemMessage`s (`Hook system message: …`). */
  stderr: string;
  server: ScriptedGemini;
}

function replace(file: string, from: string, to: string): Part {
  return { functionCall: { name: 'replace', args: { file_path: file, old_string: from, new_string: to, instruction: 'Fix the cart total.' } } };
}

function write(file: string, content: string): Part {
  return { functionCall: { name: 'write_file', args: { file_path: file, content } } };
}

function say(text: string): Part {
  return { text };
}

function textOf(c: Content): string {
  return (c.parts ?? []).map((p) => p.text ?? '').join('\n');
}

async function geminiSession(s: Scratch, script: (n: number) => Part[]): Promise<Session> {
  const server = await startScriptedGemini(script);
  const home = path.join(s.dir, 'gemini-home');
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      // GOOGLE_GEMINI_BASE_URL alone selects the "gateway" auth type, which `-p` refuses ("Invalid
      // auth method selected."); the API-key type reads the same variable for its base URL.
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    }),
  );
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      // A named model skips the router's classifier request; `--yolo` lets the edit tools write.
      [gemini, '-m', 'gemini-2.5-flash', '--yolo', '--output-format', 'json', '-p', 'Fix the failing cart total.'],
      {
        cwd: s.project,
        timeout: 150_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          GEMINI_API_KEY: 'offline-test',
          GOOGLE_GEMINI_BASE_URL: server.url,
          // Project hooks (.gemini/settings.json) run only in a trusted folder, and folder trust is on by default.
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
          FIX_UNTIL_GREEN_STORAGE: s.storage,
        },
      },
    );
    const out = JSON.parse(stdout) as Session['out'];
    assert.equal(out.error, undefined, `gemini -p ended without an error: ${stdout.slice(0, 500)}`);
    assert.ok(out.session_id, `gemini named its session: ${stdout.slice(0, 500)}`);
    return { out, stderr, server };
  } finally {
    await server.close();
  }
}

describe('Gemini CLI (real, offline) with the Fix Until Green hooks', function () {
  this.timeout(240_000);
  let s: Scratch;
  let pristine: string;

  before(async function () {
    const { ensureGemini } = await import('../../scripts/installGemini.mjs');
    gemini = ensureGemini();
  });

  beforeEach(async () => {
    s = copyFixture('hooks/cart');
    pristine = treeHash(s.project);
    const installed = await installHooks(s, 'gemini');
    assert.equal(installed.changed, true);
    assert.deepEqual(installed.events, ['AfterAgent', 'BeforeTool', 'AfterTool', 'SessionEnd']);
  });

  afterEach(() => s.cleanup());

  it('(1) denies "all tests pass" over a wrong edit with the failures, then lets the right edit stop green', async () => {
    const file = path.join(s.project, 'src', 'cart.js');
    const session = await geminiSession(s, (n) => {
      switch (n) {
        case 0:
          return [replace('src/cart.js', BEFORE, WRONG)];
        case 1:
          return [say('Done, all tests pass.')];
        case 2:
          return [replace('src/cart.js', WRONG, RIGHT)];
        default:
          return [say('Fixed: the total multiplies price by quantity.')];
      }
    });
    assert.ok(readFileSync(file, 'utf8').includes(RIGHT));
    assert.equal(session.server.mainRequests.length, 4);
    assert.ok(
      session.server.requests.every((r) => r === 'POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse'),
      session.server.requests.join('\n'),
    );
    // The deny's reason reached the model as the next request's last turn: a user turn holding our
    // text as it is (Gemini sends `reason` as a new prompt, unwrapped), after the claim.
    const after = session.server.mainRequests[2]!.contents;
    assert.equal(after.at(-2)?.role, 'model');
    assert.equal(textOf(after.at(-2)!), 'Done, all tests pass.');
    const last = after.at(-1)!;
    assert.equal(last.role, 'user');
    assert.match(textOf(last), /^Fix Until Green: you may not stop yet/);
    assert.match(textOf(last), /"Done, all tests pass\.", but the checks disagree/);
    assert.match(textOf(last), /total multiplies price by quantity/);
    assert.equal(session.out.response, 'Fixed: the total multiplies price by quantity.');
    // The user sees our systemMessage; the tokens come from Gemini's chat JSONL at transcript_path
    // (two model responses of 150 tokens each before the first stop).
    assert.match(session.stderr, /Hook system message: Fix Until Green sent the agent back: 2 failures.*tokens: 300 used in the session's transcript/);

    const events = traceOf(s, 'gemini', session.out.session_id!);
    assert.equal((events[0] as { frontEnd?: string }).frontEnd, 'hook:gemini');
    assert.deepEqual(stops(events).map((x) => x.answer), ['block', 'allow']);
    assert.equal(decisionOf(events), 'green');
  });

  it('(2) the same wrong edit claimed green forever stops as stalled: our bound is the only one, Gemini has none', async () => {
    const { stallThreshold } = defaultSettings();
    const wrongFile = readFileSync(path.join(s.project, 'src', 'cart.js'), 'utf8').replace(BEFORE, WRONG);
    // Write (the same wrong file each time), claim; … until the gate lets go.
    const session = await geminiSession(s, (n) => (n % 2 === 0 ? [write('src/cart.js', wrongFile)] : [say('Done, all tests pass.')]));
    const events = traceOf(s, 'gemini', session.out.session_id!);
    assert.deepEqual(stops(events).map((x) => x.answer), [...Array<string>(stallThreshold - 1).fill('block'), 'allow']);
    assert.match(stops(events).at(-1)!.reason, /let the agent stop: stalled/);
    assert.equal(decisionOf(events), 'stalled');
    // Gemini ended its turn on our allow: one write and one claim per stop, nothing asked after.
    assert.equal(session.server.mainRequests.length, 2 * stallThreshold);
    assert.equal(session.out.response?.split('\n').at(-1), 'Done, all tests pass.');
  });

  it('(3) a replace in a test file is denied by BeforeTool before it is written; the code fix then goes green', async () => {
    const testFile = path.join(s.project, 'test', 'cart.test.js');
    const testBytes = readFileSync(testFile);
    const session = await geminiSession(s, (n) => {
      switch (n) {
        case 0:
          return [replace('test/cart.test.js', '), 40);', '), 15);')];
        case 1:
          return [replace('src/cart.js', BEFORE, RIGHT)];
        default:
          return [say('Done, all tests pass.')];
      }
    });
    assert.deepEqual(readFileSync(testFile), testBytes);
    // Gemini hands our deny reason back to the model as the tool's response.
    assert.match(JSON.stringify(session.server.mainRequests[1]!.contents.at(-1)), /test\/cart\.test\.js is protected/);
    const events = traceOf(s, 'gemini', session.out.session_id!);
    assert.deepEqual(
      events.filter((e) => e.type === 'hook').map((e) => `${String(e.event)} ${String(e.answer)}`),
      ['pre-tool deny', 'pre-tool allow', 'post-tool allow', 'stop allow'],
    );
    assert.equal(decisionOf(events), 'green');
  });

  it("(4) Gemini's replace and write_file reach our BeforeTool/AfterTool: revert --session restores every byte, uninstall the config", async () => {
    const session = await geminiSession(s, (n) =>
      n === 0 ? [replace('src/cart.js', BEFORE, RIGHT), write('notes/why.md', 'price times quantity\n')] : [say('Fixed: the total multiplies price by quantity.')],
    );
    assert.ok(readFileSync(path.join(s.project, 'src', 'cart.js'), 'utf8').includes(RIGHT));
    assert.equal(readFileSync(path.join(s.project, 'notes', 'why.md'), 'utf8'), 'price times quantity\n');
    const events = traceOf(s, 'gemini', session.out.session_id!);
    const tools = events.filter((e) => e.type === 'hook' && e.event !== 'stop');
    assert.deepEqual(
      tools.map((e) => `${String(e.event)} ${String(e.answer)}`),
      ['pre-tool allow', 'post-tool allow', 'pre-tool allow', 'post-tool allow'],
      'each edit checkpointed first, recorded after',
    );
    assert.deepEqual(stops(events).map((x) => x.answer), ['allow']);

    // Every byte back (the new folder gone too), then the hooks out: the tree is as it was before the install.
    const { stdout } = await fug(['revert', '--cwd', s.project, '--session', session.out.session_id!, '--json'], s);
    const reverted = JSON.parse(stdout) as { runs: { actions: unknown[]; conflicts: unknown[] }[] };
    assert.equal(reverted.runs[0]!.conflicts.length, 0, stdout);
    await fug(['hooks', 'uninstall', '--host', 'gemini', '--scope', 'project', '--cwd', s.project], s);
    assert.equal(treeHash(s.project), pristine);
    // treeHash sees files only: the folders the edit and the install made are gone too.
    assert.deepEqual(readdirSync(s.project).sort(), ['node_modules', 'package.json', 'src', 'test']);
  });
});

// The CLI end to end against the local model server: `run --model openai-compatible:ID --base-url
// http://127.0.0.1:PORT/v1` on a real fixture project with a real check (a TAP-printing script: the
// fixture's own node:test runs in test/unit/loop/walking), each fault with its expected retry or
// stop, and no key anywhere in what a run leaves behind.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { execa } from 'execa';
import type { FakeOpenAI, FakeOpenAIOptions } from '../../support/fakeOpenAI';
import { startFakeOpenAI } from '../../support/fakeOpenAI';
import { main } from '../../../src/cli/main';
import { calcCheckCommand } from '../../support/checks';
import { CLI, ensureBuilt } from '../../support/cli';
import { copyFixture, REPO } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';

const CALC = 'src/calc.ts';

interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown> | undefined;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

describe('CLI run against the local OpenAI-compatible server', function () {
  this.timeout(180_000);
  let s: Scratch;
  let server: FakeOpenAI | undefined;
  let original: string;

  before(() => ensureBuilt());
  beforeEach(() => {
    s = copyFixture('loop/calc');
    original = readFileSync(path.join(s.project, CALC), 'utf8');
    mkdirSync(path.join(s.project, '.vscode'));
    writeFileSync(
      path.join(s.project, '.vscode', 'settings.json'),
      JSON.stringify({ 'fixUntilGreen.checks': [{ name: 'test', command: calcCheckCommand(), parser: 'tap' }], 'fixUntilGreen.flakyReruns': 0 }),
    );
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    s.cleanup();
  });

  const fixed = (): string => original.replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, '$1a * b');
  const wrong = (): string => original.replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, '$1a * b + 1');
  const fixReply = (from = original): string => reply([diffOf(CALC, from, fixed())], { status: 'done', confidence: 0.9 });

  async function serve(o: FakeOpenAIOptions): Promise<FakeOpenAI> {
    server = await startFakeOpenAI(o);
    return server;
  }

  function result(exitCode: number, stdout: string, stderr: string, args: string[]): CliResult {
    let json: Record<string, unknown> | undefined;
    if (args.includes('--json') && stdout.trim().startsWith('{')) json = JSON.parse(stdout) as Record<string, unknown>;
    return { exitCode, stdout, stderr, json };
  }

  /** `run` as a real process of the built bundle: for what only a process shows (its environment, its stderr). */
  async function cliProcess(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
    // Async on purpose: the model server answers from this process while the CLI runs.
    const r = await execa(process.execPath, [CLI, 'run', '--cwd', s.project, '--storage', s.storage, ...args], {
      cwd: REPO,
      reject: false,
      // Only what the test gives: no key from the machine running the tests.
      env: { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, ...env },
      extendEnv: true,
      timeout: 150_000,
    });
    return result(r.exitCode ?? -1, r.stdout, r.stderr, args);
  }

  /** `run` in this process, its output captured: the command's own code, without a process start per test. */
  async function cli(args: string[]): Promise<CliResult> {
    const out: string[] = [];
    const err: string[] = [];
    // No key from the machine running the tests (the server is local: none is needed).
    const saved = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY };
    delete process.env.OPENAI_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const code = await main(['run', '--cwd', s.project, '--storage', s.storage, ...args], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
      return result(code, out.join('\n'), err.join('\n'), args);
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
    }
  }

  const model = (srv: FakeOpenAI, id = 'fake-model'): string[] => ['--model', `openai-compatible:${id}`, '--base-url', srv.url];
  /** The model calls the server saw (the preflight's model listing left out). */
  const calls = (srv: FakeOpenAI): FakeOpenAI['requests'] => srv.requests.filter((q) => q.index >= 0);

  it('goes green end to end, and counts exactly the usage the server reported', async () => {
    const srv = await serve({ replies: [reply([diffOf(CALC, original, wrong())], { postMortem: 'first attempt' }), fixReply(wrong())] });
    const r = await cli([...model(srv), '--json', '--token-ceiling', '50000']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.json!.stopReason, 'green', String(r.json!.detail));
    assert.equal((r.json!.steps as unknown[]).length, 2);
    assert.equal(readFileSync(path.join(s.project, CALC), 'utf8'), fixed());
    assert.equal(srv.requests[0]!.outcome, 'models', 'the preflight asked whether the server is there');
    const reported = calls(srv).reduce((n, q) => n + (q.usage ? q.usage.input + q.usage.output : 0), 0);
    assert.equal(r.json!.tokensUsed, reported);
    let used = 0;
    for (const q of calls(srv)) {
      assert.equal(q.model, 'fake-model');
      assert.ok(q.maxTokens! <= 50_000 - used, `request ${q.index} asked for ${q.maxTokens} with ${50_000 - used} left`);
      used += q.usage!.input + q.usage!.output;
    }
    // The second prompt carries the first reply's post-mortem and the failure it left.
    const second = calls(srv)[1]!.body as { messages: { role: string; content: string }[] };
    const user = second.messages.find((m) => m.role === 'user')!.content;
    assert.match(user, /## Earlier post-mortems \(oldest first\)\n1\. first attempt/);
    assert.match(user, /### src\/calc\.ts\n```ts\n/);
    const system = second.messages.find((m) => m.role === 'system')!.content;
    assert.match(system, /^You fix a TypeScript\/JavaScript project/);
  });

  it('retries 429 (honouring Retry-After), 500 and a reset, then goes green', async () => {
    const srv = await serve({ script: [{ fault: 'status', status: 429, retryAfter: 1 }, { fault: 'status', status: 500 }, { fault: 'reset' }, { content: fixReply() }] });
    // A real process: the provider's retry warnings go to the process's stderr.
    const r = await cliProcess([...model(srv), '--json']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.json!.stopReason, 'green');
    assert.deepEqual(calls(srv).map((q) => q.outcome), ['status 429', 'status 500', 'reset', 'reply']);
    assert.ok(calls(srv)[1]!.at - calls(srv)[0]!.at >= 1000, 'waited out the Retry-After');
    assert.match(r.stderr, /attempt 1 failed \(429 .*\); retrying in \d+ ms/);
    // The trace keeps every retry of the step's call, and the call says how many attempts it took.
    const trace = readFileSync(String(r.json!.tracePath), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const retries = trace.filter((e) => e.type === 'model-retry');
    assert.deepEqual(retries.map((e) => [e.step, e.attempt]), [[1, 1], [1, 2], [1, 3]]);
    assert.equal(retries[0]!.retryAfterMs, 1000);
    assert.ok((retries[0]!.delayMs as number) >= 1000);
    assert.match(String(retries[0]!.reason), /429/);
    assert.match(String(retries[1]!.reason), /500/);
    assert.equal(trace.find((e) => e.type === 'model-call')!.attempts, 4);
  });

  it('prints each retry in the timeline as it happens', async () => {
    const srv = await serve({ script: [{ fault: 'status', status: 503 }, { content: fixReply() }] });
    const r = await cli(model(srv));
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /step 1 {2}model call attempt 1 failed \(.*503.*\); retrying in \d+\.\d s/);
  });

  it('records an empty and a truncated reply as failed steps, then goes on to green', async () => {
    const srv = await serve({ script: [{ content: '' }, { content: 'STATUS: in_progress\nCONFIDENCE: 0.4\nPOSTMORTEM: x\n```diff\n--- a/src/calc.ts', finishReason: 'length' }, { content: fixReply() }] });
    const r = await cli([...model(srv), '--json', '--stall-threshold', '5']);
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.json!.stopReason, 'green');
    const steps = r.json!.steps as { applied: boolean; feedback: string | null; tokens: number }[];
    assert.equal(steps.length, 3);
    assert.equal(steps[0]!.applied, false);
    assert.match(steps[0]!.feedback!, /could not be used: the model returned an empty reply/);
    assert.ok(steps[0]!.tokens > 0, 'an empty reply still costs its input');
    assert.match(steps[1]!.feedback!, /cut off at the output limit/);
    // The model was told why, and the trace says what went wrong with each call.
    const third = (calls(srv)[2]!.body as { messages: { content: string }[] }).messages[1]!.content;
    assert.match(third, /## Your previous reply was not accepted\n[\s\S]*cut off at the output limit[\s\S]*Keep the reply short/);
    const trace = readFileSync(String(r.json!.tracePath), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; error?: string | null });
    const modelCalls = trace.filter((e) => e.type === 'model-call');
    assert.match(modelCalls[0]!.error ?? '', /^empty: /);
    assert.match(modelCalls[1]!.error ?? '', /^truncated: /);
    assert.equal(modelCalls[2]!.error, null);
  });

  it('stops with error and the fix when the model is not found (404)', async () => {
    const srv = await serve({ models: ['llama3.1'], replies: [fixReply()] });
    const r = await cli([...model(srv, 'no-such-model'), '--json']);
    assert.equal(r.exitCode, 1);
    assert.equal(r.json!.stopReason, 'error');
    assert.match(String(r.json!.detail), /model "no-such-model" or the endpoint was not found.*fixUntilGreen\.model\.id \(CLI: --model\)/);
    assert.equal(calls(srv).length, 1, 'not retried');
    assert.equal(readFileSync(path.join(s.project, CALC), 'utf8'), original, 'nothing written');
  });

  it('stops with error on a bad request (400)', async () => {
    const srv = await serve({ script: [{ fault: 'status', status: 400, message: 'Invalid value for max_tokens' }] });
    const r = await cli([...model(srv), '--json']);
    assert.equal(r.exitCode, 1);
    assert.equal(r.json!.stopReason, 'error');
    assert.match(String(r.json!.detail), /rejected the request \(400 Invalid value for max_tokens\)/);
  });

  it('stops at the time limit while a call hangs, aborting it', async () => {
    const srv = await serve({ script: [{ fault: 'slow' }] });
    const started = Date.now();
    const r = await cli([...model(srv), '--json', '--time-limit', '10']);
    assert.equal(r.exitCode, 1);
    assert.equal(r.json!.stopReason, 'time-limit', String(r.json!.detail));
    assert.ok(Date.now() - started < 60_000);
  });

  it('stops with preflight-failed when nothing listens at the base URL, before any check or call (exit 2)', async () => {
    const srv = await serve({});
    const url = srv.url;
    await srv.close();
    server = undefined;
    const r = await cli(['--model', 'openai-compatible:fake-model', '--base-url', url, '--json']);
    assert.equal(r.exitCode, 2);
    assert.equal(r.json!.stopReason, 'preflight-failed');
    assert.match(String(r.json!.detail), /cannot reach 127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED\)/);
    assert.deepEqual(r.json!.steps, []);
  });

  it('refuses a remote base URL without a key before calling anything (exit 2, names OPENAI_API_KEY)', async () => {
    const r = await cliProcess(['--model', 'openai-compatible:gpt-4o', '--base-url', 'https://api.example.invalid/v1', '--json']);
    assert.equal(r.exitCode, 2);
    assert.match(r.stderr, /needs an API key and none is set: set the OPENAI_API_KEY environment variable/);
  });

  describe('the API key never leaves the request', () => {
    const KEY = `sk-leakcheck-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
    // Parts of the key long enough to identify it, in case something prints it cut or masked.
    const needles = [KEY, KEY.slice(3), KEY.slice(-16)];

    function assertNoKey(where: string, text: string): void {
      for (const n of needles) assert.ok(!text.includes(n), `the key (or part "${n}") appears in ${where}`);
    }

    function assertNothingLeaked(r: CliResult): void {
      assertNoKey('stdout', r.stdout);
      assertNoKey('stderr', r.stderr);
      const files = filesUnder(s.storage);
      assert.ok(files.some((f) => f.endsWith('trace.jsonl')), 'the run wrote a trace');
      for (const f of files) assertNoKey(f, readFileSync(f, 'latin1'));
      for (const f of filesUnder(path.join(s.project, '.vscode'))) assertNoKey(f, readFileSync(f, 'latin1'));
    }

    it('a green run with the key from OPENAI_API_KEY', async () => {
      const srv = await serve({ apiKey: KEY, replies: [fixReply()] });
      for (const flags of [['--json'], []]) {
        const r = await cliProcess([...model(srv), ...flags], { OPENAI_API_KEY: KEY });
        assert.equal(r.exitCode, 0, r.stderr);
        assertNothingLeaked(r);
        // Back to the broken file for the second run.
        writeFileSync(path.join(s.project, CALC), original);
        srv.push({ content: fixReply() });
      }
      assert.ok(calls(srv).length >= 2 && srv.requests.every((q) => q.headers.authorization === `Bearer ${KEY}`), 'the key was sent, so the check above could have failed');
    });

    it('an auth fault whose error body echoes the key', async () => {
      const srv = await serve({ apiKey: 'sk-the-server-wants-another-key', replies: [fixReply()] });
      for (const flags of [['--json'], []]) {
        const r = await cliProcess([...model(srv), ...flags], { OPENAI_API_KEY: KEY });
        assert.equal(r.exitCode, 1);
        const text = r.json ? String(r.json.detail) : r.stdout;
        assert.match(text, /refused the API key/);
        assert.match(text, /OPENAI_API_KEY/);
        assertNothingLeaked(r);
      }
      assert.deepEqual(srv.requests.map((q) => q.outcome), ['models 401', 'status 401', 'models 401', 'status 401']);
    });
  });
});

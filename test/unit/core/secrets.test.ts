// No secret leaves: a real check that prints the provider key from its environment, and a key
// registered another way (as the extension's key from SecretStorage is), sees neither; and whatever
// it prints of a key's value never reaches the output, the failures, the report to the model, the
// trace, the CLI's JSON or its timeline.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTimelinePrinter, formatSummary } from '../../../src/cli/printer';
import { KEY_ENV, createHttpProvider } from '../../../src/core/model/factory';
import { PROVIDER_KEY_ENV_NAMES, REDACTED, redact, redactDeep, registerSecret, resetSecretsForTest } from '../../../src/core/secrets';
import type { RunReport, TimedEvent } from '../../../src/core/trace/events';
import { TraceWriter } from '../../../src/core/trace/trace';
import { formatFailureReport } from '../../../src/core/verify/report';
import { CappedOutput, runCommand } from '../../../src/core/verify/runner';
import { Verifier } from '../../../src/core/verify/verifier';
import { CLI, ensureBuilt } from '../../support/cli';

const ENV_KEY = 'sk-test-envkey-0123456789abcdefXYZ';
const STORED_KEY = 'sk-ant-stored-9876543210zyxwvuTSR';

/** A check that prints every way it could get at a key: its environment, a variable the user named, a file. */
const LEAKY_CHECK = [
  "console.log('openai=' + process.env.OPENAI_API_KEY);",
  "console.log('anthropic=' + process.env.ANTHROPIC_API_KEY);",
  "console.log('named=' + process.env.MY_SERVICE_TOKEN);",
  "console.log('file=' + require('fs').readFileSync('key.txt', 'utf8').trim());",
  "console.error('Error: leaked ' + require('fs').readFileSync('key.txt', 'utf8').trim());",
  'process.exit(1);',
].join('\n');

describe('secrets: no key reaches a check, no key value leaves', function () {
  this.timeout(180000);
  let dir: string;
  const saved = { ...process.env };
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fug-secrets-'));
  });
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    resetSecretsForTest();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists every key variable the providers read', () => {
    for (const name of Object.values(KEY_ENV)) assert.ok(PROVIDER_KEY_ENV_NAMES.includes(name), name);
  });

  it('a real check sees no provider key variable, nor a variable holding a registered key; what it prints of one is redacted everywhere', async () => {
    // The environment a check would inherit holds a provider key; the extension's key (from
    // SecretStorage) is registered where providers are made, and the user also exported it under a
    // name of their own; the project has it in a file.
    process.env.OPENAI_API_KEY = ENV_KEY;
    process.env.ANTHROPIC_API_KEY = ENV_KEY;
    process.env.MY_SERVICE_TOKEN = `Bearer ${STORED_KEY}`;
    createHttpProvider({ model: { provider: 'anthropic', id: 'claude-test', baseUrl: 'http://127.0.0.1:9' }, apiKey: STORED_KEY, keyHint: 'test' });
    writeFileSync(path.join(dir, 'key.txt'), `${STORED_KEY}\n`);
    writeFileSync(path.join(dir, 'leaky.js'), LEAKY_CHECK);

    const v = new Verifier({ root: dir, checks: [{ name: 'leaky', command: 'node leaky.js' }], parallel: false, outputLimitKb: 64, flakyReruns: 0, storageDir: path.join(dir, '.storage') });
    const r = await v.verify();
    const out = r.checks[0]!.output;
    assert.match(out, /^openai=undefined$/m, 'OPENAI_API_KEY did not reach the check');
    assert.match(out, /^anthropic=undefined$/m, 'ANTHROPIC_API_KEY did not reach the check');
    assert.match(out, /^named=undefined$/m, 'a variable holding the registered key did not reach the check');
    assert.match(out, new RegExp(`^file=${REDACTED.replace(/[[\]]/g, '\\$&')}$`, 'm'), 'the key read from a file is redacted');
    assert.ok(r.failures.length > 0, 'the check failed');
    const report = formatFailureReport(r.failures, { root: dir });
    for (const text of [JSON.stringify(r), report]) {
      assert.ok(!text.includes(STORED_KEY), 'the stored key appears nowhere');
      assert.ok(!text.includes(ENV_KEY), 'the environment key appears nowhere');
    }

    // The trace: every line written is redacted, and so is the event handed on (panel, printer).
    const trace = new TraceWriter(path.join(dir, 'trace.jsonl'));
    const ev = trace.write({ type: 'run-end', step: 0, report: { detail: `server said: bad key ${ENV_KEY}`, nested: [{ m: STORED_KEY }] } } as unknown as Parameters<TraceWriter['write']>[0], new Date());
    const written = readFileSync(path.join(dir, 'trace.jsonl'), 'utf8');
    assert.ok(!written.includes(ENV_KEY) && !written.includes(STORED_KEY), written);
    assert.ok(written.includes(REDACTED));
    assert.ok(!JSON.stringify(ev).includes(STORED_KEY));
  });

  it('runCommand scrubs an environment its caller built, and a key cut by the output limit leaves no piece at the cut', async () => {
    registerSecret(STORED_KEY);
    const r = await runCommand({ command: 'node', argv: ['node', '-p', 'String(process.env.OPENAI_API_KEY) + String(process.env.X)'], cwd: dir, timeoutMs: 30000, outputLimitBytes: 4096, env: { PATH: process.env.PATH!, OPENAI_API_KEY: ENV_KEY, X: STORED_KEY } });
    assert.equal(r.output, 'undefinedundefined\n');
    const c = new CappedOutput(1024);
    // The key is cut in the middle: the head ends with its first half, the tail starts with its second.
    c.push('a'.repeat(512 - 10) + STORED_KEY);
    c.push('b'.repeat(5000));
    c.push(STORED_KEY.slice(STORED_KEY.length - 12) + 'c'.repeat(512 - 12));
    const { text, truncated } = c.finish();
    assert.ok(truncated);
    assert.ok(!text.includes(STORED_KEY.slice(0, 10)), 'no head piece');
    assert.ok(!text.includes(STORED_KEY.slice(STORED_KEY.length - 12)), 'no tail piece');
    assert.match(text, /a\[redacted\]\n\[\.\.\. \d+ bytes of output cut/);
  });

  it('the CLI timeline and summary never print a key', () => {
    registerSecret(STORED_KEY);
    const lines: string[] = [];
    const print = createTimelinePrinter((l) => lines.push(l));
    print({ ts: '', type: 'model-retry', step: 1, attempt: 1, reason: `401 for key ${STORED_KEY}`, delayMs: 1000 } as unknown as TimedEvent);
    const summary = formatSummary({ stopReason: 'error', outcome: 'error', detail: `bad key ${STORED_KEY}`, steps: [], limits: { maxSteps: 1, tokenCeiling: 1000, timeLimitSeconds: 1 }, tokensUsed: 0, elapsedMs: 0, bestStep: 0, fixedFailures: [], remainingFailures: [{ check: 'c', message: STORED_KEY }], hypotheses: [], tracePath: 't' } as unknown as RunReport);
    for (const l of [...lines, ...summary]) assert.ok(!l.includes(STORED_KEY), l);
    assert.equal(redactDeep({ a: [STORED_KEY] }).a[0], REDACTED);
    assert.equal(redact('short'), 'short');
  });

  it('CLI `check --json` and `run --json` with keys in the environment: no key reaches the check, none is printed or traced', () => {
    ensureBuilt();
    const project = path.join(dir, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'key.txt'), `${ENV_KEY}\n`);
    writeFileSync(path.join(project, 'leaky.js'), LEAKY_CHECK);
    const env = { ...process.env, OPENAI_API_KEY: ENV_KEY, ANTHROPIC_API_KEY: ENV_KEY, MY_SERVICE_TOKEN: ENV_KEY };
    const storage = path.join(dir, 'storage');

    const check = spawnSync(process.execPath, [CLI, 'check', '--cwd', project, '--storage', storage, '--check', 'leaky=node leaky.js', '--json'], { encoding: 'utf8', env });
    assert.equal(check.status, 1, check.stderr);
    assert.ok(!check.stdout.includes(ENV_KEY), check.stdout);
    assert.ok(check.stdout.includes(REDACTED), 'the key the check read from a file was redacted');

    const replay = path.join(dir, 'replay.json');
    writeFileSync(replay, JSON.stringify({ responses: [{ text: 'STATUS: in_progress\nCONFIDENCE: 0.1\nPOSTMORTEM: none\n\nNo change.', usage: { input: 10, output: 10 } }] }));
    const run = spawnSync(process.execPath, [CLI, 'run', '--cwd', project, '--storage', storage, '--check', 'leaky=node leaky.js', '--model', `replay:${replay}`, '--max-steps', '1', '--json'], { encoding: 'utf8', env });
    assert.ok(run.stdout.length > 0, run.stderr);
    const out = JSON.parse(run.stdout) as { tracePath: string; remainingFailures: unknown[] };
    assert.ok(!run.stdout.includes(ENV_KEY) && !run.stderr.includes(ENV_KEY), run.stdout);
    const trace = readFileSync(out.tracePath, 'utf8');
    assert.ok(trace.includes('openai=undefined'), 'the trace holds what the check printed');
    assert.ok(!trace.includes(ENV_KEY), 'the trace holds no key');
    for (const f of readdirSync(path.dirname(out.tracePath))) {
      const p = path.join(path.dirname(out.tracePath), f);
      try {
        assert.ok(!readFileSync(p, 'utf8').includes(ENV_KEY), `${f} holds no key`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EISDIR') throw e;
      }
    }
  });
});

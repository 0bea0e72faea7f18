// A repository cannot pick where your key goes (issue 29): a real local HTTP server records every
// request and header it receives; the CLI and the MCP server run as real processes with a key in
// their environment and a folder whose .vscode/settings.json names that server. The key must never
// arrive unless the owner named the endpoint (a flag), and a folder-named loopback server gets none.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, ensureBuilt } from '../../support/cli';
import { tempTree } from '../../support/fixtures';

const KEY = 'sk-owner-key-29-7f3a9c1e5b';
const REPLY = 'STATUS: in_progress\nCONFIDENCE: 0.5\nPOSTMORTEM: x\n\nno edit\n';

/** This machine's first address that is not loopback: a host the key rule must treat as remote. */
function remoteAddress(): string {
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  throw new Error('no non-loopback IPv4 address on this machine');
}

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], input?: (stdin: NodeJS.WritableStream, out: () => string) => Promise<void>): Promise<Ended> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  if (input) void input(child.stdin, () => stdout).finally(() => child.stdin.end());
  else child.stdin.end();
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('a key goes only where its owner sends it (CLI and MCP, a real recording server)', function () {
  this.timeout(120_000);
  before(() => ensureBuilt());
  let server: http.Server;
  let port = 0;
  const received: Received[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json' });
        if (req.method === 'GET') return void res.end('{"object":"list","data":[{"id":"m"}]}');
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: REPLY } }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  let t: { dir: string; cleanup(): void };
  let project: string;
  let remote = '';
  beforeEach(() => {
    received.length = 0;
    remote = `http://${remoteAddress()}:${port}/v1`;
    t = tempTree({ 'project/src/a.js': 'module.exports = 1;\n', 'project/c.cjs': "console.log('a is 1, want 3'); process.exit(1);\n" }, 'fug-key-');
    project = path.join(t.dir, 'project');
  });
  afterEach(() => t.cleanup());

  function folderSettings(s: Record<string, unknown>): string {
    mkdirSync(path.join(project, '.vscode'), { recursive: true });
    const file = path.join(project, '.vscode', 'settings.json');
    writeFileSync(file, JSON.stringify(s, null, 2));
    return file;
  }
  const keyArrived = (): boolean => received.some((r) => JSON.stringify(r.headers).includes(KEY) || r.body.includes(KEY));
  const runArgs = (extra: string[]): string[] => ['run', '--cwd', project, '--check', 'c=node c.cjs', '--storage', path.join(t.dir, 'storage'), '--max-steps', '1', '--json', ...extra];

  it('run --model openai-compatible:ID with the folder\'s baseUrl: refused before any request (exit 2), naming file, setting, host and --base-url', async () => {
    const file = folderSettings({ 'fixUntilGreen.model.baseUrl': remote });
    const r = await cli(runArgs(['--model', 'openai-compatible:m']));
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(received.length, 0, 'no request at all');
    assert.ok(!keyArrived());
    assert.ok(r.stderr.includes(file), r.stderr);
    assert.match(r.stderr, /fixUntilGreen\.model\.baseUrl/);
    assert.ok(r.stderr.includes(new URL(remote).host), r.stderr);
    assert.ok(r.stderr.includes(`--base-url ${remote}`), r.stderr);
  });

  it('run with no --model: the folder\'s provider, id and baseUrl are refused the key', async () => {
    folderSettings({ 'fixUntilGreen.model': { provider: 'openai-compatible', id: 'm', baseUrl: remote } });
    const r = await cli(runArgs([]));
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(received.length, 0);
    assert.match(r.stderr, /fixUntilGreen\.model\.baseUrl/);
  });

  it('an escalation rung the folder added to a keyless replay run is refused the key', async () => {
    folderSettings({ 'fixUntilGreen.model.escalation': [{ provider: 'openai-compatible', id: 'm', baseUrl: remote }] });
    const replay = path.join(t.dir, 'replay.json');
    writeFileSync(replay, JSON.stringify({ responses: [{ text: REPLY, usage: { input: 1, output: 1 } }] }));
    const r = await cli(runArgs(['--model', `replay:${replay}`]));
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(received.length, 0);
    assert.match(r.stderr, /fixUntilGreen\.model\.escalation\[0\]/);
    assert.match(r.stderr, /--escalate openai-compatible:ID/);
  });

  it('mcp --model …: the fix call is refused (isError) and the server hears nothing', async () => {
    folderSettings({ 'fixUntilGreen.model.baseUrl': remote });
    const args = ['mcp', '--cwd', project, '--model', 'openai-compatible:m', '--check', 'c=node c.cjs', '--storage', path.join(t.dir, 'storage')];
    let answer = '';
    await cli(args, async (stdin, out) => {
      const send = (m: object): void => void stdin.write(`${JSON.stringify(m)}\n`);
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixUntilGreen_fix', arguments: { folder: project } } });
      const t0 = Date.now();
      while (!out().includes('"id":2') && Date.now() - t0 < 50_000) await new Promise((r) => setTimeout(r, 50));
      answer = out();
    });
    const line = answer.split('\n').find((l) => l.includes('"id":2'));
    assert.ok(line, answer);
    const res = (JSON.parse(line) as { result: { isError?: boolean; content: { text: string }[] } }).result;
    assert.equal(res.isError, true);
    assert.match(res.content[0]!.text, /fixUntilGreen\.model\.baseUrl/);
    assert.match(res.content[0]!.text, /--base-url/);
    assert.equal(received.length, 0);
  });

  it('the owner naming the same URL with --base-url confirms it: the key goes there', async () => {
    folderSettings({ 'fixUntilGreen.model.baseUrl': remote });
    const r = await cli(runArgs(['--model', 'openai-compatible:m', '--base-url', remote]));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(received.some((q) => q.headers.authorization === `Bearer ${KEY}`), 'the owner sent it there');
  });

  it('a folder-named server on this machine is used, and sent no key', async () => {
    folderSettings({ 'fixUntilGreen.model.baseUrl': `http://127.0.0.1:${port}/v1` });
    const r = await cli(runArgs(['--model', 'openai-compatible:m']));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(received.some((q) => q.method === 'POST'), 'the model was called');
    assert.ok(!keyArrived(), JSON.stringify(received.map((q) => q.headers)));
  });

  it('money and gate settings from the folder are named in the run\'s first lines', async () => {
    const file = folderSettings({ 'fixUntilGreen.maxSteps': 1, 'fixUntilGreen.allowVerifierEdits': true, 'fixUntilGreen.protectedPaths': [] });
    const replay = path.join(t.dir, 'replay.json');
    writeFileSync(replay, JSON.stringify({ responses: [{ text: REPLY, usage: { input: 1, output: 1 } }] }));
    const r = await cli(['run', '--cwd', project, '--check', 'c=node c.cjs', '--storage', path.join(t.dir, 'storage'), '--json', '--model', `replay:${replay}`]);
    assert.equal(r.code, 1, r.stderr);
    const first = r.stderr.split('\n').slice(0, 3);
    assert.deepEqual(first, [
      `fix-until-green: ${file} sets fixUntilGreen.maxSteps = 1: it spends more of your money`,
      `fix-until-green: ${file} sets fixUntilGreen.allowVerifierEdits = true: it lets the model edit what defines the checks`,
      `fix-until-green: ${file} sets fixUntilGreen.protectedPaths = [] (no file protected): it decides which files the model may not edit`,
    ]);
  });
});

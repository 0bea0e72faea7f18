// "Restored" means restored (issue 29): every way a run stops (time limit, SIGTERM, an MCP client
// closing stdin) × every phase of a step (model call, each check, the flake re-run) leaves the
// workspace in exactly the state the outcome claims. Real CLI processes, real checks, real files;
// the model call that never ends is a real local HTTP server that never answers.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as http from 'node:http';
import * as path from 'node:path';
import { CLI, ensureBuilt } from '../../support/cli';
import { tempTree } from '../../support/fixtures';

const ORIGINAL = 'module.exports = 1;\n';

type Phase = 'model call' | 'check one' | 'check two' | 'flake re-run';
/**
 * The time limit of the time-limit rows: long enough that a loaded machine still reaches the phase
 * (step 0's checks, the call, step 1's checks and their re-run) before it fires.
 */
const TIME_LIMIT_S = 20;
type Stop = 'time-limit' | 'SIGTERM' | 'MCP stdin closed';

/**
 * A check that fails on the original file and, once the model's edit is on disk, reaches `hang`:
 * it writes a marker (so the test knows the phase is under way) and never ends. `flaky` makes the
 * edited state fail differently, so the check is re-run, and the re-run is what hangs.
 */
function checkScript(name: string, markers: string, hang: boolean, flaky: boolean): string {
  return [
    "const fs = require('fs');",
    "const a = fs.readFileSync('src/a.js', 'utf8');",
    `const markers = ${JSON.stringify(markers)};`,
    "if (!a.includes('EDIT')) { console.log('a is 1, want 3'); process.exit(1); }",
    `const count = require('path').join(markers, ${JSON.stringify(`${name}.count`)});`,
    'const n = fs.existsSync(count) ? Number(fs.readFileSync(count, "utf8")) + 1 : 1;',
    'fs.writeFileSync(count, String(n));',
    `const hangNow = ${hang ? (flaky ? 'n >= 2' : 'true') : 'false'};`,
    `if (hangNow) { fs.writeFileSync(require('path').join(markers, ${JSON.stringify(`${name}.reached`)}), 'x'); setInterval(() => {}, 1000); }`,
    "else { console.log('a is 2, want 3'); process.exit(1); }",
  ].join('\n');
}

interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  done: Promise<number | null>;
}

function start(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const p: Proc = { child, stdout: '', stderr: '', done: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
  child.stdout!.on('data', (d: Buffer) => (p.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (p.stderr += d.toString()));
  return p;
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const t0 = Date.now();
  while (!cond() && Date.now() - t0 < ms) await new Promise((r) => setTimeout(r, 50));
  return cond();
}

describe('a stop at any phase of a step restores what the outcome claims (CLI and MCP, real processes)', function () {
  this.timeout(120_000);
  before(() => ensureBuilt());

  /** A model endpoint on loopback that accepts the request and never answers. */
  let silent: http.Server;
  let silentUrl = '';
  const held: http.ServerResponse[] = [];
  before(async () => {
    silent = http.createServer((req, res) => {
      // The preflight's model list is answered; the completion never is.
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
      held.push(res);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
  });
  after(() => {
    for (const r of held) r.destroy();
    silent.close();
  });

  function setup(phase: Phase): { dir: string; project: string; storage: string; markers: string; replay: string; reached: string; cleanup(): void } {
    const t = tempTree({}, 'fug-stop-');
    const project = path.join(t.dir, 'project');
    const markers = path.join(t.dir, 'markers');
    mkdirSync(markers, { recursive: true });
    mkdirSync(path.join(project, 'src'), { recursive: true });
    writeFileSync(path.join(project, 'src/a.js'), ORIGINAL);
    writeFileSync(path.join(project, 'one.cjs'), checkScript('one', markers, phase === 'check one' || phase === 'flake re-run', phase === 'flake re-run'));
    writeFileSync(path.join(project, 'two.cjs'), checkScript('two', markers, phase === 'check two', false));
    const diff = `--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-module.exports = 1;\n+module.exports = 2; // EDIT\n`;
    const text = `STATUS: in_progress\nCONFIDENCE: 0.5\nPOSTMORTEM: first\n\n\`\`\`diff\n${diff}\`\`\`\n`;
    const replay = path.join(t.dir, 'replay.json');
    writeFileSync(replay, JSON.stringify({ responses: [{ text, usage: { input: 100, output: 10 } }, { text, usage: { input: 100, output: 10 } }] }));
    const reached = phase === 'model call' ? '' : path.join(markers, `${phase === 'check two' ? 'two' : 'one'}.reached`);
    return { ...t, project, storage: path.join(t.dir, 'storage'), markers, replay, reached };
  }

  function modelArgs(phase: Phase, replay: string): string[] {
    return phase === 'model call' ? ['--model', 'openai-compatible:m', '--base-url', silentUrl] : ['--model', `replay:${replay}`];
  }

  const checks = ['--check', 'one=node one.cjs', '--check', 'two=node two.cjs'];

  async function stopRun(stop: Stop, phase: Phase, s: ReturnType<typeof setup>): Promise<Proc> {
    const reached = (): boolean => (phase === 'model call' ? held.length > heldBefore : existsSync(s.reached));
    const heldBefore = held.length;
    if (stop === 'MCP stdin closed') {
      const p = start(['mcp', '--cwd', s.project, ...modelArgs(phase, s.replay), ...checks, '--storage', s.storage]);
      const send = (m: object): boolean => p.child.stdin!.write(`${JSON.stringify(m)}\n`);
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      assert.ok(await waitFor(() => p.stdout.includes('"id":1'), 30_000), p.stderr);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixUntilGreen_fix', arguments: { folder: s.project, maxSteps: 2 } } });
      assert.ok(await waitFor(reached, 60_000), `the ${phase} was reached: ${p.stderr}`);
      p.child.stdin!.end();
      return p;
    }
    const p = start(['run', '--cwd', s.project, ...modelArgs(phase, s.replay), ...checks, '--storage', s.storage, '--max-steps', '2', '--json', ...(stop === 'time-limit' ? ['--time-limit', String(TIME_LIMIT_S)] : [])]);
    assert.ok(await waitFor(reached, 60_000), `the ${phase} was reached: ${p.stderr}`);
    if (stop === 'SIGTERM') p.child.kill('SIGTERM');
    return p;
  }

  const phases: Phase[] = ['model call', 'check one', 'check two', 'flake re-run'];
  const stops: Stop[] = ['SIGTERM', 'MCP stdin closed', 'time-limit'];
  for (const stop of stops) {
    for (const phase of phases) {
      it(`${stop} during the ${phase} of step 1`, async () => {
        const s = setup(phase);
        try {
          const p = await stopRun(stop, phase, s);
          const code = await Promise.race([p.done, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000))]);
          if (code === 'hung') p.child.kill('SIGKILL');
          assert.notEqual(code, 'hung', `the process ended: ${p.stderr}`);
          const disk = readFileSync(path.join(s.project, 'src/a.js'), 'utf8');
          if (stop !== 'MCP stdin closed') {
            const out = JSON.parse(p.stdout) as { stopReason: string; outcome: string; detail: string };
            assert.equal(out.stopReason, stop === 'SIGTERM' ? 'cancelled' : 'time-limit', out.detail);
            // Nothing improved: `punt`, and the file holds its original bytes, as punt says.
            assert.equal(out.outcome, 'punt', out.detail);
          }
          assert.equal(disk, ORIGINAL, `src/a.js holds its original bytes after ${stop} during the ${phase}`);
          // And nothing is left for `revert` to do, or hidden from it.
          const r = start(['revert', '--cwd', s.project, '--storage', s.storage, '--json']);
          assert.equal(await r.done, 0, r.stderr);
          assert.equal(readFileSync(path.join(s.project, 'src/a.js'), 'utf8'), ORIGINAL);
        } finally {
          s.cleanup();
        }
      });
    }
  }
});

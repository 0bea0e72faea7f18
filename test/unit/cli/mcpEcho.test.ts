// A refusal quotes at most a little of what the caller sent (issue 29): a 1 MB `folder`, a 1 MB
// unknown input name or tool name is not echoed whole. A real `mcp` process over stdio.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { CLI, ensureBuilt } from '../../support/cli';
import { tempTree } from '../../support/fixtures';

describe('mcp: echoed inputs are capped', function () {
  this.timeout(60_000);
  before(() => ensureBuilt());

  it('a 1 MB folder, input name and tool name: each refusal is short, and says how long the input was', async () => {
    const t = tempTree({ 'a.txt': 'x' });
    const big = 'f'.repeat(1024 * 1024);
    const child = spawn(process.execPath, [CLI, 'mcp', '--cwd', t.dir], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const send = (m: object): boolean => child.stdin.write(`${JSON.stringify(m)}\n`);
    try {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fixUntilGreen_runChecks', arguments: { folder: big } } });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fixUntilGreen_runChecks', arguments: { [big]: 1 } } });
      send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: big, arguments: {} } });
      const t0 = Date.now();
      while (!['"id":2', '"id":3', '"id":4'].every((k) => out.includes(k)) && Date.now() - t0 < 40_000) await new Promise((r) => setTimeout(r, 50));
      for (const id of [2, 3, 4]) {
        const line = out.split('\n').find((l) => l.includes(`"id":${id}`));
        assert.ok(line, `answer ${id}`);
        assert.ok(line.length < 6000, `answer ${id} is ${line.length} characters`);
        const res = (JSON.parse(line) as { result: { isError?: boolean; content: { text: string }[] } }).result;
        assert.equal(res.isError, true);
        assert.match(res.content[0]!.text, /… \(\d{7} characters\)/);
      }
    } finally {
      child.kill();
      t.cleanup();
    }
  });
});

// `fix-until-green mcp` as an MCP client meets it: the built CLI started as a real subprocess, spoken
// to with the official SDK's client over stdio, on a real failing project with real checks and a
// replay model (issue 17).
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, ensureBuilt } from '../../support/cli';
import { copyFixture, REPO, treeHash } from '../../support/fixtures';
import type { Scratch } from '../../support/fixtures';
import { diffOf, reply } from '../../support/replies';

const TEST = 'test=node --import tsx --test test/calc.test.ts';

function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('fix-until-green mcp (a real MCP server on stdio)', function () {
  this.timeout(180000);
  let s: Scratch;
  let client: Client;
  let stderr = '';

  before(() => ensureBuilt());

  async function connect(extra: string[]): Promise<void> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--cwd', s.project, '--check', TEST, '--storage', s.storage, ...extra], stderr: 'pipe' });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    client = new Client({ name: 'fug-test-client', version: '1.0.0' });
    await client.connect(transport);
  }

  beforeEach(() => {
    s = copyFixture('loop/calc');
    stderr = '';
  });
  afterEach(async () => {
    await client?.close();
    s.cleanup();
  });

  function replayFile(texts: string[]): string {
    const file = path.join(s.dir, 'replay.json');
    writeFileSync(file, JSON.stringify({ responses: texts.map((text) => ({ text, usage: { input: 400, output: 40 } })) }));
    return file;
  }

  it('lists the two tools and parse, with the descriptions and schemas the extension declares', async () => {
    await connect([]);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['fixUntilGreen_runChecks', 'fixUntilGreen_fix', 'fixUntilGreen_parse']);
    const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8')) as { contributes: { languageModelTools: { name: string; modelDescription: string; inputSchema: unknown }[] } };
    for (const lm of pkg.contributes.languageModelTools) {
      const t = tools.find((x) => x.name === lm.name);
      assert.ok(t, `${lm.name} is served`);
      assert.equal(t.description, lm.modelDescription);
      assert.deepEqual(t.inputSchema, lm.inputSchema);
    }
    assert.equal(tools.find((t) => t.name === 'fixUntilGreen_runChecks')!.annotations?.readOnlyHint, true);
  });

  it('counts an unchanged failing identity across calls (seen 2, not making progress), then fixes to green', async () => {
    const calc = path.join(s.project, 'src/calc.ts');
    const before = readFileSync(calc, 'utf8');
    const after = before.replace(/(mul\(a: number, b: number\): number \{\n {2}return )a \+ b/, '$1a * b');
    assert.notEqual(after, before, 'the fixture has the bug the reply fixes');
    const file = replayFile([reply([diffOf('src/calc.ts', before, after)], { status: 'done' })]);
    await connect(['--model', `replay:${file}`]);
    const tree = treeHash(s.project);

    const first = (await client.callTool({ name: 'fixUntilGreen_runChecks', arguments: {} })) as CallToolResult;
    assert.ok(!first.isError, textOf(first));
    const a = first.structuredContent as Record<string, unknown>;
    assert.equal(a.green, false);
    assert.equal(a.seen, 1);
    assert.equal(a.progress, 'first');
    assert.ok((a.failureCount as number) > 0);
    assert.match(a.report as string, /mul/);
    assert.equal(treeHash(s.project), tree, 'checking wrote nothing into the project');

    const second = (await client.callTool({ name: 'fixUntilGreen_runChecks', arguments: { folder: s.project } })) as CallToolResult;
    const b = second.structuredContent as Record<string, unknown>;
    assert.equal(b.failureHash, a.failureHash, 'same files, same identity');
    assert.equal(b.seen, 2);
    assert.equal(b.progress, 'repeat');
    assert.match(textOf(second), /Verdict: same failures as the previous attempt \(this identity seen 2 times in this session\): you are not making progress; stop or change approach/);

    const fixed = (await client.callTool({ name: 'fixUntilGreen_fix', arguments: { instruction: 'make the tests pass', maxSteps: 2 } })) as CallToolResult;
    assert.ok(!fixed.isError, textOf(fixed));
    const f = fixed.structuredContent as Record<string, unknown>;
    assert.equal(f.stopReason, 'green', textOf(fixed));
    assert.equal(f.outcome, 'fixed');
    assert.equal(f.remainingFailureCount, 0);
    assert.ok(existsSync(f.tracePath as string), 'the trace is written');
    const trace = readFileSync(f.tracePath as string, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; frontEnd?: string });
    assert.equal(trace.at(-1)!.type, 'run-end');
    assert.equal(readFileSync(calc, 'utf8'), after);

    const third = (await client.callTool({ name: 'fixUntilGreen_runChecks', arguments: {} })) as CallToolResult;
    const c = third.structuredContent as Record<string, unknown>;
    assert.equal(c.green, true);
    assert.equal(c.progress, 'green');
    assert.match(c.verdict as string, /^green: every check passes \(the previous attempt had \d+ failures?\)/);
  });

  it('refuses a fix without a model, and bad input, as tool errors; nothing is written', async () => {
    await connect([]);
    const tree = treeHash(s.project);
    const noModel = (await client.callTool({ name: 'fixUntilGreen_fix', arguments: {} })) as CallToolResult;
    assert.equal(noModel.isError, true);
    assert.match(textOf(noModel), /no model to fix with: start it with --model/);
    const bad = (await client.callTool({ name: 'fixUntilGreen_fix', arguments: { maxSteps: 0 } })) as CallToolResult;
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /"maxSteps" must be a whole number from 1 to 100/);
    const missing = (await client.callTool({ name: 'fixUntilGreen_runChecks', arguments: { folder: path.join(s.dir, 'nope') } })) as CallToolResult;
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /is not a directory/);
    assert.equal(treeHash(s.project), tree);
  });

  it('fix climbs the folder\'s model ladder: the escalate-then-green eval folder ends green, as `run` does', async () => {
    // The eval's project (real mocha), its settings naming strong.json as the escalation model.
    const scenario = path.join(REPO, 'evals', 'escalate-then-green');
    const project = path.join(s.dir, 'escalate');
    cpSync(path.join(scenario, 'project'), project, { recursive: true });
    symlinkSync(path.join(REPO, 'node_modules'), path.join(project, 'node_modules'), 'dir');
    const settings = JSON.parse(readFileSync(path.join(project, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
    settings['fixUntilGreen.model.escalation'] = [{ provider: 'replay', id: path.join(scenario, 'strong.json') }];
    writeFileSync(path.join(project, '.vscode', 'settings.json'), JSON.stringify(settings));
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--cwd', project, '--storage', s.storage, '--model', `replay:${path.join(scenario, 'replay.json')}`], stderr: 'pipe' });
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    client = new Client({ name: 'fug-test-client', version: '1.0.0' });
    await client.connect(transport);

    const fixed = (await client.callTool({ name: 'fixUntilGreen_fix', arguments: {} })) as CallToolResult;
    assert.ok(!fixed.isError, textOf(fixed));
    const f = fixed.structuredContent as { stopReason: string; outcome: string; steps: unknown[]; tracePath: string };
    assert.equal(f.stopReason, 'green', `${textOf(fixed)}\n${stderr}`);
    assert.equal(f.outcome, 'fixed');
    assert.equal(f.steps.length, 3);
    const trace = readFileSync(f.tracePath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; to?: string; preflight?: { frontEnd: string } });
    assert.deepEqual(trace.filter((e) => e.type === 'escalated').map((e) => e.to), ['replay:strong.json']);
    assert.equal(trace.find((e) => e.type === 'run-start')?.preflight?.frontEnd, 'mcp');
    assert.equal(readFileSync(path.join(project, 'src', 'discount.js'), 'utf8'), readFileSync(path.join(scenario, 'expected', 'src', 'discount.js'), 'utf8'));
  });

  it('parses a check output into failures and the identity the checks compute', async () => {
    await connect([]);
    const output = 'src/calc.ts(3,10): error TS2322: Type \'string\' is not assignable to type \'number\'.\n';
    const r = (await client.callTool({ name: 'fixUntilGreen_parse', arguments: { parser: 'tsc', output, exitCode: 2 } })) as CallToolResult;
    assert.ok(!r.isError, textOf(r));
    const p = r.structuredContent as { failures: { file: string; line: number; id: string }[]; failureHash: string };
    assert.equal(p.failures.length, 1);
    assert.deepEqual([p.failures[0]!.file, p.failures[0]!.line, p.failures[0]!.id], ['src/calc.ts', 3, 'TS2322']);
    assert.match(p.failureHash, /^[0-9a-f]{16,}$/);
    const again = (await client.callTool({ name: 'fixUntilGreen_parse', arguments: { parser: 'tsc', output, exitCode: 2 } })) as CallToolResult;
    assert.equal((again.structuredContent as { failureHash: string }).failureHash, p.failureHash);
    const wrong = (await client.callTool({ name: 'fixUntilGreen_parse', arguments: { parser: 'nope', output } })) as CallToolResult;
    assert.equal(wrong.isError, true);
  });
});

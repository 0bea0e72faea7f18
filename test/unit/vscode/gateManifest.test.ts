// The gate's VS Code contributions (issue 17) against the core's declarations: the Language Model
// Tools carry the same names, model descriptions and input schemas the MCP server serves; `@fix` has
// the id DESIGN §7 names and its commands; the MCP server definition provider is declared.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { FIX_DESCRIPTION, FIX_INPUT_SCHEMA, FIX_TOOL, RUN_CHECKS_DESCRIPTION, RUN_CHECKS_INPUT_SCHEMA, RUN_CHECKS_TOOL } from '../../../src/core/gate/definitions';
import { REPO } from '../../support/fixtures';

interface Tool {
  name: string;
  displayName: string;
  modelDescription: string;
  userDescription: string;
  inputSchema: unknown;
  canBeReferencedInPrompt?: boolean;
  toolReferenceName?: string;
}
const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));

describe('extension manifest: the gate for other agents', () => {
  it('declares the two Language Model Tools of DESIGN §7 with the core descriptions and schemas', () => {
    const tools = pkg.contributes.languageModelTools as Tool[];
    assert.deepEqual(tools.map((t) => t.name), [RUN_CHECKS_TOOL, FIX_TOOL]);
    assert.deepEqual(tools.map((t) => t.name), ['fixUntilGreen_runChecks', 'fixUntilGreen_fix']);
    const [checks, fix] = tools as [Tool, Tool];
    assert.equal(checks.modelDescription, RUN_CHECKS_DESCRIPTION);
    assert.deepEqual(checks.inputSchema, JSON.parse(JSON.stringify(RUN_CHECKS_INPUT_SCHEMA)));
    assert.equal(fix.modelDescription, FIX_DESCRIPTION);
    assert.deepEqual(fix.inputSchema, JSON.parse(JSON.stringify(FIX_INPUT_SCHEMA)));
    for (const t of tools) {
      assert.ok(t.displayName && t.userDescription, `${t.name} has a display name and a user description`);
      assert.equal(t.canBeReferencedInPrompt, true, `${t.name} can be attached with #`);
      assert.match(t.toolReferenceName ?? '', /^\w+$/);
    }
  });

  it('declares @fix (fixUntilGreen.fix) with /checks and /continue', () => {
    const [p, ...others] = pkg.contributes.chatParticipants as { id: string; name: string; commands: { name: string; description: string }[] }[];
    assert.equal(others.length, 0);
    assert.equal(p!.id, 'fixUntilGreen.fix');
    assert.equal(p!.name, 'fix');
    assert.deepEqual(p!.commands.map((c) => c.name), ['checks', 'continue']);
  });

  it('offers the MCP server to VS Code, and ships the CLI that serves it', () => {
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders, [{ id: 'fixUntilGreen.mcp', label: 'Fix Until Green' }]);
    const ignore = readFileSync(path.join(REPO, '.vscodeignore'), 'utf8');
    assert.match(ignore, /^!dist\/cli\.js$/m);
    assert.match(ignore, /^!dist\/cli-mcp\.js$/m);
    // The provider API is in the engine range the extension declares.
    const types = readFileSync(path.join(REPO, 'node_modules', '@types', 'vscode', 'index.d.ts'), 'utf8');
    assert.match(types, /export function registerMcpServerDefinitionProvider\(/);
    assert.equal(pkg.engines.vscode, '^1.138.0');
  });
});

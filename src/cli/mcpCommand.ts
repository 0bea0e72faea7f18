// `fix-until-green mcp`: the gate as an MCP server on stdio (issue 17), for Claude Code, Cursor,
// VS Code's MCP support and any MCP client. It serves `fixUntilGreen_runChecks`, `fixUntilGreen_fix`
// and `fixUntilGreen_parse` (src/cli/mcpTools.ts) with the official SDK. stdout carries the protocol
// only: whatever the server has to say goes to stderr.
import { parseArgs } from 'node:util';
import * as path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  FIX_DESCRIPTION,
  FIX_INPUT_SCHEMA,
  FIX_TOOL,
  PARSE_DESCRIPTION,
  PARSE_INPUT_SCHEMA,
  PARSE_TOOL,
  readFixInput,
  readRunChecksInput,
  RUN_CHECKS_DESCRIPTION,
  RUN_CHECKS_INPUT_SCHEMA,
  RUN_CHECKS_TOOL,
  echoed,
  ToolInputError,
} from '../core/gate/definitions';
import { formatChecksToolResult, formatFixToolResult } from '../core/gate/tools';
import { redact } from '../core/secrets';
import type { TimedEvent } from '../core/trace/events';
import type { Refusal } from '../core/launch';
import { describeCliError, UsageError } from './errors';
import { cliRefusal } from './refusals';
import { McpTools, readParseInput } from './mcpTools';
import { parseModelSpec } from './providers';
import type { CliIo } from './runCommand';
import { parseCheckFlags, resolveCwd } from './runCommand';

export const MCP_SERVER_NAME = 'fix-until-green';

export const MCP_TOOLS = [
  { name: RUN_CHECKS_TOOL, title: 'Run Checks (Fix Until Green)', description: RUN_CHECKS_DESCRIPTION, inputSchema: RUN_CHECKS_INPUT_SCHEMA, annotations: { readOnlyHint: true, openWorldHint: false } },
  { name: FIX_TOOL, title: 'Fix Until Green', description: FIX_DESCRIPTION, inputSchema: FIX_INPUT_SCHEMA, annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true } },
  { name: PARSE_TOOL, title: "Parse a Check's Output (Fix Until Green)", description: PARSE_DESCRIPTION, inputSchema: PARSE_INPUT_SCHEMA, annotations: { readOnlyHint: true, openWorldHint: false } },
];

function serverOptions(argv: string[]): ConstructorParameters<typeof McpTools>[0] {
  const { values } = parseArgs({
    args: argv,
    options: {
      cwd: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      check: { type: 'string', multiple: true },
      storage: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const overrides: Record<string, { value: unknown; flag: string }> = {};
  if (values.check && values.check.length > 0) overrides.checks = { value: parseCheckFlags(values.check), flag: '--check' };
  if (values.model !== undefined) {
    const spec = parseModelSpec(values.model);
    overrides['model.provider'] = { value: spec.provider, flag: '--model' };
    overrides['model.id'] = { value: spec.provider === 'replay' ? path.resolve(spec.id) : spec.id, flag: '--model' };
  }
  if (values['base-url'] !== undefined) overrides['model.baseUrl'] = { value: values['base-url'], flag: '--base-url' };
  return { cwd: resolveCwd(values.cwd), overrides, ...(values.storage !== undefined ? { storage: path.resolve(values.storage) } : {}) };
}

function textResult(text: string, structured: object, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: redact(text) }], structuredContent: structured as Record<string, unknown>, ...(isError ? { isError } : {}) };
}

const REFUSAL_CHARS = 2000;

/** A refusal (bad input, busy folder, preflight) is the tool's answer with isError; the caller reads why. */
function errorResult(tool: string, e: unknown): CallToolResult {
  const f = e instanceof ToolInputError ? { kind: 'usage', message: e.message } : describeCliError(e);
  return failureResult(tool, f);
}

/** Whatever a refusal quotes of the call (a path, a name), it stays a refusal's size. */
function failureResult(tool: string, f: { kind: string; message: string }): CallToolResult {
  const message = f.message.length > REFUSAL_CHARS ? `${f.message.slice(0, REFUSAL_CHARS)}… (${f.message.length} characters)` : f.message;
  return textResult(`${echoed(tool)} did not run: ${message}`, { error: { kind: f.kind, message } }, true);
}

/** What the launcher refused, as the tool's answer: the CLI's line for it, with isError. */
export function mcpRefusal(tool: string, r: Refusal, root: string): CallToolResult {
  return failureResult(tool, cliRefusal(r, { what: tool === FIX_TOOL ? 'start another run' : 'run the checks', cwd: root }));
}

/** A run's steps as MCP progress notifications, when the client asked for them. */
function progressSender(token: string | number | undefined, send: (n: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; total?: number; message?: string } }) => Promise<void>, log: (s: string) => void): ((e: TimedEvent) => void) | undefined {
  if (token === undefined) return undefined;
  let total: number | undefined;
  return (e) => {
    if (e.type === 'run-start') total = e.limits.maxSteps;
    if (e.type !== 'verify') return;
    const message = `step ${e.step}: ${e.green ? 'green' : `${e.failureCount} failure(s)`}`;
    send({ method: 'notifications/progress', params: { progressToken: token, progress: e.step, ...(total !== undefined ? { total } : {}), message } }).catch((err: unknown) => log(`progress notification failed: ${String(err)}`));
  };
}

export function createMcpServer(tools: McpTools, log: (s: string) => void): Server {
  const server = new Server({ name: MCP_SERVER_NAME, version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: MCP_TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args } = req.params;
    try {
      switch (name) {
        case RUN_CHECKS_TOOL: {
          const a = await tools.runChecks(readRunChecksInput(args), extra.signal);
          if (!a.ok) return mcpRefusal(name, a.refusal, a.root);
          const r = a.result;
          log(`${name}: ${r.green ? 'green' : `${r.failureCount} failure(s)`}, identity ${r.failureHash.slice(0, 12)} seen ${r.seen} time(s)`);
          return textResult(formatChecksToolResult(r), r);
        }
        case FIX_TOOL: {
          const a = await tools.fix(readFixInput(args), extra.signal, progressSender(req.params._meta?.progressToken, extra.sendNotification, log));
          if (!a.ok) return mcpRefusal(name, a.refusal, a.root);
          const r = a.result;
          log(`${name}: run ${r.runId} stopped with ${r.stopReason} (${r.outcome})`);
          return textResult(formatFixToolResult(r), r);
        }
        case PARSE_TOOL: {
          const r = tools.parse(readParseInput(args));
          return textResult(JSON.stringify(r, null, 2), r);
        }
        default:
          return errorResult(name, new UsageError(`unknown tool "${echoed(name)}" (one of ${MCP_TOOLS.map((t) => t.name).join(', ')})`));
      }
    } catch (e) {
      log(`${name}: ${e instanceof Error ? e.message : String(e)}`);
      return errorResult(name, e);
    }
  });
  return server;
}

export async function mcpCommand(argv: string[], io: CliIo): Promise<number> {
  const tools = new McpTools(serverOptions(argv));
  const log = (s: string): void => io.stderr(`fix-until-green mcp: ${s}`);
  const server = createMcpServer(tools, log);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    // The client went away: stdin ends, the session with it.
    process.stdin.once('end', () => void server.close().then(resolve, resolve));
  });
  await server.connect(transport);
  log(`serving ${MCP_TOOLS.map((t) => t.name).join(', ')} on stdio`);
  await closed;
  return 0;
}

// The MCP server's tools (issue 17), headless: the same two tools as the extension's Language Model
// Tools, plus `parse`, with the same names, inputs and results (src/core/gate). The server's own
// flags (`--model`, `--check`, `--storage`...) are the settings a tool call cannot change; each call
// reads the folder's `.vscode/settings.json` afresh, as `run` and `check` do. The identity-seen
// counter lives as long as the server (one MCP session).
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { readWorkspaceText } from '../core/edit/readText';
import { FsWorkspace } from '../core/edit/workspace';
import type { LaunchPorts, LaunchRequest, Refusal } from '../core/launch';
import { prepareChecks, prepareRun } from '../core/launch';
import type { FixInput, RunChecksInput } from '../core/gate/definitions';
import { echoed, ToolInputError } from '../core/gate/definitions';
import { SeenCounter } from '../core/gate/seen';
import type { ChecksToolResult, FixToolResult } from '../core/gate/tools';
import { checksToolResult, fixToolResult } from '../core/gate/tools';
import { PARSER_IDS } from '../core/settings';
import type { TimedEvent } from '../core/trace/events';
import type { Failure, ParserId } from '../core/types';
import { failureIdentity } from '../core/verify/identity';
import { parseOutput } from '../core/verify/parsers/index';
import { UsageError } from './errors';
import { cliKeyPort, cliModelPort } from './providers';
import { defaultStorageDir } from './storage';
import { folderSettingKeys, settingsAnswer } from './workspaceSettings';

/** What the server was started with (its flags): applied to every call. */
export interface McpServerOptions {
  /** The default folder (`--cwd`), absolute. */
  cwd: string;
  /** Settings overrides from the flags, as `settingsAnswer` takes them. */
  overrides: Record<string, { value: unknown; flag: string }>;
  /** `--storage`: one storage folder for every project; default: the CLI's per-folder one. */
  storage?: string;
  env?: NodeJS.ProcessEnv;
}

/** A tool's answer: its result, or what the launcher refused (worded by the server as a tool error). */
export type ToolAnswer<T> = { ok: true; result: T } | { ok: false; refusal: Refusal; root: string };

const NO_MODEL = "the MCP server has no model to fix with: start it with --model replay:FILE|openai-compatible:ID|anthropic:ID, or set fixUntilGreen.model.provider in the folder's .vscode/settings.json";

export interface ParseInput {
  parser: ParserId;
  output: string;
  root?: string;
  check?: string;
  exitCode?: number;
}

export function readParseInput(raw: unknown): ParseInput {
  const o = (raw ?? {}) as Record<string, unknown>;
  if (typeof o !== 'object' || Array.isArray(o)) throw new ToolInputError('fixUntilGreen_parse: the input must be an object');
  if (typeof o.parser !== 'string' || !(PARSER_IDS as readonly string[]).includes(o.parser)) throw new ToolInputError(`fixUntilGreen_parse: "parser" must be one of ${PARSER_IDS.join(', ')}`);
  if (typeof o.output !== 'string') throw new ToolInputError('fixUntilGreen_parse: "output" must be the check\'s output, a string');
  const out: ParseInput = { parser: o.parser as ParserId, output: o.output };
  for (const k of ['root', 'check'] as const) {
    if (o[k] === undefined) continue;
    if (typeof o[k] !== 'string') throw new ToolInputError(`fixUntilGreen_parse: "${k}" must be a string`);
    out[k] = o[k];
  }
  if (o.exitCode !== undefined) {
    if (typeof o.exitCode !== 'number' || !Number.isInteger(o.exitCode)) throw new ToolInputError('fixUntilGreen_parse: "exitCode" must be a whole number');
    out.exitCode = o.exitCode;
  }
  return out;
}

export class McpTools {
  /** Identities seen in this server session, per folder. */
  readonly seen = new SeenCounter();
  /** Folders this server is checking or fixing now: one thing at a time per folder. */
  private readonly busy = new Map<string, string>();

  constructor(private readonly options: McpServerOptions) {}

  /** The folder a call names (absolute, or relative to `--cwd`), default `--cwd`. */
  folder(named: string | undefined): string {
    const dir = named === undefined ? this.options.cwd : path.resolve(this.options.cwd, named);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ToolInputError(`folder: ${echoed(dir)} is not a directory`);
    return dir;
  }

  private ports(root: string, extra: Record<string, { value: unknown; flag: string }> = {}): LaunchPorts<never> {
    return {
      settings: () => settingsAnswer(root, { ...this.options.overrides, ...extra }),
      // A key goes only where its owner sends it (issue 29): the run's model and every rung of its ladder.
      keys: cliKeyPort(() => folderSettingKeys(root, { ...this.options.overrides, ...extra }), this.options.env ?? process.env),
      model: cliModelPort(root, NO_MODEL, this.options.env ? { env: this.options.env } : {}),
      workspace: () => new FsWorkspace(root),
    };
  }

  private request(root: string): LaunchRequest {
    return { root, frontEnd: 'mcp', storageDir: path.resolve(this.options.storage ?? defaultStorageDir(root)) };
  }

  private async exclusive<T>(root: string, task: string, work: () => Promise<T>): Promise<T> {
    const current = this.busy.get(root);
    if (current) throw new UsageError(`${current} is in progress in ${root} (started by this server); wait for it to end`, 'busy');
    this.busy.set(root, task);
    try {
      return await work();
    } finally {
      this.busy.delete(root);
    }
  }

  async runChecks(input: RunChecksInput, signal?: AbortSignal): Promise<ToolAnswer<ChecksToolResult>> {
    const root = this.folder(input.folder);
    return this.exclusive(root, 'a check pass', async () => {
      // A live run is changing the files: its checks are the ones to read (CHECKS_WHILE_A_RUN_HOLDS).
      const launch = await prepareChecks(this.request(root), this.ports(root));
      if (!launch.ok) return { ok: false, refusal: launch.refusal, root };
      const v = await launch.prepared.checks.verifier.verify(signal);
      if (signal?.aborted) throw new UsageError('the check pass was cancelled');
      return { ok: true, result: checksToolResult(v, this.seen, root, { root, readText: (rel) => readWorkspaceText(root, rel) }) };
    });
  }

  async fix(input: FixInput, signal?: AbortSignal, onEvent?: (e: TimedEvent) => void): Promise<ToolAnswer<FixToolResult>> {
    const root = this.folder(input.folder);
    return this.exclusive(root, 'a fix run', async () => {
      const launch = await prepareRun(this.request(root), this.ports(root, input.maxSteps !== undefined ? { maxSteps: { value: input.maxSteps, flag: 'maxSteps' } } : {}));
      if (!launch.ok) return { ok: false, refusal: launch.refusal, root };
      const { run } = launch.prepared.build({ ...(signal ? { signal } : {}), ...(onEvent ? { onEvent } : {}), ...(input.instruction ? { instruction: input.instruction } : {}) });
      return { ok: true, result: fixToolResult(await run.start(), { root, readText: (rel) => readWorkspaceText(root, rel) }) };
    });
  }

  parse(input: ParseInput): { failures: Failure[]; failureHash: string } {
    const root = path.resolve(this.options.cwd, input.root ?? '.');
    const failures = parseOutput(input.parser, input.output, { check: input.check ?? input.parser, root, cwd: root, exitCode: input.exitCode ?? 0 });
    return { failures, failureHash: failureIdentity(failures, { root }) };
  }
}

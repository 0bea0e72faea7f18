// The MCP server's tools (issue 17), headless: the same two tools as the extension's Language Model
// Tools, plus `parse`, with the same names, inputs and results (src/core/gate). The server's own
// flags (`--model`, `--check`, `--storage`...) are the settings a tool call cannot change; each call
// reads the folder's `.vscode/settings.json` afresh, as `run` and `check` do. The identity-seen
// counter lives as long as the server (one MCP session).
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { readWorkspaceText } from '../core/edit/readText';
import { FsWorkspace } from '../core/edit/workspace';
import { findInterruptedRuns } from '../core/edit/restore';
import { liveRunLock } from '../core/edit/runLock';
import { checkProblems, createCheckEngine, createRunEngine } from '../core/engine';
import type { FixInput, RunChecksInput } from '../core/gate/definitions';
import { echoed, ToolInputError } from '../core/gate/definitions';
import { SeenCounter } from '../core/gate/seen';
import type { ChecksToolResult, FixToolResult } from '../core/gate/tools';
import { checksToolResult, fixToolResult } from '../core/gate/tools';
import { PARSER_IDS } from '../core/settings';
import type { Settings } from '../core/settings';
import type { TimedEvent } from '../core/trace/events';
import type { Failure, ParserId } from '../core/types';
import { failureIdentity } from '../core/verify/identity';
import { parseOutput } from '../core/verify/parsers/index';
import { UsageError } from './errors';
import { createCliProvider, keyTrust } from './providers';
import { refuseWhileRunning } from './runCommand';
import { defaultStorageDir, ensureWritableStorage } from './storage';
import { folderSettingKeys, resolveSettings } from './workspaceSettings';

/** What the server was started with (its flags): applied to every call. */
export interface McpServerOptions {
  /** The default folder (`--cwd`), absolute. */
  cwd: string;
  /** Settings overrides from the flags, as `resolveSettings` takes them. */
  overrides: Record<string, { value: unknown; flag: string }>;
  /** `--storage`: one storage folder for every project; default: the CLI's per-folder one. */
  storage?: string;
  env?: NodeJS.ProcessEnv;
}

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

  private settings(root: string, extra: Record<string, { value: unknown; flag: string }> = {}): Settings {
    return resolveSettings(root, { ...this.options.overrides, ...extra });
  }

  private storageDir(root: string): string {
    return path.resolve(this.options.storage ?? defaultStorageDir(root));
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

  async runChecks(input: RunChecksInput, signal?: AbortSignal): Promise<ChecksToolResult> {
    const root = this.folder(input.folder);
    return this.exclusive(root, 'a check pass', async () => {
      // A live run is changing the files: its checks are the ones to read.
      const holder = liveRunLock(root);
      if (holder) refuseWhileRunning(root, 'run the checks');
      const engine = createCheckEngine({ root, settings: this.settings(root), storageDir: this.storageDir(root) });
      const unusable = checkProblems(engine);
      if (unusable) throw new UsageError(unusable.message, 'preflight');
      const v = await engine.verifier.verify(signal);
      if (signal?.aborted) throw new UsageError('the check pass was cancelled');
      return checksToolResult(v, this.seen, root, { root, readText: (rel) => readWorkspaceText(root, rel) });
    });
  }

  async fix(input: FixInput, signal?: AbortSignal, onEvent?: (e: TimedEvent) => void): Promise<FixToolResult> {
    const root = this.folder(input.folder);
    return this.exclusive(root, 'a fix run', async () => {
      const settings = this.settings(root, input.maxSteps !== undefined ? { maxSteps: { value: input.maxSteps, flag: 'maxSteps' } } : {});
      if (settings.model.provider === 'vscode-lm') {
        throw new UsageError('the MCP server has no model to fix with: start it with --model replay:FILE|openai-compatible:ID|anthropic:ID, or set fixUntilGreen.model.provider in the folder\'s .vscode/settings.json');
      }
      // A key goes only where its owner sends it: refused here, before any request (issue 29). The
      // server climbs no ladder, so only the run's own model is judged.
      const withhold = keyTrust({ ...settings, model: { ...settings.model, escalation: [] } }, folderSettingKeys(root, { ...this.options.overrides, ...(input.maxSteps !== undefined ? { maxSteps: true } : {}) }), this.options.env);
      const provider = createCliProvider(settings, root, { ...(this.options.env ? { env: this.options.env } : {}), withhold });
      const storageDir = this.storageDir(root);
      const checks = createCheckEngine({ root, settings, storageDir });
      const unusable = checkProblems(checks);
      if (unusable) throw new UsageError(unusable.message, 'preflight');
      refuseWhileRunning(root, 'start another run');
      ensureWritableStorage(storageDir, this.options.storage !== undefined);
      const interrupted = await findInterruptedRuns(storageDir);
      if (interrupted.length > 0) {
        throw new UsageError(`an interrupted run (${interrupted[0]!.runId}) left files changed in ${root}: \`fix-until-green revert --cwd ${root}\` restores them`, 'preflight');
      }
      const { run } = createRunEngine({
        root,
        settings,
        storageDir,
        checks,
        workspace: new FsWorkspace(root),
        provider,
        frontEnd: 'mcp',
        ...(signal ? { signal } : {}),
        ...(onEvent ? { onEvent } : {}),
        ...(input.instruction ? { instruction: input.instruction } : {}),
      });
      return fixToolResult(await run.start(), { root, readText: (rel) => readWorkspaceText(root, rel) });
    });
  }

  parse(input: ParseInput): { failures: Failure[]; failureHash: string } {
    const root = path.resolve(this.options.cwd, input.root ?? '.');
    const failures = parseOutput(input.parser, input.output, { check: input.check ?? input.parser, root, cwd: root, exitCode: input.exitCode ?? 0 });
    return { failures, failureHash: failureIdentity(failures, { root }) };
  }
}

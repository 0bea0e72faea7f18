// The tools the gate offers other agents (issue 17), as they are declared: names, the descriptions
// the calling model reads, input schemas and their readers. The Language Model Tools (package.json
// declares the same, checked by a unit test) and the MCP server both use these. No engine import:
// the extension's shell reads them at activation.
export const RUN_CHECKS_TOOL = 'fixUntilGreen_runChecks';
export const FIX_TOOL = 'fixUntilGreen_fix';
export const PARSE_TOOL = 'fixUntilGreen_parse';

/** Written for the calling model: when to call, what comes back, what to do with it. */
export const RUN_CHECKS_DESCRIPTION =
  "Run the workspace's own checks (type checker, linter, tests: the project's configured or discovered commands) once and report the result. " +
  'Call it after every change you make to verify it, instead of claiming that the code compiles or the tests pass, and before you say a fix is done. ' +
  'Returns whether everything is green, a compact failure report (grouped by file, each failure once, with source lines), the failure identity (a hash of the set of failures), ' +
  'how many times this exact identity has been seen in this session, and a verdict. If the verdict says you are not making progress, stop repeating the same change: ' +
  'change approach or stop and tell the user. Read-only: it writes no files.';

export const FIX_DESCRIPTION =
  "Start a full verifier-gated fix run on the workspace: a model proposes edits, each is applied and checked with the project's own checks, " +
  'and the run stops for a reason decided by code (green, stalled, step-cap, token-ceiling, time-limit, error...). Test files and check configuration are protected; ' +
  'every changed file is checkpointed and can be reverted. Call it when the checks fail and you want the failures fixed under a budget rather than by hand, ' +
  'or when your own attempts stopped making progress. Returns the stop reason, the outcome, the remaining failures and the path of the trace (JSON lines, one event per line). ' +
  'The run changes files: the user is asked to confirm.';

export const PARSE_DESCRIPTION =
  "Parse a check's output (tsc, eslint, biome, oxlint, mocha, jest, vitest, node-test, tap, ava, uvu, prettier or generic) into structured failures and their failure identity, without running anything. " +
  'Use it to compare two outputs you captured yourself: the same identity means the same failures.';

export const FOLDER_PROPERTY = {
  type: 'string',
  description: 'The project folder: an absolute path, or the name of a workspace folder. Default: the active (or only) workspace folder.',
} as const;

export const RUN_CHECKS_INPUT_SCHEMA = {
  type: 'object',
  properties: { folder: FOLDER_PROPERTY },
  additionalProperties: false,
} as const;

export const FIX_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    folder: FOLDER_PROPERTY,
    instruction: { type: 'string', description: 'Optional guidance for the fixing model, e.g. "keep the public API unchanged". Default: make the checks pass.' },
    maxSteps: { type: 'integer', minimum: 1, maximum: 100, description: "Model steps for this run (default: the user's fixUntilGreen.maxSteps setting)." },
  },
  additionalProperties: false,
} as const;

export interface RunChecksInput {
  folder?: string;
}

export interface FixInput {
  folder?: string;
  instruction?: string;
  maxSteps?: number;
}

/** A tool input that does not match its schema: the caller is told what is wrong, nothing runs. */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}

/** How much of a caller's input a refusal quotes back: a 1 MB argument is not echoed whole. */
export const ECHO_CHARS = 200;

/** A caller's input as a refusal quotes it: at most ECHO_CHARS characters, the cut said. */
export function echoed(s: string): string {
  return s.length > ECHO_CHARS ? `${s.slice(0, ECHO_CHARS)}… (${s.length} characters)` : s;
}

function objectInput(tool: string, raw: unknown, keys: readonly string[]): Record<string, unknown> {
  const input = raw ?? {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new ToolInputError(`${tool}: the input must be an object`);
  const extra = Object.keys(input).filter((k) => !keys.includes(k));
  if (extra.length > 0) throw new ToolInputError(`${tool}: unknown input ${extra.slice(0, 5).map((k) => `"${echoed(k)}"`).join(', ')}${extra.length > 5 ? ` and ${extra.length - 5} more` : ''} (expected ${keys.join(', ')})`);
  return input as Record<string, unknown>;
}

function optionalString(tool: string, o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ToolInputError(`${tool}: "${key}" must be a string`);
  return v.trim() === '' ? undefined : v;
}

export function readRunChecksInput(raw: unknown): RunChecksInput {
  const o = objectInput(RUN_CHECKS_TOOL, raw, ['folder']);
  const folder = optionalString(RUN_CHECKS_TOOL, o, 'folder');
  return folder !== undefined ? { folder } : {};
}

export function readFixInput(raw: unknown): FixInput {
  const o = objectInput(FIX_TOOL, raw, ['folder', 'instruction', 'maxSteps']);
  const out: FixInput = {};
  const folder = optionalString(FIX_TOOL, o, 'folder');
  const instruction = optionalString(FIX_TOOL, o, 'instruction');
  if (folder !== undefined) out.folder = folder;
  if (instruction !== undefined) out.instruction = instruction;
  if (o.maxSteps !== undefined && o.maxSteps !== null) {
    const n = o.maxSteps;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 100) throw new ToolInputError(`${FIX_TOOL}: "maxSteps" must be a whole number from 1 to 100`);
    out.maxSteps = n;
  }
  return out;
}

/** `fixUntilGreen_parse` (MCP only): a check's output in, its failures and identity out. */
export const PARSE_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    parser: { type: 'string', enum: ['tsc', 'eslint', 'biome', 'oxlint', 'mocha', 'jest', 'vitest', 'node-test', 'tap', 'ava', 'uvu', 'prettier', 'generic'], description: 'Which tool printed the output.' },
    output: { type: 'string', description: "The check's output (stdout and stderr together, as printed)." },
    root: { type: 'string', description: 'The project folder the output\'s paths are relative to (absolute, or relative to the server\'s --cwd). Default: --cwd.' },
    check: { type: 'string', description: 'The check\'s name, recorded in each failure. Default: the parser\'s name.' },
    exitCode: { type: 'integer', description: "The check's exit code (default 0): a non-zero exit with no failures recognised is one generic failure." },
  },
  required: ['parser', 'output'],
  additionalProperties: false,
} as const;

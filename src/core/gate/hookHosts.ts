// The agent hosts' hook contracts (issue 30): what each host sends a hook on stdin, read into one
// shape, and the exact answer each host reads back. Pure: no file, process or clock. The engine
// decides (stopGate, hookGuard); only this file knows how a host words "block", "deny" and "allow".
//
// Sources (as of 2026-11): Claude Code's hooks reference (and a real Claude Code 2.1.328 run here),
// a real Codex CLI 0.171.0 run here (its Stop answered as below), a real Gemini CLI 0.61.0 run here
// (its AfterAgent, BeforeTool and AfterTool answered as below), Codex's published schemas (codex-rs/hooks/schema/generated/stop.command.output.schema.json:
// additionalProperties false), Gemini CLI's hooks reference, Cursor's hooks docs, VS Code's agent
// hooks reference (Stop reads only hookSpecificOutput), GitHub Copilot CLI's hooks reference.
import { codexPatchWrites, patchWritesIn } from './codexPatch';

export const HOOK_HOSTS = ['claude', 'codex', 'gemini', 'cursor', 'copilot-cli', 'vscode'] as const;
export type HookHost = (typeof HOOK_HOSTS)[number];

export function isHookHost(v: string): v is HookHost {
  return (HOOK_HOSTS as readonly string[]).includes(v);
}

/** What the hook is asked about: the agent wants to stop, an edit tool is about to write, or wrote. */
/** `session-end`: the host's session ended (Claude Code and Gemini CLI `SessionEnd`, Copilot CLI `sessionEnd`): the folder's worker is stopped. */
export type HookEvent = 'stop' | 'pre-tool' | 'post-tool' | 'session-end' | 'other';
export const HOOK_EVENTS: readonly HookEvent[] = ['stop', 'pre-tool', 'post-tool', 'session-end'];

/** One file an agent's edit tool writes, as far as the tool's input tells. */
export interface ToolWrite {
  /** As the tool names it: absolute, or relative to the session's folder. */
  path: string;
  /** The whole new content (a Write/create tool). */
  content?: string;
  /** Replacements in the current text (an Edit tool). */
  edits?: { oldText: string; newText: string; all: boolean }[];
  /** Lines a patch adds (Codex's apply_patch), when only a patch is known. */
  addedLines?: string[];
  /** The tool deletes the file. */
  deletes?: boolean;
}

/** A hook call, whatever host sent it. Unknown fields are kept in `raw` and otherwise ignored. */
export interface HookCall {
  /** The host whose answer form is used: a VS Code call through Claude's settings file answers as VS Code. */
  host: HookHost;
  event: HookEvent;
  /** The host's own name for the event (`Stop`, `AfterAgent`, `agentStop`...). */
  eventName: string;
  sessionId: string | null;
  cwd: string | null;
  transcriptPath: string | null;
  /**
   * The agent's last message, where the host sends it (the claim "all tests pass"). Gemini's
   * `prompt_response` is every text the model gave since the prompt, joined by newlines (0.61.0):
   * after a deny it still holds the claim that was denied.
   */
  lastMessage: string | null;
  /**
   * Advisory only: the engine counts its own blocks per session. Gemini (0.61.0) sets it only when
   * the retried turn stops without a tool call; after a deny, a fix, then a stop, it is false again.
   */
  stopHookActive: boolean;
  /** Cursor's count of follow-ups already sent in this conversation. */
  loopCount: number | null;
  toolName: string | null;
  writes: ToolWrite[];
  raw: Record<string, unknown>;
}

export type HookInput = { ok: true; call: HookCall } | { ok: false; problem: string };

/** The blocks a host allows before it ends the turn itself (Claude Code, Copilot CLI: 8); null: no cap. */
export const HOST_BLOCK_CAP: Record<HookHost, number | null> = {
  claude: 8,
  codex: null,
  gemini: null,
  cursor: null,
  'copilot-cli': 8,
  vscode: null,
};

/** Each host's default hook timeout in seconds, when its config entry sets none. */
export const HOST_DEFAULT_TIMEOUT_S: Record<HookHost, number> = {
  claude: 60,
  codex: 600,
  gemini: 60,
  cursor: 60,
  'copilot-cli': 30,
  vscode: 30,
};

const STOP_NAMES = new Set(['Stop', 'SubagentStop', 'AfterAgent', 'stop', 'agentStop', 'subagentStop']);
const PRE_NAMES = new Set(['PreToolUse', 'BeforeTool', 'preToolUse']);
const POST_NAMES = new Set(['PostToolUse', 'AfterTool', 'postToolUse']);
const END_NAMES = new Set(['SessionEnd', 'sessionEnd']);

function eventOf(name: string): HookEvent {
  if (STOP_NAMES.has(name)) return 'stop';
  if (PRE_NAMES.has(name)) return 'pre-tool';
  if (POST_NAMES.has(name)) return 'post-tool';
  if (END_NAMES.has(name)) return 'session-end';
  return 'other';
}

function str(o: Record<string, unknown>, ...keys: string[]): string | null {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return null;
}

function obj(v: unknown): Record<string, unknown> | null {
  if (typeof v === 'string') {
    // Copilot CLI sends a tool's arguments as a JSON string.
    try {
      return obj(JSON.parse(v));
    } catch {
      return null;
    }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Tool names that write files (Claude Write/Edit/MultiEdit/NotebookEdit, Gemini write_file/replace, VS Code editFiles/createFile/replaceString, Copilot edit/create, Codex apply_patch). */
const EDIT_TOOL = /write|edit|replace|create|patch|insert|notebook/i;

function editsOf(o: Record<string, unknown>): { oldText: string; newText: string; all: boolean }[] {
  const oldText = str(o, 'old_string', 'oldString', 'old_str');
  const newText = o.new_string ?? o.newString ?? o.new_str;
  if (oldText === null || typeof newText !== 'string') return [];
  return [{ oldText, newText, all: o.replace_all === true || o.replaceAll === true }];
}

/** Codex's apply_patch text: the files it adds, updates, moves or deletes, and the lines it adds (codexPatch.ts). */
export function patchWrites(patch: string): ToolWrite[] {
  return codexPatchWrites(patch.replace(/\r\n/g, '\n'));
}

/** The files an edit tool's input names, with what it writes where the input says. */
export function toolWrites(toolName: string | null, input: unknown): ToolWrite[] {
  const o = obj(input);
  const named = o !== null && (str(o, 'file_path', 'filePath', 'path', 'notebook_path') !== null || Array.isArray(o.edits) || Array.isArray(o.replacements) || Array.isArray(o.files));
  // A patch is judged whatever the tool is called: Codex applies one from its apply_patch tool, from
  // `["apply_patch", PATCH]` and from a shell's `apply_patch <<'EOF'`; a raw patch string is an input too.
  // A tool that names its file writes that file: a patch in its content is text, not a write.
  if (!named) {
    const patched = patchWritesIn(o ?? input);
    if (patched !== null) return patched;
  }
  if (toolName === null || !EDIT_TOOL.test(toolName) || !o) return [];
  const out: ToolWrite[] = [];
  const one = (x: Record<string, unknown>, inheritedPath: string | null): void => {
    const p = str(x, 'file_path', 'filePath', 'path', 'notebook_path', 'file') ?? inheritedPath;
    if (p === null) return;
    const content = x.content ?? x.file_text ?? x.contents ?? x.code;
    const edits = editsOf(x);
    const w: ToolWrite = { path: p };
    if (typeof content === 'string' && edits.length === 0) w.content = content;
    if (edits.length > 0) w.edits = edits;
    const existing = out.find((e) => e.path === p && e.content === undefined);
    if (existing && w.edits) existing.edits = [...(existing.edits ?? []), ...w.edits];
    else out.push(w);
  };
  const top = str(o, 'file_path', 'filePath', 'path', 'notebook_path');
  if (top !== null) one(o, null);
  for (const key of ['edits', 'replacements']) {
    const list = o[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const x = obj(item);
      if (!x) continue;
      if (top !== null && str(x, 'file_path', 'filePath', 'path') === null) {
        const edits = editsOf(x);
        const target = out.find((e) => e.path === top);
        if (target && edits.length > 0) target.edits = [...(target.edits ?? []), ...edits];
      } else one(x, null);
    }
  }
  if (Array.isArray(o.files)) for (const f of o.files) if (typeof f === 'string' && !out.some((e) => e.path === f)) out.push({ path: f });
  return out;
}

/**
 * Reads a host's hook input. `eventOverride` is the `--event` the install wrote (Copilot CLI's
 * camelCase payloads do not name their event). Empty or non-object input is a problem, never a guess.
 */
export function readHookInput(host: HookHost, text: string, eventOverride?: HookEvent): HookInput {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return { ok: false, problem: `the ${host} hook received no input on stdin (expected the host's hook JSON)` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch (e) {
    return { ok: false, problem: `the ${host} hook input is not JSON (${(e as Error).message}); first bytes: ${JSON.stringify(trimmed.slice(0, 80))}` };
  }
  const o = obj(parsed);
  if (!o) return { ok: false, problem: `the ${host} hook input is not a JSON object` };
  // VS Code reads Claude Code's settings files and calls the same command with its own payload.
  const vscodeShaped = typeof o.hookEventName === 'string' && typeof o.hook_event_name !== 'string';
  const answerAs: HookHost = host === 'claude' && vscodeShaped ? 'vscode' : host;
  const eventName = str(o, 'hook_event_name', 'hookEventName') ?? (eventOverride === 'stop' ? 'agentStop' : eventOverride === 'pre-tool' ? 'preToolUse' : eventOverride === 'post-tool' ? 'postToolUse' : '');
  let event = eventOverride ?? eventOf(eventName);
  const toolName = str(o, 'tool_name', 'toolName');
  if (event === 'other' && eventName === '' && host === 'copilot-cli') event = toolName === null ? 'stop' : o.toolResult !== undefined ? 'post-tool' : 'pre-tool';
  const roots = Array.isArray(o.workspace_roots) ? o.workspace_roots.filter((r): r is string => typeof r === 'string') : [];
  const loop = o.loop_count;
  const call: HookCall = {
    host: answerAs,
    event,
    eventName: eventName || event,
    sessionId: str(o, 'session_id', 'sessionId', 'conversation_id', 'conversationId'),
    cwd: str(o, 'cwd') ?? roots[0] ?? null,
    transcriptPath: str(o, 'transcript_path', 'transcriptPath'),
    lastMessage: str(o, 'last_assistant_message', 'prompt_response', 'lastAssistantMessage'),
    stopHookActive: o.stop_hook_active === true || o.stopHookActive === true,
    loopCount: typeof loop === 'number' ? loop : null,
    toolName,
    writes: event === 'pre-tool' || event === 'post-tool' ? toolWrites(toolName, o.tool_input ?? o.toolArgs ?? o.toolInput) : [],
    raw: o,
  };
  return { ok: true, call };
}

/** What the engine decided, before any host's wording. */
export type HookAnswer =
  /** Let the agent stop (or the tool run); `message` is shown to the user where the host shows one. */
  | { kind: 'allow'; message?: string }
  /** Send the agent back to work with `reason` as its next instruction. */
  | { kind: 'block'; reason: string; message?: string }
  /** Refuse the tool call, telling the agent why. */
  | { kind: 'deny'; reason: string };

export interface HostOutput {
  /** What the hook prints on stdout ('' prints nothing). */
  stdout: string;
  exitCode: number;
}

function json(v: Record<string, unknown>): HostOutput {
  return { stdout: JSON.stringify(v), exitCode: 0 };
}

/**
 * The answer in the host's own contract. Every output is exit 0 with JSON on stdout (exit 2 means
 * different things to different hosts: a block for Claude Code, a warning for Copilot CLI).
 */
export function formatHookAnswer(host: HookHost, event: HookEvent, a: HookAnswer): HostOutput {
  if (event === 'pre-tool' && a.kind === 'deny') {
    switch (host) {
      case 'claude':
      case 'codex':
      case 'vscode':
        return json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: a.reason } });
      case 'gemini':
        return json({ decision: 'deny', reason: a.reason });
      case 'copilot-cli':
        return json({ permissionDecision: 'deny', permissionDecisionReason: a.reason });
      case 'cursor':
        return json({ permission: 'deny', user_message: a.reason, agent_message: a.reason });
    }
  }
  if (event === 'stop' && a.kind === 'block') {
    switch (host) {
      case 'claude':
      case 'codex':
      case 'copilot-cli':
        return json({ decision: 'block', reason: a.reason, ...(a.message && host !== 'copilot-cli' ? { systemMessage: a.message } : {}) });
      case 'gemini':
        return json({ decision: 'deny', reason: a.reason, ...(a.message ? { systemMessage: a.message } : {}) });
      case 'vscode':
        // VS Code reads only hookSpecificOutput for Stop; a top-level decision is ignored.
        return json({ hookSpecificOutput: { hookEventName: 'Stop', decision: 'block', reason: a.reason }, ...(a.message ? { systemMessage: a.message } : {}) });
      case 'cursor':
        // Cursor submits followup_message as the next user message: a new turn, not a block.
        return json({ followup_message: a.reason });
    }
  }
  // Allow: the tool runs, or the agent stops.
  const message = a.kind === 'deny' ? a.reason : a.message;
  if (!message || host === 'cursor' || host === 'copilot-cli') return json({});
  return json({ systemMessage: message });
}

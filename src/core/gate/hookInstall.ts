// `hooks install` / `hooks uninstall` (issue 30): our entries merged into each host's own config
// file, and taken out again. Pure text in, text out: the edits go through jsonc-parser so every
// other setting and hook keeps its bytes (only the lines of our entries change), and installing
// twice changes nothing. Our entries are recognised by their command (`… hook --host <host> …`).
import { mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyEdits, findNodeAtLocation, modify, parse, parseTree } from 'jsonc-parser';
import type { FormattingOptions, ParseError } from 'jsonc-parser';
import type { HookEvent, HookHost } from './hookHosts';
import { HOOK_HOSTS } from './hookHosts';

export type InstallScope = 'project' | 'user';

/** The config file a host reads hooks from, for a scope. */
export function hookConfigFile(host: HookHost, scope: InstallScope, root: string, home: string): string {
  const base = scope === 'project' ? root : home;
  switch (host) {
    case 'claude':
      return path.join(base, '.claude', 'settings.json');
    case 'codex':
      return path.join(base, '.codex', 'hooks.json');
    case 'gemini':
      return path.join(base, '.gemini', 'settings.json');
    case 'cursor':
      return path.join(base, '.cursor', 'hooks.json');
    case 'copilot-cli':
      return scope === 'project' ? path.join(root, '.github', 'hooks', 'fix-until-green.json') : path.join(home, '.copilot', 'hooks', 'fix-until-green.json');
    case 'vscode':
      // VS Code's user-level hooks are Claude Code's (~/.claude/settings.json): `--host claude --scope user` covers both.
      return path.join(root, '.github', 'hooks', 'fix-until-green.vscode.json');
  }
}

/** Each host's event names for our three events, and the tool matcher where the host takes one. */
const EVENTS: Record<HookHost, { stop: string; pre?: string; post?: string; matcher?: string }> = {
  claude: { stop: 'Stop', pre: 'PreToolUse', post: 'PostToolUse', matcher: 'Write|Edit|MultiEdit|NotebookEdit' },
  // Codex 0.171 sends its apply_patch edits to PreToolUse/PostToolUse as tool_name "apply_patch",
  // tool_input.command the patch text (seen from the real CLI); its shell ("Bash") is guarded at the stop.
  codex: { stop: 'Stop', pre: 'PreToolUse', post: 'PostToolUse', matcher: 'apply_patch' },
  gemini: { stop: 'AfterAgent', pre: 'BeforeTool', post: 'AfterTool', matcher: 'write_file|replace' },
  cursor: { stop: 'stop' },
  'copilot-cli': { stop: 'agentStop', pre: 'preToolUse', post: 'postToolUse' },
  vscode: { stop: 'Stop', pre: 'PreToolUse', post: 'PostToolUse' },
};

/** The host events an install adds, with our `--event` for each. */
export function installedEvents(host: HookHost): { hostEvent: string; event: HookEvent }[] {
  const e = EVENTS[host];
  return [{ hostEvent: e.stop, event: 'stop' as HookEvent }, ...(e.pre ? [{ hostEvent: e.pre, event: 'pre-tool' as HookEvent }] : []), ...(e.post ? [{ hostEvent: e.post, event: 'post-tool' as HookEvent }] : [])];
}

const OURS = new RegExp(`(^|\\s)hook --host (${HOOK_HOSTS.join('|')})(\\s|$)`);

/** Whether a hook handler object is one of ours. */
function isOurHandler(h: unknown): boolean {
  if (typeof h !== 'object' || h === null) return false;
  const o = h as Record<string, unknown>;
  return [o.command, o.bash].some((c) => typeof c === 'string' && OURS.test(c));
}

/** A matcher group (`{matcher?, hooks:[…]}`) or a flat handler of ours. */
function isOurEntry(entry: unknown): boolean {
  if (isOurHandler(entry)) return true;
  const hooks = (entry as { hooks?: unknown } | null)?.hooks;
  return Array.isArray(hooks) && hooks.length > 0 && hooks.every(isOurHandler);
}

export interface InstallOptions {
  /** The command line that runs the CLI (`node "/…/dist/cli.js"`), before `hook --host …`. */
  cli: string;
  /** The host's hook timeout in seconds. */
  timeoutSeconds: number;
  /** Cursor's loop_limit: follow-ups Cursor allows; ours stops first. */
  loopLimit?: number;
  /** More `hook` flags, after the event's (e.g. `--storage "DIR"`). */
  args?: string;
}

export function hookCommand(cli: string, host: HookHost, event: HookEvent, timeoutSeconds: number): string {
  return `${cli} hook --host ${host} --event ${event} --timeout ${timeoutSeconds}`;
}

/** Our entry for one host event, in the host's shape. */
function entryFor(host: HookHost, event: HookEvent, o: InstallOptions): unknown {
  const command = hookCommand(o.cli, host, event, o.timeoutSeconds) + (o.args ? ` ${o.args}` : '');
  const matcher = event === 'stop' ? undefined : EVENTS[host].matcher;
  switch (host) {
    case 'claude':
    case 'codex':
      return { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command, timeout: o.timeoutSeconds }] };
    case 'gemini':
      return { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', name: 'fix-until-green', command, timeout: o.timeoutSeconds * 1000 }] };
    case 'cursor':
      return { command, timeout: o.timeoutSeconds, loop_limit: o.loopLimit ?? 10 };
    case 'copilot-cli':
      return { type: 'command', bash: command, timeoutSec: o.timeoutSeconds };
    case 'vscode':
      return { type: 'command', command, timeout: o.timeoutSeconds };
  }
}

/** A config file that cannot be merged into: not JSON, or not an object where hooks go. */
export class HookConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookConfigError';
  }
}

function read(file: string, text: string | null): Record<string, unknown> {
  if (text === null || text.trim() === '') return {};
  const errors: ParseError[] = [];
  const v: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || typeof v !== 'object' || v === null || Array.isArray(v)) throw new HookConfigError(`${file} is not a JSON object; it was left as it is (fix or move it, then install again)`);
  const hooks = (v as Record<string, unknown>).hooks;
  if (hooks !== undefined && (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks))) throw new HookConfigError(`${file}: "hooks" is not an object; it was left as it is`);
  return v as Record<string, unknown>;
}

function formatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.includes('\t'), tabSize: indent.includes('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function edit(text: string, p: (string | number)[], value: unknown, insert = false): string {
  return applyEdits(text, modify(text, p, value, { formattingOptions: formatting(text), ...(insert ? { isArrayInsertion: true } : {}) }));
}

/**
 * Appends `value` to the array at `p`, touching no byte of its other elements (jsonc-parser's own
 * insertion reformats the element before it): the new element goes after the last one, on its own
 * lines, indented like it.
 */
function appendToArray(text: string, p: (string | number)[], value: unknown): string {
  const node = findNodeAtLocation(parseTree(text)!, p);
  const last = node?.children?.at(-1);
  if (!node || !last) return edit(text, p, [value]);
  const f = formatting(text);
  const lineStart = text.lastIndexOf('\n', last.offset) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const unit = f.insertSpaces ? ' '.repeat(f.tabSize ?? 2) : '\t';
  const body = JSON.stringify(value, null, unit)
    .split('\n')
    .map((l, i) => (i === 0 ? l : indent + l))
    .join(f.eol ?? '\n');
  const end = last.offset + last.length;
  return `${text.slice(0, end)},${f.eol ?? '\n'}${indent}${body}${text.slice(end)}`;
}

/** Removes element `i` of the array at `p` with the separator before it (or after it, for the first), touching no other byte. */
function removeFromArray(text: string, p: (string | number)[], i: number): string {
  const items = findNodeAtLocation(parseTree(text)!, p)?.children ?? [];
  const el = items[i];
  if (!el) return text;
  const prev = items[i - 1];
  const next = items[i + 1];
  if (prev) return text.slice(0, prev.offset + prev.length) + text.slice(el.offset + el.length);
  if (next) return text.slice(0, el.offset) + text.slice(next.offset);
  return edit(text, [...p, i], undefined);
}

function removeOurs(file: string, text: string, host: HookHost): string {
  let out = text;
  const hooks = (read(file, out).hooks ?? {}) as Record<string, unknown>;
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    const ours = list.map((e, i) => (isOurEntry(e) ? i : -1)).filter((i) => i >= 0);
    if (ours.length === 0) continue;
    if (ours.length === list.length) out = edit(out, ['hooks', event], undefined);
    else for (const i of ours.reverse()) out = removeFromArray(out, ['hooks', event], i);
  }
  const after = read(file, out);
  if (after.hooks !== undefined && Object.keys(after.hooks as object).length === 0 && Object.keys(hooks).length > 0) out = edit(out, ['hooks'], undefined);
  void host;
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The file's new text with our entries for `host` in place of any earlier ones; the original text
 * itself when they are already there as they would be written (installing twice changes no byte).
 */
export function installHooksText(host: HookHost, file: string, text: string | null, o: InstallOptions): string {
  const original = text ?? '';
  read(file, original);
  let out = original.trim() === '' ? '{}\n' : original;
  out = removeOurs(file, out, host);
  if ((host === 'cursor' || host === 'copilot-cli') && read(file, out).version === undefined) out = edit(out, ['version'], 1);
  for (const { hostEvent, event } of installedEvents(host)) {
    const list = ((read(file, out).hooks ?? {}) as Record<string, unknown>)[hostEvent];
    const entry = entryFor(host, event, o);
    out = Array.isArray(list) && list.length > 0 ? appendToArray(out, ['hooks', hostEvent], entry) : edit(out, ['hooks', hostEvent], [entry]);
  }
  if (!out.endsWith('\n')) out += '\n';
  return text !== null && sameJson(read(file, text), read(file, out)) ? text : out;
}

/**
 * The file's text without our entries (null: nothing else was in it, the file can go); the text
 * itself when it holds none of ours.
 */
export function uninstallHooksText(host: HookHost, file: string, text: string): string | null {
  const before = read(file, text);
  const out = removeOurs(file, text, host);
  if (sameJson(before, read(file, out))) return text;
  const rest = read(file, out);
  const keys = Object.keys(rest).filter((k) => !(k === 'version' && (host === 'cursor' || host === 'copilot-cli' || host === 'vscode')));
  return keys.length === 0 ? null : out;
}

/** The agent hosts a project shows signs of (its own config folder, or the user's), VS Code's agent mode always. */
export const AGENT_HOST_LABELS: Record<HookHost, string> = {
  vscode: 'VS Code agent mode (Copilot)',
  claude: 'Claude Code',
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  cursor: 'Cursor',
  'copilot-cli': 'GitHub Copilot CLI',
};

const HOST_MARKS: Record<HookHost, string[]> = {
  vscode: [],
  claude: ['.claude'],
  codex: ['.codex'],
  gemini: ['.gemini'],
  cursor: ['.cursor'],
  'copilot-cli': ['.github/hooks', '.copilot'],
};

/** Each host, whether the folder or the home shows it is used (which folder says so), in the order offered. */
export function agentHostsFound(root: string, home: string, exists: (p: string) => boolean): { host: HookHost; label: string; found: string | null }[] {
  return (['vscode', 'claude', 'codex', 'gemini', 'cursor', 'copilot-cli'] as const).map((host) => {
    const mark = HOST_MARKS[host].flatMap((m) => [path.join(root, m), path.join(home, m)]).find(exists) ?? null;
    return { host, label: AGENT_HOST_LABELS[host], found: host === 'vscode' ? 'VS Code' : mark };
  });
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * The folders install made for the file (`.gemini/`, `.github/hooks/`) go when uninstall leaves them
 * empty: a leftover `.gemini/` would be a changed tree, and would mark the host as used.
 */
function removeEmptyFolders(dir: string, stop: string): void {
  const below = (d: string): boolean => {
    const rel = path.relative(stop, d);
    return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
  };
  for (let d = dir; below(d); d = path.dirname(d)) {
    try {
      rmdirSync(d);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT') return;
      throw e;
    }
  }
}

/** Installs (or uninstalls) our hooks in the host's file for `scope`: written whole (temp file and rename), or removed when nothing else was in it. */
export function applyHooksFile(action: 'install' | 'uninstall', host: HookHost, scope: InstallScope, root: string, home: string, o: InstallOptions): { file: string; changed: boolean; removed: boolean } {
  const file = hookConfigFile(host, scope, root, home);
  const before = readOrNull(file);
  const after = action === 'install' ? installHooksText(host, file, before, o) : before === null ? null : uninstallHooksText(host, file, before);
  if (after === before) return { file, changed: false, removed: false };
  if (after === null) {
    rmSync(file, { force: true });
    removeEmptyFolders(path.dirname(file), scope === 'user' ? home : root);
    return { file, changed: true, removed: true };
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.fix-until-green.tmp`;
  writeFileSync(tmp, after);
  renameSync(tmp, file);
  return { file, changed: true, removed: false };
}

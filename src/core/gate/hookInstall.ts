// `hooks install` / `hooks uninstall` (issues 30, 36): our entries merged into each host's own
// config file, and taken out again. The file is edited as text at the places we change
// (jsonTextEdit), so every other byte is kept, installing twice changes nothing, and install then
// uninstall gives back the file's bytes (what install created that the text cannot tell, such as
// "the file was absent", is kept in a small record beside our storage). Our entries are recognised
// by their command (`… hook --host <host> …`), handler by handler. The file is written through the
// user's own link to its target, keeping its mode, never through a name a repository planted
// (atomicWrite); a read-only file, or a project file whose path leads outside the project, is refused.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, realpathSync, rmdirSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { assertWritable, HardLinkedFile, ReadOnlyFile, writeFileAtomic } from '../atomicWrite';
import { NotRegularFile, readTextIfPresent } from '../fileText';
import type { HookEvent, HookHost } from './hookHosts';
import { HOOK_HOSTS } from './hookHosts';
import { appendMember, nodeAt, removeMember, styleOf } from './jsonTextEdit';

export type InstallScope = 'project' | 'user';

/**
 * The variable each host reads its user-level folder from instead of the home's (`~/.claude`,
 * `~/.codex`, Gemini's home, `~/.copilot`): a user scope install writes where the host reads.
 */
export const HOST_HOME_VARIABLE: Partial<Record<HookHost, string>> = { claude: 'CLAUDE_CONFIG_DIR', codex: 'CODEX_HOME', gemini: 'GEMINI_CLI_HOME', 'copilot-cli': 'COPILOT_HOME' };

/** The host's user-level folder variable, when set (an empty value is unset, as the hosts read it). */
function hostHome(host: HookHost, env: Record<string, string | undefined>): string | undefined {
  const name = HOST_HOME_VARIABLE[host];
  const v = name ? env[name] : undefined;
  return v === undefined || v === '' ? undefined : v;
}

/**
 * Why a user scope install cannot name its file, or undefined: the home (`homeFrom` names where it
 * came from, `HOME` or `--home`) or the host's own variable is empty or relative, which would put
 * the user's settings in whatever folder the command runs in.
 */
export function userScopeProblem(host: HookHost, home: string, homeFrom: string, env: Record<string, string | undefined>): string | undefined {
  const name = HOST_HOME_VARIABLE[host];
  const own = hostHome(host, env);
  if (own !== undefined) return path.isAbsolute(own) ? undefined : `${name} is "${own}", not an absolute path: ${host}'s user settings cannot be found (set it to an absolute path, or unset it)`;
  if (home === '') return `${homeFrom} is empty: the user's home, where ${host}'s user settings live, is not known (set ${homeFrom} to an absolute path)`;
  if (!path.isAbsolute(home)) return `${homeFrom} is "${home}", not an absolute path: ${host}'s user settings cannot be found (set ${homeFrom} to an absolute path)`;
  return undefined;
}

/** The config file a host reads hooks from, for a scope. `env` names the hosts' own user folders (HOST_HOME_VARIABLE). */
export function hookConfigFile(host: HookHost, scope: InstallScope, root: string, home: string, env: Record<string, string | undefined> = {}): string {
  const base = scope === 'project' ? root : home;
  const own = scope === 'user' ? hostHome(host, env) : undefined;
  switch (host) {
    case 'claude':
      return own ? path.join(own, 'settings.json') : path.join(base, '.claude', 'settings.json');
    case 'codex':
      return own ? path.join(own, 'hooks.json') : path.join(base, '.codex', 'hooks.json');
    case 'gemini':
      return path.join(own ?? base, '.gemini', 'settings.json');
    case 'cursor':
      return path.join(base, '.cursor', 'hooks.json');
    case 'copilot-cli':
      return scope === 'project' ? path.join(root, '.github', 'hooks', 'fix-until-green.json') : path.join(own ?? path.join(home, '.copilot'), 'hooks', 'fix-until-green.json');
    case 'vscode':
      // VS Code's user-level hooks are Claude Code's (~/.claude/settings.json): `--host claude --scope user` covers both.
      return path.join(root, '.github', 'hooks', 'fix-until-green.vscode.json');
  }
}

/**
 * Each host's event names for our events, and the tool matcher where the host takes one. `end`: the
 * host's session-end event, where it has one (Claude Code, Gemini CLI, Copilot CLI; Codex, Cursor and
 * VS Code agent mode send none), which stops the folder's hook worker; elsewhere it ends when idle.
 */
const EVENTS: Record<HookHost, { stop: string; pre?: string; post?: string; end?: string; matcher?: string }> = {
  claude: { stop: 'Stop', pre: 'PreToolUse', post: 'PostToolUse', end: 'SessionEnd', matcher: 'Write|Edit|MultiEdit|NotebookEdit' },
  // Codex 0.171 sends its apply_patch edits to PreToolUse/PostToolUse as tool_name "apply_patch",
  // tool_input.command the patch text (seen from the real CLI); its shell ("Bash") is guarded at the stop.
  codex: { stop: 'Stop', pre: 'PreToolUse', post: 'PostToolUse', matcher: 'apply_patch' },
  gemini: { stop: 'AfterAgent', pre: 'BeforeTool', post: 'AfterTool', end: 'SessionEnd', matcher: 'write_file|replace' },
  cursor: { stop: 'stop' },
  'copilot-cli': { stop: 'agentStop', pre: 'preToolUse', post: 'postToolUse', end: 'sessionEnd' },
  vscode: { stop: 'Stop', pre: 'PreToolUse', post: 'PostToolUse' },
};

/** The host events an install adds, with our `--event` for each. */
export function installedEvents(host: HookHost): { hostEvent: string; event: HookEvent }[] {
  const e = EVENTS[host];
  return [{ hostEvent: e.stop, event: 'stop' as HookEvent }, ...(e.pre ? [{ hostEvent: e.pre, event: 'pre-tool' as HookEvent }] : []), ...(e.post ? [{ hostEvent: e.post, event: 'post-tool' as HookEvent }] : []), ...(e.end ? [{ hostEvent: e.end, event: 'session-end' as HookEvent }] : [])];
}

const OURS = new RegExp(`(^|\\s)hook --host (${HOOK_HOSTS.join('|')})(\\s|$)`);

/** Whether a hook handler object is one of ours. */
function isOurHandler(h: unknown): boolean {
  if (typeof h !== 'object' || h === null) return false;
  const o = h as Record<string, unknown>;
  return [o.command, o.bash].some((c) => typeof c === 'string' && OURS.test(c));
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
  /** Where install keeps what uninstall needs to give back the file's bytes (one small JSON per file); none: not kept. */
  recordDir?: string;
  /** The hosts' user folder variables (HOST_HOME_VARIABLE), for `--scope user`. */
  env?: Record<string, string | undefined>;
}

export function hookCommand(cli: string, host: HookHost, event: HookEvent, timeoutSeconds: number): string {
  return `${cli} hook --host ${host} --event ${event} --timeout ${timeoutSeconds}`;
}

/** Our entry for one host event, in the host's shape. */
function entryFor(host: HookHost, event: HookEvent, o: InstallOptions): unknown {
  const command = hookCommand(o.cli, host, event, o.timeoutSeconds) + (o.args ? ` ${o.args}` : '');
  const matcher = event === 'pre-tool' || event === 'post-tool' ? EVENTS[host].matcher : undefined;
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

/** The file's text and what install created there that its text alone cannot tell (kept until uninstall). */
export interface InstallRecord {
  version: 1;
  /** The file before install: absent, blank (`blank` keeps its whitespace), or a JSON object. */
  was: 'absent' | 'blank' | 'object';
  blank?: string;
  /** What install added that was not there: `["version"]`, `["hooks"]`, `["hooks", "<event>"]`. */
  created: string[][];
}

function has(record: InstallRecord | undefined, p: string[]): boolean {
  return record === undefined || record.created.some((c) => c.length === p.length && c.every((k, i) => k === p[i]));
}

function propertyIndex(text: string, p: (string | number)[], key: string): number {
  return (nodeAt(text, p)?.children ?? []).findIndex((c) => c.children?.[0]?.value === key);
}

function removeProperty(text: string, p: (string | number)[], key: string): string {
  const i = propertyIndex(text, p, key);
  return i < 0 ? text : removeMember(text, p, i);
}

/**
 * The text without our handlers, taken out one by one whatever group they share (a group left with
 * none is removed; a user's handler in our group keeps the group). A list, the `hooks` object or the
 * version install created goes when nothing else is left in it; with no record (an install before
 * records were kept), any emptied list or `hooks` object goes.
 */
function removeOurs(file: string, text: string, record?: InstallRecord): string {
  let out = text;
  const hooks = (read(file, out).hooks ?? {}) as Record<string, unknown>;
  let removedAny = false;
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    let removed = false;
    for (let j = list.length - 1; j >= 0; j--) {
      const entry: unknown = list[j];
      const inner = (entry as { hooks?: unknown } | null)?.hooks;
      const ours = Array.isArray(inner) ? inner.map((h, k) => (isOurHandler(h) ? k : -1)).filter((k) => k >= 0) : [];
      if (isOurHandler(entry) || (Array.isArray(inner) && ours.length > 0 && ours.length === inner.length)) {
        out = removeMember(out, ['hooks', event], j);
        removed = true;
      } else if (ours.length > 0) {
        for (const k of ours.reverse()) out = removeMember(out, ['hooks', event, j, 'hooks'], k);
        removed = true;
      }
    }
    if (!removed) continue;
    removedAny = true;
    const left = ((read(file, out).hooks ?? {}) as Record<string, unknown>)[event];
    if (Array.isArray(left) && left.length === 0 && (has(record, ['hooks', event]) || has(record, ['hooks']))) out = removeProperty(out, ['hooks'], event);
  }
  if (!removedAny) return text;
  const after = read(file, out).hooks;
  if (after !== undefined && Object.keys(after as object).length === 0 && has(record, ['hooks'])) out = removeProperty(out, [], 'hooks');
  if (record?.created.some((c) => c.length === 1 && c[0] === 'version')) out = removeProperty(out, [], 'version');
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the text holds any handler of ours. */
export function hasOurHooks(file: string, text: string | null): boolean {
  if (text === null || text.trim() === '') return false;
  return removeOurs(file, text) !== text;
}

/** Our entries added to a text that holds none of ours; what was created is recorded. */
function addOurs(host: HookHost, file: string, text: string | null, o: InstallOptions): { text: string; record: InstallRecord } {
  const was: InstallRecord['was'] = text === null ? 'absent' : text.trim() === '' ? 'blank' : 'object';
  const record: InstallRecord = { version: 1, was, ...(was === 'blank' ? { blank: text! } : {}), created: [] };
  let out = was === 'object' ? text! : `{}${styleOf(text ?? '').eol}`;
  read(file, out);
  if ((host === 'cursor' || host === 'copilot-cli') && read(file, out).version === undefined) {
    out = appendMember(out, [], 'version', 1);
    record.created.push(['version']);
  }
  for (const { hostEvent, event } of installedEvents(host)) {
    const entry = entryFor(host, event, o);
    const hooks = read(file, out).hooks as Record<string, unknown> | undefined;
    if (hooks === undefined) {
      out = appendMember(out, [], 'hooks', { [hostEvent]: [entry] });
      record.created.push(['hooks']);
    } else if (hooks[hostEvent] === undefined) {
      out = appendMember(out, ['hooks'], hostEvent, [entry]);
      if (!record.created.some((c) => c.length === 1 && c[0] === 'hooks')) record.created.push(['hooks', hostEvent]);
    } else if (Array.isArray(hooks[hostEvent])) {
      out = appendMember(out, ['hooks', hostEvent], undefined, entry);
    } else {
      throw new HookConfigError(`${file}: "hooks.${hostEvent}" is not a list; it was left as it is`);
    }
  }
  return { text: out, record };
}

/**
 * The file's text with our entries for `host` (any earlier ones replaced) and what to keep until
 * uninstall; the text itself when they are already there as they would be written.
 */
export function installHooks(host: HookHost, file: string, text: string | null, o: InstallOptions, previous?: InstallRecord): { text: string; record: InstallRecord } {
  if (text !== null) read(file, text);
  const base = text !== null && hasOurHooks(file, text) ? uninstallHooks(host, file, text, previous) : { text, record: previous };
  const r = addOurs(host, file, base.text, o);
  if (text !== null && sameJson(read(file, text), read(file, r.text))) return { text, record: r.record };
  return r;
}

/** As installHooks, the text only (installing twice changes no byte). */
export function installHooksText(host: HookHost, file: string, text: string | null, o: InstallOptions): string {
  return installHooks(host, file, text, o).text;
}

function uninstallHooks(host: HookHost, file: string, text: string, record?: InstallRecord): { text: string | null; record: InstallRecord | undefined } {
  const out = removeOurs(file, text, record);
  if (out === text) return { text, record };
  const rest = read(file, out);
  if (record) {
    if (Object.keys(rest).length > 0) return { text: out, record: undefined };
    return { text: record.was === 'absent' ? null : record.was === 'blank' ? (record.blank ?? '') : out, record: undefined };
  }
  const keys = Object.keys(rest).filter((k) => !(k === 'version' && (host === 'cursor' || host === 'copilot-cli' || host === 'vscode')));
  return { text: keys.length === 0 ? null : out, record: undefined };
}

/**
 * The file's text without our entries (null: install created the file, or, with no record, nothing
 * else was in it: the file can go); the text itself when it holds none of ours. With the record
 * install kept, install then uninstall gives back every byte.
 */
export function uninstallHooksText(host: HookHost, file: string, text: string, record?: InstallRecord): string | null {
  return uninstallHooks(host, file, text, record).text;
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

function lstatOrNull(file: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** `p` with every link on the way resolved, also when its last parts do not exist yet. */
function realPathOf(p: string): string {
  const rest: string[] = [];
  for (let d = path.resolve(p); ; d = path.dirname(d)) {
    try {
      return path.join(realpathSync(d), ...rest.reverse());
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(d) === d) throw e;
      // A link to nothing on the way would be followed by the folders made for the file.
      if (lstatOrNull(d)?.isSymbolicLink()) throw new HookConfigError(`${d} is a link to nothing that exists; it was left as it is (point it at a folder, or remove it)`);
      rest.push(path.basename(d));
    }
  }
}

function inside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * Where the host's file really is: a link the user made (the file, or a folder on the way) is
 * followed to its target, which must be a regular file; a project's file must stay inside the
 * project, since a cloned repository can ship such links.
 */
function resolveConfigFile(file: string, scope: InstallScope, root: string): { target: string; linked: boolean } {
  const st = lstatOrNull(file);
  let linked = false;
  if (st?.isSymbolicLink()) {
    linked = true;
    let real: string;
    try {
      real = realpathSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ELOOP') throw new HookConfigError(`${file} is a link to nothing that exists; it was left as it is (point it at a file, or remove it)`);
      throw e;
    }
    const target = statSync(real);
    if (!target.isFile()) throw new HookConfigError(`${file} is a link to ${real}, which is not a regular file; it was left as it is`);
  } else if (st && !st.isFile()) {
    throw new HookConfigError(`${file} is not a regular file; it was left as it is`);
  }
  const target = realPathOf(file);
  if (target !== path.resolve(file)) linked = true;
  if (scope === 'project' && !inside(realPathOf(root), target)) throw new HookConfigError(`${file} leads outside the project (to ${target}) through a link; it was left as it is (project hooks are written only inside the project: remove the link, or use --scope user for your own settings)`);
  return { target, linked };
}

function recordFile(dir: string, target: string): string {
  return path.join(dir, `${createHash('sha256').update(target).digest('hex').slice(0, 24)}.json`);
}

function loadRecord(dir: string | undefined, target: string): InstallRecord | undefined {
  if (!dir) return undefined;
  const text = readTextIfPresent(recordFile(dir, target));
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as InstallRecord & { file?: string };
    return r.version === 1 && r.file === target && Array.isArray(r.created) ? { version: 1, was: r.was, ...(r.blank !== undefined ? { blank: r.blank } : {}), created: r.created } : undefined;
  } catch (e) {
    // A record cut short or edited by hand is no record: uninstall then removes what is empty.
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}

function saveRecord(dir: string | undefined, target: string, host: HookHost, r: InstallRecord | undefined): void {
  if (!dir) return;
  const file = recordFile(dir, target);
  if (r === undefined) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(file, JSON.stringify({ ...r, file: target, host }, null, 1) + '\n', { mode: 0o600 });
}

/**
 * Installs (or uninstalls) our hooks in the host's file for `scope`: replaced at once (atomicWrite),
 * through the user's own link, keeping its mode; or removed when install had created it.
 */
export function applyHooksFile(action: 'install' | 'uninstall', host: HookHost, scope: InstallScope, root: string, home: string, o: InstallOptions): { file: string; changed: boolean; removed: boolean } {
  const file = hookConfigFile(host, scope, root, home, o.env);
  const { target, linked } = resolveConfigFile(file, scope, root);
  let before: string | null;
  try {
    before = readTextIfPresent(target) ?? null;
  } catch (e) {
    if (e instanceof NotRegularFile) throw new HookConfigError(`${file} is not a regular file; it was left as it is`);
    throw e;
  }
  const previous = loadRecord(o.recordDir, target);
  let after: string | null;
  let record: InstallRecord | undefined;
  if (action === 'install') {
    ({ text: after, record } = installHooks(host, file, before, o, previous));
  } else {
    after = before === null ? null : uninstallHooksText(host, file, before, previous);
    record = undefined;
  }
  // Never delete through a link: the user's target keeps what is left.
  if (after === null && before !== null && linked) after = before.trim() === '' ? before : removeOurs(file, before, previous);
  if (after === before) {
    if (action === 'install' && previous === undefined) saveRecord(o.recordDir, target, host, record);
    if (action === 'uninstall' && !hasOurHooks(file, before)) saveRecord(o.recordDir, target, host, undefined);
    return { file, changed: false, removed: false };
  }
  try {
    assertWritable(target);
  } catch (e) {
    if (e instanceof ReadOnlyFile || e instanceof HardLinkedFile || e instanceof NotRegularFile) throw new HookConfigError(e.message.replace(target, target === file ? file : `${file} (a link to ${target})`));
    throw e;
  }
  if (after === null) {
    rmSync(target, { force: true });
    // Compared as real paths, as the target is: only folders below the project (or the home) go.
    removeEmptyFolders(path.dirname(target), realPathOf(scope === 'user' ? (hostHomeDir(host, o.env) ?? home) : root));
    saveRecord(o.recordDir, target, host, undefined);
    return { file, changed: true, removed: true };
  }
  mkdirSync(path.dirname(target), { recursive: true });
  try {
    writeFileAtomic(target, after, { mode: 0o666 });
  } catch (e) {
    if (e instanceof ReadOnlyFile || e instanceof HardLinkedFile || e instanceof NotRegularFile) throw new HookConfigError(e.message.replace(target, target === file ? file : `${file} (a link to ${target})`));
    throw e;
  }
  saveRecord(o.recordDir, target, host, action === 'install' ? record : undefined);
  return { file, changed: true, removed: false };
}

function hostHomeDir(host: HookHost, env: Record<string, string | undefined> | undefined): string | undefined {
  return env ? hostHome(host, env) : undefined;
}

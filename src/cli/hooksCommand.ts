// `fix-until-green hooks install|uninstall --host H [--scope project|user]` (issue 30): our hook
// entries merged into the host's own config file, or taken out, keeping every other byte.
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { HOOK_HOSTS, isHookHost } from '../core/gate/hookHosts';
import type { InstallScope } from '../core/gate/hookInstall';
import { applyHooksFile, HookConfigError, hookConfigFile, installedEvents, userScopeProblem } from '../core/gate/hookInstall';
import { hookInstallRecordDir } from '../core/home';
import { UsageError } from './errors';
import type { CliIo } from './runCommand';
import { resolveCwd } from './runCommand';
import { resolveSettings } from './workspaceSettings';

export const DEFAULT_HOOK_TIMEOUT_S = 300;

/** The command that runs this CLI: the Node that runs it now and the absolute path of dist/cli.js. */
function thisCli(): string {
  const script = path.resolve(process.argv[1] ?? 'dist/cli.js');
  return `"${process.execPath}" "${script}"`;
}

export async function hooksCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      scope: { type: 'string', default: 'project' },
      cwd: { type: 'string' },
      timeout: { type: 'string' },
      command: { type: 'string' },
      home: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  const action = positionals[0];
  if (action !== 'install' && action !== 'uninstall') throw new UsageError(`hooks: say install or uninstall (got ${action === undefined ? 'nothing' : `"${action}"`})`);
  if (positionals.length > 1) throw new UsageError(`hooks: unexpected argument "${positionals[1]}"`);
  const host = values.host ?? '';
  if (!isHookHost(host)) throw new UsageError(`hooks: --host ${host === '' ? 'is required' : `"${host}" is not one of`} ${HOOK_HOSTS.join(', ')}`);
  const scope = values.scope as InstallScope;
  if (scope !== 'project' && scope !== 'user') throw new UsageError(`hooks: --scope must be project or user, got "${values.scope}"`);
  if (host === 'vscode' && scope === 'user') throw new UsageError('hooks: VS Code reads user-level hooks from Claude Code\'s ~/.claude/settings.json: use --host claude --scope user (the hook answers VS Code in its own form)');
  const timeout = values.timeout !== undefined ? Number(values.timeout) : DEFAULT_HOOK_TIMEOUT_S;
  if (!Number.isInteger(timeout) || timeout < 5 || timeout > 3600) throw new UsageError(`hooks: --timeout must be whole seconds from 5 to 3600, got "${values.timeout}"`);
  const root = resolveCwd(values.cwd);
  // An empty or relative HOME would put the user's settings in whatever folder this runs in.
  const home = values.home ?? process.env.HOME ?? os.homedir();
  const env = process.env;
  if (scope === 'user') {
    const problem = userScopeProblem(host, home, values.home !== undefined ? '--home' : 'HOME', env);
    if (problem) throw new UsageError(`hooks: ${problem}; nothing was written`);
  }
  let r: { file: string; changed: boolean; removed: boolean };
  try {
    const loopLimit = action === 'install' ? (({ maxSteps, stallThreshold }) => Math.max(maxSteps, stallThreshold) + 2)(resolveSettings(root, {})) : undefined;
    r = applyHooksFile(action, host, scope, root, home, { cli: values.command ?? thisCli(), timeoutSeconds: timeout, env, recordDir: hookInstallRecordDir(), ...(loopLimit !== undefined ? { loopLimit } : {}) });
  } catch (e) {
    if (e instanceof HookConfigError) throw new UsageError(e.message, 'preflight', { file: hookConfigFile(host, scope, root, home, env) });
    throw e;
  }
  const { file, changed } = r;
  const events = installedEvents(host).map((e) => e.hostEvent);
  if (values.json) {
    io.stdout(JSON.stringify({ action, host, scope, file, changed, removed: r.removed, events: action === 'install' ? events : [], timeoutSeconds: timeout }, null, 2));
  } else if (action === 'install') {
    io.stdout(changed ? `${file}: Fix Until Green hooks installed for ${host} (${events.join(', ')}; timeout ${timeout} s)` : `${file}: already installed for ${host}; nothing changed`);
    // Codex 0.171 skips, without a word, project hooks of an untrusted project and hooks not yet reviewed.
    if (host === 'codex') io.stdout('Codex runs them only once trusted: trust the project (`codex exec --trust`, or when Codex asks) and review the new hooks when the Codex TUI lists them at start-up; `codex exec --dangerously-bypass-hook-trust` skips that review for one run.');
    // Gemini CLI 0.61 skips every settings hook in a folder it does not trust, and folder trust is on by default.
    if (host === 'gemini') io.stdout('Gemini CLI runs them only in a trusted folder: trust it when Gemini asks (or `GEMINI_CLI_TRUST_WORKSPACE=true` for a headless run); in an untrusted folder it also turns `--yolo` back to asking.');
  } else {
    io.stdout(!changed ? `${file}: no Fix Until Green hooks for ${host}; nothing changed` : r.removed ? `${file}: removed (it held only our hooks)` : `${file}: Fix Until Green hooks for ${host} removed; everything else kept`);
  }
  return 0;
}

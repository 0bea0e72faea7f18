// `fix-until-green hooks install|uninstall --host H [--scope project|user]` (issue 30): our hook
// entries merged into the host's own config file, or taken out, keeping every other byte.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { HOOK_HOSTS, isHookHost } from '../core/gate/hookHosts';
import type { HookHost } from '../core/gate/hookHosts';
import type { InstallScope } from '../core/gate/hookInstall';
import { HookConfigError, hookConfigFile, installedEvents, installHooksText, uninstallHooksText } from '../core/gate/hookInstall';
import { UsageError } from './errors';
import type { CliIo } from './runCommand';
import { resolveCwd } from './runCommand';
import { resolveSettings } from './workspaceSettings';

export const DEFAULT_HOOK_TIMEOUT_S = 300;

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function writeWhole(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.fix-until-green.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

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
  const file = hookConfigFile(host as HookHost, scope, root, values.home ?? os.homedir());
  const before = readOrNull(file);
  let after: string | null;
  try {
    if (action === 'install') {
      const settings = resolveSettings(root, {});
      after = installHooksText(host, file, before, { cli: values.command ?? thisCli(), timeoutSeconds: timeout, loopLimit: Math.max(settings.maxSteps, settings.stallThreshold) + 2 });
    } else {
      after = before === null ? null : uninstallHooksText(host, file, before);
    }
  } catch (e) {
    if (e instanceof HookConfigError) throw new UsageError(e.message, 'preflight', { file });
    throw e;
  }
  const changed = after !== before;
  if (changed) {
    if (after === null) rmSync(file, { force: true });
    else writeWhole(file, after);
  }
  const events = installedEvents(host).map((e) => e.hostEvent);
  if (values.json) {
    io.stdout(JSON.stringify({ action, host, scope, file, changed, removed: changed && after === null, events: action === 'install' ? events : [], timeoutSeconds: timeout }, null, 2));
  } else if (action === 'install') {
    io.stdout(changed ? `${file}: Fix Until Green hooks installed for ${host} (${events.join(', ')}; timeout ${timeout} s)` : `${file}: already installed for ${host}; nothing changed`);
  } else {
    io.stdout(!changed ? `${file}: no Fix Until Green hooks for ${host}; nothing changed` : after === null ? `${file}: removed (it held only our hooks)` : `${file}: Fix Until Green hooks for ${host} removed; everything else kept`);
  }
  return 0;
}

// A command that runs a script in every package of a monorepo (`pnpm -r test`, `npm test -ws`,
// `yarn workspaces foreach -A run test`, `lerna run test`, `turbo run test`, `nx run-many -t test`):
// read from its argv, one row per manager, the manager's own flags skipped wherever they stand
// (`pnpm --color -r run test`). At a workspace root such a script is left to the packages' own
// checks, so each package's tests run once, not a second time through the root.

/** What a fan-out command runs: the manager and the script (task) names it runs in each package. */
export interface FanOut {
  manager: 'pnpm' | 'npm' | 'yarn' | 'lerna' | 'turbo' | 'nx';
  scripts: string[];
}

interface Scanned {
  /** Flags as given (`--filter`, `-r`), each with its value when it takes one. */
  flags: { flag: string; value?: string }[];
  positionals: string[];
}

/**
 * Splits arguments into flags and positionals: `--x=v` carries its value; a flag in `values` takes
 * the next token; any other flag stands alone. Everything after `--` is the script's own (dropped).
 */
function scan(args: readonly string[], values: ReadonlySet<string>): Scanned {
  const out: Scanned = { flags: [], positionals: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (!a.startsWith('-') || a === '-') {
      out.positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    if (eq > 0) out.flags.push({ flag: a.slice(0, eq), value: a.slice(eq + 1) });
    else if (values.has(a) && i + 1 < args.length) out.flags.push({ flag: a, value: args[++i]! });
    else out.flags.push({ flag: a });
  }
  return out;
}

const has = (s: Scanned, ...names: string[]): boolean => s.flags.some((f) => names.includes(f.flag));

/** pnpm's commands that are not a script run (`pnpm -r exec`, `pnpm -r install`). */
const PNPM_COMMANDS = new Set(['add', 'audit', 'bin', 'dedupe', 'deploy', 'dlx', 'env', 'exec', 'fetch', 'i', 'import', 'install', 'it', 'licenses', 'link', 'list', 'ln', 'ls', 'outdated', 'pack', 'patch', 'prune', 'publish', 'rb', 'rebuild', 'remove', 'rm', 'root', 'server', 'setup', 'store', 'un', 'uninstall', 'unlink', 'up', 'update', 'why', 'x']);
const PNPM_VALUES = new Set(['--filter', '-F', '--filter-prod', '--workspace-concurrency', '--reporter', '--dir', '-C', '--test-pattern', '--changed-files-ignore-pattern', '--resume-from', '--loglevel']);
const NPM_VALUES = new Set(['--workspace', '-w', '--loglevel', '--prefix', '--script-shell']);
const YARN_VALUES = new Set(['--jobs', '-j', '--include', '--exclude', '--from', '--cwd']);
const LERNA_VALUES = new Set(['--scope', '--ignore', '--concurrency', '--since', '--npm-client', '--loglevel', '--profile-location']);
const TURBO_COMMANDS = new Set(['login', 'logout', 'link', 'unlink', 'prune', 'gen', 'generate', 'daemon', 'ls', 'query', 'info', 'scan', 'telemetry', 'bin', 'completion', 'watch', 'boundaries', 'devtools', 'docs']);
const TURBO_VALUES = new Set(['--filter', '-F', '--concurrency', '--cache-dir', '--output-logs', '--log-order', '--env-mode', '--cache', '--log-prefix', '--team', '--token', '--ui', '--cwd', '--global-deps', '--api', '--profile', '--remote-cache-timeout', '--cache-workers']);
const NX_VALUES = new Set(['--projects', '-p', '--exclude', '--base', '--head', '--configuration', '-c', '--files', '--output-style', '--runner', '--batch']);

/** The scripts a pnpm/npm `run` names: `run x`, `run-script x`, or a builtin that runs one (`test`). */
function runTarget(positionals: readonly string[], runs: ReadonlySet<string>): string | undefined {
  const [a, b] = positionals;
  if (a === undefined) return undefined;
  if (runs.has(a)) return b;
  return a === 't' || a === 'tst' ? 'test' : a;
}

const TABLE: Readonly<Record<FanOut['manager'], (args: readonly string[]) => string[] | undefined>> = {
  pnpm(args) {
    const s = scan(args, PNPM_VALUES);
    if (!has(s, '-r', '--recursive', '--filter', '-F', '--filter-prod')) return undefined;
    const script = runTarget(s.positionals, new Set(['run', 'run-script']));
    return script === undefined || PNPM_COMMANDS.has(script) ? undefined : [script];
  },
  npm(args) {
    const s = scan(args, NPM_VALUES);
    const all = s.flags.some((f) => (f.flag === '--workspaces' || f.flag === '-ws') && f.value !== 'false');
    if (!all && !has(s, '--workspace', '-w')) return undefined;
    const [a, b] = s.positionals;
    if (a === 'run' || a === 'run-script' || a === 'rum' || a === 'urn') return b === undefined ? undefined : [b];
    if (a === 'test' || a === 't' || a === 'tst') return ['test'];
    return a === 'start' || a === 'stop' || a === 'restart' ? [a] : undefined;
  },
  yarn(args) {
    const s = scan(args, YARN_VALUES);
    const [w, verb, ...rest] = s.positionals;
    if (w !== 'workspaces') return undefined;
    // yarn 1: `yarn workspaces run test`; yarn 2+: `yarn workspaces foreach [-A] [run] test`.
    if (verb === 'run') return rest[0] === undefined ? undefined : [rest[0]];
    if (verb !== 'foreach') return undefined;
    const script = rest[0] === 'run' ? rest[1] : rest[0];
    return script === undefined || script === 'exec' ? undefined : [script];
  },
  lerna(args) {
    const s = scan(args, LERNA_VALUES);
    return s.positionals[0] === 'run' && s.positionals[1] !== undefined ? s.positionals[1].split(',').filter(Boolean) : undefined;
  },
  turbo(args) {
    const s = scan(args, TURBO_VALUES);
    const tasks = s.positionals[0] === 'run' ? s.positionals.slice(1) : s.positionals;
    if (tasks.length === 0 || TURBO_COMMANDS.has(tasks[0]!)) return undefined;
    // `web#test` is one package's task, not a fan-out.
    return tasks.some((t) => t.includes('#')) ? undefined : tasks;
  },
  nx(args) {
    // `-t lint test` names several targets: the tokens after -t up to the next flag.
    const targets: string[] = [];
    const rest: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      const eq = /^(?:--targets?|-t)=(.*)$/.exec(a);
      if (eq) targets.push(...eq[1]!.split(','));
      else if (a === '-t' || a === '--target' || a === '--targets') {
        while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) targets.push(...args[++i]!.split(','));
      } else rest.push(a);
    }
    const s = scan(rest, NX_VALUES);
    const verb = s.positionals[0];
    // nx 15's `nx affected:test`.
    const old = /^affected:(.+)$/.exec(verb ?? '');
    if (old) return [old[1]!];
    if (verb !== 'run-many' && verb !== 'affected') return undefined;
    const names = targets.filter(Boolean);
    return names.length > 0 ? names : undefined;
  },
};

/** Launchers that run a manager's own bin (`npx turbo run test`, `pnpm turbo test`, `yarn lerna run test`). */
const LAUNCHERS = new Set(['npx', 'pnpx', 'bunx', 'pnpm', 'yarn']);

function unquote(t: string): string {
  return /^(["'])(.*)\1$/.exec(t)?.[2] ?? t;
}

/** The fan-out a command (one step of a chain, its env assignments and wrappers taken off) runs, or undefined. */
export function fanOut(command: string): FanOut | undefined {
  let t = command.trim().split(/\s+/).filter(Boolean).map(unquote);
  const managers = Object.keys(TABLE) as FanOut['manager'][];
  const tool = (x: string | undefined): FanOut['manager'] | undefined => managers.find((m) => m === x?.replace(/^.*\//, ''));
  // `npx turbo …`, `pnpm exec nx …`, `yarn lerna …`: the launcher runs the manager named after it.
  if (LAUNCHERS.has(t[0] ?? '')) {
    const i = t[1] === 'exec' ? 2 : 1;
    const m = tool(t[i]);
    if (m === 'turbo' || m === 'nx' || m === 'lerna') t = t.slice(i);
  }
  const m = tool(t[0]);
  if (m === undefined) return undefined;
  const scripts = TABLE[m](t.slice(1));
  return scripts === undefined || scripts.length === 0 ? undefined : { manager: m, scripts };
}

// How a warm worker (./warmTsc, ./warmEslint) is started for a command whose tool stands behind
// launchers (./launchers: npx, cross-env or env with their variables, node with its flags running the
// package's bin file). The worker gets what the tool would get: the check's environment with the
// launchers' variables set over it, and the node the command names with that node's flags. What the
// worker cannot reproduce exactly is refused, with why, and the command runs: a node flag or a
// NODE_OPTIONS entry that loads code into the tool's process (`--require x`, `--import`, a loader)
// runs that code once per run of the command but only once in a worker kept between runs; anything
// not known to be a pure runtime setting is treated the same way.
import * as path from 'node:path';
import type { Launch } from './launchers';
import { launchOf } from './launchers';
import { findOnPath } from './warmChild';

/** How the worker's node is started: its binary (undefined: none on PATH, ours as node), flags and environment. */
export interface WarmStart {
  node: string | undefined;
  nodeFlags: string[];
  env: Record<string, string>;
  /** The launchers' own: what the command sets for its tool (for notes, and to compare with another call of the tool). */
  launch: Launch;
  /** The worker's identity: a changed variable, flag or node is another worker. */
  key: string;
}

/** Node flags that only size or tune the runtime (heap, stack, warnings, source maps): the same in a worker kept between runs as in each run. */
const RUNTIME_FLAG = /^--(max-old-space-size|max-semi-space-size|stack-size)=\d+$|^--(no-warnings|no-deprecation|enable-source-maps|trace-warnings|trace-deprecation|trace-uncaught)$/;

/** Why a node flag (on the command line or in NODE_OPTIONS) cannot be kept warm, or undefined. */
function notRuntime(flags: readonly string[], where: string): string | undefined {
  const odd = flags.find((f) => !RUNTIME_FLAG.test(f));
  return odd === undefined ? undefined : `${where} has ${odd}, which may load or change code in the tool's own process once per run of the command (a warm worker would run it once): the command runs`;
}

/**
 * The start of a warm worker for the tool after `prefix`, run in `cwd` with the check's `env`; or why
 * it cannot be exact. `perProcess`: variables the tool acts on once per process, where a worker kept
 * between runs cannot do what each run of the command does (ESLint's `TIMING` table, printed as its
 * process exits): set (non-empty), the command runs.
 */
export function warmStart(prefix: readonly string[], cwd: string, env: Record<string, string>, perProcess: Readonly<Record<string, string>> = {}): WarmStart | { fallback: string } {
  const launch = launchOf(prefix);
  const merged = { ...env, ...launch.vars };
  const once = Object.keys(perProcess).find((k) => merged[k]);
  if (once !== undefined) return { fallback: `${once}=${merged[once]} is set: ${perProcess[once]}, which a warm worker kept between runs would not do: the command runs` };
  // NODE_OPTIONS is read by every node the command starts, the tool's too; a worker's node reads it the same way.
  const options = merged.NODE_OPTIONS ?? '';
  if (/["'\\]/.test(options)) return { fallback: 'NODE_OPTIONS has quoting the warm worker does not read: the command runs' };
  const optionsWhy = notRuntime(options.split(/\s+/).filter(Boolean), 'NODE_OPTIONS');
  if (optionsWhy !== undefined) return { fallback: optionsWhy };
  const nodeFlags = launch.node?.flags ?? [];
  const flagsWhy = notRuntime(nodeFlags, `the command's ${launch.node?.bin ?? 'node'}`);
  if (flagsWhy !== undefined) return { fallback: flagsWhy };
  // The node the command names; a bare `node` (or a tool's #! line) is found on the command's PATH, which a launcher may have set.
  const named = launch.node?.bin;
  const node = named !== undefined && named.includes('/') ? path.resolve(cwd, named) : findOnPath('node', merged);
  const key = JSON.stringify([node ?? '', nodeFlags, Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  return { node, nodeFlags, env: merged, launch, key };
}

/** What the launchers set, for a note: `cross-env A=1`-like text, empty where nothing. */
export function launchText(l: Launch): string {
  const vars = Object.entries(l.vars).map(([k, v]) => `${k}=${v}`);
  return [...vars, ...(l.node ? [`node ${l.node.flags.join(' ')}`.trim()] : [])].join(' ');
}

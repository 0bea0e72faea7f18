// A tsc check made incremental: its build info kept in the run's storage, never in the user's tree,
// so a later pass re-checks only what changed. Not for a call that manages its own build info.
import { splitCommand } from './runner';
import { toolIndex } from './staged/launchers';

/**
 * The argv of a tsc check made incremental with its build info in storage, never in the user's
 * tree; undefined when the command is not a tsc call (behind launchers only) that can take it (a shell line, build
 * mode, watch mode, or build info the user placed themselves).
 */
export function incrementalTscArgv(command: string, buildInfoFile: string): string[] | undefined {
  const argv = splitCommand(command);
  if (!argv) return undefined;
  // Behind launchers only (./staged/launchers: npx, cross-env or env with their variables, node
  // running typescript's bin file) the flags added after tsc reach it; `env -i tsc`, a wrapper do not.
  const i = toolIndex(argv, (a) => a === 'tsc');
  if (i < 0) return undefined;
  const flags = argv.slice(i + 1);
  if (flags.some((a) => /^(-b|--build|-w|--watch|--tsBuildInfoFile|--incremental|--composite)$/.test(a))) return undefined;
  return [...argv, '--incremental', '--tsBuildInfoFile', buildInfoFile];
}

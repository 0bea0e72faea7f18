// A tsc check made incremental: its build info kept in the run's storage, never in the user's tree,
// so a later pass re-checks only what changed. Not for a call that manages its own build info.
import * as path from 'node:path';
import { splitCommand } from './runner';

/**
 * The argv of a tsc check made incremental with its build info in storage, never in the user's
 * tree; undefined when the command is not a plain tsc call that can take it (a shell line, build
 * mode, watch mode, or build info the user placed themselves).
 */
export function incrementalTscArgv(command: string, buildInfoFile: string): string[] | undefined {
  const argv = splitCommand(command);
  if (!argv) return undefined;
  const i = argv.findIndex((a) => path.basename(a) === 'tsc');
  const launcher = argv.slice(0, Math.max(0, i));
  if (i < 0 || !launcher.every((a) => ['npx', 'pnpm', 'yarn', 'exec', 'bunx', '--no-install'].includes(a))) return undefined;
  const flags = argv.slice(i + 1);
  if (flags.some((a) => /^(-b|--build|-w|--watch|--tsBuildInfoFile|--incremental|--composite)$/.test(a))) return undefined;
  return [...argv, '--incremental', '--tsBuildInfoFile', buildInfoFile];
}

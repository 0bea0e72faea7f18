// The `pre` script of a check's npm script (`pretest`: a build such as `tshy` or `tsc` whose output
// the tests may read), run before a narrowed run (./stager) as the package manager runs it before the
// command. A narrowed run skips the manager, so it runs the script itself.
import type { CheckSpec, ParserId } from '../../types';
import type { Attempt } from './attempt';
import type { ScriptHooks } from './commands';

/** How the stager runs a command for a check (its StagedExec's `run`). */
type RunFor = (spec: CheckSpec, parser: ParserId, argv: string[], signal?: AbortSignal) => Promise<Attempt>;

/**
 * Runs `cmd`'s pre script through the same manager. It runs every step: what it builds from is the
 * project's to say, and a build is cheap beside the suite it spares. Where it fails the command
 * stops there too: the check runs in full, whose own run says how (`{full}`). The `post` script is
 * left out, and said. Undefined where there is neither.
 */
export async function runPreScript(run: RunFor, spec: CheckSpec, cmd: ScriptHooks, signal?: AbortSignal): Promise<{ note: string; cancelled?: Attempt } | { full: string } | undefined> {
  const skipped = cmd.post ? `scripts.${cmd.post.name} ("${cmd.post.body}") left out of the narrowed run; ` : '';
  if (!cmd.pre) return skipped ? { note: skipped } : undefined;
  const a = await run({ ...spec, parser: 'generic' }, 'generic', cmd.pre.argv, signal);
  if (a.r.cancelled) return { note: '', cancelled: a };
  if (a.r.timedOut || a.r.spawnError !== undefined || a.r.exitCode !== 0) {
    return { full: `scripts.${cmd.pre.name} ("${cmd.pre.body}"), run before the narrowed run, failed (${a.r.timedOut ? 'timed out' : a.r.spawnError ?? `exit code ${a.r.exitCode}`}): the check runs in full, as the command stops there too` };
  }
  return { note: `scripts.${cmd.pre.name} ("${cmd.pre.body}") ran first (${a.r.durationMs} ms); ${skipped}` };
}

// How the CLI and its MCP server word what the launcher refused (core/launch.ts): one line, a `kind`
// for the JSON answer, exit 2 (README "Exit codes"). The refusal is a value: nothing is thrown to be
// caught and re-worded; `run` and `check` print this, the MCP tools answer it with isError.
import { describeHolder, liveRunLock, runLockPath } from '../core/edit/runLock';
import type { Refusal } from '../core/launch';
import type { CliFailure } from './errors';
import { EXIT, UsageError } from './errors';

export interface RefusalContext {
  /** What could not start, after "cannot": `start another run`, `run the checks`, `revert`. */
  what: string;
  /** The workspace folder. */
  cwd: string;
  /** The storage folder came from `--storage` (else the default, or FIX_UNTIL_GREEN_STORAGE). */
  storageFlag?: boolean;
  /** `--ignore-interrupted` exists where this was asked (`run`). */
  ignoreFlag?: boolean;
}

const ERRNO_WHY: Record<string, string> = { ENOSPC: 'the disk is full', ENOTDIR: 'a part of the path is a file', EACCES: 'permission denied', EPERM: 'permission denied', EROFS: 'read-only file system' };

function failure(kind: CliFailure['kind'], message: string, details: Record<string, unknown> = {}): CliFailure {
  return { kind, exitCode: EXIT.usage, message: message.replace(/\s*\n\s*/g, '; ').trim(), details };
}

/** The CLI's answer to a refusal: one line, a kind, exit 2, and the JSON answer's extra fields. */
export function cliRefusal(r: Refusal, ctx: RefusalContext): CliFailure {
  switch (r.kind) {
    case 'settings':
      return failure('usage', r.problems.join('; '));
    case 'model':
      return failure('usage', r.problem);
    case 'endpoint':
      return failure('preflight', r.key.message, { keyRefused: { file: r.key.file, setting: r.key.setting, host: r.key.host } });
    case 'checks':
      return failure('preflight', r.problems.join('; '));
    case 'busy': {
      const h = r.holder;
      if (!h) return failure('busy', `${r.task} is in progress in ${ctx.cwd} (started by this server); wait for it to end`);
      return failure('busy', `cannot ${ctx.what}: ${describeHolder(h)}; wait for it to end or stop it`, {
        holder: { runId: h.runId, pid: h.pid, frontEnd: h.frontEnd, startedAt: h.startedAt, storageDir: h.storageDir, root: h.root },
        lockPath: r.lockPath,
      });
    }
    case 'storage': {
      const flag = ctx.storageFlag === true;
      const why = ERRNO_WHY[r.errno] ?? r.errno;
      return failure('preflight', `${flag ? '--storage' : 'the storage folder'} ${r.dir} cannot be written (${r.errno}: ${why}); ${flag ? 'pass a writable folder' : 'set FIX_UNTIL_GREEN_STORAGE or --storage to a writable folder'}`, { storage: r.dir, errno: r.errno });
    }
    case 'interrupted': {
      const run = r.runs[0]!;
      const files = `${run.touched.slice(0, 3).join(', ')}${run.touched.length > 3 ? ', ...' : ''}`;
      const anyway = ctx.ignoreFlag ? '; --ignore-interrupted starts anyway' : '';
      return failure('preflight', `an interrupted run (${run.runId}) left ${run.touched.length} file(s) changed (${files}): \`fix-until-green revert --cwd ${ctx.cwd}\` restores them${anyway}`, { interruptedRun: run.runId });
    }
  }
}

/**
 * Refuses (exit 2, kind `busy`) while a live run holds the folder, whichever front end started it:
 * for the commands that are neither a run nor a check pass (`revert`).
 */
export function refuseWhileRunning(cwd: string, what: string): void {
  const holder = liveRunLock(cwd);
  if (!holder) return;
  const f = cliRefusal({ kind: 'busy', task: `a run of ${holder.frontEnd}`, holder, lockPath: runLockPath(cwd) }, { what, cwd });
  throw new UsageError(f.message, 'busy', f.details);
}

// `fix-until-green apply`: a model reply on stdin, applied to --cwd atomically (DESIGN §8).
// What it writes is checkpointed like a run's step, so `fix-until-green revert --run ID` undoes it.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { ApplyResult } from '../core/edit/apply';
import { applyEdits, computeChanges } from '../core/edit/apply';
import { Checkpoint } from '../core/edit/checkpoint';
import { parseReply } from '../core/edit/parse';
import type { FsWorkspaceOptions } from '../core/edit/workspace';
import { FsWorkspace, oneLine } from '../core/edit/workspace';
import type { CliIo } from './runCommand';
import { resolveCwd } from './runCommand';
import { defaultStorageDir } from './storage';
import { resolveSettings } from './workspaceSettings';

/**
 * Test-only: `write:<index>:<before|truncated|after>` makes the process stop at that point of an
 * apply (announced on stderr) and wait to be killed, so crash recovery is tested at exact points.
 */
export const PAUSE_ENV = 'FIX_UNTIL_GREEN_TEST_PAUSE';

export interface ApplyCliIo extends CliIo {
  /** The whole of stdin. */
  readStdin?: () => Promise<string>;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function pauseHook(spec: string | undefined, io: CliIo): FsWorkspaceOptions {
  if (!spec) return {};
  return {
    onWrite: async (rel, index, point) => {
      if (`write:${index}:${point}` !== spec) return;
      io.stderr(`paused at ${spec} (${rel})`);
      // Wait for the SIGKILL the test sends; the timer keeps the event loop alive.
      await new Promise<never>(() => {
        setInterval(() => undefined, 1 << 30);
      });
    },
  };
}

export function applyJson(r: ApplyResult, extra: Record<string, unknown>): Record<string, unknown> {
  return { applied: r.applied, files: r.files, errors: r.errors, ...extra };
}

export async function applyCommand(argv: string[], io: ApplyCliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      cwd: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      storage: { type: 'string' },
      // The provider's own stop reason for the reply (`length`, `max_tokens`): a cut-off reply is refused.
      'stop-reason': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const cwd = resolveCwd(values.cwd);
  const settings = resolveSettings(cwd, {});
  const storage = path.resolve(values.storage ?? defaultStorageDir(cwd));
  const reply = await (io.readStdin ?? (() => readAll(process.stdin)))();
  const parsed = parseReply(reply, settings.editFormat, { stopReason: values['stop-reason'] });
  const workspace = new FsWorkspace(cwd, pauseHook(process.env[PAUSE_ENV], io));
  const policy = { root: cwd, forbiddenDirs: [storage] };
  const dryRun = values['dry-run'];

  if (parsed.errors.length > 0) {
    io.stdout(JSON.stringify({ applied: false, files: [], errors: parsed.errors, ...(dryRun ? { dryRun } : {}) }, null, 2));
    return 1;
  }
  const planned = await computeChanges(parsed.edits, { workspace, policy });
  if (parsed.edits.length === 0) planned.errors.splice(0, planned.errors.length, 'the reply contains no edits');
  if (dryRun || planned.errors.length > 0) {
    // A dry run reports whether the reply would apply; nothing is written either way.
    const ok = planned.errors.length === 0;
    io.stdout(JSON.stringify(applyJson({ ...planned, applied: dryRun && ok }, dryRun ? { dryRun } : {}), null, 2));
    return ok ? 0 : 1;
  }
  const runId = `apply-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
  let r: ApplyResult;
  try {
    const checkpoint = await Checkpoint.create(path.join(storage, 'runs', runId, 'checkpoint'), runId, cwd);
    r = await applyEdits(parsed.edits, { workspace, policy, checkpoint });
    await checkpoint.markFinished();
  } catch (e) {
    // The storage cannot take the checkpoint (a full disk, no permission): nothing was written
    // unchecked; the answer is still JSON with the OS error on one line.
    io.stdout(JSON.stringify(applyJson({ ...planned, applied: false, errors: [`the edit was not applied: ${oneLine(e)}`] }, { runId }), null, 2));
    return 1;
  }
  if (r.unrestored && r.unrestored.length > 0) {
    // A write failed and some files could not be put back: say which, so the user can revert the run.
    r = { ...r, errors: [...r.errors, `run \`fix-until-green revert --run ${runId}\` to restore ${r.unrestored.map((u) => u.path).join(', ')}`] };
  }
  io.stdout(JSON.stringify(applyJson(r, { runId }), null, 2));
  return r.applied ? 0 : 1;
}

// `fix-until-green revert`: restores the files an interrupted run (or the run named by --run)
// wrote, byte for byte, from its checkpoint. Files changed since the run wrote them are left alone.
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Checkpoint } from '../core/edit/checkpoint';
import type { RestoreReport } from '../core/edit/restore';
import { revertRun } from '../core/edit/restore';
import type { StoredRun } from '../core/edit/storedRuns';
import { listCheckpoints } from '../core/edit/storedRuns';
import { FsWorkspace } from '../core/edit/workspace';
import { reapStrays } from '../core/verify/containment';
import { HOOK_HOSTS } from '../core/gate/hookHosts';
import { hookRunId } from '../core/gate/hookSession';
import { UsageError } from './errors';
import type { CliIo } from './runCommand';
import { refuseWhileRunning } from './refusals';
import { resolveCwd } from './runCommand';
import { defaultStorageDir } from './storage';

function sameDir(a: string, b: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return path.resolve(p);
      throw e;
    }
  };
  return real(a) === real(b);
}

function describe(runId: string, r: RestoreReport): string[] {
  const lines: string[] = [];
  const verb = { restored: 'restored', removed: 'removed (the run created it)', recreated: 'recreated (the run deleted it)' };
  lines.push(r.actions.length > 0 ? `run ${runId}: ${r.actions.length} file(s) put back` : `run ${runId}: nothing to put back`);
  for (const a of r.actions) lines.push(`  ${a.path}: ${verb[a.action]}`);
  if (r.unchanged.length > 0) lines.push(`  ${r.unchanged.length} file(s) already original: ${r.unchanged.join(', ')}`);
  for (const c of r.conflicts) lines.push(`  ${c.path}: NOT restored: ${c.reason}`);
  return lines;
}

export async function revertCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      cwd: { type: 'string' },
      storage: { type: 'string' },
      run: { type: 'string' },
      session: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const cwd = resolveCwd(values.cwd);
  // The files belong to the run while it lives: putting them back under it would race its writes.
  refuseWhileRunning(cwd, 'revert');
  const storage = path.resolve(values.storage ?? defaultStorageDir(cwd));
  // Checks of a run killed outright may still be running (and writing): end them before restoring.
  const reaped = await reapStrays(storage);
  const stored = await listCheckpoints(storage);
  for (const u of stored.unreadable) io.stderr(`fix-until-green revert: skipped an unreadable checkpoint: ${u.reason}`);
  const all = stored.runs.filter((r) => sameDir(r.root, cwd));
  let targets: StoredRun[];
  if (values.run !== undefined && values.session !== undefined) throw new UsageError('--run and --session name one run each: pass one of them');
  if (values.session !== undefined) {
    // A hook session (issue 30): named by the host's session id or by its run id.
    const id = values.session;
    const found = all.filter((r) => r.runId === id || HOOK_HOSTS.some((h) => r.runId === hookRunId(h, id)));
    if (found.length === 0) {
      const sessions = all.filter((r) => r.runId.startsWith('hook-'));
      throw new UsageError(`--session: no hook session "${id}" for ${cwd} in ${storage}${sessions.length > 0 ? ` (sessions: ${sessions.map((r) => r.runId).join(', ')})` : ''}`);
    }
    targets = found;
  } else if (values.run !== undefined) {
    const found = all.find((r) => r.runId === values.run);
    if (!found) throw new UsageError(`--run: no run "${values.run}" for ${cwd} in ${storage}${all.length > 0 ? ` (runs: ${all.map((r) => r.runId).join(', ')})` : ''}`);
    targets = [found];
  } else {
    // Newest first: each older run's originals are what the newer one found.
    targets = all.filter((r) => !r.finished && !r.reverted && r.touched.length > 0);
  }

  const results: { runId: string; report: RestoreReport }[] = [];
  for (const t of targets) {
    const checkpoint = await Checkpoint.load(t.dir);
    if (!checkpoint) throw new Error(`checkpoint of run ${t.runId} vanished from ${t.dir}`);
    results.push({ runId: t.runId, report: await revertRun({ workspace: new FsWorkspace(cwd), checkpoint }) });
  }
  const conflicts = results.some((r) => r.report.conflicts.length > 0);
  if (values.json) {
    io.stdout(JSON.stringify({ runs: results.map((r) => ({ runId: r.runId, ...r.report })), storage, reapedProcesses: reaped }, null, 2));
  } else {
    if (reaped > 0) io.stdout(`ended ${reaped} process(es) of checks an interrupted run left running`);
    if (results.length === 0) {
      io.stdout(`no interrupted run to revert for ${cwd}${all.length > 0 ? ` (${all.length} finished run(s) in ${storage}; pass --run ID to revert one)` : ''}`);
    } else {
      for (const r of results) for (const l of describe(r.runId, r.report)) io.stdout(l);
    }
  }
  return conflicts ? 1 : 0;
}

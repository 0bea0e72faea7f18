// `fix-until-green check`: verify once, no model (DESIGN §8).
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { CheckResult, CheckSpec, VerifyResult } from '../core/types';
import { readWorkspaceText } from '../core/edit/readText';
import { prepareChecks } from '../core/launch';
import type { CheckOrigin } from '../core/verify/discover';
import { cutNotes } from '../core/verify/cut';
import { formatFailureReport } from '../core/verify/report';
import { printFailure } from './errors';
import { cliRefusal } from './refusals';
import type { CliIo } from './runCommand';
import { parseCheckFlags, resolveCwd } from './runCommand';
import { defaultStorageDir } from './storage';
import { settingsAnswer } from './workspaceSettings';

/** The public `check --json` object, with extra fields after the contract's. */
export function checkJson(v: VerifyResult, extra: { discovered: boolean; notes: string[]; origins?: Record<string, CheckOrigin>; chains?: string[]; writers?: string[] }): Record<string, unknown> {
  return {
    green: v.green,
    failureHash: v.failureHash,
    failures: v.failures,
    checks: v.checks.map((c: CheckResult) => ({
      name: c.name,
      exitCode: c.exitCode,
      durationMs: c.durationMs,
      failures: c.failures,
      command: c.command,
      parser: c.parser,
      runs: c.runs,
      // Where the time goes: the first run, then each flake re-run (DESIGN §4 Flakes).
      runDurationsMs: c.runDurationsMs ?? [c.durationMs],
      timedOut: c.timedOut,
      truncated: c.truncated,
      // The failures listed are a part of those of a cut output (verify/cut.ts), with its runner's count.
      ...(c.incomplete ? { incomplete: true, ...(c.incomplete.reported !== undefined ? { reportedFailures: c.incomplete.reported } : {}) } : {}),
      flaky: c.flaky,
      // Its tool is not installed: an environment problem, not counted (verify/notInstalled.ts).
      ...(c.notInstalled !== undefined ? { notInstalled: c.notInstalled.tools } : {}),
      // Did not run: a task it depends on (a build) failed; its failures are unknown, not none.
      ...(c.notRun !== undefined ? { notRun: c.notRun } : {}),
      ...(extra.origins?.[c.name] !== undefined ? { origin: extra.origins[c.name] } : {}),
      // How it ran (full, targeted, warm) and what that run covered: a chain's part taken from
      // another check, the warm linter, a confirmation by name; where the time went, in words.
      ...(c.mode !== undefined ? { mode: c.mode } : {}),
      ...(c.stagedNote !== undefined && c.stagedNote !== '' ? { note: c.stagedNote } : {}),
    })),
    flaky: v.flaky,
    durationMs: v.durationMs,
    discovered: extra.discovered,
    notes: [...extra.notes, ...v.checks.flatMap((c) => (c.notInstalled !== undefined ? [`${c.name}: ${c.notInstalled.note}`] : []))],
    // The chains whose parts run once per pass, as their own checks (what `--explain` prints).
    ...(extra.chains !== undefined ? { chains: extra.chains } : {}),
    // The checks that write as they run: alone before the others, or beside them, and why (verify/writers.ts).
    ...(extra.writers !== undefined ? { writers: extra.writers } : {}),
  };
}

/** A check's command, and the folder it runs in when that is not the workspace's (a monorepo's package). */
function commandLine(c: CheckSpec): string {
  return c.cwd !== undefined && c.cwd !== '.' && c.cwd !== '' ? `${c.command} (in ${c.cwd})` : c.command;
}

function checkLine(c: CheckResult): string {
  const listed = c.incomplete ? (c.incomplete.reported !== undefined ? `${c.incomplete.reported} failure(s) by its summary, ${c.failures.length} listed` : `${c.failures.length} failure(s) listed, more cut`) : `${c.failures.length} failure(s)`;
  const state = c.timedOut ? 'timed out' : c.failures.length === 0 && c.exitCode === 0 ? 'ok' : c.failures.length === 0 && c.notInstalled !== undefined ? c.notInstalled.note : listed;
  const extra = [`exit ${c.exitCode ?? '-'}`, `${(c.durationMs / 1000).toFixed(1)} s`];
  if ((c.runs ?? 1) > 1) extra.push(`${c.runs} runs: ${(c.runDurationsMs ?? []).map((ms) => `${(ms / 1000).toFixed(1)} s`).join(' + ') || '?'}`);
  if (c.flaky.length > 0) extra.push(`${c.flaky.length} flaky`);
  if (c.truncated) extra.push('output cut');
  if (c.notRun !== undefined) return `  ${c.name}: ${c.notRun}`;
  return `  ${c.name}: ${state} (${extra.join(', ')})`;
}

export async function checkCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      cwd: { type: 'string' },
      check: { type: 'string', multiple: true },
      storage: { type: 'string' },
      json: { type: 'boolean', default: false },
      explain: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const cwd = resolveCwd(values.cwd);
  const overrides: Record<string, { value: unknown; flag: string }> = {};
  if (values.check && values.check.length > 0) overrides.checks = { value: parseCheckFlags(values.check), flag: '--check' };
  const storageDir = path.resolve(values.storage ?? defaultStorageDir(cwd));
  const launch = await prepareChecks({ root: cwd, frontEnd: 'cli', storageDir, ...(overrides.checks !== undefined ? { checksFrom: '--check' } : {}) }, { settings: () => settingsAnswer(cwd, overrides) });
  if (!launch.ok) return printFailure('check', argv, cliRefusal(launch.refusal, { what: 'run the checks', cwd }), io);
  const { verifier, checks, discovered, notes, origins } = launch.prepared.checks;
  if (values.explain && !values.json) {
    // Before the checks run, so a user sees why each one is there even when they take long.
    io.stdout(`checks${discovered ? ' (discovered)' : ''}, where they come from and how their output is read:`);
    for (const c of checks) {
      const o = origins[c.name]!;
      io.stdout(`  ${c.name}: ${commandLine(c)}`);
      io.stdout(`    from:   ${o.source}`);
      io.stdout(`    parser: ${o.parser} (${o.reason})`);
      for (const d of o.dependsOn ?? []) io.stdout(`    first:  ${d}`);
    }
    for (const n of discovered ? notes : []) io.stdout(`  · ${n}`);
    for (const n of verifier.chainNotes()) io.stdout(`  · ${n}`);
    for (const n of verifier.writerNotes()) io.stdout(`  · ${n}`);
    io.stdout('');
  }

  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let v: VerifyResult;
  try {
    v = await verifier.verify(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (controller.signal.aborted) {
    io.stderr('fix-until-green check: cancelled');
    return 1;
  }
  if (values.json) {
    io.stdout(JSON.stringify(checkJson(v, { discovered, notes, origins, chains: verifier.chainNotes(), writers: verifier.writerNotes() }), null, 2));
  } else {
    if (!values.explain) {
      io.stdout(`checks${discovered ? ' (discovered)' : ''}:`);
      for (const c of checks) io.stdout(`  ${c.name}: ${commandLine(c)}`);
      for (const n of discovered ? notes : []) io.stdout(`  · ${n}`);
      io.stdout('');
    }
    for (const c of v.checks) {
      io.stdout(checkLine(c));
      // What the pass ran of the check (a chain's rest alone, the step its confirmation re-ran), said where asked.
      if (values.explain && c.stagedNote !== undefined && c.stagedNote !== '') io.stdout(`    note: ${c.stagedNote}`);
    }
    io.stdout('');
    io.stdout(v.green ? `green · ${v.failureHash.slice(0, 12)}` : `not green · ${v.failures.length} failure(s) · ${v.failureHash.slice(0, 12)}`);
    if (!v.green) {
      io.stdout('');
      io.stdout(formatFailureReport(v.failures, { flaky: v.flaky, cut: cutNotes(v.checks), root: cwd, contextLines: 0, readText: (rel) => readWorkspaceText(cwd, rel) }));
    }
  }
  return v.green ? 0 : 1;
}

// `fix-until-green calibrate TRACE…`: CONFIDENCE against outcomes, and an escalation threshold from evidence.
import { parseArgs } from 'node:util';
import type { Calibration } from '../evals/calibrate';
import { calibrateTraces, findTraceFiles } from '../evals/calibrate';
import { UsageError } from './errors';
import type { CliIo } from './runCommand';

function rateFlag(v: string | undefined): number {
  if (v === undefined) return 0.1;
  const n = Number(v.trim().replace(/%$/, ''));
  const rate = v.trim().endsWith('%') ? n / 100 : n;
  if (v.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) throw new UsageError(`--max-false-rate: "${v}" must be a number from 0 to 1 (or a percentage)`);
  return rate;
}

function pct(n: number | null): string {
  return n === null ? '-' : `${Math.round(n * 100)}%`;
}

export function formatCalibration(c: Calibration): string[] {
  const lines: string[] = [];
  lines.push(`${c.runs} run(s), ${c.greenRuns} went green; ${c.stepsWithConfidence} step(s) with a readable CONFIDENCE${c.excluded.length ? `; ${c.excluded.length} trace(s) left out` : ''}`);
  lines.push('');
  lines.push('confidence   steps  went green');
  for (const b of c.bands) lines.push(`${b.from.toFixed(1)}-${b.to.toFixed(1)}      ${String(b.steps).padStart(5)}  ${b.steps ? `${b.wentGreen}/${b.steps} (${pct(b.rate)})` : '-'}`);
  lines.push('');
  lines.push('escalate below  escalated runs  false escalations (of runs that went green)');
  for (const t of c.thresholds) lines.push(`${t.threshold.toFixed(2).padStart(14)}  ${String(t.escalated).padStart(14)}  ${t.falseEscalations}/${c.greenRuns} (${pct(c.greenRuns ? t.falseRate : null)})`);
  lines.push('');
  lines.push(
    c.recommended > 0
      ? `recommended fixUntilGreen.escalateBelowConfidence: ${c.recommended} (the highest threshold whose false escalations stay within ${pct(c.maxFalseRate)})`
      : `recommended fixUntilGreen.escalateBelowConfidence: 0 (off): no threshold escalates any run while keeping false escalations within ${pct(c.maxFalseRate)}`,
  );
  for (const e of c.excluded) lines.push(`left out ${e.trace}: ${e.reason}`);
  return lines;
}

export async function calibrateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      'max-false-rate': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length === 0) throw new UsageError('name at least one trace.jsonl, or a directory holding runs');
  const maxFalseRate = rateFlag(values['max-false-rate']);
  let files: string[];
  try {
    files = findTraceFiles(positionals);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (files.length === 0) throw new UsageError(`no trace.jsonl found under ${positionals.join(', ')}`);
  const c = calibrateTraces(files, { maxFalseRate });
  if (c.runs === 0) {
    for (const e of c.excluded) io.stderr(`left out ${e.trace}: ${e.reason}`);
    throw new UsageError(`none of the ${files.length} trace(s) holds a finished run that can be used`);
  }
  if (values.json) io.stdout(JSON.stringify(c, null, 2));
  else for (const l of formatCalibration(c)) io.stdout(l);
  return 0;
}

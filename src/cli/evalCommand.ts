// `fix-until-green eval DIR…`: runs scenarios and prints a table; exit 1 if any misses.
import { parseArgs } from 'node:util';
import type { ScenarioResult, SelfReportTally } from '../evals/evals';
import { emptyTally, findScenarioDirs, loadScenario, runScenario, ScenarioError } from '../evals/evals';
import { UsageError } from './errors';
import type { CliIo } from './runCommand';

function fmtTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function pct(agreed: number, total: number): string {
  return total === 0 ? 'n/a' : `${agreed}/${total} (${Math.round((agreed / total) * 100)}%)`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd());
}

export function formatEvalTable(results: readonly ScenarioResult[], kept = false): string[] {
  const rows: string[][] = [['scenario', 'expected', 'got', 'steps', 'tokens', 'pass']];
  for (const r of results) {
    const expected = `${r.expect.stopReason}${r.expect.outcome ? ` (${r.expect.outcome})` : ''}`;
    const got = r.got ? `${r.got.stopReason}${r.expect.outcome ? ` (${r.got.outcome})` : ''}` : 'error';
    const steps = `${r.got ? r.got.steps : '-'}/${r.expect.steps}`;
    rows.push([r.name, expected, got, steps, fmtTokens(r.tokens), r.pass ? 'ok' : 'MISS']);
  }
  const lines = table(rows);
  for (const r of results) if (!r.pass) lines.push(`  ${r.name}: ${r.problem ?? 'did not match'}${kept && r.scratchDir ? ` (kept: ${r.tracePath ?? r.scratchDir})` : ''}`);
  return lines;
}

export function totalTally(results: readonly ScenarioResult[]): SelfReportTally {
  const t = emptyTally();
  for (const r of results) {
    for (const k of ['done', 'blocked'] as const) {
      t[k].total += r.selfReports[k].total;
      t[k].agreed += r.selfReports[k].agreed;
    }
  }
  return t;
}

export async function evalCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      scratch: { type: 'string' },
      'no-staged-checks': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length === 0) throw new UsageError('name at least one scenario directory (or a folder of them), e.g. eval evals/*');
  let dirs: string[];
  try {
    dirs = findScenarioDirs(positionals);
  } catch (e) {
    if (e instanceof ScenarioError) throw new UsageError(e.message);
    throw e;
  }
  const results: ScenarioResult[] = [];
  for (const dir of dirs) {
    let result: ScenarioResult;
    try {
      const s = loadScenario(dir);
      const overrides = values['no-staged-checks'] ? { stagedChecks: false } : {};
      result = await runScenario(s, { keep: values.keep, overrides, ...(values.scratch ? { scratchDir: values.scratch } : {}) });
    } catch (e) {
      if (!(e instanceof ScenarioError)) throw e;
      // A malformed scenario is a miss with its reason, not the end of the suite.
      result = { name: dir.split(/[/\\]/).pop() ?? dir, expect: { stopReason: 'green', steps: 0 }, tokens: 0, elapsedMs: 0, pass: false, problem: e.message, selfReports: emptyTally() };
    }
    results.push(result);
    if (!values.json) io.stderr(`${result.pass ? 'ok  ' : 'MISS'} ${result.name} (${(result.elapsedMs / 1000).toFixed(1)} s)`);
  }
  const tally = totalTally(results);
  const passed = results.filter((r) => r.pass).length;
  if (values.json) {
    io.stdout(JSON.stringify({ passed, total: results.length, selfReport: tally, scenarios: results }, null, 2));
  } else {
    for (const l of formatEvalTable(results, values.keep)) io.stdout(l);
    io.stdout('');
    io.stdout(`${passed}/${results.length} scenarios passed`);
    io.stdout(`self-report accuracy: STATUS done confirmed green ${pct(tally.done.agreed, tally.done.total)}; STATUS blocked with failures remaining ${pct(tally.blocked.agreed, tally.blocked.total)}`);
  }
  return passed === results.length ? 0 : 1;
}

// The bench of one workspace folder, engine side (loaded with dist/engine.js, never at activation):
// the core's planFromHistory and runPlan with what only the extension knows: the folder's settings
// under each variant's, SecretStorage's keys under the key rule, `vscode.lm` models. The command
// (benchCommand.ts) shows the choices, the progress and the report; this file builds nothing on screen.
import * as vscode from 'vscode';
import type { BenchEvent, PlanRunResult } from '../core/bench/benchFlow';
import { planFromHistory, runPlan } from '../core/bench/benchFlow';
import type { BenchPlan, VariantSpec } from '../core/bench/plan';
import type { ReportHtmlOptions } from '../core/bench/reportHtml';
import { htmlReport } from '../core/bench/reportHtml';
import type { BenchPorts } from '../core/bench/runPair';
import type { Explanation } from '../core/bench/tasks';
import { validateSettings } from '../core/settings';
import type { Logger } from '../core/types';
import { explicitValues, SETTINGS_SECTION } from './common/settingKeys';
import { vscodeKeyPort, vscodeModelPort } from './modelProvider';
import type { ApiKeys } from './secrets';

export interface FolderBenchRequest {
  root: string;
  /** The folder's bench storage (the run storage's `bench/`). */
  storageDir: string;
  keys: ApiKeys;
  logger: Logger;
  variants: VariantSpec[];
  /** The newest N first-parent commits. */
  last: number;
  signal: AbortSignal;
  onEvent(e: BenchEvent): void;
  /** The plan's task ids, in order, once the commits are judged (the progress says "task i of n"). */
  onPlan?(taskIds: readonly string[]): void;
}

export type FolderBenchResult =
  | { ok: false; problems: string[] }
  | { ok: true; plan: BenchPlan; explanations: Explanation[]; run?: PlanRunResult; html(opts: ReportHtmlOptions): string };

function benchPorts(root: string, keys: ApiKeys, logger: Logger): BenchPorts {
  const uri = vscode.Uri.file(root);
  return {
    settings: (overrides) => {
      const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION, uri);
      const r = validateSettings({ ...explicitValues((key) => cfg.inspect(key)), ...overrides });
      return r.ok ? { ok: true, settings: r.settings } : { ok: false, problems: r.issues.map((i) => i.message) };
    },
    // The key rule as a run's: a model the folder's settings chose gets the user's key only once confirmed.
    keys: vscodeKeyPort(root, keys),
    model: (m, rung, _settings, withhold) => vscodeModelPort(root, keys, logger)(m, rung, withhold),
    logger,
  };
}

export async function benchFolder(req: FolderBenchRequest): Promise<FolderBenchResult> {
  const ports = benchPorts(req.root, req.keys, req.logger);
  // The bench-wide ceiling is the folder's own costCeiling when it sets one.
  const base = await ports.settings({});
  const ceiling = base.ok && base.settings.costCeiling > 0 ? base.settings.costCeiling : null;
  const planned = await planFromHistory({ root: req.root, storageDir: req.storageDir, ports, variants: req.variants, limits: {}, holdout: 'auto', costCeiling: ceiling, scan: { last: req.last }, signal: req.signal, onEvent: req.onEvent });
  if (!planned.ok) return planned;
  for (const e of planned.explanations) req.logger.info(`bench: ${e.kept ? 'kept' : 'dropped'} ${e.commit.slice(0, 10)} ${e.reason}: ${e.subject} — ${e.detail}`);
  const { plan } = planned;
  req.onPlan?.(plan.tasks.map((t) => t.id));
  if (req.signal.aborted || plan.tasks.length === 0) return { ok: true, plan, explanations: planned.explanations, html: (o) => htmlReport(plan, [], [], [], o) };
  const run = await runPlan({ root: req.root, storageDir: req.storageDir, ports, plan, signal: req.signal, onEvent: req.onEvent });
  for (const n of run.notes) req.logger.info(`bench: ${n}`);
  return { ok: true, plan, explanations: planned.explanations, run, html: (o) => htmlReport(plan, run.report.summaries, run.outcome.records, run.notes, o) };
}

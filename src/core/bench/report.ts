// Writes the report's files for a plan's records: bench.json (plan, summaries, records), summary.md,
// report.html; returns their paths so a front end can open them.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PairRecord } from './metrics';
import type { BenchPlan } from './plan';
import { htmlReport } from './reportHtml';
import type { VariantSummary } from './summary';
import { markdownSummary, summarize } from './summary';

export interface ReportFiles {
  dir: string;
  json: string;
  markdown: string;
  html: string;
  summaries: VariantSummary[];
}

export function writeReport(dir: string, plan: BenchPlan, records: readonly PairRecord[], notes: readonly string[] = []): ReportFiles {
  mkdirSync(dir, { recursive: true });
  const summaries = summarize(plan, records);
  const files = { dir, json: path.join(dir, 'bench.json'), markdown: path.join(dir, 'summary.md'), html: path.join(dir, 'report.html') };
  writeFileSync(files.json, `${JSON.stringify({ plan: { id: plan.id, createdAt: plan.createdAt, limits: plan.limits, holdout: plan.holdout, costCeiling: plan.costCeiling, variants: plan.variants, tasks: plan.tasks }, summaries, records, notes }, null, 2)}\n`);
  writeFileSync(files.markdown, markdownSummary(plan, summaries, records, notes));
  writeFileSync(files.html, htmlReport(plan, summaries, records, notes));
  return { ...files, summaries };
}

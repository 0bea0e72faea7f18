// Calibration of the model's CONFIDENCE against what the verifier later said, from run traces, so a
// user picks `escalateBelowConfidence` from evidence: for each confidence band, how often the run
// went on to green; for each threshold, how many runs escalating there would have cut short although
// they were going to go green (false escalations).
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { StopReason } from '../core/policy/reasons';
import type { RunReport, TimedEvent } from '../core/trace/events';
import { readTrace } from '../core/trace/trace';

/** Stops that say nothing about where the run was heading: they are left out of the evidence. */
export const CENSORED_STOPS: readonly StopReason[] = ['low-confidence', 'cancelled', 'error', 'preflight-failed'];

export interface RunSample {
  trace: string;
  runId: string;
  green: boolean;
  stopReason: StopReason;
  /** Each step's CONFIDENCE (null when unreadable), and whether that step's checks were green. */
  steps: { step: number; confidence: number | null; green: boolean }[];
}

export interface Band {
  from: number;
  to: number;
  steps: number;
  /** Steps in this band whose run went on to green (at that step or later). */
  wentGreen: number;
  rate: number | null;
}

export interface ThresholdRow {
  threshold: number;
  /** Runs that would have stopped with low-confidence at this threshold. */
  escalated: number;
  /** Of those, runs that in fact went green. */
  falseEscalations: number;
  /** falseEscalations / runs that went green. */
  falseRate: number;
}

export interface Calibration {
  runs: number;
  greenRuns: number;
  excluded: { trace: string; reason: string }[];
  stepsWithConfidence: number;
  bands: Band[];
  thresholds: ThresholdRow[];
  maxFalseRate: number;
  /** The highest threshold whose false-escalation rate stays within maxFalseRate; 0 means "leave it off". */
  recommended: number;
}

/** Every `trace.jsonl` named, or found under a named directory (a storage dir holds runs/<id>/trace.jsonl). */
export function findTraceFiles(args: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = path.join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (n === 'trace.jsonl') out.push(p);
    }
  };
  for (const a of args) {
    const abs = path.resolve(a);
    if (!existsSync(abs)) throw new Error(`${a} does not exist`);
    if (statSync(abs).isDirectory()) walk(abs);
    else out.push(abs);
  }
  return [...new Set(out)];
}

/** One run's confidence trail and where it ended, or why it cannot count. */
export function sampleOf(trace: string, events: readonly TimedEvent[]): RunSample | { excluded: string } {
  let end: RunReport | undefined;
  for (const e of events) if (e.type === 'run-end') end = e.report;
  if (!end) return { excluded: 'no run-end event (the run did not finish)' };
  if (CENSORED_STOPS.includes(end.stopReason)) return { excluded: `stopped with ${end.stopReason}, which does not show where the run was heading` };
  const green = end.stopReason === 'green';
  const lastStep = end.steps.at(-1)?.index;
  const steps = end.steps.map((s) => ({ step: s.index, confidence: s.confidence, green: green && s.index === lastStep }));
  return { trace, runId: end.runId, green, stopReason: end.stopReason, steps };
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

export function calibrate(samples: readonly RunSample[], opts: { maxFalseRate: number; bandWidth?: number; excluded?: Calibration['excluded'] }): Calibration {
  const width = opts.bandWidth ?? 0.1;
  const count = Math.round(1 / width);
  const bands: Band[] = Array.from({ length: count }, (_, i) => ({ from: round(i * width), to: round((i + 1) * width), steps: 0, wentGreen: 0, rate: null }));
  let withConfidence = 0;
  for (const r of samples) {
    for (const s of r.steps) {
      if (s.confidence === null) continue;
      withConfidence++;
      const b = bands[Math.min(count - 1, Math.floor(s.confidence / width + 1e-9))]!;
      b.steps++;
      if (r.green) b.wentGreen++;
    }
  }
  for (const b of bands) b.rate = b.steps > 0 ? b.wentGreen / b.steps : null;

  const greenRuns = samples.filter((r) => r.green).length;
  const thresholds: ThresholdRow[] = [];
  for (let i = 1; i < count * 2; i++) {
    const t = round((i * width) / 2);
    // The policy checks green before low-confidence: a green step never escalates.
    const escalatedRuns = samples.filter((r) => r.steps.some((s) => !s.green && s.confidence !== null && s.confidence < t));
    const falseEscalations = escalatedRuns.filter((r) => r.green).length;
    thresholds.push({ threshold: t, escalated: escalatedRuns.length, falseEscalations, falseRate: greenRuns > 0 ? falseEscalations / greenRuns : 0 });
  }
  let recommended = 0;
  for (const row of thresholds) if (row.falseRate <= opts.maxFalseRate && row.escalated > 0) recommended = row.threshold;
  return {
    runs: samples.length,
    greenRuns,
    excluded: opts.excluded ?? [],
    stepsWithConfidence: withConfidence,
    bands,
    thresholds,
    maxFalseRate: opts.maxFalseRate,
    recommended,
  };
}

/** Reads every trace; a trace that cannot be read is reported as excluded, never fatal. */
export function calibrateTraces(files: readonly string[], opts: { maxFalseRate: number; bandWidth?: number }): Calibration {
  const samples: RunSample[] = [];
  const excluded: Calibration['excluded'] = [];
  for (const f of files) {
    let events: TimedEvent[];
    try {
      events = readTrace(f);
    } catch (e) {
      excluded.push({ trace: f, reason: (e as Error).message });
      continue;
    }
    const s = sampleOf(f, events);
    if ('excluded' in s) excluded.push({ trace: f, reason: s.excluded });
    else samples.push(s);
  }
  return calibrate(samples, { ...opts, excluded });
}

// Where a step's engine time goes: wraps the engine's phases with timers on the bench's overhead run.
// `node --import tsx bench/profileStep.mts` prints the median ms per step of each phase.
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Checkpoint } from '../src/core/edit/checkpoint';
import { FsWorkspace } from '../src/core/edit/workspace';
import { Run } from '../src/core/loop/run';
import { ReplayProvider } from '../src/core/model/replay';
import { defaultSettings } from '../src/core/settings';
import { TraceWriter } from '../src/core/trace/trace';
import type { CheckSpec } from '../src/core/types';
import { Verifier } from '../src/core/verify/verifier';
import { diffOf, reply } from '../test/support/replies';

const totals = new Map<string, number>();
const calls = new Map<string, number[]>();
function wrap(proto: object, name: string, label: string): void {
  const p = proto as Record<string, (...a: unknown[]) => unknown>;
  const orig = p[name]!;
  p[name] = function (this: unknown, ...a: unknown[]) {
    const t = performance.now();
    const r = orig.apply(this, a);
    const done = (): void => {
      const d = performance.now() - t;
      totals.set(label, (totals.get(label) ?? 0) + d);
      calls.set(label, [...(calls.get(label) ?? []), d]);
    };
    if (r instanceof Promise) return r.finally(done);
    done();
    return r;
  };
}
wrap(Checkpoint.prototype, 'beginWrite', 'checkpoint.beginWrite');
wrap(Checkpoint.prototype, 'endWrite', 'checkpoint.endWrite');
wrap(FsWorkspace.prototype, 'apply', 'workspace.apply');
wrap(Verifier.prototype, 'verify', 'verify');
wrap(TraceWriter.prototype, 'write', 'trace.write');
for (const m of ['buildPrompt', 'measurePrompt', 'review', 'saveSnapshot', 'emit']) wrap(Run.prototype, m, `run.${m}`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'fug-prof-'));
for (let i = 0; i < 200; i++) {
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  writeFileSync(path.join(dir, 'src', `m${i}.ts`), `export interface R${i} { id: number; name: string }\n`.repeat(1) + `export const value${i} = { id: ${i}, name: 'm${i}' };\n` + Array.from({ length: 60 }, (_, j) => `export const h${i}_${j} = ${j};\n`).join(''));
}
const steps = 20;
const responses = Array.from({ length: steps }, (_, k) => {
  const rel = `src/m${k * 7}.ts`;
  const before = readFileSync(path.join(dir, rel), 'utf8');
  return { text: reply([diffOf(rel, before, before.replace(`name: 'm${k * 7}'`, `name: 'module ${k * 7}'`))]), usage: { input: 1000, output: 100 } };
});
const check: CheckSpec = { name: 'noop', command: 'false', parser: 'generic' };
const settings = { ...defaultSettings(), checks: [check], maxSteps: steps, stallThreshold: 1000, flakyReruns: 0 };
const run = new Run({
  workspace: new FsWorkspace(dir),
  verifier: new Verifier({ root: dir, checks: [check], parallel: true, outputLimitKb: 256, flakyReruns: 0 }),
  provider: new ReplayProvider({ responses }),
  settings,
  storageDir: path.join(dir, '..', path.basename(dir) + '-storage'),
  onEvent: (e) => {
    const at = performance.now();
    if (e.type === 'model-call' || e.type === 'verify') events.push({ type: `${e.type}-start`, step: e.step, at: at - (e.durationMs ?? 0) });
    if (e.type === 'model-call' || e.type === 'verify' || e.type === 'edit' || e.type === 'step-end') events.push({ type: e.type, step: e.step, at });
  },
});
const events: { type: string; step: number; at: number }[] = [];
const t0 = performance.now();
const report = await run.start();
const wall = performance.now() - t0;
console.log(`${report.steps.length} steps, ${report.stopReason}, ${(wall / steps).toFixed(2)} ms per step (incl. step 0)`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [k, v] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`${(v / steps).toFixed(2).padStart(8)} ms/step  median ${median(calls.get(k)!).toFixed(2).padStart(6)} ms/call  max ${Math.max(...calls.get(k)!).toFixed(1).padStart(6)}  ${k}`);
// Gaps between consecutive events, per kind of gap, over steps 2..N (step 1 warms up).
const gaps = new Map<string, number[]>();
for (let i = 1; i < events.length; i++) {
  const a = events[i - 1]!;
  const b = events[i]!;
  if (b.step < 2) continue;
  const k = `${a.type} → ${b.type}`;
  gaps.set(k, [...(gaps.get(k) ?? []), b.at - a.at]);
}
for (const [k, v] of gaps) console.log(`${median(v).toFixed(2).padStart(8)} ms median gap  ${k} (n=${v.length})`);
rmSync(dir, { recursive: true, force: true });
rmSync(path.join(dir, '..', path.basename(dir) + '-storage'), { recursive: true, force: true });

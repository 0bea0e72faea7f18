// The run's wall against the physical limit (issue 31): on projects shaped like the side-by-side
// scenarios (200 failing tests of one cause, 300 identical tsc errors, 3 failing tests; a tsc check
// and a Jest check; one wrong attempt, then the fix), a whole run with a scripted model that takes
// MODEL_MS a call, against the sum over its steps of the model's time and one run of each check the
// step needed (step 0 and each step: every check once, in parallel, from cold: no build info, no
// re-runs). Both sides are measured in the same run, on the same trees.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FsWorkspace } from '../src/core/edit/workspace';
import { Run } from '../src/core/loop/run';
import type { ModelProvider } from '../src/core/model/provider';
import { ReplayProvider } from '../src/core/model/replay';
import { defaultSettings } from '../src/core/settings';
import type { TimedEvent } from '../src/core/trace/events';
import type { CheckSpec, Completion, CompletionRequest } from '../src/core/types';
import { Verifier } from '../src/core/verify/verifier';
import { shapeFiles } from '../test/fixtures/verify/shapes';
import { diffOf, reply } from '../test/support/replies';

/** A scripted model's time per call: a fast model, so the checks are most of a step. */
export const MODEL_MS = 1000;
/** Typed modules that give tsc a program of real size (a cold check of a few seconds). */
const BULK_MODULES = 60;

export const LIMIT_CHECKS: CheckSpec[] = [
  { name: 'typecheck', command: 'tsc --noEmit -p .', parser: 'tsc' },
  { name: 'test', command: 'jest --ci', parser: 'jest' },
];

export interface Shape {
  id: string;
  name: string;
  files: Record<string, string>;
  /** Each step's edit: the file and its new text. Step 1 is wrong, step 2 is the fix. */
  steps: { file: string; text: string }[];
}

function bulk(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < BULK_MODULES; i++) {
    const dep = i > 0 ? `import { value${i - 1} } from './m${i - 1}';\n` : '';
    const base = i > 0 ? `value${i - 1}.total` : '0';
    const helpers = Array.from({ length: 10 }, (_, j) =>
      `export type Pick${i}_${j}<T> = { [K in keyof T as K extends string ? \`${j}_\${K}\` : never]: T[K] extends number ? T[K] | null : readonly T[K][] };\n` +
      `export function map${i}_${j}<T extends Record${i}, U>(xs: readonly T[], f: (x: T, i: number) => U): Map<number, U> {\n` +
      `  const out = new Map<number, U>();\n  xs.forEach((x, k) => out.set(x.id * ${j + 1} + k, f(x, k)));\n  return out;\n}\n`,
    ).join('\n');
    files[`src/lib/m${i}.ts`] = `${dep}export interface Record${i} {\n  id: number;\n  name: string;\n  total: number;\n}\n\nexport const value${i}: Record${i} = { id: ${i}, name: 'm${i}', total: ${base} + ${i} };\n\n${helpers}`;
  }
  return files;
}

function project(extra: Record<string, string>, cases: number): Record<string, string> {
  const files = { ...shapeFiles('jest', { cases }), ...bulk(), ...extra };
  files['tsconfig.json'] = JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', allowJs: true, checkJs: true, strict: true, noImplicitAny: false, noEmit: true, skipLibCheck: true, types: [] }, include: ['src/**/*'] }, null, 2);
  return files;
}

export function shapes(): Shape[] {
  const sumFile = (cases: number): string => shapeFiles('jest', { cases })['src/sum.js']!;
  const tests = (cases: number): Shape['steps'] => {
    const src = sumFile(cases);
    return [
      { file: 'src/sum.js', text: src.replace('return a + b * a;', 'return a + b + 1;') },
      { file: 'src/sum.js', text: src.replace('return a + b * a;', 'return a + b;') },
    ];
  };
  // 300 calls of a function whose parameter type is wrong: 300 identical errors (TS2345).
  const units = (param: string): string => `export function percent(x: ${param}): string {\n  return \`\${x} %\`;\n}\n`;
  const calls = `import { percent } from './units';\n\nexport const labels: string[] = [\n${Array.from({ length: 300 }, (_, i) => `  percent('${i}'),`).join('\n')}\n];\n`;
  const fixedSum = sumFile(3).replace('return a + b * a;', 'return a + b;');
  return [
    { id: 'tests-200', name: '200 failing tests of one cause', files: project({}, 200), steps: tests(200) },
    {
      id: 'tsc-300',
      name: '300 identical tsc errors',
      files: project({ 'src/units.ts': units('number'), 'src/labels.ts': calls, 'src/sum.js': fixedSum }, 3),
      steps: [
        { file: 'src/units.ts', text: units('boolean') },
        { file: 'src/units.ts', text: units('number | string') },
      ],
    },
    { id: 'tests-3', name: '3 failing tests', files: project({}, 3), steps: tests(3) },
  ];
}

function write(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

/** The replay model, taking `ms` a call as a model over a network would. */
class SlowModel implements ModelProvider {
  readonly label = 'replay (scripted, 1 s a call)';
  constructor(private readonly inner: ReplayProvider, private readonly ms: number) {}
  async complete(req: CompletionRequest): Promise<Completion> {
    await new Promise((r) => setTimeout(r, this.ms));
    return this.inner.complete(req);
  }
}

export interface CheckTiming {
  step: number;
  check: string;
  mode: string;
  ms: number;
  note: string;
}

export interface LimitRep {
  runMs: number;
  limitMs: number;
  modelMs: number;
  /** One cold run of every check, per tree (step 0, 1, 2). */
  onceMs: number[];
  /** Each verification's wall in the run, per step. */
  verifyMs: number[];
  checks: CheckTiming[];
}

/** One run of `shape` in `dir` (written fresh), then one cold run of every check on each of its trees in `limitDir`. */
export async function limitRep(shape: Shape, dir: string, limitDir: string, storage: string, limitFirst: boolean): Promise<LimitRep> {
  const measureLimit = async (): Promise<number[]> => {
    write(limitDir, shape.files);
    const once = async (): Promise<number> => {
      const t = performance.now();
      await new Verifier({ root: limitDir, checks: LIMIT_CHECKS, parallel: true, outputLimitKb: 1024, flakyReruns: 0 }).verify();
      return performance.now() - t;
    };
    const out = [await once()];
    for (const s of shape.steps) {
      writeFileSync(path.join(limitDir, s.file), s.text);
      out.push(await once());
    }
    return out;
  };
  const run = async (): Promise<Omit<LimitRep, 'limitMs' | 'onceMs'>> => {
    write(dir, shape.files);
    let cur: Record<string, string> = { ...shape.files };
    const responses = shape.steps.map((s, k) => {
      const text = reply([diffOf(s.file, cur[s.file]!, s.text)], { postMortem: k === 0 ? 'first guess at the cause' : 'the first guess was wrong' });
      cur = { ...cur, [s.file]: s.text };
      return { text, usage: { input: 2000, output: 200 } };
    });
    const settings = { ...defaultSettings(), checks: LIMIT_CHECKS };
    const events: TimedEvent[] = [];
    const r = new Run({
      workspace: new FsWorkspace(dir),
      verifier: new Verifier({ root: dir, checks: LIMIT_CHECKS, parallel: settings.parallelChecks, outputLimitKb: settings.outputLimitKb, flakyReruns: settings.flakyReruns, staged: settings.stagedChecks, storageDir: storage }),
      provider: new SlowModel(new ReplayProvider({ responses }), MODEL_MS),
      settings,
      storageDir: storage,
      onEvent: (e) => events.push(e),
    });
    const t = performance.now();
    const report = await r.start();
    const runMs = performance.now() - t;
    if (report.stopReason !== 'green' || report.steps.length !== shape.steps.length) throw new Error(`${shape.id}: ${report.stopReason} after ${report.steps.length} step(s): ${report.detail}`);
    const verifies = events.filter((e): e is Extract<TimedEvent, { type: 'verify' }> => e.type === 'verify');
    const modelMs = events.reduce((n, e) => n + (e.type === 'model-call' ? e.durationMs : 0), 0);
    const checks = verifies.flatMap((v) => v.checks.map((c) => ({ step: v.step, check: c.name, mode: c.mode ?? 'full', ms: c.durationMs, note: c.note ?? '' })));
    return { runMs, modelMs, verifyMs: verifies.map((v) => v.durationMs), checks };
  };
  let onceMs: number[];
  let ran: Awaited<ReturnType<typeof run>>;
  if (limitFirst) {
    onceMs = await measureLimit();
    ran = await run();
  } else {
    ran = await run();
    onceMs = await measureLimit();
  }
  return { ...ran, onceMs, limitMs: ran.modelMs + onceMs.reduce((a, b) => a + b, 0) };
}

/** The per-check timings of a rep, as one line: `s0 typecheck warm 5123 ms, …`. */
export function timingLine(r: LimitRep): string {
  return r.checks.map((c) => `s${c.step} ${c.check} ${c.mode}${/reused/.test(c.note) ? ' (reused by the gate)' : ''} ${Math.round(c.ms)} ms`).join(', ');
}

// `npm run bench`: every figure is a ratio or a count measured in this one run, on this machine,
// so shared-machine noise hits both sides of each comparison alike.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FsWorkspace } from '../src/core/edit/workspace';
import { Run } from '../src/core/loop/run';
import { ReplayProvider } from '../src/core/model/replay';
import { countTokens } from '../src/core/tokens';
import { defaultSettings } from '../src/core/settings';
import type { Settings } from '../src/core/settings';
import type { TimedEvent } from '../src/core/trace/events';
import type { CheckSpec, Failure, ParserId } from '../src/core/types';
import { buildStepContext } from '../src/core/model/context';
import { parseOutput, timedOutFailures } from '../src/core/verify/parsers/index';
import { formatFailureReport, parseCompactNumbers } from '../src/core/verify/report';
import { runCommand } from '../src/core/verify/runner';
import { Verifier } from '../src/core/verify/verifier';
import type { ShapeRunner } from '../test/fixtures/verify/shapes';
import { SHAPE_COMMANDS, writeShapeProject } from '../test/fixtures/verify/shapes';
import { diffOf, reply } from '../test/support/replies';
import { activationFigures } from './activation';
import { HISTORY_COMMITS, historyScanFigure } from './historyScan';
import type { OwnShape } from './ownCommands';
import { OWN_SHAPES, checkPassMs, ownCommandsMs, stopMs, stopWorkerOf, touchOneFile, warmWorker, writeOwnProject } from './ownCommands';
import { BUGS, STEP1_BREAKS, writeStagedProject } from './stagedProject';
import type { LimitRep } from './physicalLimit';
import { LIMIT_CHECKS, limitRep, MODEL_MS, shapes, timingLine } from './physicalLimit';

const REPO = path.resolve(import.meta.dirname, '..');
const JSON_OUT = process.argv.includes('--json');
const RECORD = process.argv.includes('--record');
const QUICK = process.argv.includes('--quick');
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const scratchRoot = mkdtempSync(path.join(os.tmpdir(), 'fug-bench-'));

interface Stat {
  median: number;
  min: number;
  max: number;
  n: number;
}

interface Figure {
  id: string;
  name: string;
  value: string;
  target: string;
  meets: boolean | null;
  data: Record<string, unknown>;
}

const figures: Figure[] = [];

function stat(xs: number[]): Stat {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, n: s.length };
}

function fmt(s: Stat, unit = '', digits = 2): string {
  const f = (x: number): string => x.toFixed(digits);
  return `${f(s.median)}${unit} (min ${f(s.min)}, max ${f(s.max)}, n=${s.n})`;
}

function log(msg: string): void {
  if (!JSON_OUT) process.stderr.write(`bench: ${msg}\n`);
}

function scratch(name: string): string {
  const dir = path.join(scratchRoot, name);
  mkdirSync(dir, { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

function settingsWith(over: Partial<Settings>): Settings {
  // Built directly rather than validated: the step-cap-only policies need limits past the bounds.
  return { ...defaultSettings(), ...over };
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

// A project of `n` modules that import each other in a chain, with a test file and lint config.
function tsProject(dir: string, n: number): void {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'bench', private: true, type: 'module' }),
    'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, include: ['src/**/*.ts'] }),
    'eslint.config.mjs': "import tseslint from 'typescript-eslint';\nexport default tseslint.config(...tseslint.configs.recommended);\n",
  };
  for (let i = 0; i < n; i++) {
    const dep = i > 0 ? `import { value${i - 1} } from './m${i - 1}.js';\n` : '';
    const base = i > 0 ? `value${i - 1}.total` : '0';
    // Enough typed code per module (generics, mapped and conditional types) that checking, not
    // parsing, is most of tsc's work, as in a real project.
    const helpers = Array.from({ length: 12 }, (_, j) =>
      `export type Pick${i}_${j}<T> = { [K in keyof T as K extends string ? \`${j}_\${K}\` : never]: T[K] extends number ? T[K] | null : readonly T[K][] };\n` +
      `export function map${i}_${j}<T extends Record${i}, U>(xs: readonly T[], f: (x: T, i: number) => U): Map<number, U> {\n` +
      `  const out = new Map<number, U>();\n  xs.forEach((x, k) => out.set(x.id * ${j + 1} + k, f(x, k)));\n  return out;\n}\n` +
      `export const table${i}_${j}: Pick${i}_${j}<Record${i}> = { '${j}_id': ${j}, '${j}_name': ['m${i}'], '${j}_total': null };\n`,
    ).join('\n');
    files[`src/m${i}.ts`] =
      `${dep}export interface Record${i} {\n  id: number;\n  name: string;\n  total: number;\n}\n\n` +
      `export const value${i}: Record${i} = { id: ${i}, name: 'm${i}', total: ${base} + ${i} };\n\n` +
      `export function describe${i}(r: Record${i}): string {\n  return \`\${r.name}#\${r.id}: \${r.total.toFixed(2)}\`;\n}\n\n` +
      helpers;
  }
  files['test/chain.test.mjs'] =
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n" +
    Array.from({ length: 40 }, (_, i) => `test('case ${i}', () => { assert.equal(${i} * 2, ${i * 2}); });`).join('\n') + '\n';
  writeFiles(dir, files);
}

// 1. Engine overhead per step: replay model, a no-op check, a 200-file project.
async function engineOverhead(): Promise<void> {
  log('1/7 engine overhead per step');
  const walls: number[] = [];
  const overheads: number[] = [];
  const shares: number[] = [];
  const reps = QUICK ? 1 : 3;
  for (let rep = 0; rep < reps; rep++) {
    const dir = scratch(`overhead-${rep}`);
    tsProject(dir, 200);
    const steps = 10;
    const responses = Array.from({ length: steps }, (_, k) => {
      const rel = `src/m${k * 7}.ts`;
      const before = readFileSync(path.join(dir, rel), 'utf8');
      return { text: reply([diffOf(rel, before, before.replace(`name: 'm${k * 7}'`, `name: 'module ${k * 7}'`))]), usage: { input: 1000, output: 100 } };
    });
    // A check that always fails the same way: the loop runs every step, the check costs ~nothing.
    const check: CheckSpec = { name: 'noop', command: 'false', parser: 'generic' };
    const settings = settingsWith({ checks: [check], maxSteps: steps, stallThreshold: 1000, flakyReruns: 0 });
    const marks: { type: string; at: number; durationMs?: number; step: number }[] = [];
    const run = new Run({
      workspace: new FsWorkspace(dir),
      // Staged as the settings say (on by default): a generic check runs in full every step either way.
      verifier: new Verifier({ root: dir, checks: [check], parallel: true, outputLimitKb: 256, flakyReruns: 0, staged: settings.stagedChecks }),
      provider: new ReplayProvider({ responses }),
      settings,
      storageDir: path.join(scratchRoot, `overhead-storage-${rep}`),
      onEvent: (e: TimedEvent) => {
        const at = performance.now();
        if (e.type === 'verify' || e.type === 'model-call') marks.push({ type: e.type, at, durationMs: e.durationMs, step: e.step });
        else if (e.type === 'step-end') marks.push({ type: e.type, at, step: e.step });
      },
    });
    const report = await run.start();
    if (report.steps.length !== steps) throw new Error(`overhead run stopped early: ${report.stopReason} ${report.detail}`);
    let prev = marks.find((m) => m.type === 'verify' && m.step === 0)!.at;
    for (let k = 1; k <= steps; k++) {
      const end = marks.find((m) => m.type === 'step-end' && m.step === k)!.at;
      const model = marks.find((m) => m.type === 'model-call' && m.step === k)?.durationMs ?? 0;
      const check = marks.filter((m) => m.type === 'verify' && m.step === k).reduce((n, m) => n + (m.durationMs ?? 0), 0);
      const wall = end - prev;
      const overhead = Math.max(0, wall - model - check);
      walls.push(wall);
      overheads.push(overhead);
      shares.push(overhead / wall);
      prev = end;
    }
  }
  const o = stat(overheads);
  const sh = stat(shares.map((x) => x * 100));
  figures.push({
    id: 'engine-overhead',
    name: 'Engine overhead per step (200 files, no-op check)',
    value: `${fmt(o, ' ms')}; ${fmt(sh, ' % of step wall', 1)}`,
    target: '≤ 5 ms and ≤ 2 %',
    meets: o.median <= 5 && sh.median <= 2,
    data: { overheadMs: o, sharePercent: sh, stepWallMs: stat(walls) },
  });
}

// 2. Parallel verify vs the slowest single check and the sequential sum.
async function parallelVerify(): Promise<void> {
  log('2/7 parallel verify');
  const dir = scratch('parallel');
  tsProject(dir, 80);
  const checks: CheckSpec[] = [
    { name: 'typecheck', command: 'tsc --noEmit -p .', parser: 'tsc' },
    { name: 'lint', command: 'eslint src', parser: 'eslint' },
    { name: 'test', command: 'node --test test/chain.test.mjs', parser: 'node-test' },
  ];
  const make = (cs: CheckSpec[], parallel: boolean): Verifier => new Verifier({ root: dir, checks: cs, parallel, outputLimitKb: 256, flakyReruns: 0 });
  const par: number[] = [];
  const seq: number[] = [];
  const slowest: number[] = [];
  const bound: number[] = [];
  const reps = QUICK ? 1 : 3;
  // As in a run: one verifier for every step, so step 0 has timed each check before the steps verify.
  const parallel = make(checks, true);
  await parallel.verify(); // also warms the file cache for every side alike
  for (let rep = 0; rep < reps; rep++) {
    const singles: number[] = [];
    const cpuBefore = childCpuSeconds();
    for (const c of checks) {
      const t = performance.now();
      const r = await make([c], true).verify();
      if (!r.green) throw new Error(`parallel fixture check ${c.name} failed: ${r.failures.map((f) => f.message).join('; ')}`);
      singles.push(performance.now() - t);
    }
    slowest.push(Math.max(...singles));
    // The physical limit: no schedule beats the slowest check, nor the checks' CPU time spread over every core.
    const cpu = childCpuSeconds() - cpuBefore;
    bound.push(Math.max(Math.max(...singles), Number.isFinite(cpu) ? (cpu * 1000) / os.availableParallelism() : 0));
    let t = performance.now();
    await make(checks, false).verify();
    seq.push(performance.now() - t);
    t = performance.now();
    await parallel.verify();
    par.push(performance.now() - t);
  }
  const ratio = stat(par.map((p, i) => p / slowest[i]!));
  const vsBound = stat(par.map((p, i) => p / bound[i]!));
  const vsSeq = stat(par.map((p, i) => p / seq[i]!));
  figures.push({
    id: 'parallel-verify',
    name: 'Parallel verify (tsc + ESLint + node:test)',
    value: `${fmt(ratio, '× slowest')}; ${fmt(vsBound, '× the physical limit (max of the slowest check and the checks\' CPU time over ' + os.availableParallelism() + ' cores)')}; ${fmt(vsSeq, '× sequential sum')}`,
    target: '≤ 1.15 × slowest',
    meets: ratio.median <= 1.15,
    data: { parallelMs: stat(par), slowestSingleMs: stat(slowest), sequentialMs: stat(seq), ratioToSlowest: ratio, ratioToSequential: vsSeq, ratioToPhysicalLimit: vsBound, physicalLimitMs: stat(bound), cores: os.availableParallelism() },
  });
}

// 3. The verifier's warm (incremental) tsc after a one-line edit vs a cold tsc.
async function incrementalTsc(): Promise<void> {
  log('3/7 incremental type check');
  const dir = scratch('incremental');
  tsProject(dir, 320);
  const check: CheckSpec = { name: 'typecheck', command: 'tsc --noEmit -p .', parser: 'tsc' };
  const storage = path.join(scratchRoot, 'incremental-storage');
  const v = new Verifier({ root: dir, checks: [check], parallel: true, outputLimitKb: 256, flakyReruns: 0, storageDir: storage });
  await v.verify(); // builds the incremental info
  const cold: number[] = [];
  const warm: number[] = [];
  const reps = QUICK ? 1 : 3;
  for (let rep = 0; rep < reps; rep++) {
    const rel = path.join(dir, `src/m${100 + rep}.ts`);
    writeFileSync(rel, readFileSync(rel, 'utf8').replace(/name: 'm(\d+)'/, `name: 'edited $1 ${rep}'`));
    let t = performance.now();
    const r = await v.verify();
    warm.push(performance.now() - t);
    if (!r.green) throw new Error('incremental fixture does not type-check');
    t = performance.now();
    const c = await runCommand({ command: 'tsc --noEmit -p .', cwd: dir, timeoutMs: 600_000, outputLimitBytes: 256 * 1024 });
    cold.push(performance.now() - t);
    if (c.exitCode !== 0) throw new Error(`cold tsc failed: ${c.output.slice(0, 500)}`);
  }
  const ratio = stat(warm.map((w, i) => w / cold[i]!));
  figures.push({
    id: 'incremental-tsc',
    name: 'Incremental type check (320 files, one-line edit)',
    value: `${fmt(ratio, '× cold')}`,
    target: '≤ 0.5 × cold',
    meets: ratio.median <= 0.5,
    data: { warmMs: stat(warm), coldMs: stat(cold), ratio },
  });
}

// 3b. The warm type checker (staged checks) after a one-line edit vs a cold tsc, same 320-file project.
async function warmTsc(): Promise<void> {
  log('warm type check (staged checks)');
  const dir = scratch('warm-tsc');
  tsProject(dir, 320);
  const check: CheckSpec = { name: 'typecheck', command: 'tsc --noEmit -p .', parser: 'tsc' };
  // A type error the steps leave alone: the warm check then answers the step (a passing one would be re-run in full).
  const m0 = path.join(dir, 'src/m0.ts');
  writeFileSync(m0, `${readFileSync(m0, 'utf8')}\nexport const broken: number = 'not a number';\n`);
  const v = new Verifier({ root: dir, checks: [check], parallel: true, outputLimitKb: 256, flakyReruns: 0, staged: true, storageDir: path.join(scratchRoot, 'warm-tsc-storage') });
  const cold: number[] = [];
  const warm: number[] = [];
  const build: number[] = [];
  try {
    let prev = await v.verify(undefined, { previous: null });
    let t = performance.now();
    await v.warm(); // as a run does while the model thinks
    build.push(performance.now() - t);
    for (let rep = 0; rep < (QUICK ? 1 : 3); rep++) {
      const rel = `src/m${100 + rep}.ts`;
      const file = path.join(dir, rel);
      writeFileSync(file, readFileSync(file, 'utf8').replace(/name: 'm(\d+)'/, `name: 'edited $1 ${rep}'`));
      t = performance.now();
      const r = await v.verify(undefined, { previous: prev, changed: [rel] });
      warm.push(performance.now() - t);
      if (r.checks[0]!.mode !== 'warm' || r.failures.length !== 1 || r.failureHash !== prev.failureHash) throw new Error(`warm check: mode ${r.checks[0]!.mode}, ${r.failures.length} failure(s)`);
      prev = r;
      t = performance.now();
      const c = await runCommand({ command: 'tsc --noEmit -p .', cwd: dir, timeoutMs: 600_000, outputLimitBytes: 256 * 1024 });
      cold.push(performance.now() - t);
      if (!c.output.includes('TS2322')) throw new Error(`cold tsc did not report the type error: ${c.output.slice(0, 500)}`);
    }
  } finally {
    await v.release();
  }
  const ratio = stat(warm.map((w, i) => w / cold[i]!));
  figures.push({
    id: 'warm-tsc',
    name: 'Warm type check (staged checks; 320 files, one-line edit)',
    value: `${fmt(ratio, '× cold tsc')}; warm ${fmt(stat(warm), ' ms', 0)}, cold ${fmt(stat(cold), ' ms', 0)}; the program's first build (during the model call) ${fmt(stat(build), ' ms', 0)}`,
    target: '≤ 0.1 × cold tsc',
    meets: ratio.median <= 0.1,
    data: { warmMs: stat(warm), coldMs: stat(cold), buildMs: stat(build), ratio },
  });
}

// 3c. Staged checks on a real-shaped project (161 sources, 320 Jest tests in 32 files, tsc + ESLint +
// Jest): a non-final one-file step vs a full cold verify of the same tree, the final gate, and what
// confirming the changed tests costs (flakyReruns 1 vs 0 on the same steps).
const STAGED_CHECKS: CheckSpec[] = [
  { name: 'typecheck', command: 'tsc --noEmit -p .', parser: 'tsc' },
  { name: 'lint', command: 'eslint --format json .', parser: 'eslint' },
  { name: 'test', command: 'npx jest', parser: 'jest' },
];

interface StagedRep {
  /** Staged, flakyReruns 1: step 1 (non-final) and step 2 (the green gate). */
  nonFinal: number;
  finalGate: number;
  /** The same steps with flakyReruns 0: what confirming the changed tests adds. */
  nonFinalNoReruns: number;
  finalGateNoReruns: number;
  /** Today's full verify of the same steps (staging off, flakyReruns 1, incremental tsc). */
  todayNonFinal: number;
  todayFinal: number;
  /** Every check in full from cold (no build info, no re-runs), on step 1's tree. */
  fullCold: number;
  modes: string;
  reruns: string;
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const r = await f();
  return [r, performance.now() - t];
}

/**
 * One pass over the two-bug project. Three verifiers check the same trees, interleaved step by step
 * so load on a shared machine hits them alike: staged with flakyReruns 1, staged with 0, and today's
 * full verify.
 */
async function stagedPass(name: string): Promise<StagedRep> {
  const dir = scratch(name);
  writeStagedProject(dir);
  const make = (staged: boolean, flakyReruns: number, id: string): Verifier => new Verifier({ root: dir, checks: STAGED_CHECKS, parallel: true, outputLimitKb: 256, flakyReruns, staged, storageDir: path.join(scratchRoot, `${name}-${id}`) });
  const all = { s1: make(true, 1, 's1'), s0: make(true, 0, 's0'), today: make(false, 1, 'today') };
  const edit = (rel: string, from: string, to: string): void => writeFileSync(path.join(dir, rel), readFileSync(path.join(dir, rel), 'utf8').replace(from, to));
  try {
    const v0 = { s1: await all.s1.verify(undefined, { previous: null }), s0: await all.s0.verify(undefined, { previous: null }), today: await all.today.verify(undefined, { previous: null }) };
    if (v0.s1.failures.length === 0) throw new Error('the staged project starts green');
    await Promise.all([all.s1.warm(), all.s0.warm()]); // as a run does while the model thinks
    edit(BUGS[0].file, BUGS[0].wrong, BUGS[0].right);
    edit(BUGS[0].file, STEP1_BREAKS.from, STEP1_BREAKS.to);
    const step1 = [BUGS[0].file];
    const [a1, nonFinal] = await timed(() => all.s1.verify(undefined, { previous: v0.s1, changed: step1 }));
    const [b1, nonFinalNoReruns] = await timed(() => all.s0.verify(undefined, { previous: v0.s0, changed: step1 }));
    const [t1, todayNonFinal] = await timed(() => all.today.verify(undefined, { previous: v0.today }));
    const [, fullCold] = await timed(() => new Verifier({ root: dir, checks: STAGED_CHECKS, parallel: true, outputLimitKb: 256, flakyReruns: 0 }).verify());
    if (a1.green || a1.failureHash !== t1.failureHash) throw new Error('step 1: the staged state should be the full one, not green');
    edit(BUGS[1].file, BUGS[1].wrong, BUGS[1].right);
    edit(BUGS[0].file, STEP1_BREAKS.to, STEP1_BREAKS.from);
    const step2 = [BUGS[1].file, BUGS[0].file];
    const [a2, finalGate] = await timed(() => all.s1.verify(undefined, { previous: a1, changed: step2 }));
    const [, finalGateNoReruns] = await timed(() => all.s0.verify(undefined, { previous: b1, changed: step2 }));
    const [, todayFinal] = await timed(() => all.today.verify(undefined, { previous: t1 }));
    if (!a2.green) throw new Error(`step 2 is not green: ${a2.failures.map((f) => f.id).join('; ')}`);
    const modes = a1.checks.map((c) => `${c.name} ${c.mode}`).join(', ');
    const reruns = `step 1 test processes ${a1.checks[2]!.runs} (${a1.checks[2]!.stagedNote?.split('; ').at(-1) ?? ''}), gate ${a2.checks[2]!.runs}`;
    return { nonFinal, finalGate, nonFinalNoReruns, finalGateNoReruns, todayNonFinal, todayFinal, fullCold, modes, reruns };
  } finally {
    await Promise.all(Object.values(all).map((v) => v.release()));
  }
}

async function stagedVerify(): Promise<void> {
  log('staged checks on a real-shaped project');
  const reps: StagedRep[] = [];
  for (let rep = 0; rep < (QUICK ? 1 : 3); rep++) reps.push(await stagedPass(`staged-${rep}`));
  const shape = writeStagedProject(scratch('staged-shape'));
  const ratio = (f: (r: StagedRep) => number): Stat => stat(reps.map(f));
  const step = ratio((r) => r.nonFinal / r.fullCold);
  const gate = ratio((r) => r.finalGate / r.fullCold);
  const gateVsToday = ratio((r) => r.finalGate / r.todayFinal);
  const stepVsToday = ratio((r) => r.nonFinal / r.todayNonFinal);
  const flakeStep = ratio((r) => (r.nonFinal / r.nonFinalNoReruns - 1) * 100);
  const flakeGate = ratio((r) => (r.finalGate / r.finalGateNoReruns - 1) * 100);
  const ms = (f: (r: StagedRep) => number): Stat => ratio(f);
  figures.push({
    id: 'staged-verify',
    name: `Staged checks (${shape.sources} sources, ${shape.tests} Jest tests in ${shape.testFiles} files; tsc + ESLint + Jest; one-file edit)`,
    value: `non-final step ${fmt(step, '× full cold verify')} (${reps[0]!.modes}), ${fmt(stepVsToday, '× today\'s step verify')}; final gate ${fmt(gate, '× full cold verify')}, ${fmt(gateVsToday, '× today\'s final step')}; full cold verify ${fmt(ms((r) => r.fullCold), ' ms', 0)}`,
    target: '≤ 0.25 × full cold verify per non-final step; final gate no slower than today',
    meets: step.median <= 0.25 && gateVsToday.median <= 1,
    data: { nonFinalMs: ms((r) => r.nonFinal), finalGateMs: ms((r) => r.finalGate), fullColdMs: ms((r) => r.fullCold), todayNonFinalMs: ms((r) => r.todayNonFinal), todayFinalMs: ms((r) => r.todayFinal), stepRatio: step, gateRatio: gate, gateVsToday, stepVsToday, shape },
  });
  figures.push({
    id: 'staged-flake-confirmation',
    name: 'Flake confirmation, targeted (flakyReruns 1 vs 0 on the same trees)',
    value: `adds ${fmt(flakeStep, ' %', 1)} to the non-final step (its newly failing test retried in the same Jest run) and ${fmt(flakeGate, ' %', 1)} to the final gate (the fixed tests passed in the staged and the full run: no re-run); ${reps[0]!.reruns}`,
    target: '≤ 10 % of a step\'s verify wall',
    meets: flakeStep.median <= 10 && flakeGate.median <= 10,
    data: { addedPercentNonFinal: flakeStep, addedPercentGate: flakeGate, nonFinalMs: ms((r) => r.nonFinal), nonFinalNoRerunsMs: ms((r) => r.nonFinalNoReruns), finalGateMs: ms((r) => r.finalGate), finalGateNoRerunsMs: ms((r) => r.finalGateNoReruns) },
  });
}

// 3d. A whole run's wall against the physical limit (./physicalLimit): per step the model's time
// plus one cold run of each check, on projects shaped like the side-by-side scenarios.
async function physicalLimit(): Promise<void> {
  log('run wall vs the physical limit');
  const rows: { shape: string; ratio: Stat; reps: LimitRep[] }[] = [];
  const reps = QUICK ? 1 : 3;
  for (const shape of shapes()) {
    const done: LimitRep[] = [];
    for (let rep = 0; rep < reps; rep++) {
      // Which side goes first alternates, so a drift in the machine's load hits both alike.
      const r = await limitRep(shape, scratch(`limit-${shape.id}-${rep}`), scratch(`limit-${shape.id}-${rep}-once`), path.join(scratchRoot, `limit-${shape.id}-${rep}-storage`), rep % 2 === 1);
      log(`  ${shape.id} rep ${rep}: run ${Math.round(r.runMs)} ms, limit ${Math.round(r.limitMs)} ms (model ${Math.round(r.modelMs)} ms; one run of the checks ${r.onceMs.map((x) => Math.round(x)).join(' + ')} ms) = ${(r.runMs / r.limitMs).toFixed(2)}x; ${timingLine(r)}`);
      done.push(r);
    }
    rows.push({ shape: shape.name, ratio: stat(done.map((r) => r.runMs / r.limitMs)), reps: done });
  }
  const worst = Math.max(...rows.map((r) => r.ratio.median));
  figures.push({
    id: 'physical-limit',
    name: `Run wall vs the physical limit (tsc + Jest; one wrong step, then the fix; model ${MODEL_MS} ms a call)`,
    value: rows.map((r) => `${r.shape}: ${fmt(r.ratio, '×')}, run ${fmt(stat(r.reps.map((x) => x.runMs)), ' ms', 0)} vs limit ${fmt(stat(r.reps.map((x) => x.limitMs)), ' ms', 0)}`).join('; '),
    target: '≤ 1.1× the physical limit on each shape',
    meets: worst <= 1.1,
    data: { checks: LIMIT_CHECKS, modelMs: MODEL_MS, rows: rows.map((r) => ({ shape: r.shape, ratio: r.ratio, reps: r.reps.map((x) => ({ ...x, timings: timingLine(x) })) })) },
  });
}

// 3e. The gate at the price of the project's own commands (./ownCommands, issue 39): a `check` pass,
// a hook session's first Stop and a Stop after a one-file edit (the worker warm), each against the
// project's own commands run once directly, failures present and absent.
async function ownCommands(): Promise<void> {
  log("check pass and hook stops vs the project's own commands");
  const cli = path.join(REPO, 'dist', 'cli.js');
  const reps = QUICK ? 1 : 2;
  const rows: { shape: OwnShape; failing: boolean; check: number[]; first: number[]; warm: number[]; own: number[] }[] = [];
  for (const shape of OWN_SHAPES) {
    for (const failing of [true, false]) {
      const row = { shape, failing, check: [] as number[], first: [] as number[], warm: [] as number[], own: [] as number[] };
      for (let rep = 0; rep < reps; rep++) {
        const tag = `own-${shape}-${failing ? 'red' : 'green'}-${rep}`;
        const dir = scratch(tag);
        writeOwnProject(dir, failing, shape);
        const storage = path.join(scratchRoot, `${tag}-storage`);
        ownCommandsMs(dir); // the tools' first start (disk cache) is paid by neither side
        const own = ownCommandsMs(dir);
        const check = checkPassMs(cli, dir, path.join(storage, 'check'));
        const first = stopMs(cli, dir, path.join(storage, 'hook'));
        // The agent's turn: the worker builds its type checker again meanwhile (untimed, as in a session).
        const turn = await warmWorker(path.join(storage, 'hook'), 60_000);
        touchOneFile(cli, dir, path.join(storage, 'hook'), rep, shape);
        const ownAfter = ownCommandsMs(dir);
        const warm = stopMs(cli, dir, path.join(storage, 'hook'));
        stopWorkerOf(cli, dir, path.join(storage, 'hook'));
        log(`  ${shape} ${failing ? 'failing' : 'green'} rep ${rep}: own ${Math.round(own)} ms (after the edit ${Math.round(ownAfter)} ms); check ${Math.round(check.ms)} ms (green ${check.green}); first Stop ${Math.round(first.ms)} ms (worker ${first.byWorker}); Stop after an edit ${Math.round(warm.ms)} ms (worker ${warm.byWorker}; warm again ${Math.round(turn)} ms into the agent's turn) ${warm.answer}`);
        row.own.push(own);
        row.check.push(check.ms / own);
        row.first.push(first.ms / own);
        row.warm.push(warm.ms / ownAfter);
      }
      rows.push(row);
    }
  }
  const line = (r: (typeof rows)[number]): string => `${r.shape}, ${r.failing ? 'failures present' : 'green'}: check ${fmt(stat(r.check), '×')}, first Stop ${fmt(stat(r.first), '×')}, Stop after a one-file edit ${fmt(stat(r.warm), '×')} (own commands ${fmt(stat(r.own), ' ms', 0)})`;
  figures.push({
    id: 'own-commands',
    name: "Check pass and hook stops vs the project's own commands run once (node: chained `eslint && node --test`, ESLint, tsc; vitest: `npm run lint && vitest run --typecheck`, ESLint then Prettier, tsc; coverage: `jest --coverage`, Prettier on globs, tsc)",
    value: rows.map(line).join('; '),
    target: 'check and first Stop ≤ 1.1×; a Stop after a one-file edit ≤ 0.4×',
    meets: rows.every((r) => stat(r.check).median <= 1.1 && stat(r.first).median <= 1.1 && stat(r.warm).median <= 0.4),
    data: { rows },
  });
}

// 4. Tokens of the failure report vs the raw outputs: over the parser fixtures' captured outputs
// (every tool and format, as the model would otherwise be fed them, with failures of one shape,
// timeouts and killed hung runs), over live runs of the fixture projects where the report also
// carries the source lines around each failure, and the whole next prompt for 200 failures of one
// shape in one test file, on each real runner.

/** What the report's fold lines cover: `lines 16, 19, …, 604 of file` and `ids: t # for # = 4–200` / `ids: a; b`. */
function foldedCoverage(report: string): { lines: Set<string>; ids: Set<string> } {
  const lines = new Set<string>();
  const ids = new Set<string>();
  for (const m of report.matchAll(/of this shape: lines? ([\d,\s…–]+) of (\S+)/g)) for (const n of parseCompactNumbers(m[1]!)) lines.add(`${m[2]}:${n}`);
  for (const m of report.matchAll(/^ {4}ids: (.*)$/gm)) {
    const pattern = / for # = ([\d,\s…–]+)$/.exec(m[1]!);
    if (pattern) for (const n of parseCompactNumbers(pattern[1]!)) ids.add(m[1]!.slice(0, pattern.index).replace('#', String(n)));
    else for (const id of m[1]!.split('; ')) ids.add(id);
  }
  return { lines, ids };
}

/** Failures whose place (file and line) and title the report still tells, in full or in a fold line. */
function located(failures: readonly Failure[], report: string): { locations: number; kept: number } {
  const withLoc = failures.filter((f) => f.file && f.line !== undefined);
  const folded = foldedCoverage(report);
  const kept = withLoc.filter((f) => (report.includes(`${f.file}:${f.line}`) || folded.lines.has(`${f.file}:${f.line}`)) && (!f.id || report.includes(f.id) || folded.ids.has(f.id)));
  return { locations: withLoc.length, kept: kept.length };
}

// Failures of a whole check, not of a test. A `timeout` is not among them: a hung run that names no test is a miss.
const CHECK_LEVEL = new Set(['exit', 'bail-out', 'spawn']);

async function compactness(): Promise<void> {
  log('4/7 feedback compactness');
  const fixturesDir = path.join(REPO, 'test', 'fixtures', 'verify');
  const outDir = path.join(fixturesDir, 'outputs');
  const index = JSON.parse(readFileSync(path.join(outDir, 'index.json'), 'utf8')) as { name: string; file: string; fixture: string; parser: ParserId; root: string; exitCode: number | null; timedOut?: boolean }[];
  const captured = index.map((c) => {
    const raw = readFileSync(path.join(outDir, c.file), 'utf8');
    // The captured root is gone; its files are the fixture's.
    const readText = (rel: string): string | undefined => {
      try {
        return readFileSync(path.join(fixturesDir, c.fixture, rel), 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    };
    const listFiles = (): string[] => (readdirSync(path.join(fixturesDir, c.fixture), { recursive: true }) as string[]).map((f) => f.split(path.sep).join('/'));
    const ctx = { check: c.parser, root: c.root, cwd: c.root, exitCode: c.exitCode, readText, listFiles };
    // A killed hung run is read as the verifier reads one: what failed before, and the tests still running.
    const failures = c.timedOut ? timedOutFailures(c.parser, raw, ctx, `${c.parser} did not finish within its timeout and was stopped`) : parseOutput(c.parser, raw, ctx);
    const report = formatFailureReport(failures, { root: c.root });
    const tests = c.parser !== 'tsc' && c.parser !== 'eslint' && c.parser !== 'generic' ? failures.filter((f) => !CHECK_LEVEL.has(f.id ?? '')) : [];
    return {
      name: c.name,
      failures: failures.length,
      rawTokens: countTokens(raw),
      reportTokens: countTokens(report),
      ...located(failures, report),
      testFailures: tests.length,
      testFailuresWithLine: tests.filter((f) => f.file !== undefined && f.line !== undefined).length,
      timeoutsOrHangs: failures.filter((f) => /time(?:d)? ?out|Timeout of|Exceeded timeout|did not finish/i.test(f.message)).length,
    };
  });
  const fixtures: { name: string; checks: CheckSpec[] }[] = [
    { name: 'tsc', checks: [{ name: 'tsc', command: 'tsc --noEmit -p .', parser: 'tsc' }] },
    { name: 'eslint', checks: [{ name: 'eslint', command: 'eslint src', parser: 'eslint' }] },
    { name: 'mocha', checks: [{ name: 'mocha', command: 'mocha', parser: 'mocha' }] },
    { name: 'jest', checks: [{ name: 'jest', command: 'jest --ci', parser: 'jest' }] },
    { name: 'vitest', checks: [{ name: 'vitest', command: 'vitest run', parser: 'vitest' }] },
    { name: 'node-test', checks: [{ name: 'node-test', command: 'node --test test/', parser: 'node-test' }] },
  ];
  const readIn = (dir: string) => (rel: string): string | undefined => {
    try {
      return readFileSync(path.join(dir, rel), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  };
  const live: Record<string, number | string>[] = [];
  for (const fx of fixtures) {
    const dir = scratch(`compact-${fx.name}`);
    cpSync(path.join(fixturesDir, fx.name), dir, { recursive: true });
    const v = new Verifier({ root: dir, checks: fx.checks, parallel: true, outputLimitKb: 1024, flakyReruns: 0 });
    const r = await v.verify();
    const raw = r.checks.map((c) => c.output).join('\n');
    const report = formatFailureReport(r.failures, { root: dir, readText: readIn(dir) });
    live.push({ name: fx.name, failures: r.failures.length, rawTokens: countTokens(raw), reportTokens: countTokens(report), ...located(r.failures, report) });
  }
  // 200 failing tests of one sum() bug in one test file, on each real runner: the whole next prompt.
  const shape: Record<string, number | string | boolean>[] = [];
  for (const runner of ['node-test', 'mocha', 'jest', 'vitest'] as ShapeRunner[]) {
    const dir = scratch(`shape-${runner}`);
    writeShapeProject(dir, runner, { cases: 200 });
    const r = await new Verifier({ root: dir, checks: [{ name: 'test', command: SHAPE_COMMANDS[runner] }], parallel: true, outputLimitKb: 1024, flakyReruns: 0 }).verify();
    const read = readIn(dir);
    const report = formatFailureReport(r.failures, { root: dir, readText: read });
    const ctx = await buildStepContext({ step: 1, settings: settingsWith({}), failures: r.failures, root: dir, editedFiles: [], postMortems: [], readText: async (rel) => read(rel) });
    const promptTokens = countTokens(ctx.system) + countTokens(ctx.user);
    // Names the file, the assertion line (the first representative's) and the count of the rest.
    const first = r.failures.find((f) => f.id?.endsWith('adds case 1'));
    const names = first !== undefined && ctx.user.includes(`${first.file}:${first.line}`) && /… and 197 more failure\(s\) of this shape: lines [^\n]* of test\/sum\.test\.js/.test(ctx.user);
    shape.push({ runner, failures: r.failures.length, rawTokens: countTokens(r.checks[0]!.output), reportTokens: countTokens(report), promptTokens, userTokens: countTokens(ctx.user), files: ctx.files.join(' '), namesFileLineCount: names, ...located(r.failures, report) });
  }
  const sum = (rows: Record<string, unknown>[], k: string): number => rows.reduce((n, r) => n + (r[k] as number), 0);
  const cRatio = sum(captured, 'reportTokens') / sum(captured, 'rawTokens');
  const cShare = sum(captured, 'kept') / Math.max(1, sum(captured, 'locations'));
  const recall = sum(captured, 'testFailuresWithLine') / Math.max(1, sum(captured, 'testFailures'));
  const lRatio = sum(live, 'reportTokens') / sum(live, 'rawTokens');
  const lShare = sum(live, 'kept') / Math.max(1, sum(live, 'locations'));
  const shapeMax = Math.max(...shape.map((r) => r.promptTokens as number));
  const shapeNames = shape.every((r) => r.namesFileLineCount === true && r.failures === 200);
  const sShare = sum(shape, 'kept') / Math.max(1, sum(shape, 'locations'));
  figures.push({
    id: 'feedback-compactness',
    name: 'Feedback compactness (report vs raw output)',
    value:
      `200 failures of one shape in one test file: next prompt (system + user) ≤ ${shapeMax} tokens on node:test, mocha, Jest, Vitest (${shape.map((r) => `${r.runner} ${r.promptTokens}`).join(', ')}), file, assertion line and count named: ${shapeNames ? 'yes' : 'NO'}, ${(sShare * 100).toFixed(1)} % of ${sum(shape, 'locations')} locations kept; ` +
      `captured outputs (${captured.length}): ${(cRatio * 100).toFixed(1)} % of ${sum(captured, 'rawTokens')} raw tokens, ${(cShare * 100).toFixed(1)} % of ${sum(captured, 'locations')} locations kept; ` +
      `location recall ${(recall * 100).toFixed(1)} % of ${sum(captured, 'testFailures')} parsed test failures (${sum(captured, 'timeoutsOrHangs')} timeouts or hangs); ` +
      `live runs with source lines (${live.length}): ${(lRatio * 100).toFixed(1)} % of ${sum(live, 'rawTokens')}, ${(lShare * 100).toFixed(1)} % of ${sum(live, 'locations')} locations`,
    target: '200 of one shape ≤ 3k tokens naming file, line, count; ≤ 20 % of raw tokens, 100 % of locations; location recall ≥ 99 %',
    meets: cRatio <= 0.2 && cShare === 1 && lShare === 1 && recall >= 0.99 && shapeMax <= 3000 && shapeNames && sShare === 1,
    data: { shape, captured, live, capturedRatio: cRatio, liveRatio: lRatio, capturedLocationsKept: cShare, liveLocationsKept: lShare, locationRecall: recall, shapePromptTokensMax: shapeMax },
  });
}

// 5. Tokens and steps before stopping when the model never progresses.
async function stuckRunCost(): Promise<void> {
  log('5/7 stuck-run cost');
  const policies: { name: string; over: Partial<Settings> }[] = [
    { name: 'default policy', over: {} },
    { name: 'step cap 8 only', over: { maxSteps: 8, stallThreshold: Number.MAX_SAFE_INTEGER } },
    { name: 'step cap 50 only (Copilot default)', over: { maxSteps: 50, stallThreshold: Number.MAX_SAFE_INTEGER } },
  ];
  const rows: { policy: string; stopReason: string; steps: number; tokens: number }[] = [];
  for (const p of policies) {
    const dir = scratch(`stuck-${rows.length}`);
    const src = "export function add(a, b) {\n  return a - b;\n}\n";
    writeFiles(dir, {
      'package.json': JSON.stringify({ name: 'stuck', private: true, type: 'module' }),
      'src/add.js': src,
      'check.mjs': "import assert from 'node:assert/strict';\nimport { add } from './src/add.js';\nassert.equal(add(2, 3), 5);\n",
    });
    // Every reply rewrites a comment: the edit applies, the failure never changes.
    let cur = src;
    const responses = Array.from({ length: 60 }, (_, k) => {
      const next = `// attempt ${k + 1}: maybe the sign\n` + src;
      const text = reply([diffOf('src/add.js', cur, next)], { postMortem: `attempt ${k} did not change the failure` });
      cur = next;
      return { text };
    });
    const check: CheckSpec = { name: 'test', command: 'node check.mjs', parser: 'generic' };
    const settings = settingsWith({ checks: [check], flakyReruns: 0, ...p.over });
    const run = new Run({
      workspace: new FsWorkspace(dir),
      // Staged as the settings say (on by default): a generic check runs in full every step either way.
      verifier: new Verifier({ root: dir, checks: [check], parallel: true, outputLimitKb: 256, flakyReruns: 0, staged: settings.stagedChecks }),
      provider: new ReplayProvider({ responses }),
      settings,
      storageDir: path.join(scratchRoot, `stuck-storage-${rows.length}`),
    });
    const r = await run.start();
    rows.push({ policy: p.name, stopReason: r.stopReason, steps: r.steps.length, tokens: r.tokensUsed });
  }
  const [def, cap8, cap50] = rows as [typeof rows[0], typeof rows[0], typeof rows[0]];
  const save8 = 1 - def.tokens / cap8.tokens;
  const save50 = 1 - def.tokens / cap50.tokens;
  figures.push({
    id: 'stuck-run-cost',
    name: 'Stuck-run cost (model never progresses)',
    value: `default: ${def.stopReason} after ${def.steps} steps, ${def.tokens} tok; cap 8: ${cap8.steps} steps, ${cap8.tokens} tok; cap 50: ${cap50.steps} steps, ${cap50.tokens} tok; saves ${(save8 * 100).toFixed(0)} % vs cap 8, ${(save50 * 100).toFixed(0)} % vs cap 50`,
    target: 'report the savings',
    meets: def.tokens < cap8.tokens,
    data: { rows, savingsVsCap8: save8, savingsVsCap50: save50 },
  });
}

// 6. The extension's shell against today's single bundle (BASELINE_REF, built in the same run): size,
// activation with a recording `vscode` stub, the first engine load, the CLI's start, the .vsix.
/** The last commit before the shell split (issue 16): "today's bundle" the ratios compare against. */
const BASELINE_REF = '39a8725';

/** Production bundles of `ref`'s sources (or of the working tree), in a scratch folder of their own. */
function productionBuild(name: string, ref?: string): string {
  const dir = scratch(name);
  if (ref) {
    const files = ['src', 'scripts', 'media', 'esbuild.mjs', 'package.json', 'tsconfig.json'];
    const tar = spawnSync('sh', ['-c', `git -C "${REPO}" archive ${ref} ${files.join(' ')} | tar -x -C "${dir}"`], { encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`git archive ${ref} failed: ${tar.stderr}`);
  } else {
    for (const f of ['src', 'scripts', 'media', 'esbuild.mjs', 'package.json', 'tsconfig.json']) cpSync(path.join(REPO, f), path.join(dir, f), { recursive: true });
  }
  const b = spawnSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: dir, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`production build of ${ref ?? 'the working tree'} failed: ${b.stderr}`);
  return path.join(dir, 'dist');
}

function dirBytes(dir: string, names: string[]): number {
  return names.reduce((n, f) => n + statSync(path.join(dir, f)).size, 0);
}

async function extensionFigures(): Promise<void> {
  log('6/7 extension shell, engine load, CLI start, .vsix');
  const ours = productionBuild('shell');
  const base = productionBuild('baseline', BASELINE_REF);
  const shellBytes = statSync(path.join(ours, 'extension.js')).size;
  const baseBytes = statSync(path.join(base, 'extension.js')).size;
  // Interleaved, one load each in turn, so the machine's load at any moment hits both alike.
  const shellMs: number[] = [];
  const baseMs: number[] = [];
  let loaded: string[] = [];
  let commands = 0;
  for (let i = 0; i < (QUICK ? 8 : 20); i++) {
    const a = await activationFigures(path.join(ours, 'extension.js'), 1);
    shellMs.push(...a.timesMs);
    loaded = a.siblingsLoaded;
    commands = a.commands;
    baseMs.push(...(await activationFigures(path.join(base, 'extension.js'), 1)).timesMs);
  }
  const sh = stat(shellMs);
  const bs = stat(baseMs);
  const ratio = sh.median / bs.median;
  figures.push({
    id: 'extension',
    name: 'Extension shell (production build) and activation',
    value: `shell ${(shellBytes / 1024).toFixed(0)} KiB (today's bundle ${(baseBytes / 1024).toFixed(0)} KiB); activation ${fmt(sh, ' ms')} vs today's ${fmt(bs, ' ms')} (${ratio.toFixed(3)}×); ${commands} commands registered, engine files loaded: ${loaded.filter((f) => f.endsWith('.js')).join(', ') || 'none'}`,
    target: 'shell ≤ 100 KiB; activation ≤ 15 ms median and ≤ 0.05× today\'s',
    meets: shellBytes <= 100 * 1024 && sh.median <= 15 && ratio <= 0.05,
    data: { shellBytes, baselineBytes: baseBytes, activationMs: sh, baselineActivationMs: bs, ratio, commandsRegistered: commands, siblingsLoaded: loaded, baseline: BASELINE_REF },
  });

  // The engine's first load, in a fresh process each time as in a fresh window: require engine.js
  // (and the shell that loads it) with the vscode stub, then build a folder's check engine.
  const engineMs: number[] = [];
  const firstCheckMs: number[] = [];
  const project = scratch('engine-load');
  writeFiles(project, { 'package.json': '{ "name": "p", "type": "module", "scripts": { "test": "node --test" } }\n', 'a.test.js': "import test from 'node:test';\ntest('a', () => {});\n" });
  const probe = path.join(REPO, 'bench', 'engineLoad.ts');
  for (let i = 0; i < (QUICK ? 3 : 7); i++) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', probe, path.join(ours, 'engine.js'), project], { encoding: 'utf8', cwd: REPO });
    if (r.status !== 0) throw new Error(`engine load probe failed: ${r.stderr}`);
    const d = JSON.parse(r.stdout.trim().split('\n').pop()!) as { loadMs: number; firstCheckMs: number };
    engineMs.push(d.loadMs);
    firstCheckMs.push(d.firstCheckMs);
  }
  figures.push({
    id: 'engine-load',
    name: 'First engine load (fresh process)',
    value: `require engine.js ${fmt(stat(engineMs), ' ms')}; load to the first check's start ${fmt(stat(firstCheckMs), ' ms')}`,
    target: 'report',
    meets: null,
    data: { engineBytes: statSync(path.join(ours, 'engine.js')).size, tokenizerBytes: statSync(path.join(ours, 'tokenizer.js')).size, requireMs: stat(engineMs), toFirstCheckMs: stat(firstCheckMs) },
  });

  // The CLI's process start for parse and apply: ours against today's, interleaved.
  const reply = '```ts a.ts\nexport const a = 2;\n```\n';
  const cliProject = scratch('cli-start');
  writeFiles(cliProject, { 'a.ts': 'export const a = 1;\n' });
  const start = (dist: string, args: string[], input: string): number => {
    const t = performance.now();
    const r = spawnSync(process.execPath, [path.join(dist, 'cli.js'), ...args], { input, encoding: 'utf8' });
    if (r.status !== 0 && r.status !== 1) throw new Error(`cli ${args[0]} failed (${r.status}): ${r.stderr}`);
    return performance.now() - t;
  };
  const cmds: [string, string[], string][] = [
    ['parse', ['parse', '--parser', 'tsc'], 'src/x.ts(1,1): error TS2322: bad\n'],
    ['apply', ['apply', '--cwd', cliProject, '--dry-run', '--storage', path.join(cliProject, '.storage')], reply],
  ];
  const cliData: Record<string, unknown> = {};
  const parts: string[] = [];
  // Node's own start (no script): the floor both CLIs stand on.
  const floor: number[] = [];
  for (let i = 0; i < (QUICK ? 5 : 15); i++) {
    const t = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    floor.push(performance.now() - t);
  }
  cliData.nodeAloneMs = stat(floor);
  let cliMeets = true;
  for (const [name, args, input] of cmds) {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < (QUICK ? 5 : 15); i++) {
      a.push(start(ours, args, input));
      b.push(start(base, args, input));
    }
    const r = stat(a).median / stat(b).median;
    cliMeets &&= r <= 0.3;
    cliData[name] = { ms: stat(a), baselineMs: stat(b), ratio: r };
    const over = (x: number[]): number => stat(x).median - stat(floor).median;
    parts.push(`${name} ${fmt(stat(a), ' ms', 0)} vs today's ${fmt(stat(b), ' ms', 0)} (${r.toFixed(2)}×; over Node's own start ${over(a).toFixed(0)} ms vs ${over(b).toFixed(0)} ms, ${(over(a) / over(b)).toFixed(2)}×)`);
  }
  figures.push({
    id: 'cli-start',
    name: 'CLI process start (parse, apply)',
    value: `node -e 0 alone ${fmt(stat(floor), ' ms', 0)}; ${parts.join('; ')}; cli.js ${(statSync(path.join(ours, 'cli.js')).size / 1024).toFixed(0)} KiB + cli-parse.js ${(statSync(path.join(ours, 'cli-parse.js')).size / 1024).toFixed(0)} KiB / cli-apply.js ${(statSync(path.join(ours, 'cli-apply.js')).size / 1024).toFixed(0)} KiB vs today's ${(statSync(path.join(base, 'cli.js')).size / 1024).toFixed(0)} KiB`,
    target: '≤ 0.3× today\'s',
    meets: cliMeets,
    data: cliData,
  });

  // The .vsix, packaged by vsce from a copy of the sources (the repo's dist/ is left alone).
  const copy = scratch('vsix');
  for (const f of ['package.json', '.vscodeignore', 'esbuild.mjs', 'tsconfig.json', 'README.md', 'README.vsix.md', 'LICENSE', 'CHANGELOG.md', 'src', 'media', 'scripts']) cpSync(path.join(REPO, f), path.join(copy, f), { recursive: true });
  const vsix = path.join(copy, 'out.vsix');
  const p = spawnSync(process.execPath, [path.join(copy, 'scripts', 'package.mjs'), '--out', vsix], { cwd: copy, encoding: 'utf8' });
  if (p.status !== 0) throw new Error(`vsce package failed: ${p.stderr}`);
  const payload = ['extension.js', 'engine.js', 'tokenizer.js', 'anthropic-sdk.js', 'openai-sdk.js', 'panel.js', 'cli.js', 'cli-mcp.js'];
  figures.push({
    id: 'vsix',
    name: 'The .vsix',
    value: `${(statSync(vsix).size / 1024).toFixed(0)} KiB packed; bundles ${payload.map((f) => `${f} ${(statSync(path.join(copy, 'dist', f)).size / 1024).toFixed(0)} KiB`).join(', ')} (of the CLI, only the dispatcher and the MCP server that VS Code starts through mcpServerDefinitionProviders)`,
    target: 'report',
    meets: null,
    data: { vsixBytes: statSync(vsix).size, bundleBytes: dirBytes(path.join(copy, 'dist'), payload) },
  });
}

// 7. RSS growth of the verifier while a check prints 200 MB (in its own process, to measure only it).
async function outputFlood(): Promise<void> {
  log('7/7 output flood');
  interface Flood { mb: number; mode: string; growthMb: number; keptChars: number; truncated: boolean; durationMs: number }
  const once = (mode: 'verifier' | 'raw'): Flood => {
    // A fresh process each time, so one measurement's heap does not carry into the next.
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO, 'bench', 'flood.ts'), String(QUICK ? 50 : 200), mode], { encoding: 'utf8', cwd: REPO, maxBuffer: 16 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`flood bench failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as Flood;
  };
  const ours: Flood[] = [];
  const raw: Flood[] = [];
  for (let rep = 0; rep < (QUICK ? 1 : 3); rep++) {
    ours.push(once('verifier'));
    raw.push(once('raw'));
  }
  const g = stat(ours.map((d) => d.growthMb));
  const floor = stat(raw.map((d) => d.growthMb));
  const d = ours[0]!;
  figures.push({
    id: 'output-flood',
    name: `Output flood (${d.mb} MB printed)`,
    value: `RSS growth ${fmt(g, ' MB', 1)}; Node reading the same pipe into nothing: ${fmt(floor, ' MB', 1)} (${(g.median / floor.median).toFixed(2)}×); kept ${(d.keptChars / 1024).toFixed(0)} KiB, truncated=${d.truncated}`,
    target: '≤ 30 MB',
    meets: g.median <= 30,
    data: { growthMb: g, nodeFloorMb: floor, keptChars: d.keptChars, truncated: d.truncated, durationMs: stat(ours.map((x) => x.durationMs)) },
  });
}

/** CPU seconds used by this process's finished children and their own waited-for descendants (Linux; NaN elsewhere). */
function childCpuSeconds(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    // cutime and cstime, in clock ticks (100 per second on Linux).
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return NaN;
  }
}

// The bench command's history scan: one git log over 5,000 commits, against a git call per commit.
async function historyScan(): Promise<void> {
  log('history scan (5,000 commits)');
  const f = await historyScanFigure(scratch('history-scan'));
  figures.push({
    id: 'history-scan',
    name: `Bench history scan (${HISTORY_COMMITS} first-parent commits)`,
    value: `${f.scanS.toFixed(2)} s for ${f.commits} commits (${f.candidates} candidates); a git call per commit: ${f.perCommitS.toFixed(1)} s (${(f.perCommitS / f.scanS).toFixed(0)}× slower)`,
    target: '≤ 10 s',
    meets: f.scanS <= 10,
    data: f,
  });
}

function machine(): Record<string, unknown> {
  return { node: process.version, platform: `${os.type()} ${os.release()} ${os.arch()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(os.totalmem() / 2 ** 30), loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' ') };
}

function table(): string {
  const rows = figures.map((f) => `| ${f.name} | ${f.value} | ${f.target} | ${f.meets === null ? 'n/a' : f.meets ? 'yes' : 'NO'} |`);
  return ['| figure | measured | target | meets |', '|---|---|---|---|', ...rows].join('\n');
}

async function main(): Promise<void> {
  const started = performance.now();
  try {
    const all: [string, () => Promise<void>][] = [
      ['engine-overhead', engineOverhead],
      ['parallel-verify', parallelVerify],
      ['incremental-tsc', incrementalTsc],
      ['warm-tsc', warmTsc],
      ['staged-verify', stagedVerify],
      ['physical-limit', physicalLimit],
      ['own-commands', ownCommands],
      ['feedback-compactness', compactness],
      ['stuck-run-cost', stuckRunCost],
      ['extension', extensionFigures],
      ['output-flood', outputFlood],
      ['history-scan', historyScan],
    ];
    for (const [id, f] of all) {
      if (ONLY && !ONLY.includes(id)) continue;
      try {
        await f();
      } catch (e) {
        // One broken figure must not hide the others: it is reported as failed, with the reason.
        figures.push({ id, name: id, value: `FAILED: ${e instanceof Error ? e.message : String(e)}`, target: '', meets: false, data: {} });
      }
    }
  } finally {
    if (process.env.KEEP_BENCH !== '1') rmSync(scratchRoot, { recursive: true, force: true });
    else log(`kept ${scratchRoot}`);
  }
  const totalS = (performance.now() - started) / 1000;
  const m = machine();
  if (JSON_OUT) {
    process.stdout.write(JSON.stringify({ machine: m, totalSeconds: totalS, figures }, null, 2) + '\n');
  } else {
    process.stdout.write(`\n${table()}\n\nmachine: ${JSON.stringify(m)}\ntotal ${totalS.toFixed(0)} s\n`);
  }
  if (RECORD && ONLY) {
    // Only some figures ran: their rows are replaced in the recorded table, the others kept as they were.
    const file = path.join(REPO, 'bench', 'RESULTS.md');
    let md = readFileSync(file, 'utf8');
    for (const f of figures) {
      // A figure that failed keeps its last recorded row: the failure is printed above, not recorded.
      if (f.value.startsWith('FAILED: ')) continue;
      const row = table().split('\n').find((r) => r.startsWith(`| ${f.name} |`))!;
      const lines = md.split('\n');
      const at = lines.findIndex((l) => l.startsWith(`| ${f.name} |`));
      if (at >= 0) {
        lines[at] = row;
      } else {
        // A new figure goes at the end of the figures' table, not of whatever table comes last.
        const head = lines.findIndex((l) => l.startsWith('| figure |'));
        let end = head + 1;
        while (end < lines.length && lines[end]!.startsWith('|')) end++;
        lines.splice(end, 0, row);
      }
      md = lines.join('\n');
    }
    const note = `Re-recorded ${new Date().toISOString()} by \`npm run bench -- --only=${ONLY.join(',')} --record\` on: ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GiB, ${m.platform}, Node ${m.node}; load average at the end ${m.loadavg}: ${figures.map((f) => f.name).join('; ')}.`;
    md = md.replace(/\n+(?:Re-recorded [^\n]*\n+)?\| figure \|/, `\n\n${note}\n\n| figure |`);
    writeFileSync(file, md);
  } else if (RECORD) {
    const md = [
      '# Benchmark results',
      '',
      `Recorded ${new Date().toISOString()} by \`npm run bench -- --record\` on: ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GiB, ${m.platform}, Node ${m.node}; load average at the end ${m.loadavg}. Total ${totalS.toFixed(0)} s.`,
      '',
      table(),
      '',
      'Each ratio compares two measurements taken in the same run, so shared-machine noise affects both sides alike; absolute times are not comparable between runs.',
      '',
    ].join('\n');
    writeFileSync(path.join(REPO, 'bench', 'RESULTS.md'), md);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});

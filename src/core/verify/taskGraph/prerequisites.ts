// What a discovered check runs first because the project's task graph says so (./taskGraph.ts): a
// `typecheck` that turbo.json makes depend on `build` reads the package through its `dist/`, so a
// check run without that build judges the last build, not the code. Planned once, at discovery: each
// check's task is followed through `dependsOn` to the tasks it needs, each (package, task) becoming
// one prerequisite, in the graph's order, shared by every check that needs it. A task whose package
// has no such script is skipped, as turbo and Nx skip it, its own dependencies still followed.
//
// Run by the verifier at the start of each pass (`Prerequisites.run`): a failing prerequisite is
// reported as that build's own failures (read by its own parser), and the checks that need it do not
// run (their result says why: they would only judge a stale or missing build). In a step (the files
// changed since the last pass are known) a prerequisite whose last run in this session passed, and
// under whose package no changed file lies, is not run again; a change outside every package (a
// root config) runs them all.
import * as path from 'node:path';
import type { CheckResult, ParserId } from '../../types';
import type { GraphPackage, TaskGraph } from './taskGraph';

/** The task a discovered check runs: the script `task` of the package in `pkg`. */
export interface CheckTask {
  check: string;
  pkg: GraphPackage;
  task: string;
}

/** One task run before the checks that need it. */
export interface Prerequisite {
  /** The name its result carries: `<package>:build`, or `build` for the run's own folder. */
  name: string;
  task: string;
  command: string;
  parser: ParserId;
  /** Folder it runs in, relative to the run's folder (undefined: the run's folder). */
  cwd?: string;
  /** The folder in words, for sentences: `packages/core`, or `.`. */
  where: string;
  /** Prerequisites that run before it (names). */
  after: string[];
  /** The checks that need it, directly or through another prerequisite. */
  for: string[];
  /** Which configuration made it one (`turbo.json typecheck dependsOn build`). */
  why: string;
  /** The task whose `dependsOn` brought it in, in words (`\`build\` in packages/nextjs`). */
  by: string;
}

export interface PrerequisitePlan {
  /** In the order they run: each after those it needs. */
  prerequisites: Prerequisite[];
  /** Per check, what it runs first and why, for `check --explain`. */
  perCheck: Record<string, string[]>;
  /** Tasks skipped (no such script) or cycles, for discovery's notes. */
  notes: string[];
  /** Every workspace package's folder, relative to the run's folder (`''` for the run's own). */
  packageDirs: string[];
}

export interface PlanInput {
  /** The run's folder (absolute). */
  root: string;
  graph: TaskGraph;
  checks: readonly CheckTask[];
  /** The packages, for the folders a change can fall in. */
  packages: readonly GraphPackage[];
  /** How a package's script runs as a check does (through npm, its yarn…); undefined when it has no such script. */
  commandFor(pkg: GraphPackage, task: string): { command: string; parser: ParserId } | undefined;
  /** Check names already taken: a prerequisite never carries one. */
  taken: ReadonlySet<string>;
}

function relDir(root: string, dir: string): string {
  return path.relative(root, dir).split(path.sep).join('/');
}

/** Each check's prerequisites, in the task graph's order, each (package, task) once. */
export function planPrerequisites(input: PlanInput): PrerequisitePlan {
  const out: Prerequisite[] = [];
  const byKey = new Map<string, string[]>();
  const notes: string[] = [];
  const stack = new Set<string>();
  const keyOf = (pkg: GraphPackage, task: string): string => `${pkg.dir}\0${task}`;

  /** The prerequisites (names) that (pkg, task) stands for: itself once planned, else those it needs (no such script). */
  const node = (pkg: GraphPackage, task: string, why: string, by: string): string[] => {
    const key = keyOf(pkg, task);
    const known = byKey.get(key);
    if (known !== undefined) return known;
    const where = relDir(input.root, pkg.dir) || '.';
    if (stack.has(key)) {
      notes.push(`task graph: \`${task}\` in ${where} depends on itself through ${why}: that cycle is not followed`);
      return [];
    }
    stack.add(key);
    const needs = [...new Set(input.graph.dependsOn(pkg, task).flatMap((e) => node(e.pkg, e.task, e.why, `\`${task}\` in ${where}`)))];
    stack.delete(key);
    // A task that is itself a check (`lint` dependsOn `typecheck`) runs once, as that check: what it
    // needs still runs first.
    const check = input.checks.find((c) => keyOf(c.pkg, c.task) === key);
    if (check !== undefined) {
      byKey.set(key, needs);
      return needs;
    }
    const run = input.commandFor(pkg, task);
    if (run === undefined) {
      notes.push(`task graph: ${why}, but ${where} has no \`${task}\` script: skipped, as the task runner skips it`);
      byKey.set(key, needs);
      return needs;
    }
    const rel = relDir(input.root, pkg.dir);
    let name = `${rel === '' ? '' : `${pkg.name}:`}${task}`;
    if (input.taken.has(name)) name = `${name} (dependency)`;
    out.push({ name, task, command: run.command, parser: run.parser, ...(rel !== '' ? { cwd: rel } : {}), where, after: needs, for: [], why, by });
    byKey.set(key, [name]);
    return [name];
  };

  const perCheck: Record<string, string[]> = {};
  for (const c of input.checks) {
    const own = keyOf(c.pkg, c.task);
    stack.add(own);
    // The reason a prerequisite is this check's own (its task's `dependsOn`), else the one that brought it in.
    const reasons = new Map<string, string>();
    const self = `\`${c.task}\` in ${relDir(input.root, c.pkg.dir) || '.'}`;
    for (const e of input.graph.dependsOn(c.pkg, c.task)) for (const n of node(e.pkg, e.task, e.why, self)) if (!reasons.has(n)) reasons.set(n, e.why);
    const direct = [...reasons.keys()];
    stack.delete(own);
    // Every prerequisite the check needs, through the others: they all run before it.
    const all = new Set<string>();
    const add = (n: string): void => {
      if (all.has(n)) return;
      all.add(n);
      for (const m of out.find((p) => p.name === n)?.after ?? []) add(m);
    };
    direct.forEach(add);
    if (all.size === 0) continue;
    const ordered = out.filter((p) => all.has(p.name));
    for (const p of ordered) p.for.push(c.check);
    perCheck[c.check] = ordered.map((p) => {
      const own = reasons.get(p.name);
      return own !== undefined ? `runs \`${p.task}\` in ${p.where} first: ${own}` : `runs \`${p.task}\` in ${p.where} first, before ${p.by}: ${p.why}`;
    });
  }
  const used = out.filter((p) => p.for.length > 0);
  return { prerequisites: used, perCheck, notes, packageDirs: input.packages.map((p) => relDir(input.root, p.dir)) };
}

/** The result of a check that did not run because a prerequisite it needs failed. */
export function notRunResult(name: string, command: string, why: string): CheckResult {
  return { name, command, exitCode: null, durationMs: 0, timedOut: false, cancelled: false, output: '', truncated: false, failures: [], flaky: [], mode: 'full', notRun: why };
}

/** What the prerequisites of one pass gave: their results, and the checks not to run (with why). */
export interface PrerequisitePass {
  results: CheckResult[];
  blocked: Map<string, string>;
}

function inside(file: string, dir: string): boolean {
  return dir === '' || file === dir || file.startsWith(`${dir}/`);
}

/** The prerequisites of a verifier, and what each last gave in this session (so a step can skip an unchanged build). */
export class Prerequisites {
  private readonly lastPassed = new Map<string, CheckResult>();

  constructor(private readonly plan: Pick<PrerequisitePlan, 'prerequisites' | 'packageDirs'>) {}

  get list(): readonly Prerequisite[] {
    return this.plan.prerequisites;
  }

  /** Whether a changed file can change what `p` builds: it lies in p's package, or in no package (a root config). */
  private touched(p: Prerequisite, changed: readonly string[]): string | undefined {
    const dir = p.cwd ?? '';
    return changed.find((f) => inside(f, dir) || !this.plan.packageDirs.some((d) => inside(f, d)));
  }

  /**
   * Runs the prerequisites in order. `changed` (the files changed since the last pass, in a step)
   * lets one that passed before, whose inputs did not change, be taken as it was.
   */
  async run(runOne: (p: Prerequisite) => Promise<CheckResult>, changed: readonly string[] | undefined, signal?: AbortSignal, parallel = false): Promise<PrerequisitePass> {
    const results = new Map<string, CheckResult>();
    const blocked = new Map<string, string>();
    const failed = new Set<string>();
    const ran = new Set<string>();
    const one = async (p: Prerequisite): Promise<void> => {
      const stopped = p.after.find((n) => failed.has(n));
      if (stopped !== undefined || signal?.aborted) {
        failed.add(p.name);
        results.set(p.name, notRunResult(p.name, p.command, signal?.aborted ? 'cancelled before it ran' : `not run: ${stopped}, which it needs first, did not pass`));
        return;
      }
      const last = this.lastPassed.get(p.name);
      const rebuiltBefore = p.after.some((n) => ran.has(n));
      if (changed !== undefined && last !== undefined && !rebuiltBefore && this.touched(p, changed) === undefined) {
        results.set(p.name, { ...last, durationMs: 0, runDurationsMs: [0], stagedNote: `not run again: it passed earlier in this session and none of the ${changed.length} changed file(s) lies in ${p.where}` });
        return;
      }
      const r = await runOne(p);
      ran.add(p.name);
      results.set(p.name, r);
      if (r.exitCode === 0 && r.failures.length === 0 && !r.cancelled && !r.timedOut) this.lastPassed.set(p.name, r);
      else {
        this.lastPassed.delete(p.name);
        failed.add(p.name);
      }
    };
    // In waves: each prerequisite once those it needs are done; side by side within a wave when
    // checks run in parallel (independent packages' builds write their own folders, as turbo runs them).
    const pending = [...this.plan.prerequisites];
    while (pending.length > 0) {
      const ready = parallel ? pending.filter((p) => p.after.every((n) => results.has(n))) : [];
      // The plan's order already puts each after what it needs: one at a time is always possible.
      const wave = ready.length > 0 ? ready : [pending[0]!];
      for (const p of wave) pending.splice(pending.indexOf(p), 1);
      await Promise.all(wave.map(one));
    }
    for (const p of this.plan.prerequisites) {
      if (!failed.has(p.name)) continue;
      for (const c of p.for) if (!blocked.has(c)) blocked.set(c, `not run: \`${p.task}\` in ${p.where} (${p.name}), which it depends on, did not pass; the check would only judge a stale or missing build`);
    }
    return { results: this.plan.prerequisites.map((p) => results.get(p.name)!), blocked };
  }
}

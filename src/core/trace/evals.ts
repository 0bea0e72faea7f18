// The eval harness (DESIGN §8): a scenario is a real project, a recorded model and the stop it must
// end with. Each runs on a scratch copy, so the scenario directory is never modified.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { FsWorkspace } from '../edit/workspace';
import type { VerifierPort } from '../loop/run';
import { Run } from '../loop/run';
import { loadReplayScript, ReplayProvider } from '../model/replay';
import type { Outcome, StopReason } from '../policy/reasons';
import { isStopReason, OUTCOMES } from '../policy/reasons';
import { pickPrefixed, validateSettings } from '../settings';
import type { Settings } from '../settings';
import type { Logger } from '../types';
import { silentLogger } from '../types';
import { resolveChecks } from '../verify/discover';
import { Verifier } from '../verify/verifier';
import type { RunReport, TimedEvent } from './events';
import { readTrace } from './trace';

export interface ScenarioExpect {
  stopReason: StopReason;
  steps: number;
  outcome?: Outcome;
}

export interface Scenario {
  name: string;
  dir: string;
  project: string;
  replay: string;
  /** `fixUntilGreen.*` values (prefix dropped): the project's own settings, then the scenario's. */
  settings: Record<string, unknown>;
  expect: ScenarioExpect;
  description?: string;
}

export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ScenarioError(`${what} ${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const errors: ParseError[] = [];
  const data: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0]!;
    throw new ScenarioError(`${what} ${file} is not valid JSON: ${printParseErrorCode(e.error)} at line ${text.slice(0, e.offset).split('\n').length}`);
  }
  return data;
}

function asObject(v: unknown, file: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ScenarioError(`${file} must hold a JSON object`);
  return v as Record<string, unknown>;
}

export function isScenarioDir(dir: string): boolean {
  return existsSync(path.join(dir, 'expect.json'));
}

/** Reads and checks one scenario directory; every problem is named with its file. */
export function loadScenario(dir: string): Scenario {
  const abs = path.resolve(dir);
  const name = path.basename(abs);
  const project = path.join(abs, 'project');
  if (!existsSync(project) || !statSync(project).isDirectory()) throw new ScenarioError(`scenario ${name}: ${project} is missing (a scenario needs project/, replay.json and expect.json)`);
  const replay = path.join(abs, 'replay.json');
  if (!existsSync(replay)) throw new ScenarioError(`scenario ${name}: ${replay} is missing`);

  const expectFile = path.join(abs, 'expect.json');
  const e = asObject(readJson(expectFile, 'expectations'), expectFile);
  if (!isStopReason(e.stopReason)) throw new ScenarioError(`${expectFile}: "stopReason" must be a stop reason id; got ${JSON.stringify(e.stopReason)}`);
  if (typeof e.steps !== 'number' || !Number.isInteger(e.steps) || e.steps < 0) throw new ScenarioError(`${expectFile}: "steps" must be a whole number ≥ 0; got ${JSON.stringify(e.steps)}`);
  if (e.outcome !== undefined && !OUTCOMES.includes(e.outcome as Outcome)) throw new ScenarioError(`${expectFile}: "outcome" must be one of ${OUTCOMES.join(', ')}; got ${JSON.stringify(e.outcome)}`);
  const expect: ScenarioExpect = { stopReason: e.stopReason, steps: e.steps };
  if (e.outcome !== undefined) expect.outcome = e.outcome as Outcome;

  const settings: Record<string, unknown> = {};
  const own = path.join(project, '.vscode', 'settings.json');
  if (existsSync(own)) Object.assign(settings, pickPrefixed(asObject(readJson(own, 'settings'), own)));
  const scenarioSettings = path.join(abs, 'settings.json');
  if (existsSync(scenarioSettings)) Object.assign(settings, pickPrefixed(asObject(readJson(scenarioSettings, 'settings'), scenarioSettings)));

  return { name, dir: abs, project, replay, settings, expect, ...(typeof e.description === 'string' ? { description: e.description } : {}) };
}

/**
 * The scenario directories named: each argument is a scenario (it has expect.json) or a folder of
 * scenarios. Anything else is an error, so a typo is never a silently empty suite.
 */
export function findScenarioDirs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    const abs = path.resolve(a);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new ScenarioError(`${a} is not a directory`);
    if (isScenarioDir(abs)) {
      out.push(abs);
      continue;
    }
    const children = readdirSync(abs)
      .sort()
      .map((n) => path.join(abs, n))
      .filter((p) => statSync(p).isDirectory() && isScenarioDir(p));
    if (children.length === 0) throw new ScenarioError(`${a} is neither a scenario (no expect.json) nor a folder of scenarios`);
    out.push(...children);
  }
  return [...new Set(out)];
}

/** The nearest node_modules at or above `dir`, which the copy links to so the project's tools resolve. */
export function nearestNodeModules(dir: string): string | undefined {
  let d = path.resolve(dir);
  for (;;) {
    const nm = path.join(d, 'node_modules');
    if (existsSync(nm) && statSync(nm).isDirectory()) return nm;
    const parent = path.dirname(d);
    if (parent === d) return undefined;
    d = parent;
  }
}

/** SHA-256 over every path and byte under `dir` (node_modules excluded). */
export function treeHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      if (n === 'node_modules') continue;
      const p = path.join(d, n);
      const st = lstatSync(p);
      h.update(path.relative(dir, p) + '\0');
      if (st.isDirectory()) walk(p);
      else h.update(st.isSymbolicLink() ? 'link' : readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

export interface SelfReportTally {
  /** Steps whose STATUS was `done`, and how many of them the checks confirmed green. */
  done: { total: number; agreed: number };
  /** Steps whose STATUS was `blocked`, and how many of them were indeed not green. */
  blocked: { total: number; agreed: number };
}

export function emptyTally(): SelfReportTally {
  return { done: { total: 0, agreed: 0 }, blocked: { total: 0, agreed: 0 } };
}

/** How often the model's STATUS agreed with the verifier, from a run's `self-report` events. */
export function tallySelfReports(events: readonly TimedEvent[], into: SelfReportTally = emptyTally()): SelfReportTally {
  for (const e of events) {
    if (e.type !== 'self-report' || (e.status !== 'done' && e.status !== 'blocked')) continue;
    const t = into[e.status];
    t.total++;
    if (e.agreed === true) t.agreed++;
  }
  return into;
}

export interface ScenarioResult {
  name: string;
  expect: ScenarioExpect;
  got?: { stopReason: StopReason; steps: number; outcome: Outcome; detail: string };
  tokens: number;
  elapsedMs: number;
  pass: boolean;
  /** Why it failed, when it did: the mismatch or the error. */
  problem?: string;
  selfReports: SelfReportTally;
  /** Only with `keep`: the run's trace and the scratch copy it ran on. */
  tracePath?: string;
  scratchDir?: string;
}

export interface EvalOptions {
  /** Where scratch copies go; a fresh temp dir by default. */
  scratchDir?: string;
  /** Keep the scratch copies (for debugging a failing scenario). */
  keep?: boolean;
  logger?: Logger;
  /** Builds the verifier for a scenario's settings (by default the one `run` builds, so evals run what users run). */
  verifier?: (root: string, settings: Settings, storageDir: string) => VerifierPort;
}

export function defaultVerifier(root: string, settings: Settings, storageDir: string): VerifierPort {
  return new Verifier({ root, checks: settings.checks, parallel: settings.parallelChecks, outputLimitKb: settings.outputLimitKb, flakyReruns: settings.flakyReruns, storageDir });
}

function mismatch(expect: ScenarioExpect, r: RunReport): string | undefined {
  const parts: string[] = [];
  if (r.stopReason !== expect.stopReason) parts.push(`stopped with ${r.stopReason}, expected ${expect.stopReason}`);
  if (r.steps.length !== expect.steps) parts.push(`took ${r.steps.length} step(s), expected ${expect.steps}`);
  if (expect.outcome !== undefined && r.outcome !== expect.outcome) parts.push(`outcome ${r.outcome}, expected ${expect.outcome}`);
  return parts.length > 0 ? `${parts.join('; ')} (${r.detail})` : undefined;
}

/** Runs one scenario on a scratch copy of its project and compares the stop with its expectations. */
export async function runScenario(s: Scenario, opts: EvalOptions = {}): Promise<ScenarioResult> {
  const logger = opts.logger ?? silentLogger;
  const started = Date.now();
  const base: ScenarioResult = { name: s.name, expect: s.expect, tokens: 0, elapsedMs: 0, pass: false, selfReports: emptyTally() };
  const before = treeHash(s.dir);
  const scratchParent = opts.scratchDir ?? os.tmpdir();
  mkdirSync(scratchParent, { recursive: true });
  const scratch = mkdtempSync(path.join(scratchParent, `fug-eval-${s.name.replace(/[^\w.-]/g, '_')}-`));
  const result = { ...base };
  try {
    const validated = validateSettings(s.settings);
    if (!validated.ok) throw new ScenarioError(`scenario ${s.name}: ${validated.issues.map((i) => i.message).join('; ')}`);
    const project = path.join(scratch, 'project');
    cpSync(s.project, project, { recursive: true, filter: (src) => path.basename(src) !== 'node_modules' || path.dirname(src) !== s.project });
    // The copy reaches the same tools the original would: its own node_modules or the nearest above it.
    const nm = nearestNodeModules(s.project);
    if (nm) symlinkSync(nm, path.join(project, 'node_modules'), 'dir');
    // No checks configured: discover them, as `run` does.
    const settings: Settings = { ...validated.settings, checks: resolveChecks(project, validated.settings.checks).checks };
    const storageDir = path.join(scratch, 'storage');
    const provider = new ReplayProvider(loadReplayScript(s.replay), `replay:${s.name}/replay.json`);
    const verifier = (opts.verifier ?? defaultVerifier)(project, settings, storageDir);
    const run = new Run({ workspace: new FsWorkspace(project), verifier, provider, settings, storageDir, logger });
    const r = await run.start();
    result.got = { stopReason: r.stopReason, steps: r.steps.length, outcome: r.outcome, detail: r.detail };
    result.tokens = r.tokensUsed;
    result.tracePath = r.tracePath;
    result.selfReports = tallySelfReports(readTrace(r.tracePath));
    const miss = mismatch(s.expect, r);
    result.pass = miss === undefined;
    if (miss) result.problem = miss;
  } catch (e) {
    result.pass = false;
    result.problem = e instanceof Error ? e.message : String(e);
  } finally {
    if (!opts.keep) {
      rmSync(scratch, { recursive: true, force: true });
      delete result.tracePath;
    } else result.scratchDir = scratch;
  }
  if (treeHash(s.dir) !== before) {
    result.pass = false;
    result.problem = `the scenario directory ${s.dir} changed during the run${result.problem ? `; ${result.problem}` : ''}`;
  }
  result.elapsedMs = Date.now() - started;
  return result;
}

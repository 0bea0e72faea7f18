// The eval harness (DESIGN §8): a scenario is a real project, a recorded model, the stop it must end
// with and what the workspace must hold afterwards. Each runs on a scratch copy, so the scenario
// directory is never modified. A front end of its own (like cli/ and vscode/): it builds whole runs
// through the engine factory, so the core's trace layer never depends on the loop.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { FsWorkspace } from '../core/edit/workspace';
import type { ModelAnswer, Refusal, SettingsAnswer } from '../core/launch';
import { NO_KEYS, prepareRun } from '../core/launch';
import { createProvider, ProviderConfigError } from '../core/model/factory';
import type { Outcome, StopReason } from '../core/policy/reasons';
import { isStopReason, OUTCOMES } from '../core/policy/reasons';
import { pickPrefixed, validateSettings } from '../core/settings';
import type { ModelSettings } from '../core/settings';
import type { RunReport, TimedEvent } from '../core/trace/events';
import { readTrace } from '../core/trace/trace';
import type { Logger } from '../core/types';
import { silentLogger } from '../core/types';

/**
 * What the workspace holds after the run, compared byte for byte (node_modules aside):
 * - `original`: every file as in `project/` (a `punt`, an `onStop: revert`, a run that wrote nothing);
 * - `expected`: the files under the scenario's `expected/` with those bytes, every other file as in
 *   `project/`, nothing added or deleted besides (the state `keep-best` or `keep-last` kept, a fix).
 */
export type FinalBytes = 'original' | 'expected';
export const FINAL_BYTES: readonly FinalBytes[] = ['original', 'expected'];

export interface ScenarioExpect {
  stopReason: StopReason;
  steps: number;
  outcome?: Outcome;
  finalBytes?: FinalBytes;
  /** How many times the run escalated to the next model of `model.escalation` (`escalated` events). */
  escalations?: number;
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
  if (e.finalBytes !== undefined && !FINAL_BYTES.includes(e.finalBytes as FinalBytes)) throw new ScenarioError(`${expectFile}: "finalBytes" must be one of ${FINAL_BYTES.join(', ')}; got ${JSON.stringify(e.finalBytes)}`);
  const expected = path.join(abs, 'expected');
  const hasExpected = existsSync(expected) && statSync(expected).isDirectory();
  if (e.finalBytes === 'expected' && !hasExpected) throw new ScenarioError(`${expectFile}: "finalBytes": "expected" needs the files in ${expected}`);
  if (e.finalBytes !== 'expected' && hasExpected) throw new ScenarioError(`${expectFile}: ${expected} is there but "finalBytes" is not "expected": say which the run must leave`);
  const expect: ScenarioExpect = { stopReason: e.stopReason, steps: e.steps };
  if (e.escalations !== undefined && (typeof e.escalations !== 'number' || !Number.isInteger(e.escalations) || e.escalations < 0)) throw new ScenarioError(`${expectFile}: "escalations" must be a whole number ≥ 0; got ${JSON.stringify(e.escalations)}`);
  if (e.outcome !== undefined) expect.outcome = e.outcome as Outcome;
  if (e.escalations !== undefined) expect.escalations = e.escalations as number;
  if (e.finalBytes !== undefined) expect.finalBytes = e.finalBytes as FinalBytes;

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

/** Every file under `dir` (node_modules aside) by its path relative to `dir`, forward slashes. */
export function readTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      if (n === 'node_modules') continue;
      const p = path.join(d, n);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else out.set(path.relative(dir, p).split(path.sep).join('/'), st.isSymbolicLink() ? Buffer.from('link') : readFileSync(p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** The tree a scenario's run must leave: `project/`, with `expected/`'s files over it when asked for. */
export function expectedTree(s: Scenario, finalBytes: FinalBytes): Map<string, Buffer> {
  const tree = readTree(s.project);
  if (finalBytes === 'expected') for (const [rel, bytes] of readTree(path.join(s.dir, 'expected'))) tree.set(rel, bytes);
  return tree;
}

/** How `got` differs from `want`, file by file (at most a few named), or undefined when byte-identical. */
export function treeDifference(want: ReadonlyMap<string, Buffer>, got: ReadonlyMap<string, Buffer>, limit = 5): string | undefined {
  const diffs: string[] = [];
  for (const [rel, bytes] of want) {
    const g = got.get(rel);
    if (g === undefined) diffs.push(`${rel} is missing`);
    else if (!g.equals(bytes)) diffs.push(`${rel} differs${firstDifference(bytes, g)}`);
  }
  for (const rel of got.keys()) if (!want.has(rel)) diffs.push(`${rel} was added`);
  if (diffs.length === 0) return undefined;
  return diffs.slice(0, limit).join('; ') + (diffs.length > limit ? `; and ${diffs.length - limit} more` : '');
}

function firstDifference(want: Buffer, got: Buffer): string {
  const a = want.toString('utf8').split('\n');
  const b = got.toString('utf8').split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return ` at line ${i + 1}: expected ${JSON.stringify(a[i] ?? '<end>')}, got ${JSON.stringify(b[i] ?? '<end>')}`;
  }
  return '';
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
  /** `fixUntilGreen.*` values (prefix dropped) over the scenario's own, e.g. `{ stagedChecks: false }`. */
  overrides?: Record<string, unknown>;
}

/** How a scenario's run stopped, as its expectations are compared. */
type Stop = Pick<RunReport, 'stopReason' | 'outcome' | 'detail' | 'steps' | 'escalations'>;

function mismatch(s: Scenario, r: Stop, project: string): string | undefined {
  const { expect } = s;
  const parts: string[] = [];
  if (r.stopReason !== expect.stopReason) parts.push(`stopped with ${r.stopReason}, expected ${expect.stopReason}`);
  if (r.steps.length !== expect.steps) parts.push(`took ${r.steps.length} step(s), expected ${expect.steps}`);
  if (expect.outcome !== undefined && r.outcome !== expect.outcome) parts.push(`outcome ${r.outcome}, expected ${expect.outcome}`);
  const escalated = r.escalations?.length ?? 0;
  if (expect.escalations !== undefined && escalated !== expect.escalations) parts.push(`escalated ${escalated} time(s), expected ${expect.escalations}`);
  if (expect.finalBytes !== undefined) {
    const diff = treeDifference(expectedTree(s, expect.finalBytes), readTree(project));
    if (diff) parts.push(`the workspace does not hold the ${expect.finalBytes === 'original' ? 'original bytes' : 'expected files'}: ${diff}`);
  }
  return parts.length > 0 ? `${parts.join('; ')} (${r.detail})` : undefined;
}

/**
 * The scenario's recorded models, as the launcher's model port (core/launch.ts): `replay.json` is the
 * run's own, whatever the settings name (`scenarioSettings` puts it there); each rung of
 * `model.escalation` must be a replay script of the scenario, relative to its folder (a scenario never
 * calls a network model).
 */
function scenarioModel(s: Scenario): (m: ModelSettings, rung: number) => ModelAnswer<never> {
  return (m, rung) => {
    const what = rung === 0 ? 'replay.json' : `fixUntilGreen.model.escalation[${rung - 1}]`;
    if (m.provider !== 'replay') return { ok: false, problem: `scenario ${s.name}: ${what} must be a replay script of the scenario; got provider ${m.provider}` };
    try {
      return { ok: true, provider: createProvider(m, { root: s.dir, keyHint: '', replayLabel: `replay:${s.name}/${path.relative(s.dir, path.resolve(s.dir, m.id)).split(path.sep).join('/')}` }) };
    } catch (e) {
      if (e instanceof ProviderConfigError) return { ok: false, problem: `scenario ${s.name}: ${what}: ${e.message}` };
      throw e;
    }
  };
}

/** The scenario's settings with the eval's overrides, and `replay.json` as the run's own model. */
function scenarioSettings(s: Scenario, overrides: Record<string, unknown> = {}): SettingsAnswer<never> {
  const validated = validateSettings({ ...s.settings, ...overrides });
  if (!validated.ok) return { ok: false, problems: validated.issues.map((i) => i.message) };
  const st = validated.settings;
  return { ok: true, settings: { ...st, model: { ...st.model, provider: 'replay', id: s.replay, baseUrl: '' } } };
}

/**
 * The evals' wording of a refusal: checks that cannot run are the `preflight-failed` stop a scenario
 * may expect (no step, nothing written, nothing spent); anything else is the scenario's own fault.
 */
function refusalStop(s: Scenario, r: Refusal): Stop {
  if (r.kind !== 'checks') throw new ScenarioError(r.kind === 'settings' ? `scenario ${s.name}: ${r.problems.join('; ')}` : r.kind === 'model' ? r.problem : `scenario ${s.name}: the run did not start (${r.kind})`);
  return { stopReason: 'preflight-failed', outcome: 'punt', detail: r.problems.join('; '), steps: [], escalations: [] };
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
    const project = path.join(scratch, 'project');
    cpSync(s.project, project, { recursive: true, filter: (src) => path.basename(src) !== 'node_modules' || path.dirname(src) !== s.project });
    // The copy reaches the same tools the original would: its own node_modules or the nearest above it.
    const nm = nearestNodeModules(s.project);
    if (nm) symlinkSync(nm, path.join(project, 'node_modules'), 'dir');
    const storageDir = path.join(scratch, 'storage');
    // Started as every front end starts a run (no checks configured: the launcher discovers them).
    const launch = await prepareRun(
      { root: project, frontEnd: 'evals', storageDir },
      { settings: () => scenarioSettings(s, opts.overrides), keys: NO_KEYS, model: scenarioModel(s), workspace: () => new FsWorkspace(project), logger },
    );
    let r: Stop;
    if (launch.ok) {
      const report = await launch.prepared.build().run.start();
      result.tokens = report.tokensUsed;
      result.tracePath = report.tracePath;
      result.selfReports = tallySelfReports(readTrace(report.tracePath));
      r = report;
    } else r = refusalStop(s, launch.refusal);
    result.got = { stopReason: r.stopReason, steps: r.steps.length, outcome: r.outcome, detail: r.detail };
    const miss = mismatch(s, r, project);
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

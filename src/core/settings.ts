// The one typed view of `fixUntilGreen.*` settings, shared by the CLI and the extension.
import type { CheckSpec, ParserId } from './types';

export type OnStop = 'keep-best' | 'keep-last' | 'revert';
/** Which failures the extension puts in the Problems panel: those VS Code does not already show, or all. */
export type DiagnosticsMode = 'deduplicated' | 'all';
export type EditFormat = 'auto' | 'diff' | 'search-replace';
export type ProviderId = 'vscode-lm' | 'openai-compatible' | 'anthropic' | 'replay';

export interface ConfidenceBudgetSettings {
  enabled: boolean;
  stepCost: number;
  noveltyGain: number;
}

/** One model: the run's own, or a rung of the escalation ladder. */
export interface ModelSettings {
  provider: ProviderId;
  id: string;
  baseUrl: string;
}

/** What a model costs, per million tokens, in the user's currency unit. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** `fixUntilGreen.model.*`: the run's model, the ladder it escalates along, and the prices. */
export interface ModelConfig extends ModelSettings {
  /** `model.escalation`: the models tried next, in order, when a stop in `escalateOn` fires. */
  escalation: ModelSettings[];
  /** `model.pricing`: model id → price per million tokens. No built-in prices. */
  pricing: Record<string, ModelPrice>;
}

/** The stops a run may escalate on instead of stopping (DESIGN §3, Escalation). */
// Stop reason ids (policy/reasons.ts), spelled here so that settings import nothing from the policy.
export const ESCALATABLE_REASONS = ['stalled', 'low-confidence', 'unreachable', 'budget-depleted'] as const;
export type EscalationReason = (typeof ESCALATABLE_REASONS)[number];
/** At most this many further models: a ladder longer than this is a mistake, not a plan. */
export const MAX_ESCALATION_RUNGS = 5;
/** The largest cost ceiling and price accepted: far above any real figure, small enough to stay exact. */
export const MAX_MONEY = 1_000_000;

export interface Settings {
  checks: CheckSpec[];
  maxSteps: number;
  tokenCeiling: number;
  stallThreshold: number;
  timeLimitSeconds: number;
  flakyReruns: number;
  parallelChecks: boolean;
  /** Non-final steps run checks warm or targeted; green is decided by every check in full (DESIGN §4). */
  stagedChecks: boolean;
  outputLimitKb: number;
  onStop: OnStop;
  editFormat: EditFormat;
  protectedPaths: string[];
  forbidSuppressions: boolean;
  rollbackRegressions: boolean;
  /** Let edits touch what defines the checks (DESIGN §3, verifier integrity). */
  allowVerifierEdits: boolean;
  escalateBelowConfidence: number;
  confidenceBudget: ConfidenceBudgetSettings;
  contextTokenBudget: number;
  model: ModelConfig;
  /** Which stops continue the run with the next model of `model.escalation`. */
  escalateOn: EscalationReason[];
  /** Money a run may spend, in the unit `model.pricing` uses; 0 turns it off. */
  costCeiling: number;
  /** The extension's Problems panel only; the engine and the CLI do not read it. */
  diagnostics: DiagnosticsMode;
  /** An agent host's hooks: deny an edit tool's write whose original cannot be saved, instead of letting it through with a warning. */
  denyUnrevertableEdits: boolean;
  /**
   * An agent host's hook: how long the folder's hook worker (which keeps the checks warm between the
   * agent's stops) waits for the next stop before it ends; 0 runs every stop in the hook's own process.
   */
  hookWorkerIdleSeconds: number;
}

export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  '**/*.test.*',
  '**/*.spec.*',
  '**/__tests__/**',
  '**/test/**',
  '**/tests/**',
];

/**
 * The longest time limit a run can honour: Node's timers hold at most 2^31-1 ms (about 24.8 days),
 * and a longer delay fires at once, which would stop a run with `time-limit` as it starts.
 */
export const MAX_TIME_LIMIT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export function defaultSettings(): Settings {
  return {
    checks: [],
    maxSteps: 8,
    tokenCeiling: 200000,
    stallThreshold: 3,
    timeLimitSeconds: 1800,
    flakyReruns: 1,
    parallelChecks: true,
    stagedChecks: true,
    outputLimitKb: 256,
    onStop: 'keep-best',
    editFormat: 'auto',
    protectedPaths: [...DEFAULT_PROTECTED_PATHS],
    forbidSuppressions: true,
    rollbackRegressions: true,
    allowVerifierEdits: false,
    escalateBelowConfidence: 0,
    confidenceBudget: { enabled: false, stepCost: 0.08, noveltyGain: 0.12 },
    contextTokenBudget: 24000,
    model: { provider: 'vscode-lm', id: '', baseUrl: '', escalation: [], pricing: {} },
    escalateOn: ['stalled', 'low-confidence', 'unreachable'],
    costCeiling: 0,
    diagnostics: 'deduplicated',
    denyUnrevertableEdits: false,
    hookWorkerIdleSeconds: 600,
  };
}

export const PARSER_IDS: readonly ParserId[] = ['tsc', 'eslint', 'biome', 'oxlint', 'mocha', 'jest', 'vitest', 'node-test', 'tap', 'ava', 'uvu', 'prettier', 'generic'];
export const PROVIDER_IDS: readonly ProviderId[] = ['vscode-lm', 'openai-compatible', 'anthropic', 'replay'];

export interface SettingsIssue {
  /** The full setting name, e.g. `fixUntilGreen.maxSteps`. */
  setting: string;
  message: string;
}

export type SettingsResult = { ok: true; settings: Settings } | { ok: false; issues: SettingsIssue[] };

const PREFIX = 'fixUntilGreen.';

function describe(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}

/** One validation: the raw values, the settings being built, and the issues found so far. */
interface Validation {
  raw: Record<string, unknown>;
  s: Settings;
  bad(key: string, message: string): void;
  has(key: string): boolean;
}

/** The integer, number, boolean and enum settings, each within its bounds. */
function validateScalars({ raw, s, bad, has }: Validation): void {
  const int = (key: keyof Settings, min: number, max: number): void => {
    if (!has(key)) return;
    const v = raw[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      bad(key, `must be an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'any' : max}; got ${describe(v)}`);
    } else {
      (s[key] as number) = v;
    }
  };
  const num = (key: keyof Settings, min: number, max: number): void => {
    if (!has(key)) return;
    const v = raw[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
      bad(key, `must be a number from ${min} to ${max}; got ${describe(v)}`);
    } else {
      (s[key] as number) = v;
    }
  };
  const bool = (key: keyof Settings): void => {
    if (!has(key)) return;
    const v = raw[key];
    if (typeof v !== 'boolean') bad(key, `must be true or false; got ${describe(v)}`);
    else (s[key] as boolean) = v;
  };
  const oneOf = <T extends string>(key: keyof Settings, allowed: readonly T[]): void => {
    if (!has(key)) return;
    const v = raw[key];
    if (typeof v !== 'string' || !allowed.includes(v as T)) bad(key, `must be one of ${allowed.join(', ')}; got ${describe(v)}`);
    else (s[key] as string) = v;
  };

  const MAX = Number.MAX_SAFE_INTEGER;
  int('maxSteps', 1, 100);
  int('tokenCeiling', 1000, MAX);
  int('stallThreshold', 2, 20);
  int('timeLimitSeconds', 10, MAX_TIME_LIMIT_SECONDS);
  int('flakyReruns', 0, 5);
  int('outputLimitKb', 16, 65536);
  int('contextTokenBudget', 1000, MAX);
  int('hookWorkerIdleSeconds', 0, 3600);
  num('escalateBelowConfidence', 0, 1);
  num('costCeiling', 0, MAX_MONEY);
  bool('parallelChecks');
  bool('stagedChecks');
  bool('forbidSuppressions');
  bool('rollbackRegressions');
  bool('allowVerifierEdits');
  bool('denyUnrevertableEdits');
  oneOf<OnStop>('onStop', ['keep-best', 'keep-last', 'revert']);
  oneOf<EditFormat>('editFormat', ['auto', 'diff', 'search-replace']);
  oneOf<DiagnosticsMode>('diagnostics', ['deduplicated', 'all']);
}

function validateProtectedPaths({ raw, s, bad, has }: Validation): void {
  if (!has('protectedPaths')) return;
  const v = raw.protectedPaths;
  if (!Array.isArray(v) || v.some((p) => typeof p !== 'string' || p.length === 0)) {
    bad('protectedPaths', `must be an array of non-empty glob strings; got ${describe(v)}`);
  } else {
    s.protectedPaths = v as string[];
  }
}

/** `checks[i]` as a check, or undefined (with its issue) when it is not one or repeats a name in `names`. */
function checkSpec(c: unknown, i: number, names: ReadonlySet<string>, bad: Validation['bad']): CheckSpec | undefined {
  const key = `checks[${i}]`;
  if (typeof c !== 'object' || c === null || Array.isArray(c)) {
    bad(key, `must be an object with "name" and "command"; got ${describe(c)}`);
    return undefined;
  }
  const o = c as Record<string, unknown>;
  if (typeof o.name !== 'string' || o.name.trim() === '') { bad(`${key}.name`, 'must be a non-empty string'); return undefined; }
  if (typeof o.command !== 'string' || o.command.trim() === '') { bad(`${key}.command`, 'must be a non-empty string'); return undefined; }
  if (names.has(o.name)) { bad(`${key}.name`, `duplicates the check name "${o.name}"`); return undefined; }
  if (o.parser !== undefined && (typeof o.parser !== 'string' || !PARSER_IDS.includes(o.parser as ParserId))) {
    bad(`${key}.parser`, `must be one of ${PARSER_IDS.join(', ')}; got ${describe(o.parser)}`);
    return undefined;
  }
  if (o.timeoutSeconds !== undefined && (typeof o.timeoutSeconds !== 'number' || !(o.timeoutSeconds > 0) || o.timeoutSeconds > 86400)) {
    bad(`${key}.timeoutSeconds`, `must be a number of seconds from 1 to 86400; got ${describe(o.timeoutSeconds)}`);
    return undefined;
  }
  if (o.cwd !== undefined && typeof o.cwd !== 'string') { bad(`${key}.cwd`, 'must be a workspace-relative path string'); return undefined; }
  const spec: CheckSpec = { name: o.name, command: o.command };
  if (o.parser !== undefined) spec.parser = o.parser as ParserId;
  if (o.timeoutSeconds !== undefined) spec.timeoutSeconds = o.timeoutSeconds as number;
  if (o.cwd !== undefined) spec.cwd = o.cwd as string;
  return spec;
}

function validateChecks({ raw, s, bad, has }: Validation): void {
  if (!has('checks')) return;
  const v = raw.checks;
  if (!Array.isArray(v)) {
    bad('checks', `must be an array of {name, command} objects; got ${describe(v)}`);
    return;
  }
  const checks: CheckSpec[] = [];
  const names = new Set<string>();
  v.forEach((c: unknown, i: number) => {
    const spec = checkSpec(c, i, names, bad);
    if (!spec) return;
    names.add(spec.name);
    checks.push(spec);
  });
  s.checks = checks;
}

function validateConfidenceBudget({ raw, s, bad }: Validation): void {
  const cb = raw.confidenceBudget;
  if (cb === undefined) return;
  if (typeof cb !== 'object' || cb === null || Array.isArray(cb)) {
    bad('confidenceBudget', `must be an object {enabled, stepCost, noveltyGain}; got ${describe(cb)}`);
    return;
  }
  const o = cb as Record<string, unknown>;
  if (o.enabled !== undefined) {
    if (typeof o.enabled !== 'boolean') bad('confidenceBudget.enabled', 'must be true or false');
    else s.confidenceBudget.enabled = o.enabled;
  }
  for (const k of ['stepCost', 'noveltyGain'] as const) {
    if (o[k] === undefined) continue;
    const n = o[k];
    if (typeof n !== 'number' || !(n >= 0) || n > 1) bad(`confidenceBudget.${k}`, `must be a number from 0 to 1; got ${describe(n)}`);
    else s.confidenceBudget[k] = n;
  }
}

/** `model`, nested or as flat `model.*` keys (the flat ones win). */
function validateModel({ raw, s, bad, has }: Validation): void {
  const model: Record<string, unknown> = {};
  if (typeof raw.model === 'object' && raw.model !== null && !Array.isArray(raw.model)) Object.assign(model, raw.model);
  else if (raw.model !== undefined) bad('model', `must be an object; got ${describe(raw.model)}`);
  for (const k of ['provider', 'id', 'baseUrl', 'escalation', 'pricing']) if (has(`model.${k}`)) model[k] = raw[`model.${k}`];
  validateOneModel(model, 'model', s.model, bad);
  if (model.escalation !== undefined) s.model.escalation = validateEscalation(model.escalation, bad);
  if (model.pricing !== undefined) s.model.pricing = validatePricing(model.pricing, bad);
}

/** `provider`, `id` and `baseUrl` of one model (the run's, or a rung at `key`), into `into`. */
function validateOneModel(model: Record<string, unknown>, key: string, into: ModelSettings, bad: Validation['bad']): boolean {
  let ok = true;
  if (model.provider !== undefined) {
    if (typeof model.provider !== 'string' || !PROVIDER_IDS.includes(model.provider as ProviderId)) {
      bad(`${key}.provider`, `must be one of ${PROVIDER_IDS.join(', ')}; got ${describe(model.provider)}`);
      ok = false;
    } else into.provider = model.provider as ProviderId;
  }
  if (model.id !== undefined) {
    if (typeof model.id !== 'string') { bad(`${key}.id`, 'must be a string'); ok = false; }
    else into.id = model.id;
  }
  if (model.baseUrl !== undefined) {
    if (typeof model.baseUrl !== 'string') { bad(`${key}.baseUrl`, 'must be a string URL'); ok = false; }
    else if (model.baseUrl !== '' && !/^https?:\/\/[^\s]+$/i.test(model.baseUrl)) { bad(`${key}.baseUrl`, `must be an http(s) URL; got ${describe(model.baseUrl)}`); ok = false; }
    else into.baseUrl = model.baseUrl;
  }
  return ok;
}

/** `model.escalation`: each rung `{provider, id, baseUrl?}`, at most MAX_ESCALATION_RUNGS. */
function validateEscalation(v: unknown, bad: Validation['bad']): ModelSettings[] {
  if (!Array.isArray(v)) {
    bad('model.escalation', `must be an array of {provider, id, baseUrl?} objects; got ${describe(v)}`);
    return [];
  }
  if (v.length > MAX_ESCALATION_RUNGS) bad('model.escalation', `may hold at most ${MAX_ESCALATION_RUNGS} models; got ${v.length}`);
  const out: ModelSettings[] = [];
  v.slice(0, MAX_ESCALATION_RUNGS).forEach((r: unknown, i: number) => {
    const key = `model.escalation[${i}]`;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
      bad(key, `must be an object {provider, id, baseUrl?}; got ${describe(r)}`);
      return;
    }
    const o = r as Record<string, unknown>;
    if (o.provider === undefined) { bad(`${key}.provider`, `is required: one of ${PROVIDER_IDS.join(', ')}`); return; }
    const rung: ModelSettings = { provider: 'vscode-lm', id: '', baseUrl: '' };
    if (validateOneModel(o, key, rung, bad)) out.push(rung);
  });
  return out;
}

/** `model.pricing`: model id → `{input, output}` per million tokens, each from 0 to MAX_MONEY. */
function validatePricing(v: unknown, bad: Validation['bad']): Record<string, ModelPrice> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    bad('model.pricing', `must be an object {"<model id>": {"input": N, "output": N}}; got ${describe(v)}`);
    return {};
  }
  const out: Record<string, ModelPrice> = {};
  for (const [id, p] of Object.entries(v as Record<string, unknown>)) {
    const key = `model.pricing.${id}`;
    const o = p as Record<string, unknown> | null;
    if (id.trim() === '') { bad('model.pricing', 'has an empty model id'); continue; }
    const price = (k: 'input' | 'output'): boolean => typeof o?.[k] === 'number' && Number.isFinite(o[k]) && (o[k] as number) >= 0 && (o[k] as number) <= MAX_MONEY;
    if (typeof o !== 'object' || o === null || Array.isArray(o) || !price('input') || !price('output')) {
      bad(key, `must be {"input": N, "output": N}: the price per million input and output tokens, each from 0 to ${MAX_MONEY}; got ${describe(p)}`);
      continue;
    }
    out[id] = { input: o.input as number, output: o.output as number };
  }
  return out;
}

/** `escalateOn`: which stops escalate, each at most once. */
function validateEscalateOn({ raw, s, bad, has }: Validation): void {
  if (!has('escalateOn')) return;
  const v = raw.escalateOn;
  if (!Array.isArray(v) || v.some((r) => !(ESCALATABLE_REASONS as readonly unknown[]).includes(r)) || new Set(v).size !== v.length) {
    bad('escalateOn', `must be an array of distinct stop reasons from ${ESCALATABLE_REASONS.join(', ')}; got ${describe(v)}`);
    return;
  }
  s.escalateOn = v as EscalationReason[];
}

/**
 * Validates a flat or nested bag of `fixUntilGreen.*` values (keys without the prefix; `model.id`
 * may come flat as in settings.json or nested) over the defaults. Unknown keys are ignored so that
 * newer settings files work with older builds.
 */
export function validateSettings(raw: Record<string, unknown>, base: Settings = defaultSettings()): SettingsResult {
  const issues: SettingsIssue[] = [];
  const v: Validation = {
    raw,
    s: structuredClone(base),
    bad: (key, message) => {
      issues.push({ setting: PREFIX + key, message: `${PREFIX}${key} ${message}` });
    },
    has: (k) => Object.prototype.hasOwnProperty.call(raw, k) && raw[k] !== undefined,
  };
  validateScalars(v);
  validateProtectedPaths(v);
  validateChecks(v);
  validateConfidenceBudget(v);
  validateModel(v);
  validateEscalateOn(v);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, settings: v.s };
}

/** Picks `fixUntilGreen.*` keys out of a parsed settings.json, dropping the prefix. */
export function pickPrefixed(json: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json)) {
    if (k.startsWith(PREFIX)) out[k.slice(PREFIX.length)] = v;
  }
  if (typeof json.fixUntilGreen === 'object' && json.fixUntilGreen !== null) Object.assign(out, json.fixUntilGreen);
  return out;
}

// The `fixUntilGreen.*` keys the extension reads, in manifest order. No `vscode` import: a unit test
// checks this list, the manifest's `contributes.configuration` and the core defaults agree.
export const SETTING_KEYS = [
  'checks',
  'maxSteps',
  'tokenCeiling',
  'stallThreshold',
  'timeLimitSeconds',
  'flakyReruns',
  'parallelChecks',
  'stagedChecks',
  'outputLimitKb',
  'onStop',
  'editFormat',
  'protectedPaths',
  'forbidSuppressions',
  'rollbackRegressions',
  'allowVerifierEdits',
  'escalateBelowConfidence',
  'confidenceBudget',
  'contextTokenBudget',
  'model.provider',
  'model.id',
  'model.baseUrl',
  'model.escalation',
  'model.pricing',
  'escalateOn',
  'costCeiling',
  'diagnostics',
  'denyUnrevertableEdits',
  'hookWorkerIdleSeconds',
] as const;

export type SettingKey = (typeof SETTING_KEYS)[number];

export const SETTINGS_SECTION = 'fixUntilGreen';

/** The values one configuration scope holds, as `inspect` reports them. */
export interface InspectedValue {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * The values the user set (folder over workspace over user), without the manifest's defaults: the
 * defaults come from core's `defaultSettings()` so the CLI and the extension cannot drift apart.
 */
export function explicitValues(inspect: (key: SettingKey) => InspectedValue | undefined): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const i = inspect(key);
    if (!i) continue;
    const v = i.workspaceFolderValue !== undefined ? i.workspaceFolderValue : i.workspaceValue !== undefined ? i.workspaceValue : i.globalValue;
    if (v !== undefined) raw[key] = v;
  }
  return raw;
}

/**
 * The settings whose winning value comes from the workspace or the folder (a cloned repository's
 * .vscode/settings.json or .code-workspace), not the user's own settings: what the key rule
 * (core/model/keyTrust) does not trust with a key. Dotted names, as the CLI's (`model.baseUrl`).
 */
export function folderScopedKeys(inspect: (key: SettingKey) => InspectedValue | undefined): string[] {
  return SETTING_KEYS.filter((key) => {
    const i = inspect(key);
    return i !== undefined && (i.workspaceFolderValue !== undefined || i.workspaceValue !== undefined);
  });
}

// Reads `fixUntilGreen.*` from `.vscode/settings.json` under the workspace, as VS Code does (JSONC).
import * as path from 'node:path';
import { parse, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { pickPrefixed, validateSettings } from '../core/settings';
import type { SettingsAnswer } from '../core/launch';
import type { Settings } from '../core/settings';
import { UsageError } from './errors';
import { readTextIfPresent } from '../core/fileText';

export function readWorkspaceSettingsFile(cwd: string): Record<string, unknown> {
  const file = path.join(cwd, '.vscode', 'settings.json');
  let text: string | undefined;
  try {
    text = readTextIfPresent(file);
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  if (text === undefined) return {};
  const errors: ParseError[] = [];
  const data: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0]!;
    const line = text.slice(0, e.offset).split('\n').length;
    throw new UsageError(`${file} is not valid JSON: ${printParseErrorCode(e.error)} at line ${line}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError(`${file} must hold a JSON object`);
  }
  return pickPrefixed(data as Record<string, unknown>);
}

/**
 * Settings file values, then flag overrides, validated together. A bad value names the flag it came
 * from, or the setting and the file when it came from the file.
 */
export function resolveSettings(cwd: string, overrides: Record<string, { value: unknown; flag: string }>): Settings {
  const a = settingsAnswer(cwd, overrides);
  if (a.ok) return a.settings;
  throw new UsageError(a.problems.join('; '));
}

/** `resolveSettings` as the launcher asks for it (core/launch.ts): the settings, or what is wrong with them. */
export function settingsAnswer(cwd: string, overrides: Record<string, { value: unknown; flag: string }>): SettingsAnswer<never> {
  let fromFile: Record<string, unknown>;
  try {
    fromFile = readWorkspaceSettingsFile(cwd);
  } catch (e) {
    if (e instanceof UsageError) return { ok: false, problems: [e.message] };
    throw e;
  }
  const raw: Record<string, unknown> = { ...fromFile };
  for (const [k, o] of Object.entries(overrides)) raw[k] = o.value;
  const r = validateSettings(raw);
  if (r.ok) return { ok: true, settings: r.settings };
  const file = path.join(cwd, '.vscode', 'settings.json');
  const messages = r.issues.map((i) => {
    const key = i.setting.replace(/^fixUntilGreen\./, '');
    const top = key.split(/[.[]/)[0]!;
    const o = overrides[key] ?? overrides[top] ?? Object.entries(overrides).find(([k]) => key.startsWith(`${k}[`) || key.startsWith(`${k}.`))?.[1];
    if (o) return `${o.flag}: ${i.message.replace(/^fixUntilGreen\.\S+ /, '')}`;
    return `${i.message} (in ${file})`;
  });
  return { ok: false, problems: messages };
}

/**
 * Which settings (dotted: `maxSteps`, `model.baseUrl`) the folder's own .vscode/settings.json chose,
 * flags aside: what the key rule (core/model/keyTrust) and the run's first lines need to know.
 */
export function folderSettingKeys(cwd: string, overrides: Record<string, unknown>): { file: string; keys: string[] } {
  const raw = readWorkspaceSettingsFile(cwd);
  const keys = new Set<string>();
  for (const [k, v] of Object.entries(raw)) {
    if (k === 'model' && typeof v === 'object' && v !== null && !Array.isArray(v)) for (const sub of Object.keys(v)) keys.add(`model.${sub}`);
    else keys.add(k);
  }
  for (const k of Object.keys(overrides)) keys.delete(k);
  return { file: path.join(cwd, '.vscode', 'settings.json'), keys: [...keys] };
}

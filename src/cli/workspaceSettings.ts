// Reads `fixUntilGreen.*` from `.vscode/settings.json` under the workspace, as VS Code does (JSONC).
import * as path from 'node:path';
import { parse, printParseErrorCode } from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { pickPrefixed, validateSettings } from '../core/settings';
import type { Settings } from '../core/settings';
import { UsageError } from './errors';
import { readRegularFileSync } from '../core/edit/regularFile';

export function readWorkspaceSettingsFile(cwd: string): Record<string, unknown> {
  const file = path.join(cwd, '.vscode', 'settings.json');
  let text: string;
  try {
    text = readRegularFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
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
  const fromFile = readWorkspaceSettingsFile(cwd);
  const raw: Record<string, unknown> = { ...fromFile };
  for (const [k, o] of Object.entries(overrides)) raw[k] = o.value;
  const r = validateSettings(raw);
  if (r.ok) return r.settings;
  const file = path.join(cwd, '.vscode', 'settings.json');
  const messages = r.issues.map((i) => {
    const key = i.setting.replace(/^fixUntilGreen\./, '');
    const top = key.split(/[.[]/)[0]!;
    const o = overrides[key] ?? overrides[top] ?? Object.entries(overrides).find(([k]) => key.startsWith(`${k}[`) || key.startsWith(`${k}.`))?.[1];
    if (o) return `${o.flag}: ${i.message.replace(/^fixUntilGreen\.\S+ /, '')}`;
    return `${i.message} (in ${file})`;
  });
  throw new UsageError(messages.join('; '));
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

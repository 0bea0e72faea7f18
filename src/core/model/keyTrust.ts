// A key goes only where its owner sends it (issue 29). Settings come from two kinds of place: the
// owner's (a flag, a user-level setting, a default, an endpoint the owner confirmed) and the
// folder's own files (a cloned repository's .vscode/settings.json, a workspace setting). An
// endpoint the folder alone chose is never sent the owner's key: a loopback server (which needs no
// key) gets none, any other host is refused before any request, naming the file, the setting, the
// host and how to confirm it. Pure: each front end says where settings came from and words the
// confirmation its own way; nothing here reads a file or makes a request.
import type { Settings } from '../settings';
import { effectiveBaseUrl, endpointOrigin, isLoopbackUrl } from '../endpoints';


/** The fields of a model that choose where its requests (and so its key) go. */
export type EndpointField = 'provider' | 'baseUrl';

export interface KeyedEndpoint {
  /** The setting that names it: `fixUntilGreen.model`, `fixUntilGreen.model.escalation[0]`. */
  setting: string;
  provider: string;
  /** As set; empty means the provider's own public endpoint. */
  baseUrl: string;
  /** Which of its fields the folder's files chose (not a flag, a user setting or a default). */
  fromFolder: readonly EndpointField[];
  /** Whether a key (environment, key file, SecretStorage) would go with its requests. */
  keyed: boolean;
}

export interface KeyTrustInput {
  endpoints: readonly KeyedEndpoint[];
  /** The folder's file the settings came from, for the refusal (e.g. `/repo/.vscode/settings.json`). */
  file: string;
  /** Endpoint origins (`https://host:port`) the owner confirmed for this folder. */
  confirmed?: readonly string[];
  /** How the owner confirms this endpoint, in the front end's own terms (a flag, a setting, a button). */
  howToConfirm: (e: KeyedEndpoint, url: string) => string;
}

export interface KeyRefusal {
  file: string;
  /** The setting at fault, e.g. `fixUntilGreen.model.baseUrl`. */
  setting: string;
  /** Where the key would have gone. */
  host: string;
  origin: string;
  confirm: string;
  /** One paragraph that says all of the above. */
  message: string;
}

export type KeyTrust =
  /** `withhold`: endpoints (by setting) that are sent no key: the folder chose a server on this machine. */
  | { ok: true; withhold: string[] }
  | { ok: false; refusal: KeyRefusal };


/** The one decision: every keyed endpoint the folder chose is withheld its key (loopback) or refused. */
export function decideKeyTrust(input: KeyTrustInput): KeyTrust {
  const withhold: string[] = [];
  const confirmed = new Set(input.confirmed ?? []);
  for (const e of input.endpoints) {
    if (!e.keyed || e.fromFolder.length === 0) continue;
    const url = effectiveBaseUrl(e.provider, e.baseUrl);
    const origin = endpointOrigin(url);
    if (confirmed.has(origin)) continue;
    if (isLoopbackUrl(url)) {
      withhold.push(e.setting);
      continue;
    }
    const field = e.fromFolder.includes('baseUrl') ? 'baseUrl' : 'provider';
    const setting = e.setting.includes('[') ? e.setting : `${e.setting}.${field}`;
    const host = URL.canParse(url) ? new URL(url).host : url;
    const confirm = input.howToConfirm(e, url);
    const message =
      `refused before any request: ${input.file} sets ${setting}${field === 'baseUrl' || e.setting.includes('[') ? ` to ${url}` : ` to "${e.provider}"`}, ` +
      `so your ${e.provider} key would be sent to ${host}, an endpoint only this folder's files name, not you. ` +
      `If you trust it, ${confirm}.`;
    return { ok: false, refusal: { file: input.file, setting, host, origin, confirm, message } };
  }
  return { ok: true, withhold };
}

/** Settings that spend the owner's money or weaken the gate, named when the folder's files set them. */
const WATCHED: Record<string, string> = {
  maxSteps: 'spends more of your money',
  tokenCeiling: 'spends more of your money',
  costCeiling: 'spends more of your money',
  'model.pricing': 'decides what the cost ceiling counts',
  allowVerifierEdits: 'lets the model edit what defines the checks',
  protectedPaths: 'decides which files the model may not edit',
};

/** The watched settings' values by their dotted names, for the run's first lines. */
export function settingValues(s: Settings): Record<string, unknown> {
  return { maxSteps: s.maxSteps, tokenCeiling: s.tokenCeiling, costCeiling: s.costCeiling, 'model.pricing': s.model.pricing, allowVerifierEdits: s.allowVerifierEdits, protectedPaths: s.protectedPaths };
}

/**
 * The run's first lines: each watched setting the folder's files set, with its value, so that a
 * cloned repository cannot raise a budget or weaken the gate unseen. An empty `protectedPaths` from
 * the folder is named as what it is: no file protected.
 */
export function folderSettingNotices(file: string, fromFolder: readonly string[], values: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const key of fromFolder) {
    const why = WATCHED[key];
    if (!why) continue;
    const v = values[key];
    // Only the weakening values: protecting fewer files than none, or letting the verifier be edited.
    if ((key === 'protectedPaths' && !(Array.isArray(v) && v.length === 0)) || (key === 'allowVerifierEdits' && v !== true)) continue;
    const shown = key === 'protectedPaths' && Array.isArray(v) && v.length === 0 ? '[] (no file protected)' : JSON.stringify(v);
    out.push(`${file} sets fixUntilGreen.${key} = ${shown.length > 120 ? `${shown.slice(0, 120)}…` : shown}: it ${why}`);
  }
  return out;
}

// What the user can do about a problem that stops a run, as buttons: set the API key, choose a
// model, or open the settings UI at the one setting that fixes it. Pure (no `vscode` import): the
// commands turn these into notification buttons, the unit tests read them directly.
import type { ProviderConfigError } from '../../core/model/factory';
import { ANTHROPIC_DEFAULT_BASE_URL, OPENAI_DEFAULT_BASE_URL } from '../../core/endpoints';


export type FixAction =
  | { kind: 'setApiKey' }
  | { kind: 'setBaseUrl' }
  | { kind: 'chooseModel' }
  | { kind: 'openSetting'; setting: string }
  /** The key rule's one-time confirmation: the owner trusts this endpoint origin for this folder. */
  | { kind: 'confirmEndpoint'; folder: string; origin: string };

/** A problem in a short sentence, with the fixes offered as buttons. */
export interface Problem {
  message: string;
  actions: FixAction[];
}

export function actionLabel(a: FixAction): string {
  switch (a.kind) {
    case 'setApiKey':
      return 'Set API Key';
    case 'setBaseUrl':
      return 'Set Base URL';
    case 'chooseModel':
      return 'Choose Model…';
    case 'openSetting':
      return 'Open Settings';
    case 'confirmEndpoint':
      return `Trust ${a.origin} for this folder`;
  }
}

const open = (setting: string): FixAction => ({ kind: 'openSetting', setting: `fixUntilGreen.${setting}` });

/** No chat model through VS Code's Language Model API: pick one, or another provider in the settings. */
export function noChatModel(id: string): Problem {
  return {
    message: id ? `No chat model matching "${id}" is available in VS Code.` : 'No chat model is available in VS Code.',
    actions: [{ kind: 'chooseModel' }, open('model.provider')],
  };
}

/** A problem fixed in one setting. */
export function settingFix(message: string, setting: string): Problem {
  return { message, actions: [open(setting)] };
}

/**
 * The fixes of a model of `model.escalation` that cannot be built: the key when it needs one, and
 * the ladder's setting (where its provider, id and base URL are).
 */
export function ladderFix(own: readonly FixAction[]): FixAction[] {
  // The rung's base URL is in the ladder's setting, not the run's own.
  return [...own.filter((a) => a.kind !== 'openSetting' && a.kind !== 'setBaseUrl'), open('model.escalation')];
}

/**
 * No key for a keyed provider, in one sentence that names the host the key is for. An
 * OpenAI-compatible provider whose base URL is empty would go to api.openai.com: that is said, with
 * the server's address offered first, since a local server needs no key.
 */
/** The host a URL names (`127.0.0.1:4011`, `api.openai.com`): what the user knows a server by. */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

export function missingKey(provider: string, baseUrl: string): Problem {
  if (provider === 'openai-compatible' && baseUrl.trim() === '') {
    return { message: `No server is set for the OpenAI-compatible provider: set its base URL, or an API key to use ${hostOf(OPENAI_DEFAULT_BASE_URL)}.`, actions: [{ kind: 'setBaseUrl' }, { kind: 'setApiKey' }] };
  }
  const host = hostOf(baseUrl.trim() || (provider === 'anthropic' ? ANTHROPIC_DEFAULT_BASE_URL : OPENAI_DEFAULT_BASE_URL));
  return { message: `${host} needs an API key (${provider}).`, actions: [{ kind: 'setApiKey' }, { kind: 'setBaseUrl' }] };
}

/** The fixes of a provider that cannot be built, by its code. */
export function providerFix(e: ProviderConfigError): FixAction[] {
  switch (e.code) {
    case 'no-api-key':
      return [{ kind: 'setApiKey' }, { kind: 'setBaseUrl' }];
    case 'no-model-id':
    case 'no-replay-file':
    case 'bad-replay-file':
      return [open('model.id')];
    case 'unknown-provider':
    case 'host-provider':
      return [{ kind: 'chooseModel' }, open('model.provider')];
  }
}

/** Checks that cannot run (a missing tool, no checks found): the setting that names them. */
export function checksProblem(problems: readonly string[]): Problem {
  const first = problems[0] ?? 'the checks cannot run';
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more; see the log)` : '';
  return { message: `The checks cannot run: ${first}${more}`, actions: [open('checks')] };
}

/**
 * A run's `error` detail in a short sentence with its fixes. The engine's detail for a model that
 * refused names the model twice ("model X: X at host refused …") and spells the fix in prose ("Fix:
 * run the command …"): the sentence keeps the model once and the fix becomes a button.
 */
export function explainError(detail: string): Problem {
  const once = detail.replace(/^model (\S+): \1\b/, '$1');
  const [said] = once.split(/ Fix: /);
  const message = (said ?? once).trim().replace(/[.;:]?$/, '.');
  // A server that wants a key it was never given, at preflight or at its first answer: the host, and the two fixes.
  const wants = /^(?:model \S+: )?(\S+?)(?::(\S+))? at (\S+) needs an API key and none (?:is set|was sent)/.exec(detail);
  if (wants) return { message: `${wants[3]!.replace(/\/.*$/, '')} needs an API key${wants[2] ? ` for ${wants[1]}:${wants[2]}` : ` (${wants[1]})`}.`, actions: [{ kind: 'setApiKey' }, { kind: 'setBaseUrl' }] };
  if (/refused the API key/.test(detail)) return { message, actions: [{ kind: 'setApiKey' }, open('model.provider')] };
  if (/billing reasons|denied access/.test(detail)) return { message, actions: [{ kind: 'setApiKey' }, open('model.id')] };
  if (/was not found/.test(detail)) return { message, actions: [open('model.id')] };
  if (/contextTokenBudget/.test(detail)) return { message, actions: [open('contextTokenBudget')] };
  if (/fixUntilGreen\.model\.baseUrl|could not reach/.test(detail)) return { message, actions: [open('model.baseUrl')] };
  if (/No chat model|no chat model/.test(detail)) return { message, actions: [{ kind: 'chooseModel' }, open('model.provider')] };
  return { message, actions: [] };
}

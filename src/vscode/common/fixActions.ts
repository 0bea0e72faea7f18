// What the user can do about a problem that stops a run, as buttons: set the API key, choose a
// model, or open the settings UI at the one setting that fixes it. Pure (no `vscode` import): the
// commands turn these into notification buttons, the unit tests read them directly.
import type { ProviderConfigError } from '../../core/model/factory';
import { ANTHROPIC_DEFAULT_BASE_URL, OPENAI_DEFAULT_BASE_URL } from '../../core/endpoints';
import type { ModelNames } from '../../core/modelName';
import { modelName, namedInText } from '../../core/modelName';

/** The providers whose requests carry a key (secrets.ts keeps one per provider and endpoint). */
export type KeyedProviderId = 'openai-compatible' | 'anthropic';

export type FixAction =
  /** `provider`: the one the problem named, so Set API Key does not ask which (issue 40). */
  | { kind: 'setApiKey'; provider?: KeyedProviderId }
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

/** Set API Key for the provider a problem named (a provider that takes no key: the plain action). */
function keyFor(provider: string | undefined): FixAction {
  return provider === 'openai-compatible' || provider === 'anthropic' ? { kind: 'setApiKey', provider } : { kind: 'setApiKey' };
}

/** The provider of the first model label (`openai-compatible:x`) or provider name in an engine's detail. */
function providerIn(detail: string): string | undefined {
  return /\b(openai-compatible|anthropic)\b/.exec(detail)?.[1];
}

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
    return { message: `No server is set for the OpenAI-compatible provider: set its base URL, or an API key to use ${hostOf(OPENAI_DEFAULT_BASE_URL)}.`, actions: [{ kind: 'setBaseUrl' }, keyFor(provider)] };
  }
  const host = hostOf(baseUrl.trim() || (provider === 'anthropic' ? ANTHROPIC_DEFAULT_BASE_URL : OPENAI_DEFAULT_BASE_URL));
  return { message: `${host} needs an API key (${provider}).`, actions: [keyFor(provider), { kind: 'setBaseUrl' }] };
}

/** The fixes of a provider that cannot be built, by its code. */
export function providerFix(e: ProviderConfigError): FixAction[] {
  switch (e.code) {
    case 'no-api-key':
      return [keyFor(e.provider), { kind: 'setBaseUrl' }];
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
 * run the command …"): the sentence keeps the model once and the fix becomes a button. Models are
 * named as a person names them (`fake-coder on 127.0.0.1:4011`), by `names` where the run has them.
 */
export function explainError(detail: string, names?: ModelNames): Problem {
  const once = detail.replace(/^model (\S+): \1\b/, '$1');
  const [said] = once.split(/ Fix: /);
  const message = namedInText((said ?? once).trim().replace(/[.;:]?$/, '.'), names);
  const key = keyFor(providerIn(detail));
  // A server that wants a key it was never given, at preflight or at its first answer: the host, and the two fixes.
  const wants = /^(?:model \S+: )?(\S+?)(?::(\S+))? at (\S+) needs an API key and none (?:is set|was sent)/.exec(detail);
  if (wants) {
    const host = wants[3]!.replace(/\/.*$/, '');
    return { message: wants[2] ? `${modelName(`${wants[1]}:${wants[2]}`, names)} on ${host} needs an API key.` : `${host} needs an API key (${wants[1]}).`, actions: [key, { kind: 'setBaseUrl' }] };
  }
  if (/refused the API key/.test(detail)) return { message, actions: [key, open('model.provider')] };
  if (/billing reasons|denied access/.test(detail)) return { message, actions: [key, open('model.id')] };
  if (/was not found/.test(detail)) return { message, actions: [open('model.id')] };
  if (/contextTokenBudget/.test(detail)) return { message, actions: [open('contextTokenBudget')] };
  if (/fixUntilGreen\.model\.baseUrl|could not reach/.test(detail)) return { message, actions: [open('model.baseUrl')] };
  if (/No chat model|no chat model/.test(detail)) return { message, actions: [{ kind: 'chooseModel' }, open('model.provider')] };
  return { message, actions: [] };
}

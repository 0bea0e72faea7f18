// A model as a person names it (issue 40): its id (`big-coder`), or the name VS Code gives a chat
// model (`Scripted Test Model`), and its server only where that helps (`local-coder on
// 127.0.0.1:1234`, in a sentence about a key or an address). The label (`openai-compatible:big-coder`)
// stays the public name in the trace, the JSON answers and the logs; every sentence a person reads
// (notifications, the panel, the status tooltip, `@fix`, the CLI's human output) names models here.
// Pure, no Node imports: the panel's webview bundle uses it too.

/** The names the providers gave their models (ModelProvider.name), by label. */
export type ModelNames = Readonly<Record<string, string>>;

/** The providers a label can start with (DESIGN §6). */
const PROVIDERS = ['vscode-lm', 'openai-compatible', 'anthropic', 'replay'] as const;

/** A label's provider and id; a label of no known provider is all id. */
export function splitLabel(label: string): { provider: string | null; id: string } {
  const at = label.indexOf(':');
  const provider = at > 0 ? label.slice(0, at) : '';
  if (!(PROVIDERS as readonly string[]).includes(provider)) return { provider: null, id: label };
  return { provider, id: label.slice(at + 1) };
}

/** The host of a URL (`127.0.0.1:1234`, `api.openai.com`), or the text itself when unreadable. */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

/**
 * How a person names the model `label` names: the name its provider gave it, else its id (an empty
 * id: the provider's first model, said so).
 */
export function modelName(label: string, names?: ModelNames): string {
  const given = names?.[label];
  if (given) return given;
  const { provider, id } = splitLabel(label);
  if (id !== '') return id;
  return provider === 'vscode-lm' ? "VS Code's first chat model" : label;
}

/**
 * The names of a run's models, each told apart from the others: two models of the same id on
 * different providers say theirs (`gpt-4o (openai-compatible)`, `gpt-4o (anthropic)`).
 */
export function namesOf(labels: readonly string[], given?: ModelNames): Record<string, string> {
  const unique = [...new Set(labels)];
  const plain = unique.map((l) => modelName(l, given));
  const out: Record<string, string> = {};
  unique.forEach((l, i) => {
    out[l] = plain.filter((n) => n === plain[i]).length > 1 ? `${plain[i]} (${splitLabel(l).provider ?? l})` : plain[i]!;
  });
  return out;
}

/** A model with its server, where the server is what the sentence is about: `local-coder on 127.0.0.1:1234`. */
export function modelOn(label: string, baseUrl: string | undefined, names?: ModelNames): string {
  const name = modelName(label, names);
  const { provider } = splitLabel(label);
  if (provider !== 'openai-compatible' && provider !== 'anthropic') return name;
  return baseUrl && baseUrl.trim() !== '' ? `${name} on ${hostOf(baseUrl.trim())}` : name;
}

// `openai-compatible:big-coder`, optionally `at 127.0.0.1:1234/v1` (the engine's describeEndpoint):
// an id runs to the next space, a sentence's closing punctuation not included (ids hold `:` and `.`).
const LABEL_IN_TEXT = new RegExp(`\\b(${PROVIDERS.join('|')}):(\\S*?)(?: at (\\S+?))?([.,;:)]*)(?=\\s|$)`, 'g');

/**
 * An engine's sentence (a refusal, an error's detail) with its models named as a person names them:
 * `openai-compatible:big-coder at 127.0.0.1:1234/v1` becomes `big-coder on 127.0.0.1:1234`, a bare
 * label its name.
 */
export function namedInText(text: string, names?: ModelNames): string {
  return text.replace(LABEL_IN_TEXT, (_all, provider: string, id: string, at: string | undefined, end: string) => {
    const name = modelName(`${provider}:${id}`, names);
    return `${at === undefined ? name : `${name} on ${at.replace(/\/.*$/, '')}`}${end}`;
  });
}

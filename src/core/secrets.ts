// Provider keys never reach a check (checks run code the model edits), and never appear in what we
// write or show: check output, reports, traces, logs, CLI output. A leaf module: it imports nothing of
// the project, so every writer can use it without a cycle.

/**
 * Environment variables that hold a model provider's key (ours: OPENAI_API_KEY, ANTHROPIC_API_KEY;
 * and the usual others, which a user's shell often exports). None of them reaches a check.
 */
export const PROVIDER_KEY_ENV_NAMES: readonly string[] = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENROUTER_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'AZURE_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'VERTEX_API_KEY',
  'MISTRAL_API_KEY',
  'CODESTRAL_API_KEY',
  'GROQ_API_KEY',
  'DEEPSEEK_API_KEY',
  'TOGETHER_API_KEY',
  'TOGETHERAI_API_KEY',
  'XAI_API_KEY',
  'COHERE_API_KEY',
  'CO_API_KEY',
  'FIREWORKS_API_KEY',
  'PERPLEXITY_API_KEY',
  'PPLX_API_KEY',
  'CEREBRAS_API_KEY',
  'DEEPINFRA_API_KEY',
  'NVIDIA_API_KEY',
  'AI21_API_KEY',
  'MOONSHOT_API_KEY',
  'DASHSCOPE_API_KEY',
  'VOYAGE_API_KEY',
  'REPLICATE_API_TOKEN',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'HUGGINGFACE_API_KEY',
  'LITELLM_API_KEY',
  'AWS_BEARER_TOKEN_BEDROCK',
];

const NAMES = new Set(PROVIDER_KEY_ENV_NAMES);

/** What a secret's value is replaced with wherever it would be written or shown. */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not treated as secrets: replacing a 3-character "key" everywhere would mangle
 * every output, and no provider issues keys that short.
 */
const MIN_SECRET_LENGTH = 8;
/** A secret cut by an output limit leaves a piece at the cut; pieces this long are removed too. */
const MIN_FRAGMENT_LENGTH = 4;

// Longest first, so a secret containing another is replaced whole.
let secrets: string[] = [];
/**
 * Of `secrets`, the provider keys (and the key in use): these never reach a check. The others
 * (GITHUB_TOKEN, NPM_TOKEN...) are the check's own to use, and only masked in what it prints.
 */
let keys: string[] = [];

export function isProviderKeyEnvName(name: string): boolean {
  return NAMES.has(name.toUpperCase());
}

/**
 * A variable whose name marks a secret, as CI systems read names: `*_TOKEN`, `*_SECRET*`,
 * `*_PASSWORD`, `*_PASSWD`, `*_PASS`, `*_KEY`, `*_API_KEY`, `*_APIKEY`, `*_CREDENTIALS`,
 * `*_PRIVATE_KEY*`, `*_AUTH_TOKEN` (GITHUB_TOKEN, NPM_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD...).
 * Its value is masked wherever output leaves the machine or is kept.
 */
export function isSecretEnvName(name: string): boolean {
  const n = name.toUpperCase();
  if (NAMES.has(n)) return true;
  return /(^|_)(TOKEN|SECRET|SECRETS|PASSWORD|PASSWD|PASS|KEY|APIKEY|CREDENTIAL|CREDENTIALS)$/.test(n) || /(^|_)(SECRET|PASSWORD|PRIVATE_KEY|ACCESS_KEY)(_|$)/.test(n);
}

/**
 * Files that hold secrets by their nature (`.env*`, key and certificate files, `.npmrc`, `.netrc`,
 * credentials files): their lines are never quoted to the model, in a report or as context.
 */
export function isSecretBearingFile(rel: string): boolean {
  const base = rel.replace(/\\/g, '/').split('/').pop() ?? '';
  return /^\.env(\..*)?$/i.test(base) || /\.(pem|key|p12|pfx|jks|keystore)$/i.test(base) || /^(\.npmrc|\.netrc|\.pypirc|id_rsa|id_ed25519|id_ecdsa|credentials(\..*)?)$/i.test(base);
}

/** Treats `value` as a secret from now on (this process). Empty and very short values are ignored. */
export function registerSecret(value: string | undefined | null, kind: 'key' | 'masked' = 'key'): void {
  const v = value?.trim();
  if (!v || v.length < MIN_SECRET_LENGTH) return;
  if (kind === 'key' && !keys.includes(v)) keys = [...keys, v];
  if (secrets.includes(v)) return;
  secrets = [...secrets, v].sort((a, b) => b.length - a.length);
}

/**
 * Registers the values of the provider key variables set in `env` (this process's: looked at again
 * before every redaction, so a key set after startup counts too).
 */
export function registerEnvSecrets(env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, v] of Object.entries(env)) if (v !== undefined && isSecretEnvName(name)) registerSecret(v, isProviderKeyEnvName(name) ? 'key' : 'masked');
}

export function registeredSecretCount(): number {
  return secrets.length;
}

/** For tests: forget every secret, then register the environment's again. */
export function resetSecretsForTest(): void {
  secrets = [];
  keys = [];
  registerEnvSecrets();
}

export function redact(text: string): string {
  registerEnvSecrets();
  return replaceSecrets(text);
}

function replaceSecrets(text: string): string {
  if (secrets.length === 0 || text.length < MIN_SECRET_LENGTH) return text;
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * `redact` for text that was cut out of a longer output: besides whole secrets, a piece of one at
 * the start (its end) or at the end (its beginning) goes too.
 */
export function redactCutEdges(text: string, edges: { start: boolean; end: boolean }): string {
  let out = redact(text);
  for (const s of secrets) {
    if (edges.end) {
      for (let k = Math.min(s.length - 1, out.length); k >= MIN_FRAGMENT_LENGTH; k--) {
        if (out.endsWith(s.slice(0, k))) {
          out = out.slice(0, out.length - k) + REDACTED;
          break;
        }
      }
    }
    if (edges.start) {
      for (let k = Math.min(s.length - 1, out.length); k >= MIN_FRAGMENT_LENGTH; k--) {
        if (out.startsWith(s.slice(s.length - k))) {
          out = REDACTED + out.slice(k);
          break;
        }
      }
    }
  }
  return out;
}

/** A copy of `value` with every string in it redacted (plain data: objects, arrays, primitives). */
export function redactDeep<T>(value: T): T {
  registerEnvSecrets();
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return replaceSecrets(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(v) as object | null)) {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[replaceSecrets(k)] = walk(x);
      return o;
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * The environment for a process running code we do not trust with keys: without the provider key
 * variables, and without any variable whose value holds a registered secret (a key the extension
 * got from SecretStorage, exported by the user under another name).
 */
export function scrubEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  registerEnvSecrets();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (isProviderKeyEnvName(k)) continue;
    if (keys.some((s) => v.includes(s))) continue;
    out[k] = v;
  }
  return out;
}

// The keys present when the process starts are secrets whoever reads them later (or never).
registerEnvSecrets();

// What the model sees at each step: the compact failure report, the relevant files and the earlier
// post-mortems, kept within `contextTokenBudget` (DESIGN §2, step k).
import type { Settings } from '../settings';
import type { Failure, Logger } from '../types';
import { silentLogger } from '../types';
import { formatFailureReport } from '../verify/report';
import type { PromptFile } from './prompts';
import { formatFile, stepPrompt, systemPrompt } from './prompts';
import { countTokens, truncateToTokens } from '../tokens';

export interface StepContextInput {
  step: number;
  settings: Pick<Settings, 'contextTokenBudget' | 'protectedPaths' | 'forbidSuppressions' | 'editFormat'>;
  failures: readonly Failure[];
  /** Failures seen once and not reproduced: listed apart in the report so the model does not chase them. */
  flaky?: readonly Failure[];
  /** Workspace root, so repeats that differ only in noise fold together in the report. */
  root?: string;
  /** Files the run has changed so far, oldest first. */
  editedFiles: Iterable<string>;
  /** The file open in the editor (VS Code), workspace-relative. */
  activeFile?: string;
  instruction?: string;
  postMortems: readonly string[];
  feedback?: string;
  /** Reads a workspace file's text; undefined when it does not exist or is not text. */
  readText(rel: string): Promise<string | undefined>;
  logger?: Logger;
}

export interface StepContext {
  system: string;
  user: string;
  /** Files shown in full or in part, in prompt order. */
  files: string[];
  /** Relevant files left out to keep within the budget. */
  omitted: string[];
  /**
   * At least the tokens of `user`, from the counts of its parts (each counted once, files
   * remembered across steps) plus a token per join, so the whole prompt is never counted again.
   */
  userTokens: number;
}

/** Lines shown on each side of a failure when a file is too large to show whole. */
const EXCERPT_RADIUS = 30;
/** Share of the budget the failure report may take; the rest is for files and post-mortems. */
const REPORT_SHARE = 0.45;
/** Shares of the budget the feedback, the post-mortems and the task may take at most. */
const FEEDBACK_SHARE = 0.1;
const POSTMORTEM_SHARE = 0.15;
const INSTRUCTION_SHARE = 0.1;
/**
 * More characters per token than source text ever averages: a file longer than this many times the
 * tokens left cannot fit, so it is not counted (counting is slow), only excerpted.
 */
const MAX_CHARS_PER_TOKEN = 10;
/** Omitted files named one by one, at most; the rest are counted. */
const OMITTED_NAMED = 20;

/** Tokens a join between counted parts may add (BPE merges across it only ever save tokens in practice). */
const JOIN_TOKENS = 2;

function omittedList(paths: string[]): string[] {
  return paths.length <= OMITTED_NAMED ? paths : [...paths.slice(0, OMITTED_NAMED), `and ${paths.length - OMITTED_NAMED} more`];
}

function safeRel(p: string): boolean {
  return p !== '' && !p.startsWith('/') && !/^[A-Za-z]:/.test(p) && !p.split('/').includes('..');
}

/** Workspace-relative targets of relative imports (`./x`, `../y`) in a source file, as candidate paths. */
export function relativeImports(from: string, text: string): string[][] {
  const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '';
  const out: string[][] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"\n]+)\1/gm;
  for (const m of text.matchAll(re)) {
    const spec = m[2]!;
    const parts = (dir ? dir.split('/') : []).concat(spec.split('/'));
    const norm: string[] = [];
    let escapes = false;
    for (const seg of parts) {
      if (seg === '' || seg === '.') continue;
      if (seg === '..') {
        if (norm.length === 0) escapes = true;
        else norm.pop();
      } else norm.push(seg);
    }
    if (escapes || norm.length === 0) continue;
    const base = norm.join('/');
    // TypeScript sources import './x.js' for './x.ts'; try the source extensions first.
    const stem = base.replace(/\.(?:[cm]?js|jsx)$/, '');
    const candidates = [...['.ts', '.tsx', '.mts', '.cts'].map((e) => stem + e), base, ...['.js', '.jsx', '.mjs', '.cjs'].map((e) => stem + e), `${base}/index.ts`, `${base}/index.js`];
    out.push([...new Set(candidates)]);
  }
  return out;
}

/** Line ranges (1-based, inclusive) around the given lines, merged. */
function windows(lines: number[], total: number, radius: number): [number, number][] {
  const sorted = [...new Set(lines.filter((l) => l >= 1 && l <= total))].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const l of sorted) {
    const from = Math.max(1, l - radius);
    const to = Math.min(total, l + radius);
    const last = out[out.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

function excerptOf(text: string, failureLines: number[], radius: number): { text: string; label: string } | undefined {
  const src = text.split('\n');
  const ranges = windows(failureLines, src.length, radius);
  if (ranges.length === 0) return undefined;
  const chunks: string[] = [];
  let prevEnd = 0;
  for (const [from, to] of ranges) {
    if (from > prevEnd + 1) chunks.push(`… (lines ${prevEnd + 1}-${from - 1} not shown)`);
    chunks.push(src.slice(from - 1, to).join('\n'));
    prevEnd = to;
  }
  if (prevEnd < src.length) chunks.push(`… (lines ${prevEnd + 1}-${src.length} not shown)`);
  return { text: chunks.join('\n'), label: `lines ${ranges.map(([a, b]) => `${a}-${b}`).join(', ')} of ${src.length}` };
}

/**
 * Builds the system and step prompts. Files come in this order of priority: where the failures
 * are (most failures first), the files edited so far, the active editor's file, then what the
 * failing files import. A file that does not fit whole is shown as excerpts around its failures,
 * else named as omitted. The user prompt stays within `contextTokenBudget`.
 */
export async function buildStepContext(input: StepContextInput): Promise<StepContext> {
  const logger = input.logger ?? silentLogger;
  const budget = input.settings.contextTokenBudget;
  const texts = new Map<string, string | undefined>();
  const read = async (rel: string): Promise<string | undefined> => {
    if (texts.has(rel)) return texts.get(rel);
    let t: string | undefined;
    try {
      t = await input.readText(rel);
    } catch (e) {
      // An unreadable file is left out of the prompt, not a reason to stop the run.
      logger.warn(`prompt: ${rel} cannot be read (${(e as Error).message}); left out`);
      t = undefined;
    }
    texts.set(rel, t);
    return t;
  };

  const failureLines = new Map<string, number[]>();
  const failureCount = new Map<string, number>();
  for (const f of input.failures) {
    if (!f.file || !safeRel(f.file)) continue;
    failureCount.set(f.file, (failureCount.get(f.file) ?? 0) + 1);
    if (f.line !== undefined) failureLines.set(f.file, [...(failureLines.get(f.file) ?? []), f.line]);
  }
  const failing = [...failureCount.keys()].sort((a, b) => failureCount.get(b)! - failureCount.get(a)!);
  const wanted: string[] = [];
  const add = (p: string | undefined): void => {
    if (p && safeRel(p) && !wanted.includes(p)) wanted.push(p);
  };
  failing.forEach(add);
  for (const p of input.editedFiles) add(p);
  add(input.activeFile);
  for (const f of failing) {
    const t = await read(f);
    if (t === undefined) continue;
    for (const candidates of relativeImports(f, t)) {
      for (const c of candidates) {
        if (wanted.includes(c)) break;
        if ((await read(c)) !== undefined) {
          add(c);
          break;
        }
      }
    }
  }
  for (const p of wanted) await read(p);

  // Shares of the budget for the parts that are not files; what they leave is for the files.
  const share = (f: number): number => Math.max(50, Math.floor(budget * f));
  const postMortems = [...input.postMortems];
  while (postMortems.length > 1 && countTokens(postMortems.join('\n')) > share(POSTMORTEM_SHARE)) postMortems.shift();
  if (postMortems.length === 1) postMortems[0] = truncateToTokens(postMortems[0]!, share(POSTMORTEM_SHARE));
  const base = {
    step: input.step,
    ...(input.instruction ? { instruction: truncateToTokens(input.instruction, share(INSTRUCTION_SHARE)) } : {}),
    postMortems,
    ...(input.feedback ? { feedback: truncateToTokens(input.feedback, share(FEEDBACK_SHARE)) } : {}),
  };
  const present = wanted.filter((p) => texts.get(p) !== undefined);
  let reportTokens = Math.floor(budget * REPORT_SHARE);
  const reportExtras = { ...(input.flaky ? { flaky: input.flaky } : {}), ...(input.root ? { root: input.root } : {}) };
  let report = formatFailureReport(input.failures, { readText: (rel) => texts.get(rel), maxTokens: reportTokens, ...reportExtras });
  const compose = (files: PromptFile[], omitted: string[]): string => stepPrompt({ ...base, failureReport: report, files, omittedFiles: omittedList(omitted) });

  // Everything but the files, with every candidate named as omitted: the worst case for the rest.
  // A frame over the budget on its own gives up report detail first.
  let frameTokens = countTokens(compose([], present));
  while (frameTokens > budget && reportTokens > 50) {
    reportTokens = Math.floor(reportTokens / 2);
    report = formatFailureReport(input.failures, { readText: (rel) => texts.get(rel), maxTokens: reportTokens, ...reportExtras });
    frameTokens = countTokens(compose([], present));
  }
  // The final omitted line may name longer paths than the frame's did: reserve for it.
  const omittedLineTokens = (names: string[]): number => (names.length > 0 ? countTokens(`Not shown (over the context budget): ${omittedList(names).join(', ')}`) + JOIN_TOKENS : 0);
  let left = budget - frameTokens;
  const files: PromptFile[] = [];
  const costs: number[] = [];
  const omitted: string[] = [];
  for (const p of present) {
    const text = texts.get(p)!;
    const whole: PromptFile = { path: p, text };
    const cost = text.length > left * MAX_CHARS_PER_TOKEN ? Infinity : countTokens(formatFile(whole)) + JOIN_TOKENS;
    if (cost <= left) {
      files.push(whole);
      costs.push(cost);
      left -= cost;
      continue;
    }
    const lines = failureLines.get(p) ?? [];
    let shown = false;
    for (const radius of [EXCERPT_RADIUS, 10, 3]) {
      const ex = excerptOf(text, lines, radius);
      if (!ex) break;
      const part: PromptFile = { path: p, text: ex.text, excerpt: ex.label };
      const c = ex.text.length > left * MAX_CHARS_PER_TOKEN ? Infinity : countTokens(formatFile(part)) + JOIN_TOKENS;
      if (c <= left) {
        files.push(part);
        costs.push(c);
        left -= c;
        shown = true;
        break;
      }
    }
    if (!shown) omitted.push(p);
  }
  let userTokens = budget - left + omittedLineTokens(omitted);
  while (userTokens > budget && files.length > 0) {
    omitted.unshift(files.pop()!.path);
    userTokens = frameTokens + costs.slice(0, files.length).reduce((a, b) => a + b, 0) + omittedLineTokens(omitted);
  }
  const user = compose(files, omitted);
  return {
    system: systemPrompt(input.settings.editFormat, { protectedPaths: input.settings.protectedPaths, forbidSuppressions: input.settings.forbidSuppressions }),
    user,
    files: files.map((f) => f.path),
    omitted,
    userTokens,
  };
}

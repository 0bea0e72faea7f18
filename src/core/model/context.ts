// What the model sees at each step: the compact failure report, the relevant files and the earlier
// post-mortems, kept within `contextTokenBudget` (DESIGN §2, step k).
import type { Settings } from '../settings';
import type { Failure, Logger } from '../types';
import { silentLogger } from '../types';
import { formatFailureReport, representativeFailures } from '../verify/report';
import type { PromptFile, StepPromptInput } from './prompts';
import { formatFile, stepPrompt, systemPrompt } from './prompts';
import { calledNames, definitionLine, enclosingBlock, importedNames, relevantRanges } from '../verify/relevance';
import { countTokens, truncateToTokens } from '../tokens';
import { isSecretBearingFile } from '../secrets';

export interface StepContextInput {
  step: number;
  settings: Pick<Settings, 'contextTokenBudget' | 'protectedPaths' | 'forbidSuppressions' | 'editFormat'>;
  failures: readonly Failure[];
  /** Failures seen once and not reproduced: listed apart in the report so the model does not chase them. */
  flaky?: readonly Failure[];
  /** Workspace root, so repeats that differ only in noise fold together in the report. */
  root?: string;
  /** Checks whose output was cut with their failures not all listed, one sentence each (verify/cut.ts). */
  cut?: readonly string[];
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
/**
 * A file with failures longer than this (in characters, ~1k tokens) is shown as the parts that
 * matter to them, not whole: a 200-test file with one failing shape needs the failing tests' blocks.
 */
const WHOLE_FILE_CHARS = 4000;
/** An excerpt covering this share of a file's lines is no saving: the file is shown whole. */
const EXCERPT_MAX_SHARE = 0.75;
const TEST_FILE = /(^|\/)(test|tests|spec|specs|__tests__)\/|\.(test|spec)\.[cm]?[jt]sx?$/;
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

function excerptOf(text: string, failureLines: number[], radius: number): { text: string; label: string; share: number } | undefined {
  const src = text.split('\n');
  const ranges = relevantRanges(text, failureLines, radius);
  if (ranges.length === 0) return undefined;
  const chunks: string[] = [];
  let prevEnd = 0;
  let shown = 0;
  for (const [from, to] of ranges) {
    if (from > prevEnd + 1) chunks.push(`… (lines ${prevEnd + 1}-${from - 1} not shown)`);
    chunks.push(src.slice(from - 1, to).join('\n'));
    shown += to - from + 1;
    prevEnd = to;
  }
  if (prevEnd < src.length) chunks.push(`… (lines ${prevEnd + 1}-${src.length} not shown)`);
  return { text: chunks.join('\n'), label: `lines ${ranges.map(([a, b]) => `${a}-${b}`).join(', ')} of ${src.length}`, share: shown / src.length };
}

/** The candidate paths of an import specifier written in `from`, as `relativeImports` resolves them. */
function importTargets(from: string, spec: string): string[] {
  return relativeImports(from, `import '${spec}';`)[0] ?? [];
}

/** Workspace texts read once per step; an unreadable file is undefined, like a missing one. */
interface TextCache {
  texts: Map<string, string | undefined>;
  read(rel: string): Promise<string | undefined>;
}

function textCache(readText: StepContextInput['readText'], logger: Logger): TextCache {
  const texts = new Map<string, string | undefined>();
  const read = async (rel: string): Promise<string | undefined> => {
    if (texts.has(rel)) return texts.get(rel);
    // A secret-bearing file (.env*, keys, .npmrc...) is never quoted to the model.
    if (isSecretBearingFile(rel)) return undefined;
    let t: string | undefined;
    try {
      t = await readText(rel);
    } catch (e) {
      // An unreadable file is left out of the prompt, not a reason to stop the run.
      logger.warn(`prompt: ${rel} cannot be read (${(e as Error).message}); left out`);
      t = undefined;
    }
    texts.set(rel, t);
    return t;
  };
  return { texts, read };
}

/** Where the failures point: the lines that matter in each file, and the files the tests call into. */
interface FailureSites {
  /** Failures per file named by a failure, for ordering. */
  failureCount: Map<string, number>;
  /** Lines an excerpt of each file must show. */
  failureLines: Map<string, number[]>;
  /** Workspace files a failure's stack or a failing test's calls lead into, in the order found. */
  calledInto: string[];
}

async function failureSites(input: StepContextInput, read: TextCache['read']): Promise<FailureSites> {
  const sites: FailureSites = { failureCount: new Map(), failureLines: new Map(), calledInto: [] };
  for (const f of input.failures) {
    if (!f.file || !safeRel(f.file)) continue;
    sites.failureCount.set(f.file, (sites.failureCount.get(f.file) ?? 0) + 1);
  }
  // The source that matters is around the failures the report shows in full: the rest of a shape
  // (the same failure with other values) adds nothing to them.
  for (const f of representativeFailures(input.failures, input.root ?? '')) {
    if (f.file && safeRel(f.file) && f.line !== undefined) noteLine(sites, f.file, f.line);
    // The workspace code the stack passes through (not the test itself): where the cause may be.
    for (const m of f.message.matchAll(/^\s*at\s+(?:.*?\s+\()?([^\s()]+?):(\d+):\d+\)?\s*$/gm)) {
      const file = m[1]!;
      if (file !== f.file && safeRel(file) && !/(^|\/)node_modules\//.test(file) && (await read(file)) !== undefined) {
        noteLine(sites, file, Number(m[2]));
        addCalledInto(sites, file);
      }
    }
    if (f.file && safeRel(f.file) && f.line !== undefined && TEST_FILE.test(f.file)) await noteCalledDefinitions(sites, f.file, f.line, read);
  }
  return sites;
}

function noteLine(sites: FailureSites, file: string, line: number): void {
  sites.failureLines.set(file, [...(sites.failureLines.get(file) ?? []), line]);
}

function addCalledInto(sites: FailureSites, file: string): void {
  if (!sites.calledInto.includes(file)) sites.calledInto.push(file);
}

/** What the failing test at `testFile:line` calls that its file imports: the definition of each such function. */
async function noteCalledDefinitions(sites: FailureSites, testFile: string, line: number, read: TextCache['read']): Promise<void> {
  const text = await read(testFile);
  if (text === undefined) return;
  const src = text.split('\n');
  const block = enclosingBlock(src, line);
  if (!block) return;
  const imports = importedNames(text);
  for (const name of calledNames(src.slice(block[0] - 1, block[1]).join('\n'))) {
    const spec = imports.get(name);
    if (spec === undefined) continue;
    for (const c of importTargets(testFile, spec)) {
      const target = await read(c);
      if (target === undefined) continue;
      const at = definitionLine(target, name);
      if (at !== undefined) noteLine(sites, c, at);
      addCalledInto(sites, c);
      break;
    }
  }
}

/** The files the prompt would show, in order of priority (see `buildStepContext`), each read. */
async function wantedFiles(input: StepContextInput, sites: FailureSites, read: TextCache['read']): Promise<string[]> {
  const { failureCount } = sites;
  const failing = [...failureCount.keys()].sort((a, b) => failureCount.get(b)! - failureCount.get(a)!);
  const wanted: string[] = [];
  const add = (p: string | undefined): void => {
    if (p && safeRel(p) && !wanted.includes(p)) wanted.push(p);
  };
  failing.forEach(add);
  sites.calledInto.forEach(add);
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
  return wanted;
}

/** The step prompt's parts other than the report and the files, each cut to its share of the budget. */
function promptBase(input: StepContextInput, budget: number): Omit<StepPromptInput, 'failureReport' | 'files' | 'omittedFiles'> {
  const share = (f: number): number => Math.max(50, Math.floor(budget * f));
  const postMortems = [...input.postMortems];
  while (postMortems.length > 1 && countTokens(postMortems.join('\n')) > share(POSTMORTEM_SHARE)) postMortems.shift();
  if (postMortems.length === 1) postMortems[0] = truncateToTokens(postMortems[0]!, share(POSTMORTEM_SHARE));
  return {
    step: input.step,
    ...(input.instruction ? { instruction: truncateToTokens(input.instruction, share(INSTRUCTION_SHARE)) } : {}),
    postMortems,
    ...(input.feedback ? { feedback: truncateToTokens(input.feedback, share(FEEDBACK_SHARE)) } : {}),
  };
}

/** A prompt file's tokens plus its join; Infinity when its text is too long to fit `left` at all. */
function fileCost(file: PromptFile, left: number): number {
  return file.text.length > left * MAX_CHARS_PER_TOKEN ? Infinity : countTokens(formatFile(file)) + JOIN_TOKENS;
}

/**
 * One file as it fits in `left` tokens: whole, or as excerpts of shrinking radius around `lines`;
 * undefined when nothing fits. A long file with failures is shown as what matters to them; a short
 * one, or one with none, whole.
 */
function fitFile(p: string, text: string, lines: number[], left: number): { file: PromptFile; cost: number } | undefined {
  const whole: PromptFile = { path: p, text };
  const excerptFirst = lines.length > 0 && text.length > WHOLE_FILE_CHARS;
  const cost = fileCost(whole, left);
  if (!excerptFirst && cost <= left) return { file: whole, cost };
  for (const radius of [EXCERPT_RADIUS, 10, 3]) {
    const ex = excerptOf(text, lines, radius);
    if (!ex) break;
    // An excerpt of most of the file saves little and hides the rest: the whole file, if it fits.
    const part: PromptFile = ex.share >= EXCERPT_MAX_SHARE && cost <= left ? whole : { path: p, text: ex.text, excerpt: ex.label };
    const c = part === whole ? cost : fileCost(part, left);
    if (c <= left) return { file: part, cost: c };
  }
  return undefined;
}

/** The files that fit in `left` tokens, in order, with each one's cost; the rest are omitted. */
function fitFiles(present: string[], texts: Map<string, string | undefined>, failureLines: Map<string, number[]>, left: number): { files: PromptFile[]; costs: number[]; omitted: string[]; left: number } {
  const files: PromptFile[] = [];
  const costs: number[] = [];
  const omitted: string[] = [];
  for (const p of present) {
    const fit = fitFile(p, texts.get(p)!, failureLines.get(p) ?? [], left);
    if (!fit) {
      omitted.push(p);
      continue;
    }
    files.push(fit.file);
    costs.push(fit.cost);
    left -= fit.cost;
  }
  return { files, costs, omitted, left };
}

/** Tokens the final omitted line adds; it may name longer paths than the frame's did, so it is reserved for. */
function omittedLineTokens(names: string[]): number {
  return names.length > 0 ? countTokens(`Not shown (over the context budget): ${omittedList(names).join(', ')}`) + JOIN_TOKENS : 0;
}

/**
 * Builds the system and step prompts. Files come in this order of priority: where the failures
 * are (most failures first), the code the failing tests call into (their stack, the imported
 * functions they call), the files edited so far, the active editor's file, then what the failing
 * files import. A long file with failures is shown as the parts that matter (the failing tests'
 * blocks, the called functions, the lines around each failure the report shows in full, its
 * imports); any file that does not fit whole is shown as such excerpts, else named as omitted. The
 * user prompt stays within `contextTokenBudget`.
 */
export async function buildStepContext(input: StepContextInput): Promise<StepContext> {
  const budget = input.settings.contextTokenBudget;
  const { texts, read } = textCache(input.readText, input.logger ?? silentLogger);
  const sites = await failureSites(input, read);
  const wanted = await wantedFiles(input, sites, read);

  const base = promptBase(input, budget);
  const present = wanted.filter((p) => texts.get(p) !== undefined);
  let reportTokens = Math.floor(budget * REPORT_SHARE);
  const reportExtras = { ...(input.flaky ? { flaky: input.flaky } : {}), ...(input.root ? { root: input.root } : {}), ...(input.cut && input.cut.length > 0 ? { cut: input.cut } : {}) };
  const reportWithin = (maxTokens: number): string => formatFailureReport(input.failures, { readText: (rel) => texts.get(rel), maxTokens, ...reportExtras });
  let report = reportWithin(reportTokens);
  const compose = (files: PromptFile[], omitted: string[]): string => stepPrompt({ ...base, failureReport: report, files, omittedFiles: omittedList(omitted) });

  // Everything but the files, with every candidate named as omitted: the worst case for the rest.
  // A frame over the budget on its own gives up report detail first.
  let frameTokens = countTokens(compose([], present));
  while (frameTokens > budget && reportTokens > 50) {
    reportTokens = Math.floor(reportTokens / 2);
    report = reportWithin(reportTokens);
    frameTokens = countTokens(compose([], present));
  }
  const { files, costs, omitted, left } = fitFiles(present, texts, sites.failureLines, budget - frameTokens);
  let userTokens = budget - left + omittedLineTokens(omitted);
  while (userTokens > budget && files.length > 0) {
    omitted.unshift(files.pop()!.path);
    userTokens = frameTokens + costs.slice(0, files.length).reduce((a, b) => a + b, 0) + omittedLineTokens(omitted);
  }
  return {
    system: systemPrompt(input.settings.editFormat, { protectedPaths: input.settings.protectedPaths, forbidSuppressions: input.settings.forbidSuppressions }),
    user: compose(files, omitted),
    files: files.map((f) => f.path),
    omitted,
    userTokens,
  };
}

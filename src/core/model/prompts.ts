// The prompts. Their structure is pinned by tests: models depend on it, and so do evals.
import type { EditFormat } from '../settings';

export interface SystemPromptOptions {
  /** Globs the run refuses edits to (the protected-paths critic); named so the model need not guess. */
  protectedPaths?: readonly string[];
  /** When false, the no-suppressions rule is advice rather than a rule the run enforces. */
  forbidSuppressions?: boolean;
}

const DIFF_EXAMPLE = [
  '```diff',
  '--- a/src/price.ts',
  '+++ b/src/price.ts',
  '@@ -1,3 +1,3 @@',
  ' export function total(items: number[]): number {',
  '-  return items.length;',
  '+  return items.reduce((sum, n) => sum + n, 0);',
  ' }',
  '```',
];

const SEARCH_REPLACE_EXAMPLE = [
  'src/price.ts',
  '<<<<<<< SEARCH',
  '  return items.length;',
  '=======',
  '  return items.reduce((sum, n) => sum + n, 0);',
  '>>>>>>> REPLACE',
];

function editInstructions(format: EditFormat): string[] {
  if (format === 'search-replace') {
    return [
      'Then give your edits as search/replace blocks: a line with the file path, then `<<<<<<< SEARCH`, the exact current lines, `=======`, the new lines, `>>>>>>> REPLACE`.',
      'The SEARCH lines must match the file exactly and once. An empty SEARCH with a new path creates that file.',
    ];
  }
  if (format === 'diff') {
    return [
      'Then give your edits as unified diffs in ```diff fenced blocks, with `--- a/path` and `+++ b/path` headers and @@ hunks with three lines of context.',
      'Use /dev/null as the old path to create a file and as the new path to delete one.',
    ];
  }
  return [
    'Then give your edits as unified diffs in ```diff fenced blocks (`--- a/path`, `+++ b/path`, @@ hunks with three lines of context), or as search/replace blocks (a path line, `<<<<<<< SEARCH`, the exact current lines, `=======`, the new lines, `>>>>>>> REPLACE`).',
    'In a diff, use /dev/null as the old path to create a file and as the new path to delete one.',
  ];
}

export function systemPrompt(format: EditFormat, opts: SystemPromptOptions = {}): string {
  const forbid = opts.forbidSuppressions ?? true;
  const example = format === 'search-replace' ? SEARCH_REPLACE_EXAMPLE : DIFF_EXAMPLE;
  const rules = [
    '- Fix the code under test, not the tests. Do not edit test files unless the task says so.',
    forbid
      ? '- No suppressions: never add @ts-ignore, @ts-expect-error, eslint-disable, .skip(, .only( or xit(. Edits that add them are refused.'
      : '- Prefer real fixes over suppressions such as @ts-ignore, @ts-expect-error, eslint-disable, .skip(, .only( or xit(.',
    '- Make the smallest change that fixes the reported failures; do not reformat unrelated code.',
    '- Edit only files you have seen in full or in the failure report; quote their current lines exactly.',
    '- Say STATUS: blocked only when the failures cannot be fixed from inside this workspace, and say why in POSTMORTEM.',
    '- Say STATUS: done only when you expect every check to pass after this edit; the checks are re-run and decide.',
  ];
  if (opts.protectedPaths && opts.protectedPaths.length > 0) {
    rules.push(`- Protected paths (edits to them are refused): ${opts.protectedPaths.join(', ')}`);
  }
  return [
    'You fix a TypeScript/JavaScript project until its own checks (type check, linter, tests) pass.',
    'The checks decide when the work is done, not you: your edits are applied and the checks re-run after every reply.',
    '',
    'Reply format. Start with exactly these three header lines:',
    'STATUS: in_progress | done | blocked',
    'CONFIDENCE: a number from 0 to 1 that this reply makes every check pass',
    'POSTMORTEM: a few sentences: why the previous attempt failed (or "first attempt") and what you do differently now',
    ...editInstructions(format),
    'Paths are relative to the workspace root. Put all of this step\'s edits in this one reply; keep prose short.',
    '',
    'Example reply:',
    'STATUS: in_progress',
    'CONFIDENCE: 0.8',
    'POSTMORTEM: First attempt. The test expects the sum of the prices, but total() returns the count.',
    '',
    ...example,
    '',
    'Rules:',
    ...rules,
  ].join('\n');
}

export interface PromptFile {
  path: string;
  text: string;
  /** Set when only parts of the file are shown, e.g. `lines 1-40, 200-260 of 900`. */
  excerpt?: string;
}

export interface StepPromptInput {
  step: number;
  instruction?: string;
  failureReport: string;
  files: PromptFile[];
  /** Relevant files left out to keep within the context budget. */
  omittedFiles?: string[];
  postMortems: string[];
  /** Why the previous reply could not be applied or was rolled back. */
  feedback?: string;
}

const LANGS: Record<string, string> = { ts: 'ts', tsx: 'tsx', mts: 'ts', cts: 'ts', js: 'js', jsx: 'jsx', mjs: 'js', cjs: 'js', json: 'json', md: 'md' };

/** A fence longer than any backtick run in the text, so a file holding ``` cannot end its block early. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

export function formatFile(f: PromptFile): string {
  const fence = fenceFor(f.text);
  const ext = /\.([A-Za-z0-9]+)$/.exec(f.path)?.[1]?.toLowerCase() ?? '';
  const body = f.text.endsWith('\n') ? f.text : `${f.text}\n`;
  return `### ${f.path}${f.excerpt ? ` (excerpt: ${f.excerpt})` : ''}\n${fence}${LANGS[ext] ?? ''}\n${body}${fence}`;
}

/** The step prompt's sections, always in this order; empty ones are left out. */
export const STEP_SECTIONS = ['# Step', '## Task', '## Your previous reply was not accepted', '## Failures', '## Earlier post-mortems (oldest first)', '## Relevant files', '## Reply'] as const;

export function stepPrompt(input: StepPromptInput): string {
  const parts: string[] = [`# Step ${input.step}`];
  parts.push(`## Task\n${input.instruction?.trim() ? input.instruction.trim() : 'Make every check pass.'}`);
  if (input.feedback) parts.push(`## Your previous reply was not accepted\n${input.feedback}`);
  // The report's own headings sit one level below the prompt's sections.
  parts.push(`## Failures\n${input.failureReport.replace(/^(#{1,5}) /gm, '#$1 ')}`);
  if (input.postMortems.length > 0) {
    parts.push(`## Earlier post-mortems (oldest first)\n${input.postMortems.map((p, i) => `${i + 1}. ${p}`).join('\n')}`);
  }
  if (input.files.length > 0 || (input.omittedFiles?.length ?? 0) > 0) {
    const shown = input.files.map(formatFile);
    if (input.omittedFiles && input.omittedFiles.length > 0) shown.push(`Not shown (over the context budget): ${input.omittedFiles.join(', ')}`);
    parts.push(`## Relevant files\n${shown.join('\n\n')}`);
  }
  parts.push('## Reply\nThe three header lines (STATUS, CONFIDENCE, POSTMORTEM), then your edits.');
  return parts.join('\n\n');
}

// The prompts. Their structure is pinned by tests: models depend on it, and so do evals.
import type { EditFormat } from '../settings';

export function systemPrompt(format: EditFormat): string {
  const edits =
    format === 'search-replace'
      ? 'Then give your edits as search/replace blocks: a line with the file path, then `<<<<<<< SEARCH`, the exact current lines, `=======`, the new lines, `>>>>>>> REPLACE`.'
      : format === 'diff'
        ? 'Then give your edits as unified diffs in ```diff fenced blocks, with `--- a/path` and `+++ b/path` headers and @@ hunks with three lines of context.'
        : 'Then give your edits as unified diffs in ```diff fenced blocks (`--- a/path`, `+++ b/path`, @@ hunks with context), or as search/replace blocks (path line, `<<<<<<< SEARCH`, current lines, `=======`, new lines, `>>>>>>> REPLACE`).';
  return [
    'You fix a TypeScript/JavaScript project until its own checks (type check, linter, tests) pass.',
    'The checks decide when the work is done, not you: your edits are applied and the checks re-run after every reply.',
    '',
    'Reply format. Start with exactly these three header lines:',
    'STATUS: in_progress | done | blocked',
    'CONFIDENCE: a number from 0 to 1 that this reply makes every check pass',
    'POSTMORTEM: a few sentences: why the previous attempt failed (or "first attempt") and what you do differently now',
    edits,
    'Paths are relative to the workspace root. Use /dev/null as the old path to create a file and as the new path to delete one.',
    '',
    'Rules:',
    '- Fix the code under test, not the tests. Do not edit test files unless the task says so.',
    '- No suppressions: never add @ts-ignore, @ts-expect-error, eslint-disable, .skip(, .only( or xit(.',
    '- Make the smallest change that fixes the reported failures; do not reformat unrelated code.',
    '- Say STATUS: blocked only when the failures cannot be fixed from inside this workspace, and say why in POSTMORTEM.',
  ].join('\n');
}

export interface StepPromptInput {
  step: number;
  instruction?: string;
  failureReport: string;
  files: { path: string; text: string }[];
  postMortems: string[];
  /** Why the previous reply could not be applied or was rolled back. */
  feedback?: string;
}

export function stepPrompt(input: StepPromptInput): string {
  const parts: string[] = [`# Step ${input.step}`];
  if (input.instruction) parts.push(`## Task\n${input.instruction}`);
  else parts.push('## Task\nMake every check pass.');
  if (input.feedback) parts.push(`## Your previous reply was not accepted\n${input.feedback}`);
  parts.push(`## Failures\n${input.failureReport}`);
  if (input.postMortems.length > 0) {
    parts.push(`## Earlier post-mortems (oldest first)\n${input.postMortems.map((p, i) => `${i + 1}. ${p}`).join('\n')}`);
  }
  if (input.files.length > 0) {
    parts.push(`## Relevant files\n${input.files.map((f) => `### ${f.path}\n\`\`\`\n${f.text}\n\`\`\``).join('\n\n')}`);
  }
  return parts.join('\n\n');
}

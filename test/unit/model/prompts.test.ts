// Pins the prompts' structure: models depend on it, and so do evals and the parsers.
import assert from 'node:assert/strict';
import { parseReply } from '../../../src/core/edit/parse';
import { parseSelfReport } from '../../../src/core/policy/selfReport';
import { fenceFor, formatFile, STEP_SECTIONS, stepPrompt, systemPrompt } from '../../../src/core/model/prompts';
import { DEFAULT_PROTECTED_PATHS } from '../../../src/core/settings';

function exampleReply(system: string): string {
  const start = system.indexOf('Example reply:\n');
  const end = system.indexOf('\n\nRules:');
  assert.ok(start >= 0 && end > start, 'the system prompt has an example reply before the rules');
  return system.slice(start + 'Example reply:\n'.length, end);
}

describe('prompts', () => {
  describe('system prompt', () => {
    it('states the reply header, in order, before the edit instructions and the rules', () => {
      const s = systemPrompt('auto');
      const at = (t: string): number => {
        const i = s.indexOf(t);
        assert.ok(i >= 0, `missing: ${t}`);
        return i;
      };
      const order = [at('STATUS: in_progress | done | blocked'), at('CONFIDENCE: a number from 0 to 1'), at('POSTMORTEM: '), at('Then give your edits'), at('Example reply:'), at('Rules:')];
      assert.deepEqual([...order].sort((a, b) => a - b), order);
    });

    it('states the rules: fix the code not the tests, no suppressions', () => {
      const s = systemPrompt('auto');
      assert.match(s, /Fix the code under test, not the tests/);
      for (const marker of ['@ts-ignore', '@ts-expect-error', 'eslint-disable', '.skip(', '.only(', 'xit(']) assert.ok(s.includes(marker), marker);
      assert.match(s, /No suppressions: .* Edits that add them are refused\./);
      assert.match(systemPrompt('auto', { forbidSuppressions: false }), /Prefer real fixes over suppressions/);
    });

    it('names the protected paths when given', () => {
      const s = systemPrompt('diff', { protectedPaths: DEFAULT_PROTECTED_PATHS });
      assert.match(s, /Protected paths \(edits to them are refused\): \*\*\/\*\.test\.\*, \*\*\/\*\.spec\.\*/);
      assert.ok(!systemPrompt('diff').includes('Protected paths'));
    });

    it('describes the configured edit format', () => {
      assert.match(systemPrompt('diff'), /unified diffs in ```diff fenced blocks/);
      assert.ok(!systemPrompt('diff').includes('<<<<<<< SEARCH'));
      assert.match(systemPrompt('search-replace'), /search\/replace blocks: a line with the file path, then `<<<<<<< SEARCH`/);
      assert.ok(!systemPrompt('search-replace').includes('```diff'));
      const auto = systemPrompt('auto');
      assert.ok(auto.includes('```diff') && auto.includes('<<<<<<< SEARCH'));
    });

    it('carries an example reply that the engine itself can read', () => {
      for (const format of ['auto', 'diff'] as const) {
        const ex = exampleReply(systemPrompt(format));
        const self = parseSelfReport(ex);
        assert.deepEqual(self.problems, []);
        assert.equal(self.status, 'in_progress');
        assert.equal(self.confidence, 0.8);
        const parsed = parseReply(ex, format);
        assert.deepEqual(parsed.errors, []);
        assert.equal(parsed.edits.length, 1);
        assert.equal(parsed.edits[0]!.newPath, 'src/price.ts');
      }
      const sr = exampleReply(systemPrompt('search-replace'));
      assert.match(sr, /^STATUS: in_progress\nCONFIDENCE: 0\.8\nPOSTMORTEM: .+\n\nsrc\/price\.ts\n<<<<<<< SEARCH\n[\s\S]+\n=======\n[\s\S]+\n>>>>>>> REPLACE$/);
    });
  });

  describe('step prompt', () => {
    const full = stepPrompt({
      step: 3,
      instruction: 'Fix the discount.',
      failureReport: '2 failure(s):\n\n## src/cart.ts\n- [tsc TS2322] src/cart.ts:16:3',
      files: [{ path: 'src/cart.ts', text: 'export const x = 1;\n' }, { path: 'src/big.ts', text: 'line 10\n… (lines 41-900 not shown)', excerpt: 'lines 1-40 of 900' }],
      omittedFiles: ['src/huge.ts'],
      postMortems: ['first idea', 'second idea'],
      feedback: 'Your edits were not applied, so nothing changed:\nhunk 1 failed',
    });

    it('has its sections in the pinned order', () => {
      const heads = full.split('\n').filter((l) => /^#{1,2} /.test(l));
      assert.deepEqual(heads, ['# Step 3', '## Task', '## Your previous reply was not accepted', '## Failures', '## Earlier post-mortems (oldest first)', '## Relevant files', '## Reply']);
      assert.deepEqual(STEP_SECTIONS.map((h) => heads.findIndex((x) => x.startsWith(h))), [0, 1, 2, 3, 4, 5, 6]);
    });

    it('nests the failure report\'s headings under Failures', () => {
      assert.match(full, /## Failures\n2 failure\(s\):\n\n### src\/cart\.ts\n- \[tsc TS2322\]/);
    });

    it('numbers the post-mortems oldest first and ends with the reply reminder', () => {
      assert.match(full, /## Earlier post-mortems \(oldest first\)\n1\. first idea\n2\. second idea/);
      assert.match(full, /## Reply\nThe three header lines \(STATUS, CONFIDENCE, POSTMORTEM\), then your edits\.$/);
    });

    it('shows files in fenced blocks with their path, marks excerpts and lists what was left out', () => {
      assert.match(full, /### src\/cart\.ts\n```ts\nexport const x = 1;\n```/);
      assert.match(full, /### src\/big\.ts \(excerpt: lines 1-40 of 900\)\n```ts\n/);
      assert.match(full, /Not shown \(over the context budget\): src\/huge\.ts/);
    });

    it('leaves out empty sections and defaults the task', () => {
      const bare = stepPrompt({ step: 1, failureReport: 'R', files: [], postMortems: [] });
      assert.equal(bare, '# Step 1\n\n## Task\nMake every check pass.\n\n## Failures\nR\n\n## Reply\nThe three header lines (STATUS, CONFIDENCE, POSTMORTEM), then your edits.');
    });

    it('fences a file that holds backticks with a longer fence', () => {
      assert.equal(fenceFor('no ticks'), '```');
      assert.equal(fenceFor('a ``` b'), '````');
      assert.equal(fenceFor('````` x'), '``````');
      const f = formatFile({ path: 'README.md', text: '```js\ncode\n```\n' });
      assert.equal(f, '### README.md\n````md\n```js\ncode\n```\n````');
    });
  });
});

// What a refused edit tells the model, measured on the corpus's refusals of text that did not match
// and on a run: it names the block, the file and what did not match, quotes the file's closest lines
// as they are (numbered, so they can be copied), and fits the feedback's share of the prompt.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { applyEdits } from '../../../src/core/edit/apply';
import { parseReply } from '../../../src/core/edit/parse';
import { FsWorkspace } from '../../../src/core/edit/workspace';
import { editNotes } from '../../../src/core/loop/notes';
import { defaultSettings } from '../../../src/core/settings';
import { countTokens } from '../../../src/core/tokens';
import type { CompletionRequest } from '../../../src/core/types';
import { makeRun, project, SRC, TEST } from '../loop/harness';
import { REPLIES } from './support/tree';

const CASES = path.join(REPLIES, 'cases');
const PROJECT = path.join(REPLIES, 'project');
/** The feedback's share of the default context budget (model/context.ts FEEDBACK_SHARE). */
const FEEDBACK_TOKENS = Math.floor(defaultSettings().contextTokenBudget * 0.1);

/** Numbered file lines quoted in `text` (`  21 |   let total = 0;`) that are the file's lines at those numbers. */
function quotedFileLines(text: string, file: string[]): number {
  let n = 0;
  for (const m of text.matchAll(/^\s+(\d+) \| (.*)$/gm)) if (file[Number(m[1]) - 1] === m[2]) n++;
  return n;
}

describe('edit/feedback: what a refusal tells the model', () => {
  const refused = readdirSync(CASES)
    .sort()
    .filter((c) => {
      const e = JSON.parse(readFileSync(path.join(CASES, c, 'expect.json'), 'utf8')) as { applied: boolean };
      return !e.applied;
    });

  it('names block, file and mismatch, and quotes the closest lines, for every corpus refusal of unmatched text', async () => {
    let unmatched = 0;
    let quoting = 0;
    for (const c of refused) {
      const parsed = parseReply(readFileSync(path.join(CASES, c, 'reply.md'), 'utf8'));
      if (parsed.errors.length > 0) continue;
      const r = await applyEdits(parsed.edits, { workspace: new FsWorkspace(PROJECT), policy: { root: PROJECT }, dryRun: true });
      if (!r.errors.some((e) => e.includes('did not match'))) continue;
      unmatched++;
      const feedback = editNotes({ written: false, rolledBack: false, criticStopped: false, error: r.errors.join('\n') }).join('\n');
      const rel = /^([\w/.-]+): /.exec(r.errors[0]!)![1]!;
      assert.match(feedback, /(the search\/replace block at reply line \d+|hunk \d+ of \d+ \(reply line \d+\))/, `${c}: names the block`);
      assert.ok(feedback.includes(`${rel}: `), `${c}: names the file`);
      assert.ok(feedback.includes('It starts:'), `${c}: shows what did not match`);
      const file = readFileSync(path.join(PROJECT, rel), 'utf8').split('\n');
      if (/no part of .* resembles it/.test(feedback)) continue;
      assert.ok(quotedFileLines(feedback, file) >= 3, `${c}: quotes at least 3 of the file's own lines:\n${feedback}`);
      quoting++;
      assert.ok(countTokens(feedback) <= FEEDBACK_TOKENS / 4, `${c}: ${countTokens(feedback)} tokens`);
    }
    assert.ok(unmatched >= 5, `${unmatched} refusals of unmatched text`);
    assert.ok(quoting >= unmatched - 1, `${quoting} of ${unmatched} quote the file`);
  });

  it('reaches the next prompt of a run whole, and a model that copies from it recovers', async () => {
    const p = project({ [SRC]: 'a=bad\nb=bad\nc=bad\n', [TEST]: 'assert a\nassert b\nassert c\n' });
    try {
      const head = 'STATUS: in_progress\nCONFIDENCE: 0.6\nPOSTMORTEM: first attempt\n\n';
      const wrong = `${head}${SRC}\n<<<<<<< SEARCH\na = bad\nb = bad\nc = broken\n=======\na=ok\nb=ok\nc=ok\n>>>>>>> REPLACE\n`;
      const right = `${head}${SRC}\n<<<<<<< SEARCH\na=bad\nb=bad\nc=bad\n=======\na=ok\nb=ok\nc=ok\n>>>>>>> REPLACE\n`;
      const { run, provider } = makeRun(p, [{ text: wrong }, { text: right }]);
      const r = await run.start();
      assert.equal(r.stopReason, 'green', r.detail);
      assert.equal(r.steps[0]!.applied, false);
      const second = (provider as unknown as { requests: CompletionRequest[] }).requests[1]!.messages[0]!.content;
      assert.match(second, /src\/values\.txt: the search\/replace block at reply line 5 did not match the file's current content/);
      assert.match(second, /Did you mean these lines of src\/values\.txt\? Quote them exactly:\n\s+1 \| a=bad\n\s+2 \| b=bad\n\s+3 \| c=bad/);
    } finally {
      p.cleanup();
    }
  });
});

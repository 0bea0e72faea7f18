// A reply the provider says it cut off (finish_reason `length`, stop_reason `max_tokens`, VS Code's
// reply read past its limit) reaches the edit parser with that stop reason and is never applied,
// however complete its edits look; the next prompt says why.
import * as assert from 'node:assert/strict';
import type { CompletionRequest } from '../../../src/core/types';
import type { Project } from './harness';
import { makeRun, project, SRC, step, TEST, values } from './harness';

const BAD = { a: 'bad', b: 'bad' };
const OK = { a: 'ok', b: 'ok' };

describe('loop: a reply cut off by the provider', () => {
  let p: Project;
  beforeEach(() => {
    p = project({ [SRC]: values(BAD), [TEST]: 'assert a\nassert b\n' });
  });
  afterEach(() => p.cleanup());

  for (const reason of ['length', 'max_tokens']) {
    it(`is not applied when the provider's stop reason is \`${reason}\`, even with a complete-looking edit`, async () => {
      const fix = step(BAD, OK);
      const { run, provider } = makeRun(p, [{ ...fix, finishReason: reason }, { ...fix, finishReason: 'stop' }]);
      const r = await run.start();
      assert.equal(r.stopReason, 'green', r.detail);
      assert.equal(r.steps[0]!.applied, false);
      assert.equal(r.steps[1]!.applied, true);
      const second = (provider as unknown as { requests: CompletionRequest[] }).requests[1]!.messages[0]!.content;
      assert.match(second, new RegExp(`the reply was cut off: the provider stopped it at the output limit \\(stop reason \`${reason}\`\\)`));
    });
  }
});

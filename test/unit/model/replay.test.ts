import * as assert from 'node:assert/strict';
import { parseReplayScript, ReplayFileError, ReplayProvider } from '../../../src/core/model/replay';

describe('model/replay: a scripted response\'s stop reason', () => {
  const req = { system: 's', messages: [{ role: 'user' as const, content: 'u' }], maxOutputTokens: 100, signal: new AbortController().signal };

  it('hands the scripted finishReason on as the provider\'s, and none when the script gives none', async () => {
    const p = new ReplayProvider(parseReplayScript('{"responses":[{"text":"a","finishReason":"length"},{"text":"b","usage":{"input":1,"output":1},"finishReason":"stop"},{"text":"c"}]}', 't.json'));
    assert.equal((await p.complete(req)).finishReason, 'length');
    assert.equal((await p.complete(req)).finishReason, 'stop');
    assert.equal('finishReason' in (await p.complete(req)), false);
  });

  it('refuses a finishReason that is not a non-empty string', () => {
    for (const bad of ['""', '3', 'null']) {
      assert.throws(() => parseReplayScript(`{"responses":[{"text":"a","finishReason":${bad}}]}`, 't.json'), (e: unknown) => e instanceof ReplayFileError && /responses\[0\]\.finishReason must be a non-empty string/.test(e.message), bad);
    }
  });
});

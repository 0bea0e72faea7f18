// Token counts of texts with very long runs of non-space characters (minified code, base64, a test's
// `'x'.repeat(n)`): cut into pieces so the count stays linear (it was quadratic: 40 s for one 150 KB
// run), erring high; text without such runs is counted exactly as the tokenizer counts it.
import assert from 'node:assert/strict';
import { countTokens as exactCount, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens, tokenPieces, truncateToTokens } from '../../../src/core/tokens';

const EXACT = { allowedSpecial: 'all' as const };

describe('tokens: long runs of non-space characters', () => {
  it('leaves text without a long run whole, and counts it exactly', () => {
    const prose = 'The model proposes; the verifier disposes. '.repeat(400) + 'const x = add(1, 2);\n'.repeat(200);
    assert.deepEqual(tokenPieces(prose), [prose]);
    assert.equal(countTokens(prose), exactCount(prose, EXACT));
  });

  it('cuts a long run into pieces that join back to the text, never inside a surrogate pair', () => {
    const emoji = '😀'.repeat(300);
    const text = `head ${'x'.repeat(1000)} mid ${emoji} tail`;
    const pieces = tokenPieces(text);
    assert.ok(pieces.length > 3, `cut: ${pieces.length} pieces`);
    assert.equal(pieces.join(''), text);
    for (const p of pieces) {
      const first = p.charCodeAt(0);
      assert.ok(!(first >= 0xdc00 && first <= 0xdfff), 'no piece starts with a low surrogate');
    }
  });

  it('counts long runs never below the exact count: within a token per cut on data, at most 30 % over on a repeated pair', () => {
    const data = ['x'.repeat(20_000), Buffer.from('a'.repeat(30_000)).toString('base64'), Buffer.from(Array.from({ length: 5_000 }, (_, i) => (i * 7919) % 256)).toString('hex'), 'ab'.repeat(4_000) + ' end'];
    for (const text of data) {
      const exact = exactCount(text, EXACT);
      const cuts = tokenPieces(text).length - 1;
      const n = countTokens(text);
      assert.ok(n >= exact && n <= exact + cuts, `${text.slice(0, 12)}…: ${n} within [${exact}, ${exact + cuts}]`);
    }
    // BPE is not local: a cut inside a run of one repeated pair shifts every merge after it.
    const pair = `let s = "${'=-'.repeat(5_000)}";`;
    const exact = exactCount(pair, EXACT);
    const n = countTokens(pair);
    assert.ok(n >= exact && n <= exact * 1.3, `${n} within [${exact}, ${exact * 1.3}]`);
  });

  it('truncates a long run to the budget and keeps a prefix of the text', () => {
    const text = 'y'.repeat(100_000);
    const cut = truncateToTokens(text, 500);
    const kept = cut.slice(0, cut.indexOf('\n[… cut'));
    assert.ok(text.startsWith(kept) && kept.length > 0);
    assert.ok(encode(cut, EXACT).length <= 500 + 5, 'within the budget');
  });
});

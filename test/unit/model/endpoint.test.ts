import assert from 'node:assert/strict';
import { isLoopbackUrl } from '../../../src/core/endpoints';
import { describeEndpoint, missingKeyProblem, redactSecrets } from '../../../src/core/model/endpoint';
import { InputGauge, MARGIN_TOKENS, UNCALIBRATED_FACTOR, COUNTED_FACTOR, CALIBRATION_HEADROOM } from '../../../src/core/model/budget';

describe('endpoints and keys', () => {
  it('knows loopback URLs, which need no key', () => {
    for (const u of ['http://127.0.0.1:11434/v1', 'http://localhost:1234/v1', 'http://[::1]:8000/v1', 'http://127.8.9.10/v1', 'http://api.localhost/v1']) {
      assert.equal(isLoopbackUrl(u), true, u);
    }
    for (const u of ['https://api.openai.com/v1', 'http://192.168.1.5:11434/v1', 'http://127.0.0.1.evil.example/v1', 'not a url', '']) {
      assert.equal(isLoopbackUrl(u), false, u);
    }
  });

  it('describes an endpoint without credentials or query', () => {
    assert.equal(describeEndpoint('https://user:secret@gw.example.com/v1/?key=abc'), 'gw.example.com/v1');
    assert.equal(describeEndpoint('::'), '(an unreadable URL)');
  });

  it('redacts the given secrets and anything shaped like a key', () => {
    const key = 'sk-proj-AbC123xyz789_leak';
    const msg = `401 Incorrect API key provided: ${key}. Also Bearer abcdefghijk12345 and sk-ant-api03-zzzzzzzzzz and custom-secret-value`;
    const out = redactSecrets(msg, [key, 'custom-secret-value', undefined, 'ab']);
    assert.ok(!out.includes(key));
    assert.ok(!out.includes('abcdefghijk12345'));
    assert.ok(!out.includes('sk-ant-api03'));
    assert.ok(!out.includes('custom-secret-value'));
    assert.match(out, /^401 Incorrect API key provided: \[redacted\]\./);
    assert.equal(redactSecrets('a plain message about tasks', ['ab']), 'a plain message about tasks');
  });

  it('asks for a key only off this machine, naming where it comes from', () => {
    const hint = 'set the OPENAI_API_KEY environment variable to a valid key';
    assert.equal(missingKeyProblem({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', apiKey: undefined, keyHint: hint }), undefined);
    assert.equal(missingKeyProblem({ provider: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-x', keyHint: hint }), undefined);
    const p = missingKeyProblem({ provider: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: '  ', keyHint: hint });
    assert.match(p ?? '', /openai-compatible at api\.openai\.com\/v1 needs an API key .*OPENAI_API_KEY.*fixUntilGreen\.model\.baseUrl/);
  });
});

describe('InputGauge (the input allowance behind the token gate)', () => {
  it('reserves a wide margin before any usage is reported, a narrow one for provider counts', () => {
    const g = new InputGauge();
    assert.equal(g.allowance(1000, 'tokenizer').allowance, Math.ceil(1000 * UNCALIBRATED_FACTOR) + MARGIN_TOKENS);
    assert.equal(g.allowance(1000, 'provider').allowance, Math.ceil(1000 * COUNTED_FACTOR) + MARGIN_TOKENS);
  });

  it('learns the highest reported/estimated ratio and keeps headroom over it', () => {
    const g = new InputGauge();
    g.observe({ estimate: 1000, source: 'tokenizer' }, 1100);
    assert.equal(g.allowance(2000, 'tokenizer').allowance, Math.ceil(2000 * (1.1 * CALIBRATION_HEADROOM)) + MARGIN_TOKENS);
    g.observe({ estimate: 1000, source: 'tokenizer' }, 900);
    assert.equal(g.ratio('tokenizer'), 1.1, 'a lower ratio never lowers the margin');
    g.observe({ estimate: 1000, source: 'tokenizer' }, 1200);
    assert.equal(g.ratio('tokenizer'), 1.2);
    // A provider that counts fewer tokens than we estimate never shrinks the allowance below the estimate.
    const h = new InputGauge();
    h.observe({ estimate: 1000, source: 'tokenizer' }, 500);
    assert.ok(h.allowance(1000, 'tokenizer').allowance >= 1000);
    assert.equal(h.ratio('provider'), undefined);
  });
});

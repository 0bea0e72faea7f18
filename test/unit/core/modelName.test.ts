// A sentence names a model as a person would (issue 40): its id, or the name VS Code gives a chat
// model, and its server only where that helps; the label (`openai-compatible:big-coder`) is the
// public name the trace, the JSON answers and the logs keep.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { modelName, modelOn, namedInText, namesOf, splitLabel } from '../../../src/core/modelName';
import { createTimelinePrinter, formatSummary } from '../../../src/cli/printer';
import type { RunReport, TimedEvent } from '../../../src/core/trace/events';

const REPO = path.resolve(__dirname, '..', '..', '..');

describe('a model named as a person names it', () => {
  it('by its id, or the name its provider gave it; the provider prefix of the setting never', () => {
    assert.equal(modelName('openai-compatible:big-coder'), 'big-coder');
    assert.equal(modelName('anthropic:claude-sonnet-4'), 'claude-sonnet-4');
    assert.equal(modelName('vscode-lm:fug-scripted-model', { 'vscode-lm:fug-scripted-model': 'Scripted Test Model' }), 'Scripted Test Model');
    assert.equal(modelName('openai-compatible:qwen2.5-coder:7b'), 'qwen2.5-coder:7b', 'an id with a colon (Ollama tags) stays whole');
    assert.equal(modelName('vscode-lm:'), "VS Code's first chat model");
    assert.equal(modelName('replay:demo.json'), 'demo.json');
    assert.equal(modelName('my-own-label'), 'my-own-label', 'a label of no known provider is all id');
    assert.deepEqual(splitLabel('openai-compatible:a:b'), { provider: 'openai-compatible', id: 'a:b' });
  });

  it("with its server where the sentence is about the server, and a chat model of VS Code's by its name", () => {
    assert.equal(modelOn('openai-compatible:local-coder', 'http://127.0.0.1:1234/v1'), 'local-coder on 127.0.0.1:1234');
    assert.equal(modelOn('anthropic:claude-sonnet-4', 'https://api.anthropic.com'), 'claude-sonnet-4 on api.anthropic.com');
    assert.equal(modelOn('vscode-lm:gpt-4o', 'http://127.0.0.1:1234/v1', { 'vscode-lm:gpt-4o': 'GPT-4o' }), 'GPT-4o');
    assert.equal(modelOn('openai-compatible:local-coder', ''), 'local-coder');
  });

  it('tells two models of one id apart by their providers, and no others', () => {
    assert.deepEqual(namesOf(['openai-compatible:gpt-4o', 'anthropic:gpt-4o', 'openai-compatible:small']), { 'openai-compatible:gpt-4o': 'gpt-4o (openai-compatible)', 'anthropic:gpt-4o': 'gpt-4o (anthropic)', 'openai-compatible:small': 'small' });
    assert.deepEqual(namesOf(['vscode-lm:a', 'vscode-lm:a'], { 'vscode-lm:a': 'A' }), { 'vscode-lm:a': 'A' });
  });

  it("rewords the engine's sentences: `provider:id at endpoint` becomes `id on host`, punctuation kept", () => {
    assert.equal(namedInText('openai-compatible:fake-coder at 127.0.0.1:4011/v1 refused the API key (401).'), 'fake-coder on 127.0.0.1:4011 refused the API key (401).');
    assert.equal(namedInText('escalation model 1 (anthropic:claude-x): no key'), 'escalation model 1 (claude-x): no key');
    assert.equal(namedInText('openai-compatible:qwen2.5-coder:7b: cannot reach 127.0.0.1:11434/v1'), 'qwen2.5-coder:7b: cannot reach 127.0.0.1:11434/v1');
    assert.equal(namedInText('asked openai-compatible:gpt-4.1.'), 'asked gpt-4.1.');
    assert.equal(namedInText('Working with vscode-lm:fug-scripted-model', { 'vscode-lm:fug-scripted-model': 'Scripted Test Model' }), 'Working with Scripted Test Model');
    assert.equal(namedInText('no model here: a:b, http://x'), 'no model here: a:b, http://x');
  });

  it("names models in the CLI's human output; its JSON and the trace keep the labels", () => {
    const lines: string[] = [];
    const print = createTimelinePrinter((l) => lines.push(l));
    const start = { ts: '', type: 'run-start', step: 0, runId: 'r1', root: '/w', model: 'openai-compatible:small', instruction: null, checks: [], limits: { maxSteps: 4, tokenCeiling: 200000, timeLimitSeconds: 600 }, settings: { model: { baseUrl: 'http://127.0.0.1:1234/v1' } }, ladder: ['openai-compatible:big-coder'] } as unknown as TimedEvent;
    print(start);
    print({ ts: '', type: 'escalated', step: 2, reason: 'stalled', detail: 'seen 3 times', from: 'openai-compatible:small', to: 'openai-compatible:big-coder', rung: 1, rungs: 1 } as unknown as TimedEvent);
    assert.match(lines.join('\n'), /model small on 127\.0\.0\.1:1234 · max 4 steps/);
    assert.match(lines.join('\n'), /escalation: big-coder/);
    assert.match(lines.join('\n'), /escalated after step 2: small stopped with stalled \(seen 3 times\); big-coder takes over/);
    assert.doesNotMatch(lines.join('\n'), /openai-compatible:/);
    const summary = formatSummary({ stopReason: 'green', outcome: 'fixed', detail: '', steps: [], limits: { maxSteps: 4, tokenCeiling: 1000, timeLimitSeconds: 60 }, tokensUsed: 0, elapsedMs: 0, bestStep: 0, escalations: [{ step: 2, reason: 'stalled', from: 'openai-compatible:small', to: 'openai-compatible:big-coder' }], fixedFailures: [], remainingFailures: [], hypotheses: [], tracePath: '/t' } as unknown as RunReport);
    assert.ok(summary.includes('escalated after step 2: small (stalled) → big-coder'), summary.join('\n'));
  });

  it('no surface a person reads prints a model label bare (the log keeps labels; a tooltip may add one in parentheses)', () => {
    // The class: a new sentence written as `${e.model}`, `${st.model}`, `${e.to}`: it would say "openai-compatible:big-coder".
    const files = (dir: string): string[] => readdirSync(dir).flatMap((n) => {
      const p = path.join(dir, n);
      return statSync(p).isDirectory() ? files(p) : /\.ts$/.test(n) ? [p] : [];
    });
    const surfaces = [...files(path.join(REPO, 'src', 'vscode')), ...files(path.join(REPO, 'media')), path.join(REPO, 'src', 'cli', 'printer.ts')].filter((f) => !f.endsWith('runLog.ts'));
    const bare = surfaces.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ at: `${path.relative(REPO, f)}:${i + 1}`, line }))
        .filter(({ line }) => !/^\s*(\/\/|\*)/.test(line) && /(?<!\()\$\{[\w.!?]*\.(model|to|from|label)\}/.test(line)),
    );
    assert.deepEqual(bare.map((b) => `${b.at}: ${b.line.trim().slice(0, 120)}`), []);
  });
});

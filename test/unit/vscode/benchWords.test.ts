// Benchmark Models on This Repository…'s choices and words (src/vscode/common/benchWords.ts), and the
// report as the webview gets it: the panel's CSP (a nonce, default-src 'none', no script), its one
// stylesheet carrying that nonce, no inline style attribute (a nonce does not cover those), trace
// links as command links.
import assert from 'node:assert/strict';
import type { PairRecord } from '../../../src/core/bench/metrics';
import { makePlan, ORACLE_VARIANT } from '../../../src/core/bench/plan';
import { htmlReport, REPORT_CSS, reportStyleHash } from '../../../src/core/bench/reportHtml';
import { summarize } from '../../../src/core/bench/summary';
import type { BenchTask } from '../../../src/core/bench/tasks';
import { BENCH_OPEN_TRACE_COMMAND } from '../../../src/vscode/common/commandIds';
import { doneSentence, progressWords, reportCsp, traceCommandHref, variantChoices } from '../../../src/vscode/common/benchWords';
import { createHash } from 'node:crypto';

const verdict = { green: false, failureHash: 'h', failureCount: 1, failingFiles: [], checks: [], durationMs: 1 };
const task = (id: string): BenchTask => ({ id, commit: `${id}c`, parent: `${id}p`, subject: id, testFiles: [], referenceFiles: ['src/a.js'], failingTests: [], holdout: null, broken: verdict, reference: { ...verdict, green: true }, checkPlan: 'k' });

describe('bench in VS Code: choices, progress, the report under the webview CSP', () => {
  it('offers the oracle first and picked, the chat models, the configured model and its ladder, each name unique', () => {
    const chat = [
      { provider: 'vscode-lm', id: 'gpt-4o', baseUrl: '', name: 'GPT-4o', vendor: 'copilot' },
      { provider: 'vscode-lm', id: 'gpt-4o', baseUrl: '', name: 'GPT-4o (other vendor)', vendor: 'x' },
    ];
    const configured = { provider: 'openai-compatible', id: 'qwen2.5-coder', baseUrl: 'http://127.0.0.1:11434/v1', escalation: [{ provider: 'anthropic', id: 'claude-sonnet-4-5', baseUrl: '' }] };
    const c = variantChoices(chat, configured);
    assert.deepEqual(c.map((x) => [x.variant.name, x.picked]), [['oracle', true], ['gpt-4o', false], ['gpt-4o-2', false], ['qwen2.5-coder', false], ['qwen2.5-coder-ladder', false]]);
    assert.equal(c[0]!.variant.kind, 'oracle');
    assert.equal(c[3]!.description, 'openai-compatible at 127.0.0.1:11434');
    assert.deepEqual(c[3]!.variant.settings['model.escalation'], []);
    assert.deepEqual(c[4]!.variant.settings['model.escalation'], configured.escalation);
    // A configured vscode-lm model already among the chat models is not offered twice; none configured: oracle and chat only.
    assert.equal(variantChoices(chat, { provider: 'vscode-lm', id: 'gpt-4o', baseUrl: '' }).length, 3);
    assert.deepEqual(variantChoices([], undefined).map((x) => x.variant.name), ['oracle']);
  });

  it('says task i of n and the variant while running, moves the bar once per run', () => {
    const ids = ['t1', 't2', 't3'];
    assert.deepEqual(progressWords({ type: 'pair-start', pair: { task: 't2', variant: 'gpt-4o' }, running: 1 }, ids), { message: 'task 2 of 3 · gpt-4o' });
    const end = progressWords({ type: 'pair-end', pair: { task: 't3', variant: 'oracle' }, record: { stopReason: 'green', overfit: false } as PairRecord, done: 3, total: 6, etaMs: 125_000, spent: 0 }, ids);
    assert.equal(end?.message, '3 of 6 runs done · oracle × task 3: green · about 2 min left');
    assert.ok(Math.abs(end!.increment! - 100 / 6) < 1e-9);
    assert.match(progressWords({ type: 'verdict', explanation: { commit: 'abcdef0123456789', subject: 's', kept: true, reason: 'kept', detail: '' }, index: 0, total: 4 }, [])!.message, /^judging commit 1 of 4 \(abcdef0123\)/);
    assert.equal(progressWords({ type: 'jobs', jobs: 1, why: '' }, ids), undefined);
  });

  it('ends with one sentence: the best variant, the oracle misses, a changed folder, a cancel', () => {
    assert.equal(doneSentence({ tasks: 3, pairs: 6, cancelled: false, oracleMisses: [], untouched: true, best: { variant: 'gpt-4o', green: 2, pairs: 3 } }), 'Fix Until Green: Benchmark done: 3 tasks. Most green: gpt-4o (2/3).');
    assert.equal(doneSentence({ tasks: 3, pairs: 6, cancelled: false, oracleMisses: [], untouched: true, best: { variant: 'gpt-4o', green: 0, pairs: 3 } }), 'Fix Until Green: Benchmark done: 3 tasks. No model went green on any task.');
    assert.match(doneSentence({ tasks: 3, pairs: 2, cancelled: true, oracleMisses: ['t1'], untouched: false }), /cancelled after 2 runs; running it again goes on.*oracle missed 1 task.*CHANGED/);
    assert.match(doneSentence({ tasks: 0, pairs: 0, cancelled: false, oracleMisses: [], untouched: true }), /no commit of the last ones is a task/);
  });

  it('renders the report for the webview with the nonce on its stylesheet, no script, no style attribute, command trace links', () => {
    const plan = makePlan([task('t1')], [ORACLE_VARIANT], {}, 'auto', null);
    const rec: PairRecord = {
      plan: plan.id, task: 't1', variant: 'oracle', commit: 't1c', stopReason: 'green', outcome: 'fixed', detail: '', green: true, greenFull: true, overfit: false, heldOut: 0, steps: 1, stepsToGreen: 1, tokensIn: 10, tokensOut: 5, money: null, wallMs: 1,
      firstRepeatStep: null, tokensAfterFirstRepeat: 0, protectedDenied: 0, verifierDenied: 0, protectedMade: [], outsideReference: [], finalBytes: 'exact', finalFailures: 0, tracePath: '/st/bench/plans/p/runs/oracle/t1/storage/runs/r/trace.jsonl', at: '',
    };
    const nonce = 'bm9uY2Vub25jZW5vbmNl';
    const html = htmlReport(plan, summarize(plan, [rec]), [rec], [], { csp: reportCsp(nonce), styleNonce: nonce, traceHref: traceCommandHref });
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;nonce-bm9uY2Vub25jZW5vbmNl&#39;; img-src data:">/);
    assert.equal((html.match(/<style[ >]/g) ?? []).length, 1);
    assert.match(html, new RegExp(`<style nonce="${nonce}">`));
    assert.doesNotMatch(html, /<script|\sstyle="|https?:\/\//);
    assert.match(html, new RegExp(`href="command:${BENCH_OPEN_TRACE_COMMAND.replace(/\./g, '\\.')}\\?%5B%22%2Fst%2Fbench`));
    assert.match(html, /<tr data-testid="pair-row" data-variant="oracle" class="green">/);
    // The file on disk allows its stylesheet by hash, not 'unsafe-inline'.
    const file = htmlReport(plan, summarize(plan, [rec]), [rec]);
    assert.equal(reportStyleHash(), `'sha256-${createHash('sha256').update(REPORT_CSS).digest('base64')}'`);
    assert.ok(file.includes(`style-src ${reportStyleHash().replace(/'/g, '&#39;')}`));
    assert.doesNotMatch(file, /unsafe-inline/);
  });
});

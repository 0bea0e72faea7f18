// Token usage read from the hosts' transcripts, in the shapes the real hosts wrote them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { readTranscriptUsage, transcriptUsage } from '../../../src/core/gate/transcript';
import { tempTree } from '../../support/fixtures';

describe('transcriptUsage', () => {
  it("reads Codex's rollout: one token_usage_record per response, its model from turn_context, cached input not added twice", () => {
    const usage = (input: number, cached: number, output: number): Record<string, number> => ({ input_tokens: input, cached_input_tokens: cached, cache_write_input_tokens: 0, output_tokens: output, reasoning_output_tokens: 0, total_tokens: input + output });
    const lines = [
      { type: 'session_meta', payload: { id: 's' } },
      { type: 'turn_context', payload: { turn_id: 't', cwd: '/p', model: 'gpt-5.5' } },
      { type: 'token_usage_record', payload: { turn_id: 't', response_id: 'resp_1', usage: usage(100, 0, 50), thread_token_usage: usage(100, 0, 50) } },
      { type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: usage(100, 0, 50) } } },
      { type: 'token_usage_record', payload: { turn_id: 't', response_id: 'resp_2', usage: usage(300, 200, 20), thread_token_usage: usage(400, 200, 70) } },
    ];
    const t = tempTree({ 'rollout.jsonl': lines.map((l) => JSON.stringify(l)).join('\n') + '\n{"type":"token_usage_rec' });
    try {
      const u = transcriptUsage(path.join(t.dir, 'rollout.jsonl'), { 'gpt-5.5': { input: 1, output: 10 } });
      assert.deepEqual({ ...u, costUsed: null }, { tokensUsed: 470, lastInputTokens: 300, calls: 2, costUsed: null, nextCallMinCost: 300 / 1e6 });
      assert.ok(Math.abs(u!.costUsed! - (400 + 700) / 1e6) < 1e-12);
    } finally {
      t.cleanup();
    }
  });

  it("reads Claude Code's transcript: usage repeated on each part of a message counts once", () => {
    const part = (output: number): string => JSON.stringify({ type: 'assistant', message: { id: 'msg_1', role: 'assistant', model: 'claude-x', usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: output } } });
    const t = tempTree({ 't.jsonl': [part(1), part(40)].join('\n') + '\n' });
    try {
      const u = transcriptUsage(path.join(t.dir, 't.jsonl'));
      assert.equal(u?.tokensUsed, 140);
      assert.equal(u?.calls, 1);
      assert.equal(u?.costUsed, null);
    } finally {
      t.cleanup();
    }
  });

  it("reads Gemini CLI's chat JSONL: a response rewritten under its id counts once, thoughts and tool-use prompt on top", () => {
    // As Gemini CLI 0.61.0 wrote it here: the same response again once it gained its tool calls.
    const response = (id: string, extra: Record<string, unknown> = {}): string =>
      JSON.stringify({ id, timestamp: '2026-11-27T06:00:34.299Z', type: 'gemini', content: '', thoughts: [], tokens: { input: 100, output: 5, cached: 60, thoughts: 20, tool: 3, total: 128 }, model: 'gemini-2.5-flash', ...extra });
    const lines = [
      JSON.stringify({ sessionId: 's', projectHash: 'h', startTime: '2026-11-27T06:00:33.759Z', kind: 'main' }),
      JSON.stringify({ id: 'u1', type: 'user', content: [{ text: 'Fix the failing cart total.' }] }),
      response('r1'),
      JSON.stringify({ $set: { lastUpdated: '2026-11-27T06:00:34.300Z' } }),
      response('r1', { toolCalls: [{ id: 'replace_1', name: 'replace' }] }),
      response('r2', { content: 'Done, all tests pass.' }),
    ];
    const t = tempTree({ 'session.jsonl': lines.join('\n') + '\n' });
    try {
      const u = transcriptUsage(path.join(t.dir, 'session.jsonl'), { 'gemini-2.5-flash': { input: 1, output: 10 } });
      assert.deepEqual({ ...u, costUsed: null }, { tokensUsed: 2 * 128, lastInputTokens: 103, calls: 2, costUsed: null, nextCallMinCost: 103 / 1e6 });
      assert.ok(Math.abs(u!.costUsed! - 2 * (103 + 250) / 1e6) < 1e-12);
    } finally {
      t.cleanup();
    }
  });

  it('reads a host-named transcript only as a regular file, bounded in size and time, and across chunk boundaries', () => {
    const part = (id: string): string => JSON.stringify({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'é'.repeat(700_000) }], usage: { input_tokens: 10, output_tokens: 5 } } });
    const t = tempTree({ 't.jsonl': [part('m1'), part('m2')].join('\n') + '\n' });
    try {
      const file = path.join(t.dir, 't.jsonl');
      // Two lines of 1.4 MB each, UTF-8 characters cut by the 1 MiB chunks: both still counted.
      assert.equal(readTranscriptUsage(file).usage?.calls, 2);
      assert.match(readTranscriptUsage(file, {}, { maxBytes: 1000 }).problem ?? '', /more than the 1000 read at most/);
      assert.match(readTranscriptUsage(file, {}, { deadline: Date.now() - 1 }).problem ?? '', /could not be read within the hook's time/);
      const fifo = path.join(t.dir, 'pipe');
      execFileSync('mkfifo', [fifo]);
      assert.match(readTranscriptUsage(fifo).problem ?? '', /is a FIFO \(named pipe\); it is not read/);
      assert.match(readTranscriptUsage('/dev/zero').problem ?? '', /is a character device; it is not read/);
      symlinkSync(file, path.join(t.dir, 'link.jsonl'));
      assert.match(readTranscriptUsage(path.join(t.dir, 'link.jsonl')).problem ?? '', /is a symbolic link; it is not read/);
    } finally {
      t.cleanup();
    }
  });
});

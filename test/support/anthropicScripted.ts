// A scripted Anthropic Messages API server (streaming and not), in the test's own process, that a
// real Claude Code talks to offline: the model is the only fake. Each main-loop request (one that
// offers tools) gets the next scripted content; side requests (titles, summaries) get "ok". Every
// request body is kept so a test can see what Claude Code sent the model (a Stop hook's reason).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface ScriptedServer {
  url: string;
  /** Bodies of the main-loop requests, in order. */
  mainRequests: Record<string, unknown>[];
  close(): Promise<void>;
}

/** `next(n)` gives the content of the n-th (0-based) main-loop reply. */
export async function startScriptedAnthropic(next: (n: number, body: Record<string, unknown>) => Block[]): Promise<ScriptedServer> {
  const mainRequests: Record<string, unknown>[] = [];
  let ids = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      if (!req.url?.includes('/v1/messages')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      const j = JSON.parse(body || '{}') as Record<string, unknown>;
      const isMain = Array.isArray(j.tools) && j.tools.length > 0;
      let content: Block[];
      if (isMain) {
        content = next(mainRequests.length, j);
        mainRequests.push(j);
      } else content = [{ type: 'text', text: 'ok' }];
      const stop = content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn';
      const msg = { id: `msg_${++ids}`, type: 'message', role: 'assistant', model: j.model, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 50 } };
      if (!j.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(msg));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ev = (t: string, d: Record<string, unknown>): boolean => res.write(`event: ${t}\ndata: ${JSON.stringify({ type: t, ...d })}\n\n`);
      ev('message_start', { message: { ...msg, content: [], stop_reason: null } });
      content.forEach((c, i) => {
        if (c.type === 'text') {
          ev('content_block_start', { index: i, content_block: { type: 'text', text: '' } });
          ev('content_block_delta', { index: i, delta: { type: 'text_delta', text: c.text } });
        } else {
          ev('content_block_start', { index: i, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
          ev('content_block_delta', { index: i, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } });
        }
        ev('content_block_stop', { index: i });
      });
      ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 50 } });
      ev('message_stop', {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    mainRequests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every text the model was sent in a request's messages (tool results included). */
export function requestTexts(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(walk);
  };
  walk(body.messages);
  return out;
}

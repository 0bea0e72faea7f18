// A scripted OpenAI Responses API server (`POST /v1/responses`, streamed as SSE), in the test's own
// process, that a real Codex CLI talks to offline through a custom `model_provider` with
// `wire_api = "responses"`: the model is the only fake. Each main-loop request (one that offers
// tools) gets the next scripted output items; a request without tools gets "ok". Every main request
// body is kept so a test can see what Codex sent the model (a Stop hook's reason).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One output item of a scripted reply. */
export type OutputItem =
  | { type: 'text'; text: string }
  /** A freeform tool call (Codex's `apply_patch` takes the patch text as its whole input). */
  | { type: 'custom_tool_call'; name: string; input: string }
  | { type: 'function_call'; name: string; arguments: Record<string, unknown> };

export interface ScriptedResponses {
  /** The base URL a provider's `base_url` takes (ends in `/v1`). */
  url: string;
  /** Bodies of the main-loop requests, in order. */
  mainRequests: Record<string, unknown>[];
  /** Method and path of every request, in order (anything but `/v1/responses` is answered 404). */
  requests: string[];
  close(): Promise<void>;
}

const USAGE = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 150 };

function wireItem(it: OutputItem, id: string): Record<string, unknown> {
  switch (it.type) {
    case 'text':
      return { type: 'message', id, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: it.text, annotations: [] }] };
    case 'custom_tool_call':
      return { type: 'custom_tool_call', id, status: 'completed', call_id: `call_${id}`, name: it.name, input: it.input };
    case 'function_call':
      return { type: 'function_call', id, status: 'completed', call_id: `call_${id}`, name: it.name, arguments: JSON.stringify(it.arguments) };
  }
}

/** `next(n)` gives the output items of the n-th (0-based) main-loop reply. */
export async function startScriptedResponses(next: (n: number, body: Record<string, unknown>) => OutputItem[]): Promise<ScriptedResponses> {
  const mainRequests: Record<string, unknown>[] = [];
  const requests: string[] = [];
  let ids = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `the scripted server answers only POST /v1/responses, not ${req.method} ${req.url}` } }));
        return;
      }
      const j = JSON.parse(body || '{}') as Record<string, unknown>;
      const isMain = Array.isArray(j.tools) && j.tools.length > 0;
      let items: OutputItem[];
      if (isMain) {
        items = next(mainRequests.length, j);
        mainRequests.push(j);
      } else items = [{ type: 'text', text: 'ok' }];
      const rid = `resp_${++ids}`;
      const output = items.map((it, i) => wireItem(it, `item_${ids}_${i}`));
      const response = { id: rid, object: 'response', status: 'in_progress', model: j.model, output: [] as unknown[] };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let seq = 0;
      const ev = (type: string, d: Record<string, unknown>): boolean => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...d })}\n\n`);
      ev('response.created', { response });
      output.forEach((item, i) => {
        const src = items[i]!;
        if (src.type === 'text') {
          ev('response.output_item.added', { output_index: i, item: { ...item, status: 'in_progress', content: [] } });
          ev('response.output_text.delta', { output_index: i, item_id: item.id, content_index: 0, delta: src.text });
        } else ev('response.output_item.added', { output_index: i, item: { ...item, status: 'in_progress' } });
        ev('response.output_item.done', { output_index: i, item });
      });
      ev('response.completed', { response: { ...response, status: 'completed', output, usage: USAGE } });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    mainRequests,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

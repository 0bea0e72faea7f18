// A scripted Gemini API server (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse` and
// `:generateContent`), in the test's own process, that a real Gemini CLI talks to offline through
// `GOOGLE_GEMINI_BASE_URL`: the model is the only fake. Each main-loop request (one that offers
// tools) gets the next scripted parts; a side request without tools (the model router's
// classifier, the next-speaker check) gets the text "{}". Every main request body is kept so a
// test can see what Gemini CLI sent the model (an AfterAgent hook's reason).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One part of a scripted reply: text, or a call of one of the CLI's tools (`write_file`, `replace`...). */
export type Part = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

/** One turn of the conversation as the CLI sends it back (`contents[]`). */
export interface Content {
  role?: string;
  parts?: { text?: string; functionCall?: unknown; functionResponse?: unknown }[];
}

export interface ScriptedGemini {
  /** What `GOOGLE_GEMINI_BASE_URL` takes (the SDK appends `/v1beta/models/...`). */
  url: string;
  /** Bodies of the main-loop requests, in order. */
  mainRequests: { contents: Content[]; tools: unknown[] }[];
  /** Method and path of every request, in order (anything but generateContent is answered 404). */
  requests: string[];
  close(): Promise<void>;
}

const USAGE = { promptTokenCount: 100, candidatesTokenCount: 50, totalTokenCount: 150 };

/** `next(n)` gives the parts of the n-th (0-based) main-loop reply. */
export async function startScriptedGemini(next: (n: number) => Part[]): Promise<ScriptedGemini> {
  const mainRequests: ScriptedGemini['mainRequests'] = [];
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      const m = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)(\?|$)/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 404, status: 'NOT_FOUND', message: `the scripted server answers only generateContent, not ${req.method} ${req.url}` } }));
        return;
      }
      const j = JSON.parse(body || '{}') as { contents?: Content[]; tools?: unknown[] };
      const isMain = Array.isArray(j.tools) && j.tools.length > 0;
      let parts: Part[];
      if (isMain) {
        parts = next(mainRequests.length);
        mainRequests.push({ contents: j.contents ?? [], tools: j.tools ?? [] });
      } else parts = [{ text: '{}' }];
      const reply = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: USAGE, modelVersion: m[1] };
      if (m[2] === 'streamGenerateContent') {
        // One SSE event with the whole reply: the SDK accepts any split, and the CLI joins the chunks.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(reply)}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    mainRequests,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// A local model server for tests: speaks the OpenAI chat-completions API (and, for the anthropic
// provider, the Anthropic messages API) on 127.0.0.1, answers from a script, reports usage that
// honours the request's output limit, and injects faults on demand. The only fake the project
// allows is the model; everything between the provider and the socket is real.
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getEncoding } from 'js-tiktoken';
import type { Tiktoken } from 'js-tiktoken';

/** A scripted answer. `content: null` sends a reply with no text (e.g. only a tool call). */
export interface FakeReply {
  content: string | null;
  /** Overrides the finish reason; by default `stop`, or `length` when the output limit cut the text. */
  finishReason?: string;
  /** Overrides the reported usage for this reply; `false` omits usage from the response. */
  usage?: { input?: number; output?: number } | false;
  /** With `content: null`: send a tool call instead of text. */
  toolCall?: boolean;
  /** Waits this long before answering (a slow but successful server). */
  delayMs?: number;
}

export type FakeFault =
  /** An HTTP error with an OpenAI-style error body. `retryAfter` sets the Retry-After header (seconds or a date). */
  | { fault: 'status'; status: number; message?: string; code?: string; retryAfter?: string | number; retryAfterMs?: number }
  /** The connection is destroyed after the request is read, with no response. */
  | { fault: 'reset' }
  /** No answer for `delayMs` (default: never); a client timeout or abort ends it. */
  | { fault: 'slow'; delayMs?: number }
  /** A 200 whose body is this raw string (malformed JSON, an empty choices list, ...). */
  | { fault: 'raw'; body: string; status?: number; contentType?: string }
  /** A 200 whose headers promise a longer body: `body` is sent, then the connection is destroyed mid-body. */
  | { fault: 'cut'; body: string; contentType?: string };

export type FakeStep = FakeReply | FakeFault;

export interface FakeUsageModel {
  /**
   * Multiplies the counted input tokens, to play a provider whose tokenizer counts more (or fewer)
   * tokens than ours. Default 1.
   */
  inputScale?: number;
  /** Added to every reported input count. Default 0. */
  inputExtra?: number;
  /**
   * `text` (default): output is the reply's token count, cut to the request's limit.
   * `max`: the model always writes up to the limit (the worst case for a budget).
   */
  output?: 'text' | 'max';
  /** Omit usage from every response (a server that reports none). */
  omit?: boolean;
}

export interface FakeOpenAIOptions {
  /** Plain text replies, one per request. Shorthand for a script of `{content}` steps. */
  replies?: string[];
  /** Replies and faults, consumed one per model request, in order. */
  script?: FakeStep[];
  /** Faults keyed by the 0-based index of the model request they answer; they do not consume the script. */
  faults?: Record<number, FakeFault>;
  usage?: FakeUsageModel;
  /** When set, a request must carry `Authorization: Bearer <apiKey>` (or `x-api-key`), else 401. */
  apiKey?: string;
  /** Model ids the server serves; a request for another gets 404 model_not_found. Default: any. */
  models?: string[];
  /** Refuse `max_tokens` with a 400 that asks for `max_completion_tokens`, as OpenAI's reasoning models do. */
  requireMaxCompletionTokens?: boolean;
  /** When the script runs out: answer 400 (default) or repeat the last reply. */
  whenExhausted?: 'error' | 'repeat-last';
  port?: number;
  /** Appends every request, as one JSON line, to this file (the Authorization header redacted). */
  logFile?: string;
}

export interface FakeRequest {
  /** 0-based index among model requests (chat completions and messages); -1 for other paths. */
  index: number;
  method: string;
  path: string;
  api: 'openai' | 'anthropic' | 'other';
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  model: string | undefined;
  /** The output limit the request asked for: max_tokens or max_completion_tokens. */
  maxTokens: number | undefined;
  /** What the server did: `reply`, or the fault it served. */
  outcome: string;
  /** Usage reported in the response, when one was sent. */
  usage?: { input: number; output: number };
  at: number;
}

export interface FakeOpenAI {
  /** Base URL for OpenAI clients, ending in `/v1`. */
  url: string;
  /** The server's origin, for Anthropic clients (which add `/v1` themselves). */
  origin: string;
  port: number;
  requests: FakeRequest[];
  /** Model requests received so far, answered or not (`requests` lists a request once it is answered). */
  received(): number;
  /** Serves this fault to the next model request (before any keyed or scripted step). */
  queueFault(f: FakeFault): void;
  /** Appends steps to the script. */
  push(...steps: FakeStep[]): void;
  close(): Promise<void>;
}

let encoding: Tiktoken | undefined;
/** The server counts with cl100k_base, a different tokenizer than the engine's o200k_base, as a real provider would. */
function count(text: string): number {
  encoding ??= getEncoding('cl100k_base');
  return encoding.encode(text, 'all').length;
}

function cut(text: string, maxTokens: number): string {
  encoding ??= getEncoding('cl100k_base');
  const ids = encoding.encode(text, 'all');
  return ids.length <= maxTokens ? text : encoding.decode(ids.slice(0, maxTokens));
}

function isFault(s: FakeStep): s is FakeFault {
  return 'fault' in s;
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
  return '';
}

function redactHeaders(h: IncomingMessage['headers']): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = { ...h };
  for (const k of ['authorization', 'x-api-key']) if (out[k] !== undefined) out[k] = '<redacted>';
  return out;
}

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const script: FakeStep[] = [...(opts.replies ?? []).map((content): FakeStep => ({ content })), ...(opts.script ?? [])];
  const queued: FakeFault[] = [];
  const requests: FakeRequest[] = [];
  const sockets = new Set<Socket>();
  let next = 0;
  let modelRequests = 0;
  let lastReply: FakeReply | undefined;

  const log = (r: FakeRequest): void => {
    requests.push(r);
    if (opts.logFile) appendFileSync(opts.logFile, JSON.stringify({ ...r, headers: redactHeaders(r.headers as IncomingMessage['headers']) }) + '\n');
  };

  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  const errorBody = (api: FakeRequest['api'], status: number, message: string, code?: string): unknown =>
    api === 'anthropic'
      ? { type: 'error', error: { type: status === 401 ? 'authentication_error' : status === 404 ? 'not_found_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error', message } }
      : { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: code ?? null } };

  async function serveFault(f: FakeFault, api: FakeRequest['api'], req: IncomingMessage, res: ServerResponse): Promise<void> {
    switch (f.fault) {
      case 'status': {
        const headers: Record<string, string> = {};
        if (f.retryAfter !== undefined) headers['retry-after'] = String(f.retryAfter);
        if (f.retryAfterMs !== undefined) headers['retry-after-ms'] = String(f.retryAfterMs);
        // Real gateways ask the SDK not to retry on their own; ours retries by policy, not by header.
        headers['x-should-retry'] = 'false';
        sendJson(res, f.status, errorBody(api, f.status, f.message ?? `fake server fault ${f.status}`, f.code), headers);
        return;
      }
      case 'reset':
        req.socket.destroy();
        return;
      case 'slow': {
        const closed = once(res, 'close');
        if (f.delayMs === undefined) {
          await closed;
          return;
        }
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, new Promise((r) => (timer = setTimeout(r, f.delayMs)))]);
        clearTimeout(timer);
        if (!res.destroyed && !res.writableEnded) sendJson(res, 503, errorBody(api, 503, 'fake server was slow and gave up'));
        return;
      }
      case 'raw':
        res.writeHead(f.status ?? 200, { 'content-type': f.contentType ?? 'application/json' });
        res.end(f.body);
        return;
      case 'cut':
        res.writeHead(200, { 'content-type': f.contentType ?? 'application/json', 'content-length': Buffer.byteLength(f.body) + 4096 });
        res.write(f.body);
        // Let the first part reach the client before the connection breaks.
        await new Promise((r) => setTimeout(r, 30));
        req.socket.destroy();
        return;
    }
  }

  async function handleModel(req: IncomingMessage, res: ServerResponse, api: 'openai' | 'anthropic', body: Record<string, unknown>, record: FakeRequest): Promise<void> {
    const index = modelRequests++;
    record.index = index;
    const model = typeof body.model === 'string' ? body.model : undefined;
    record.model = model;
    const maxTokens = typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
    record.maxTokens = maxTokens;

    if (opts.apiKey !== undefined) {
      const auth = req.headers.authorization;
      const given = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : (req.headers['x-api-key'] as string | undefined);
      if (given !== opts.apiKey) {
        record.outcome = 'status 401';
        log(record);
        // Like some real servers, the body echoes the key it was given: the client must not repeat it.
        sendJson(res, 401, errorBody(api, 401, `Incorrect API key provided: ${given ?? '(none)'}.`, 'invalid_api_key'));
        return;
      }
    }
    if (opts.models && model !== undefined && !opts.models.includes(model)) {
      record.outcome = 'status 404';
      log(record);
      sendJson(res, 404, errorBody(api, 404, `The model \`${model}\` does not exist or you do not have access to it.`, 'model_not_found'));
      return;
    }
    if (api === 'openai' && opts.requireMaxCompletionTokens && body.max_tokens !== undefined) {
      record.outcome = 'status 400 max_tokens';
      log(record);
      sendJson(res, 400, { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } });
      return;
    }

    let step: FakeStep | undefined = queued.shift() ?? opts.faults?.[index];
    if (!step) {
      step = script[next];
      if (step) next++;
      else if (opts.whenExhausted === 'repeat-last' && lastReply) step = lastReply;
    }
    if (!step) {
      record.outcome = 'exhausted';
      log(record);
      sendJson(res, 400, errorBody(api, 400, `fake server script exhausted: it has ${script.length} step(s) and request ${index + 1} asked for another`));
      return;
    }
    if (isFault(step)) {
      record.outcome = step.fault === 'status' ? `status ${step.status}` : step.fault;
      log(record);
      await serveFault(step, api, req, res);
      return;
    }
    lastReply = step;
    if (step.delayMs) {
      const closed = once(res, 'close');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise((r) => (timer = setTimeout(r, step.delayMs)))]);
      clearTimeout(timer);
      if (res.destroyed) {
        record.outcome = 'aborted by client';
        log(record);
        return;
      }
    }

    // Input: the server's own count of what it was sent, framed as chat formats are.
    const system = api === 'anthropic' ? messageText(body.system) : '';
    const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
    const counted = count(system) + messages.reduce((n, m) => n + count(messageText(m.content)) + 4, 0) + 3;
    const u = opts.usage ?? {};
    let input = Math.ceil(counted * (u.inputScale ?? 1)) + (u.inputExtra ?? 0);
    const limit = maxTokens ?? Number.MAX_SAFE_INTEGER;
    let text = step.content;
    let output = text === null ? 0 : count(text);
    let finish = step.finishReason ?? 'stop';
    if (text !== null && output > limit) {
      text = cut(text, limit);
      output = limit;
      finish = step.finishReason ?? 'length';
    }
    if (u.output === 'max' && maxTokens !== undefined) {
      output = maxTokens;
      if (!step.finishReason) finish = 'length';
    }
    if (step.usage) {
      input = step.usage.input ?? input;
      output = Math.min(step.usage.output ?? output, limit);
    }
    const reportUsage = !u.omit && step.usage !== false;
    record.outcome = 'reply';
    if (reportUsage) record.usage = { input, output };
    log(record);

    if (api === 'anthropic') {
      const stop = finish === 'length' ? 'max_tokens' : finish === 'stop' ? 'end_turn' : finish;
      const content = text !== null ? [{ type: 'text', text }] : step.toolCall ? [{ type: 'tool_use', id: 'toolu_fake', name: 'edit', input: {} }] : [];
      sendJson(res, 200, {
        id: `msg_fake_${index}`,
        type: 'message',
        role: 'assistant',
        model: model ?? 'fake',
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: reportUsage ? { input_tokens: input, output_tokens: output } : { input_tokens: 0, output_tokens: 0 },
      });
      return;
    }

    const message: Record<string, unknown> = { role: 'assistant', content: text, refusal: null };
    if (text === null && step.toolCall) {
      message.tool_calls = [{ id: 'call_fake', type: 'function', function: { name: 'edit', arguments: '{}' } }];
      if (!step.finishReason) finish = 'tool_calls';
    }
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: unknown, finishReason: string | null, usage?: unknown): string =>
        `data: ${JSON.stringify({ id: `chatcmpl-fake-${index}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: model ?? 'fake', choices: [{ index: 0, delta, finish_reason: finishReason }], ...(usage ? { usage } : {}) })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }, null));
      if (text) for (let i = 0; i < text.length; i += 64) res.write(chunk({ content: text.slice(i, i + 64) }, null));
      const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      res.write(chunk({}, finish, includeUsage && reportUsage ? { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } : undefined));
      res.end('data: [DONE]\n\n');
      return;
    }
    sendJson(res, 200, {
      id: `chatcmpl-fake-${index}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: model ?? 'fake',
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      ...(reportUsage ? { usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } } : {}),
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = undefined;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch (e) {
        sendJson(res, 400, errorBody('openai', 400, `request body is not JSON: ${(e as Error).message}`));
        return;
      }
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const p = url.pathname.replace(/\/+$/, '');
    const record: FakeRequest = { index: -1, method: req.method ?? 'GET', path: p, api: 'other', headers: req.headers, body, model: undefined, maxTokens: undefined, outcome: '', at: Date.now() };
    if (req.method === 'POST' && /\/chat\/completions$/.test(p)) {
      record.api = 'openai';
      await handleModel(req, res, 'openai', (body ?? {}) as Record<string, unknown>, record);
      return;
    }
    if (req.method === 'POST' && /\/messages\/count_tokens$/.test(p)) {
      const b = (body ?? {}) as Record<string, unknown>;
      const messages = Array.isArray(b.messages) ? (b.messages as { content?: unknown }[]) : [];
      const counted = count(messageText(b.system)) + messages.reduce((n, m) => n + count(messageText(m.content)) + 4, 0) + 3;
      record.outcome = 'count_tokens';
      log(record);
      sendJson(res, 200, { input_tokens: Math.ceil(counted * (opts.usage?.inputScale ?? 1)) + (opts.usage?.inputExtra ?? 0) });
      return;
    }
    if (req.method === 'POST' && /\/messages$/.test(p)) {
      record.api = 'anthropic';
      await handleModel(req, res, 'anthropic', (body ?? {}) as Record<string, unknown>, record);
      return;
    }
    // Control routes, for a harness that runs this server in another process.
    if (p === '/__fake/requests' && req.method === 'GET') {
      sendJson(res, 200, requests.map((r) => ({ ...r, headers: redactHeaders(r.headers as IncomingMessage['headers']) })));
      return;
    }
    if (p === '/__fake/fault' && req.method === 'POST') {
      queued.push(body as FakeFault);
      sendJson(res, 200, { queued: queued.length });
      return;
    }
    if (p === '/__fake/script' && req.method === 'POST') {
      const steps = (body as { steps?: FakeStep[] } | undefined)?.steps;
      if (!Array.isArray(steps)) {
        sendJson(res, 400, errorBody('openai', 400, 'POST /__fake/script needs {"steps": [...]}'));
        return;
      }
      script.push(...steps);
      sendJson(res, 200, { steps: script.length, next });
      return;
    }
    if (req.method === 'GET' && /\/models$/.test(p)) {
      const auth = req.headers.authorization;
      const given = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : (req.headers['x-api-key'] as string | undefined);
      if (opts.apiKey !== undefined && given !== opts.apiKey) {
        record.outcome = 'models 401';
        log(record);
        sendJson(res, 401, errorBody('openai', 401, `Incorrect API key provided: ${given ?? '(none)'}.`, 'invalid_api_key'));
        return;
      }
      record.outcome = 'models';
      log(record);
      const ids = opts.models ?? ['fake-model'];
      sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
      return;
    }
    record.outcome = 'status 404 path';
    log(record);
    sendJson(res, 404, errorBody('openai', 404, `no route for ${req.method} ${p}`));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody('openai', 500, `fake server error: ${(e as Error).message}`));
      else res.destroy();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(opts.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/v1`,
    origin,
    port,
    requests,
    received: () => modelRequests,
    queueFault: (f) => {
      queued.push(f);
    },
    push: (...steps) => {
      script.push(...steps);
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
